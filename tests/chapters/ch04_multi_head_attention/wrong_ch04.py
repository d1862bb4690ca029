"""Chapter 4's known-wrong submissions (04-multi-head-attention-keras and -pytorch).

Each Wrong declares a student, the scores of the test cells that do not get full marks, why, and
what the feedback must show; the student's code (the answer cells that differ from the solution,
in full) is in wrong/<student>-<framework>.py beside this file. tests/harness/declarations.py
describes both; tests/test_grading.py grades them.
"""
from harness.declarations import Wrong

WRONG = [
    Wrong("split_no_transpose",
          {"test_split_merge_visible": 0, "test_split_heads_hidden": 0},
          "Reshaping straight to (B, h, L, d_head) gives the right shape and scrambled heads: the "
          "visible check of which columns head i holds shows it (0 of 1), the hidden split test too (0 "
          "of 2); merge_heads is checked on its own (1 point), and parts 2 to 5 use a reference split: "
          "13.",
          message="head i holds the columns i*d_head:(i+1)*d_head of every position"),
    Wrong("merge_no_transpose",
          {"test_split_merge_visible": 0, "test_merge_heads_hidden": 0},
          "Merging with a reshape alone, without moving the heads back behind the positions, mixes "
          "positions: the visible merge check shows it (0 of 1), the hidden merge test too (0 of 1); "
          "split_heads keeps its 2 hidden points, and parts 2 to 5 use a reference merge: 14.",
          message="merge_heads puts head i's vector of each position back"),
    Wrong("mask_not_per_head",
          {"test_masks_visible": 0, "test_masks_hidden": 0, "test_cross_attention_padding_hidden": 0},
          "Without a head axis, a (B, 1, S) or (B, L, S) mask lines its batch axis up with the heads: an "
          "error when B differs from h (the visible mask test, 0 of 1), wrong weights when B = h (the "
          "hidden mask test, 0 of 2, and the padded cross-attention test, 0 of 1); (L, S) masks and the "
          "unmasked tests are right: 12.",
          message="with a padding mask of shape (B, 1, S) = (2, 1, 5) the layer raised"),
    Wrong("mask_head_axis_1",
          {"test_masks_hidden": 0},
          "The head axis added at position 1 instead of -3 is the same for (B, L, S) and (B, 1, S) "
          "masks, all that the visible tests and the cross-attention tests use; a causal (L, S) mask "
          "becomes (L, 1, S) and no longer broadcasts over (B, h, L, S) (hidden mask test: 0 of 2): 14.",
          message="with a causal (L, S) mask of shape (4, 4)"),
    Wrong("loop_over_heads",
          {"test_batched_visible": 0, "test_batched_hidden": 0},
          "The definition's loop over the heads, each head attending on its own columns: every value is "
          "right (parts 2 to 4: 10 points), but one forward pass runs its operations once per head, "
          "which both part-5 tests count (0 of 2): 14.",
          message="so your layer does some work once per head"),
    Wrong("cross_uses_query",
          {"test_cross_attention_visible": 0, "test_cross_attention_hidden": 0,
           "test_cross_attention_padding_hidden": 0},
          "Keys and values projected from query_input: self-attention is right (parts 2, 3 and 5: 10 "
          "points), but cross-attention attends over the L queries instead of the S source positions: "
          "(B, h, L, L) weights, in the visible test (0 of 1) and both hidden ones (0 of 2): 13.",
          message="expected weights of shape (B, h, L, S) = (2, 2, 3, 6), got (2, 2, 3, 3)"),
    Wrong("output_projection_skipped",
          {"test_layer_visible": 0, "test_layer_hidden": 0},
          "The merged heads returned without W_O: the shapes are right ((B, L, d_model) either way), but "
          "the visible case by hand (W_O = 0, bias b) shows it (0 of 1), and the hidden comparison with "
          "the library (0 of 3); the mask and cross-attention tests load the identity as W_O, so they "
          "check the attention alone and pass (8 points), and so does part 5: 12.",
          message="with the output projection's weight 0 and bias b, every output vector should be b"),
    Wrong("split_merge_only",
          {"test_layer_visible": 0, "test_layer_hidden": 0, "test_masks_visible": 0, "test_masks_hidden": 0,
           "test_cross_attention_visible": 0, "test_cross_attention_hidden": 0,
           "test_cross_attention_padding_hidden": 0, "test_batched_visible": 0, "test_batched_hidden": 0},
          "Only part 1 done, the layer left as released: the nine test cells of parts 2 to 5 score 0, "
          "and part 1 keeps its 4 points.",
          message="NotImplementedError"),
]
