"""Chapter 2's known-wrong submissions (02-bahdanau-attention-keras and -pytorch).

Each Wrong declares a student, the scores of the test cells that do not get full marks, why, and
what the feedback must show; the student's code (the answer cells that differ from the solution,
in full) is in wrong/<student>-<framework>.py beside this file. tests/harness/declarations.py
describes both; tests/test_grading.py grades them.

Points per part (16): part 1 2 (visible 1, hidden 1), part 2 2 (masked_softmax, whose row with no
real position gets weights all 0, where the chapter's gives NaN: visible 1, hidden 1: ordinary
scores, such rows and large scores), part 3 3 (visible 1, context_vector 1, additive_attention 1),
part 4 2 (decoder_step in Luong et al.'s order, where the chapter's is Bahdanau et al.'s: visible 1,
hidden 1), part 5 4 (local attention, the variation: visible 1, positions 1, weights 1, context 1),
part 6 3 (predict, then measure, the entropy: visible 1, prediction 1, measurement 1). Part 5's
tests swap in reference versions of parts 1 to 3, and part 6's give the measurement the reference
masked_softmax (or a stand-in), so a mistake in parts 1 to 4 costs nothing there.
"""
from harness.declarations import Wrong

# Every test of part 5 (the variation) lost.
LOCAL_LOST = {name: 0 for name in ("test_local_attention_visible", "test_local_positions_hidden",
                                    "test_local_weights_hidden", "test_local_context_hidden")}

