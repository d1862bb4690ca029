"""Chapter 2's known-wrong submissions (02-bahdanau-attention-keras and -pytorch).

Each Wrong declares a student, the scores of the test cells that do not get full marks, why, and
what the feedback must show; the student's code (the answer cells that differ from the solution,
in full) is in wrong/<student>-<framework>.py beside this file. tests/harness/declarations.py
describes both; tests/test_grading.py grades them.
"""
from harness.declarations import Wrong

WRONG = [
    Wrong("scores_squeeze_all",
          {"test_additive_scores_hidden": 0},
          "Squeezing every axis of length 1 instead of the last one is right for the visible sizes (B = "
          "2, S = 3: 1 point), but drops the batch axis when B = 1 and the position axis when S = 1 "
          "(hidden: 0 of 3). Parts 3 and 4 use stand-ins or reference versions of it: 13.",
          message="expected scores of shape (B, S) = (1, 7)"),
    Wrong("softmax_ignores_mask",
          {"test_masked_softmax_visible": 0, "test_masked_softmax_hidden": 0,
           "test_masked_softmax_large_scores_hidden": 0},
          "A plain softmax over every position gives padding weight: the visible small case shows it (0 "
          "of 1), and so do both hidden tests (0 of 3). Parts 3 and 4 use stand-ins or reference "
          "versions of masked_softmax, so they keep their points: 12.",
          message="must get weight exactly 0"),
    Wrong("renormalized_after_softmax",
          {"test_masked_softmax_large_scores_hidden": 0},
          "A softmax over every position, then zeroing the padding and renormalising, is the same "
          "function for ordinary scores (visible and first hidden test: 3 points); but when a padded "
          "position scores 1e4, every real weight underflows to 0 and the row becomes 0/0 = NaN (large "
          "scores: 0 of 1): 15.",
          message="masked_softmax returned NaN or inf"),
    Wrong("context_mean",
          {"test_context_visible": 0, "test_context_vector_hidden": 0},
          "Averaging the weighted states over the S positions instead of adding them divides the context "
          "by S: the visible by-hand cases show it (0 of 1), the hidden test too (0 of 2); "
          "additive_attention is checked with a reference context_vector and keeps its point: 13.",
          message="the context of row 0 should be keys[0, 1]"),
    Wrong("gru_reads_context_first",
          {"test_decoder_step_hidden": 0},
          "[c_t; x] has the width that the GRU expects, so the visible test (shapes, the query, the "
          "weights) passes (1 point); with fixed weights the new state and the logits differ from the "
          "reference step (hidden: 0 of 3): 13.",
          message="the new state differs from the reference"),
    Wrong("logits_from_state_only",
          {"test_decoder_step_visible": 0, "test_decoder_step_hidden": 0},
          "The output layer reads H + K numbers; given the state alone it fails with a shape error, in "
          "the visible test already (0 of 1) and in the hidden one (0 of 3): 12.",
          message={"pytorch": "mat1 and mat2 shapes cannot be multiplied",
                   "keras": "expected axis -1 of input shape to have value"}),
    Wrong("parts_3_4_only",
          {"test_additive_scores_visible": 0, "test_additive_scores_hidden": 0,
           "test_masked_softmax_visible": 0, "test_masked_softmax_hidden": 0,
           "test_masked_softmax_large_scores_hidden": 0},
          "Parts 1 and 2 left as released: their five test cells score 0; parts 3 and 4 keep their 8 "
          "points, because their tests use stand-ins or reference versions of parts 1 and 2.",
          message="NotImplementedError"),
]
