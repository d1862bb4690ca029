"""Chapter 3's known-wrong submissions (03-self-attention-keras and -pytorch).

Each Wrong declares a student, the scores of the test cells that do not get full marks, why, and
what the feedback must show; the student's code (the answer cells that differ from the solution,
in full) is in wrong/<student>-<framework>.py beside this file. tests/harness/declarations.py
describes both; tests/test_grading.py grades them.

Points per part (16): part 1 2 (visible 1, hidden with large scores 1), part 2 3 (1, 1, masking
1), part 3 2 (1, both masks hidden 1), part 4 3 (1, hidden 1, padding property 1), part 5, the
sliding window (the variation, issue 34) 3 (visible 1, mask hidden 1, reach hidden 1), part 6 3
(visible 1, prediction 1, measurement 1). Part 5's reach test uses reference layers and part 6's
hidden tests give the measurement the reference attention, so a mistake in parts 1 to 4 costs
nothing there.
"""
from harness.declarations import Wrong

# The course-importer students (issue 34): every test of the parts that import the course's own
# code scores 0, with the sandbox's stand-in message (attention_course/grading/hide.py).
PARTS_2_TO_4_LOST = {name: 0 for name in (
    "test_attention_visible", "test_attention_hidden", "test_attention_masking_hidden",
    "test_masks_visible", "test_masks_hidden",
    "test_self_attention_visible", "test_self_attention_hidden", "test_padding_property_hidden")}
STAND_IN_MESSAGE = "is the course's reference; the grader does not provide it: write your own"