WRONG = [
    Wrong("scores_squeeze_all",
          {"test_additive_scores_hidden": 0},
          "Squeezing every axis of length 1 instead of the last one is right for the visible sizes (B = "
          "2, S = 3: 1 point), but drops the batch axis when B = 1 and the position axis when S = 1 "
          "(hidden: 0 of 1). Parts 3 to 5 use stand-ins or reference versions of it: 15.",
          message="expected scores of shape (B, S) = (1, 7)"),
    Wrong("softmax_ignores_mask",
          {"test_masked_softmax_visible": 0, "test_masked_softmax_hidden": 0},
          "A plain softmax over every position gives padding weight: the visible small case shows it (0 "
          "of 1), and so does the hidden test (0 of 1). Parts 3 to 6 use stand-ins or reference "
          "versions of masked_softmax, so they keep their points: 14.",
          message="must get weight exactly 0"),
    Wrong("ch02_masked_softmax_chapter_cell",
          {"test_masked_softmax_visible": 0, "test_masked_softmax_hidden": 0},
          "The chapter's masked_softmax (section 2.5) pasted: -inf in the padded scores, then a softmax. "
          "Right wherever a row has a real position, but a row with none is 0/0 = NaN where part 2 asks "
          "for zeros: the visible case's row 2 (0 of 1) and the hidden rows of length 0 (0 of 1); the "
          "other parts use stand-ins or reference versions: 14.",
          message="row 2 has no real position, so its weights must all be 0"),
    Wrong("large_negative_mask",
          {"test_masked_softmax_visible": 0, "test_masked_softmax_hidden": 0},
          "-1e9 instead of -inf in the padded scores, the fix that section 2.4 mentions: finite, but a "
          "row with no real position spreads its weight evenly over its padding instead of getting "
          "zeros: the visible row 2 (0 of 1) and the hidden rows of length 0 (0 of 1): 14.",
          message="row 2 has no real position, so its weights must all be 0"),
    Wrong("renormalized_after_softmax",
          {"test_masked_softmax_hidden": 0},
          "A softmax over every position, then zeroing the padding and renormalising (by a sum kept "
          "above 1e-30, so that a row of padding only comes out as zeros): the same function for "
          "ordinary scores (visible test: 1 point, and the hidden test's ordinary cases and empty rows); "
          "but when a padded position scores 1e4, every real weight underflows to 0 and the row sums to "
          "0, not 1 (the hidden test's large scores: 0 of 1): 15.",
          message="each row with a real position must sum to 1"),
    Wrong("context_mean",
          {"test_context_visible": 0, "test_context_vector_hidden": 0},
          "Averaging the weighted states over the S positions instead of adding them divides the context "
          "by S: the visible by-hand cases show it (0 of 1), the hidden test too (0 of 1); "
          "additive_attention and part 5 are checked with a reference context_vector and keep their "
          "points: 14.",
          message="the context of row 0 should be keys[0, 1]"),
    Wrong("ch02_decoder_step_chapter_cell",
          {"test_decoder_step_visible": 0, "test_decoder_step_hidden": 0},
          "The chapter's AttentionDecoder.step (section 2.6) pasted as a function of the asked arguments "
          "(its layers passed in, W_c unused): Bahdanau et al.'s order, attention with s_{t-1} and a GRU "
          "that reads [embedding; context]. Part 4's GRU reads the embedding alone, so the pasted step "
          "fails at the cell in the visible test (0 of 1) and in the hidden one (0 of 1): 14.",
          message={"pytorch": "input has inconsistent input_size", "keras": "Matrix size-incompatible"}),
    Wrong("attends_with_previous_state",
          {"test_decoder_step_visible": 0, "test_decoder_step_hidden": 0},
          "Luong et al.'s layers in Bahdanau et al.'s order: attention is asked with the previous state "
          "s_{t-1}, before the GRU moves. The visible test sees the query (0 of 1); the hidden reference "
          "attention, asked with s_t, gives other weights (0 of 1): 14.",
          message="with the new decoder state s_t as the query"),
    Wrong("attentional_reads_state_first",
          {"test_decoder_step_hidden": 0},
          "W_c reads [s_t; c_t] instead of [c_t; s_t]: the same width, so the visible test (shapes, the "
          "query, the weights, and the logits with W_c = 0, which do not see the order) passes (1 "
          "point); with fixed weights the logits differ from the reference step (hidden: 0 of 1): 15.",
          message="the context first, then the new state"),
    Wrong("logits_from_state_only",
          {"test_decoder_step_visible": 0, "test_decoder_step_hidden": 0},
          "The output layer reads the new state s_t instead of the attentional vector tanh(W_c [c_t; "
          "s_t]) (the widths agree, both H): the visible case with W_c = 0, where the logits must be "
          "out's bias, shows it (0 of 1), and so does the hidden test (0 of 1): 14.",
          message="the output layer reads the attentional vector, not s_t"),
    Wrong("parts_3_4_only",
          {"test_additive_scores_visible": 0, "test_additive_scores_hidden": 0,
           "test_masked_softmax_visible": 0, "test_masked_softmax_hidden": 0},
          "Parts 1 and 2 left as released: their four test cells score 0; parts 3 to 6 keep their 12 "
          "points, because their tests use stand-ins or reference versions of parts 1 and 2.",
          message="NotImplementedError"),
    # Part 5, the variation: Luong's local-p attention.
    Wrong("local_padded_length",
          LOCAL_LOST,
          "p_t from the padded length S instead of each row's L real tokens: the visible case gives "
          "p_t = 2.5 for both rows instead of [2, 1] (0 of 1); in the hidden cases short rows get a "
          "window of padding only, whose weights (part 2's convention: all 0) and context (0) miss the "
          "reference's: positions, weights and context all 0: 12.",
          message="L being the number of real tokens of each row"),
    Wrong("local_no_gaussian",
          {"test_local_attention_visible": 0, "test_local_weights_hidden": 0,
           "test_local_context_hidden": 0},
          "The windowed softmax without the Gaussian: the positions are right (1 point), the weights of "
          "the visible case and of the hidden ones are not, nor the context: 13.",
          message="the weights should be"),
    Wrong("local_window_ignores_padding",
          {"test_local_weights_hidden": 0, "test_local_context_hidden": 0},
          "A window of |s - p_t| <= D that forgets the mask: in the visible case both windows hold real "
          "tokens only (1 point), but in the hidden cases windows reach the padding and give it weight "
          "(weights and context: 0 of 2); the positions are right: 14.",
          message="must get weight exactly 0"),
    Wrong("local_context_before_gaussian",
          {"test_local_attention_visible": 0, "test_local_context_hidden": 0},
          "Returns the right weights and positions, but the context of the windowed softmax before the "
          "Gaussian: the visible context check and the hidden context test fail (0 of 2): 14.",
          message="with the weights after the Gaussian"),
    # Part 6: predict, then measure, the entropy of the weights.
    Wrong("typed_in_entropy",
          {"test_entropy_prediction_hidden": 0},
          "The prediction typed in as the visible test's number, log 4: the visible test passes (1 "
          "point), the hidden test evaluates it at other n_real, S and delta (0 of 1); the measurement "
          "is right (1 point): 15.",
          message="predicted_entropy(n_real=1, S=5, delta=3.0) returned 1.38629"),
    Wrong("entropy_of_padded_length",
          {"test_entropy_visible": 0, "test_entropy_prediction_hidden": 0},
          "The formula counts every position, padding included (S in place of n_real): the visible "
          "test's log 4 comes out as log 6 (0 of 1), and the hidden cases with padding fail (0 of 1); "
          "the measurement is right: 14.",
          message="so the entropy is log 4"),
    Wrong("entropy_zero_log_zero",
          {"test_entropy_visible": 0, "test_entropy_measurement_hidden": 0},
          "The measurement sums a log a over every position, padding included: 0 * log 0 = 0 * -inf "
          "is NaN, in the visible test (0 of 1) and in the hidden cases with padding (0 of 1); the "
          "prediction is right: 14.",
          message="0 log 0 counts as 0"),
]
