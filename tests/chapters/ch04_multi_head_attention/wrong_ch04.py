"""Chapter 4's known-wrong submissions (04-multi-head-attention-keras and -pytorch).

Points per part (16): 1 split_heads(x, d_head) and merge_heads, 2 (visible 1, hidden 1); 2 the layer,
MultiHeadAttention(d_model, num_heads, d_head=None) with a head width of its own if asked, 2 (visible 1,
hidden 1); 3 its masks, 2 (visible 1, hidden 1); 4 cross-attention, 2 (visible 1, hidden
1); 5 all heads at once, 2 (visible 1, hidden 1); 6 predict and measure the parameter count, 3
(visible 1, prediction 1, measurement 1); 7 grouped-query attention, the variation, 3 (visible 1,
hidden without masks 1, hidden with masks 1).

Each Wrong declares a student, the scores of the test cells that do not get full marks, why, and
what the feedback must show; the student's code (the answer cells that differ from the solution,
in full) is in wrong/<student>-<framework>.py beside this file. tests/harness/declarations.py
describes both; tests/test_grading.py grades them.
"""
from harness.declarations import Wrong

WRONG = [
    Wrong("split_no_transpose",
          {"test_split_merge_visible": 0, "test_split_merge_hidden": 0},
          "Reshaping straight to (B, h, L, d_head) gives the right shape and scrambled heads: the "
          "visible check of which columns head i holds shows it (0 of 1), the hidden split test too (0 "
          "of 1, with merge_heads in the same cell); parts 2 to 7 use a reference split or none: 14.",
          message="head i holds the columns i*d_head:(i+1)*d_head of every position"),
    Wrong("split_heads_by_count",
          {"test_split_merge_visible": 0, "test_split_merge_hidden": 0},
          "The chapter's split_heads(x, num_heads) pasted: part 1 asks for split_heads(x, d_head), so "
          "split_heads(x, 4) on d_model = 8 makes 4 heads of width 2 instead of 2 heads of width 4 (the "
          "visible test, 0 of 1; the hidden one, 0 of 1); parts 2 to 7 use a reference split: 14.",
          message="split_heads(x, 4) should have shape (B, h, L, d_head) = (2, 2, 3, 4), got (2, 4, 3, 2)"),
    Wrong("merge_no_transpose",
          {"test_split_merge_visible": 0, "test_split_merge_hidden": 0},
          "Merging with a reshape alone, without moving the heads back behind the positions, mixes "
          "positions: the visible merge check shows it (0 of 1), the hidden merge test too (0 of 1); "
          "parts 2 to 7 use a reference merge or none: 14.",
          message="merge_heads puts head i's vector of each position back"),
    Wrong("mask_not_per_head",
          {"test_masks_visible": 0, "test_masks_hidden": 0, "test_cross_attention_hidden": 0},
          "Without a head axis, a (B, 1, S) or (B, L, S) mask lines its batch axis up with the heads: an "
          "error when B differs from h (the visible mask test, 0 of 1), wrong weights when B = h (the "
          "hidden mask test, 0 of 1, and the padded cases of the hidden cross-attention test, 0 of 1); "
          "(L, S) masks and the unmasked tests are right, and part 7 is its own layer: 13.",
          message="with a padding mask of shape (B, 1, S) = (2, 1, 5) the layer raised"),
    Wrong("mask_head_axis_1",
          {"test_masks_hidden": 0},
          "The head axis added at position 1 instead of -3 is the same for (B, L, S) and (B, 1, S) "
          "masks, all that the visible tests and the cross-attention tests use; a causal (L, S) mask "
          "becomes (L, 1, S) and no longer broadcasts over (B, h, L, S) (hidden mask test: 0 of 1): 15.",
          message="with a causal (L, S) mask of shape (4, 4)"),
    Wrong("loop_over_heads",
          {"test_batched_visible": 0, "test_batched_hidden": 0},
          "The definition's loop over the heads, each head attending on its own columns: every value is "
          "right (parts 2 to 4: 6 points), but one forward pass runs its operations once per head, "
          "which both part-5 tests count (0 of 2); parts 1, 6 and 7 keep their 8: 14.",
          message="so your layer does some work once per head"),
    Wrong("cross_uses_query",
          {"test_cross_attention_visible": 0, "test_cross_attention_hidden": 0},
          "Keys and values projected from query_input: self-attention is right (parts 2, 3 and 5: 6 "
          "points; parts 1, 6 and 7: 8), but cross-attention attends over the L queries instead of the "
          "S source positions: (B, h, L, L) weights, in the visible test (0 of 1) and the hidden one (0 "
          "of 1): 14.",
          message="expected weights of shape (B, h, L, S) = (2, 2, 3, 6), got (2, 2, 3, 3)"),
    Wrong("output_projection_skipped",
          {"test_layer_visible": 0, "test_layer_hidden": 0},
          "The merged heads returned without W_O: the shapes are right ((B, L, d_model) either way), but "
          "the visible case by hand (W_O = 0, bias b) shows it (0 of 1), and the hidden comparison with "
          "the library (0 of 1); the mask and cross-attention tests load the identity as W_O, so they "
          "check the attention alone and pass (4 points), and so does part 5 (2); parts 1, 6 and 7 "
          "keep their 8: 14.",
          message="with the output projection's weight 0 and bias b, every output vector should be b"),
    Wrong("ch04_layer_chapter_cell",
          {"test_layer_visible": 0, "test_layer_hidden": 0},
          "The chapter's MultiHeadAttention(d_model, num_heads) pasted (its split_heads calls given "
          "d_model // num_heads, the width that part 1's split_heads takes): it has no d_head, so the "
          "visible test's MultiHeadAttention(8, 2, d_head=6) raises (a TypeError in PyTorch; Keras' Layer "
          "refuses the unknown keyword with a ValueError) (0 of 1), and so do the "
          "hidden test's cases with d_head given (0 of 1); without d_head it is right, so parts 3 to 5 "
          "keep their 6 points, and parts 1, 6 and 7 their 8: 14.",
          message={"pytorch": "unexpected keyword argument 'd_head'",
                   "keras": "Unrecognized keyword arguments passed to MultiHeadAttention"}),
    Wrong("d_head_still_divides",
          {"test_layer_hidden": 0},
          "d_head honoured, but the ValueError raised whenever num_heads does not divide d_model, even "
          "when d_head is given: the visible test's d_head = 6 on d_model = 8 with 2 heads builds (1 "
          "point); the hidden test's MultiHeadAttention(10, 4, d_head=3) raises (0 of 1): 15.",
          message="MultiHeadAttention(10, 4, d_head=3) raised ValueError"),
    Wrong("split_merge_only",
          {"test_layer_visible": 0, "test_layer_hidden": 0, "test_masks_visible": 0, "test_masks_hidden": 0,
           "test_cross_attention_visible": 0, "test_cross_attention_hidden": 0, "test_batched_visible": 0,
           "test_batched_hidden": 0},
          "Only parts 1, 6 and 7 done, the layer left as released: the eight test cells of parts 2 to 5 "
          "score 0; part 1 keeps its 2 points, part 6, whose tests hand in the layers they measure, its "
          "3, and part 7, a layer of its own, its 3: 8.",
          message="NotImplementedError"),
    # Part 6: predict, then measure, the number of parameters.
    Wrong("typed_in_parameter_count",
          {"test_parameter_count_prediction_hidden": 0},
          "The prediction typed in as the count for d_model = 64 (16640, for any h): the visible "
          "test checks types only (1 point), the hidden test evaluates it at other sizes (0 of 1); "
          "the measurement is right (1 point): 15.",
          message="predicted_parameter_count(d_model=24, num_heads=1) returned 16640"),
    Wrong("parameter_count_per_head",
          {"test_parameter_count_prediction_hidden": 0},
          "The prediction gives every head four full d_model x d_model projections: h times too "
          "many; right for one head, so the hidden test fails at its second case, h = 4 (0 of 1); "
          "the measurement is right: 15.",
          message="predicted_parameter_count(d_model=24, num_heads=4) returned 9600"),
    Wrong("measurement_is_the_formula",
          {"test_parameter_count_visible": 0, "test_parameter_count_measurement_hidden": 0},
          "The measurement returns the prediction instead of counting the layer it is handed: it "
          "never builds the visible test's stand-in (0 of 1), nor the hidden test's layers, one of "
          "them without biases, whose count is not the formula's (0 of 1): 14.",
          message="should build layer_class(16, 4) once, it built []"),
    Wrong("measurement_counts_tensors",
          {"test_parameter_count_measurement_hidden": 0},
          "The measurement builds and calls the layer, as the visible test checks (1 point), but "
          "counts its weight tensors (4 in PyTorch, 8 in Keras) instead of their elements: the "
          "hidden test compares the count with the layer's (0 of 1): 15.",
          message="which is not the number of trainable numbers that layer holds"),
    # Part 7 (the variation): grouped-query attention.
    Wrong("chapter_copy_kv_ignored",
          {"test_gqa_visible": 0, "test_gqa_hidden": 0, "test_gqa_masks_hidden": 0},
          "The chapter's layer with a num_kv_heads argument that it ignores: every query head keeps "
          "keys and values of its own, d_model wide. It raises no ValueError when num_kv_heads does "
          "not divide num_heads (visible test, 0 of 1), and its key and value projections have the "
          "wrong size for the hidden tests (0 of 2), which load g d_head-wide weights: 13.",
          message="GroupedQueryAttention(8, 4, 3) should raise ValueError"),
    Wrong("gqa_heads_interleaved",
          {"test_gqa_visible": 0, "test_gqa_hidden": 0, "test_gqa_masks_hidden": 0},
          "Query head i given key-value head i mod g instead of i // (h / g) (the heads of a group "
          "taken every g-th, not consecutive): right for g = 1 and g = h, wrong for groups of 2 and 3, "
          "which the visible case by hand (0 of 1) and both hidden tests (0 of 2) have: 13.",
          message="query heads 0 and 1 share key-value head 0"),
    Wrong("gqa_no_group_check",
          {"test_gqa_visible": 0, "test_gqa_hidden": 0},
          "No ValueError when num_kv_heads does not divide num_heads: the visible test (0 of 1) and the "
          "hidden one that checks other sizes (0 of 1) ask for it; everything it computes is right, "
          "so the hidden mask test passes (1 point): 14.",
          message="GroupedQueryAttention(8, 4, 3) should raise ValueError"),
    Wrong("gqa_mask_one_axis",
          {"test_gqa_masks_hidden": 0},
          "The mask given one head axis, as multi-head attention needs, while the queries have a group "
          "axis and a member axis: it no longer broadcasts over (B, g, h/g, L, S) and lines the batch "
          "axis up with the groups; only the hidden mask test uses masks (0 of 1): 15.",
          message="GroupedQueryAttention(12, num_heads=6, num_kv_heads=2), self-attention and a padding"),
]