WRONG = [
    Wrong("no_scaling",
          {"test_attention_visible": 0, "test_attention_hidden": 0},
          "Scores not divided by sqrt(d_k): part 1's case by hand, batched, gives [0.9, 0.1] instead of "
          "[0.75, 0.25] (visible: 0 of 1) and the hidden values differ (0 of 1); the masking test checks "
          "only exact zeros, finiteness, sums and weights times v, which still hold (1 point): 14.",
          message="in the case worked out by hand"),
    Wrong("scale_by_dk",
          {"test_np_attention_visible": 0, "test_np_attention_hidden": 0},
          "The NumPy warm-up divides by d_k instead of sqrt(d_k): the case by hand shows it (visible: 0 "
          "of 1), and so do the hidden values (0 of 1): 14.",
          message="in the case worked out by hand"),
    Wrong("softmax_over_queries",
          {"test_attention_visible": 0, "test_attention_hidden": 0, "test_attention_masking_hidden": 0},
          "A softmax over the query axis of (B, L, S) makes each key's weights sum to 1 instead of each "
          "query's: every part-2 test checks the sums (0 of 3); parts 4 to 6 use a reference "
          "attention: 13.",
          message="the weights of each query must sum to 1 over the keys"),
    Wrong("mask_inverted",
          {"test_attention_visible": 0, "test_attention_hidden": 0, "test_attention_masking_hidden": 0},
          "Blocking where the mask is True (nn.MultiheadAttention's convention, not the course's): "
          "attention without a mask is right, but the visible mask case gives weight to blocked keys (0 "
          "of 1), and the hidden masked cases fail (0 of 2); parts 4 to 6 use a reference attention: "
          "13.",
          message="blocked positions (mask False) must get weight exactly 0"),
    Wrong("causal_upper",
          {"test_masks_visible": 0, "test_masks_hidden": 0},
          "The causal mask transposed (True on and above the diagonal: each position looks at the "
          "future): the visible causal_mask(3) shows it (0 of 1), the hidden causal cases too (0 of 1): "
          "14.",
          message="causal_mask(3) should let position i attend to the positions j <= i only"),
    Wrong("padding_mask_column",
          {"test_masks_visible": 0, "test_masks_hidden": 0},
          "A padding mask of shape (B, S, 1) (it would block queries, not keys): the visible shape check "
          "shows it (0 of 1), the hidden padding cases too (0 of 1): 14.",
          message="expected a mask of shape (B, 1, S) = (2, 1, 5), got (2, 5, 1)"),
    Wrong("library_attention",
          {"test_attention_hidden": 0, "test_attention_masking_hidden": 0},
          "The output comes from the library's fused attention (the weights by hand): the values are "
          "right (visible: 1 point), but part 2 asks for the computation, and both hidden part-2 tests "
          "make the library's attention refuse to run (0 of 2): 14.",
          message="called the library's attention"),
    Wrong("chapter_attention",
          {"test_attention_masking_hidden": 0},
          "The chapter's scaled_dot_product_attention pasted as it is: right wherever a query may attend "
          "to some key (visible and formula: 2 points), but part 2 also asks that a query that may "
          "attend to no key get weights all 0 and an output of 0, where the chapter's softmax gives "
          "0 / 0 = NaN (masking: 0 of 1): 15.",
          message="a query that may attend to no key gets weights all 0 and an output of 0"),
    Wrong("no_output_projection",
          {"test_self_attention_visible": 0, "test_self_attention_hidden": 0},
          "The layer returns the attention's output without the output projection: shape (B, L, d_k) "
          "instead of (B, L, d_model), in the visible test (0 of 1) and the hidden values (0 of 1); the "
          "padding property holds all the same (1 point): 14.",
          message="expected an output of shape (B, L, d_model)"),
    Wrong("parts_1_4_only",
          {"test_attention_visible": 0, "test_attention_hidden": 0, "test_attention_masking_hidden": 0,
           "test_masks_visible": 0, "test_masks_hidden": 0},
          "Parts 2 and 3 left as released: their five test cells score 0; part 4's layer, which needs "
          "scaled_dot_product_attention, keeps its 3 points because its tests swap in stand-ins or a "
          "reference version, part 5's sliding window keeps its 3 because its reach test uses "
          "reference layers, part 6's measurement keeps its 3 because its tests hand it the "
          "attention to measure, and the NumPy warm-up keeps its 2: 11.",
          message="NotImplementedError"),
    # Issue 34: answers that are the course's own code. The grading sandbox's copy of the package
    # has stand-ins for the names the assignment asks for (attention_course/grading/hide.py), so
    # however a submission reaches them, parts 2 to 4 score 0; the NumPy warm-up keeps its 2, and
    # parts 5 and 6 their 3 each.
    Wrong("course_importer",
          PARTS_2_TO_4_LOST,
          "Parts 2 to 4 import the course's scaled_dot_product_attention, masks and SelfAttention: "
          "the sandbox's stand-ins raise, every test of those parts scores 0 (on main: 15): 8, "
          "the NumPy warm-up's 2 and parts 5 and 6's 3 each.",
          message=STAND_IN_MESSAGE),
    Wrong("course_importer_evasive",
          PARTS_2_TO_4_LOST,
          "The same names through importlib.import_module, a computed __import__, sys.modules and a "
          "subclass with only pass: each reaches the sandbox's stand-ins (on main: 15): 8, "
          "the NumPy warm-up's 2 and parts 5 and 6's 3 each.",
          message=STAND_IN_MESSAGE),
    Wrong("course_source_exec",
          PARTS_2_TO_4_LOST,
          "The course module's source exec-ed (inspect.getsource, and the .py file read from disk): "
          "the source in the sandbox is the copy with stand-ins (on main: 16): 8, "
          "the NumPy warm-up's 2 and parts 5 and 6's 3 each.",
          message=STAND_IN_MESSAGE),
    Wrong("np_overflow",
          {"test_np_attention_hidden": 0},
          "The NumPy softmax without its row maximum subtracted: right for the visible test's small "
          "scores (1 point), but exp overflows for scores in the thousands and the weights become "
          "inf / inf = NaN, which the hidden test's large scores show (0 of 1): 15.",
          message="returned NaN or inf"),
    # Part 5, the sliding window (the variation of issue 34).
    Wrong("window_off_by_one",
          {"test_sliding_window_visible": 0, "test_sliding_window_hidden": 0,
           "test_sliding_window_reach_hidden": 0},
          "The other convention, the window counting the query's own position (i - window < j <= i, "
          "one key fewer per row, none at all for window 0): the visible case shows it (0 of 1), so do "
          "the hidden masks (0 of 1) and the reach through stacked layers, one position less per layer "
          "(0 of 1): 13.",
          message="sliding_window_mask(5, 2) should let position i attend to itself and the 2 positions "
                  "before it (i - 2 to i) only"),
    Wrong("window_ignored",
          {"test_sliding_window_visible": 0, "test_sliding_window_hidden": 0,
           "test_sliding_window_reach_hidden": 0},
          "The chapter's causal mask under the new name, the window taken and ignored: right only for "
          "windows at least as long as the sequence, so the visible case (0 of 1), the hidden masks "
          "(0 of 1) and the reach, which is the whole rest of the sequence (0 of 1), fail: 13.",
          message="sliding_window_mask(5, 2) should let position i attend to itself and the 2 positions "
                  "before it (i - 2 to i) only"),
    # Part 6: predict, then measure.
    Wrong("typed_in_prediction",
          {"test_score_variance_prediction_hidden": 0},
          "The prediction typed in as the numbers for the visible test's d_k = 16 and "
          "sigma = 1 (16 unscaled, 1 scaled): the visible test checks types only (1 point), "
          "the hidden test evaluates it at other d_k and sigma (0 of 1); the measurement is "
          "right (1 point): 15.",
          message="predicted_score_variance(d_k=20, sigma=1.7, scaled=False) returned 16"),
    Wrong("prediction_off_by_sqrt_dk",
          {"test_score_variance_prediction_hidden": 0},
          "The scaled prediction divides the variance by sqrt(d_k), as the scores are "
          "divided, instead of by d_k: right without the scaling, sqrt(d_k) times too large "
          "with it, so the hidden test fails at its first scaled case (0 of 1): 15.",
          message="returned 37.3517, which is not the variance of q·k / sqrt(d_k)"),
    Wrong("measurement_own_scores",
          {"test_score_variance_visible": 0, "test_score_variance_measurement_hidden": 0},
          "The measurement computes q·k / sqrt(d_k) itself instead of measuring the attention "
          "it is given: the visible test's stand-in is never called (0 of 1), and the hidden "
          "test, which also hands it an attention without the scaling, says so (0 of 1): 14.",
          message="should call the attention it is given once, it called it 0 times"),
    Wrong("measurement_spread",
          {"test_score_variance_measurement_hidden": 0},
          "The measurement returns the standard deviation of the log-weights, not their "
          "variance (about 2.2 where the variance is about 5): far outside the "
          "5-standard-error range of the hidden test (0 of 1); types and shapes are right "
          "(visible: 1 point): 15.",
          message="standard errors from what the scores' variance must be"),
    Wrong("measurement_range_widened",
          {"test_score_variance_measurement_hidden": 0},
          "measurement_spread, plus a cell of the student's own that widens the range the "
          "check accepts (course_checks.ch03_measure.measurement_range): the kernel passes the test, "
          "but the grader checks the observed value against the range that the reference run "
          "recorded, and fails the cell outside the kernel (0 of 1): 15.",
          message="lies outside the accepted range"),
]
