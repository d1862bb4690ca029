"""Chapter 3's known-wrong submissions (03-self-attention-keras and -pytorch).

Each Wrong declares a student, the scores of the test cells that do not get full marks, why, and
what the feedback must show; the student's code (the answer cells that differ from the solution,
in full) is in wrong/<student>-<framework>.py beside this file. tests/harness/declarations.py
describes both; tests/test_grading.py grades them.
"""
from harness.declarations import Wrong

WRONG = [
    Wrong("no_scaling",
          {"test_attention_visible": 0, "test_attention_hidden": 0},
          "Scores not divided by sqrt(d_k): part 1's case by hand, batched, gives [0.9, 0.1] instead of "
          "[0.75, 0.25] (visible: 0 of 1) and the hidden values differ (0 of 2); the masking test checks "
          "only exact zeros, finiteness, sums and weights times v, which still hold (1 point): 13.",
          message="in the case worked out by hand"),
    Wrong("scale_by_dk",
          {"test_np_attention_visible": 0, "test_np_attention_hidden": 0},
          "The NumPy warm-up divides by d_k instead of sqrt(d_k): the case by hand shows it (visible: 0 "
          "of 1), and so do the hidden values (0 of 2); the large-scores test checks only finiteness, "
          "exact zeros, sums and weights times V, which still hold (1 point): 13.",
          message="in the case worked out by hand"),
    Wrong("softmax_over_queries",
          {"test_attention_visible": 0, "test_attention_hidden": 0, "test_attention_masking_hidden": 0},
          "A softmax over the query axis of (B, L, S) makes each key's weights sum to 1 instead of each "
          "query's: every part-2 test checks the sums (0 of 4); part 4 uses a reference attention: 12.",
          message="the weights of each query must sum to 1 over the keys"),
    Wrong("mask_inverted",
          {"test_attention_visible": 0, "test_attention_hidden": 0, "test_attention_masking_hidden": 0},
          "Blocking where the mask is True (nn.MultiheadAttention's convention, not the course's): "
          "attention without a mask is right, but the visible mask case gives weight to blocked keys (0 "
          "of 1), and the hidden masked cases fail (0 of 3); part 4 uses a reference attention: 12.",
          message="blocked positions (mask False) must get weight exactly 0"),
    Wrong("causal_upper",
          {"test_masks_visible": 0, "test_causal_mask_hidden": 0},
          "The causal mask transposed (True on and above the diagonal: each position looks at the "
          "future): the visible causal_mask(3) shows it (0 of 1), the hidden causal test too (0 of 1); "
          "the hidden padding test combines with a reference causal mask (1 point): 14.",
          message="causal_mask(3) should let position i attend to the positions j <= i only"),
    Wrong("padding_mask_column",
          {"test_masks_visible": 0, "test_padding_mask_hidden": 0},
          "A padding mask of shape (B, S, 1) (it would block queries, not keys): the visible shape check "
          "shows it (0 of 1), the hidden padding test too (0 of 1); causal_mask is right (1 point): 14.",
          message="expected a mask of shape (B, 1, S) = (2, 1, 5), got (2, 5, 1)"),
    Wrong("library_attention",
          {"test_attention_hidden": 0, "test_attention_masking_hidden": 0},
          "The output comes from the library's fused attention (the weights by hand): the values are "
          "right (visible: 1 point), but part 2 asks for the computation, and both hidden part-2 tests "
          "make the library's attention refuse to run (0 of 3): 13.",
          message="called the library's attention"),
    Wrong("no_output_projection",
          {"test_self_attention_visible": 0, "test_self_attention_hidden": 0},
          "The layer returns the attention's output without the output projection: shape (B, L, d_k) "
          "instead of (B, L, d_model), in the visible test (0 of 1) and the hidden values (0 of 2); the "
          "causal and padding properties hold all the same (2 points): 13.",
          message="expected an output of shape (B, L, d_model)"),
    Wrong("parts_1_4_only",
          {"test_attention_visible": 0, "test_attention_hidden": 0, "test_attention_masking_hidden": 0,
           "test_masks_visible": 0, "test_padding_mask_hidden": 0, "test_causal_mask_hidden": 0},
          "Parts 2 and 3 left as released: their six test cells score 0; part 4's layer, which needs "
          "scaled_dot_product_attention, keeps its 5 points because its tests swap in stand-ins or a "
          "reference version, and the NumPy warm-up keeps its 4: 9.",
          message="NotImplementedError"),
    # Issue 34: answers that are the course's own code. The grading sandbox's copy of the package
    # has stand-ins for the names the assignment asks for (attention_course/grading/hide.py), so
    # however a submission reaches them, parts 2 to 4 score 0; the NumPy warm-up keeps its 4.
    Wrong("course_importer",
          {"test_attention_visible": 0, "test_attention_hidden": 0, "test_attention_masking_hidden": 0,
           "test_masks_visible": 0, "test_padding_mask_hidden": 0, "test_causal_mask_hidden": 0,
           "test_self_attention_visible": 0, "test_self_attention_hidden": 0,
           "test_causal_property_hidden": 0, "test_padding_property_hidden": 0},
          "Parts 2 to 4 import the course's scaled_dot_product_attention, masks and SelfAttention: "
          "the sandbox's stand-ins raise, every test of those parts scores 0 (on main: 15): 4.",
          message="is the course's reference; the grader does not provide it: write your own"),
    Wrong("course_importer_evasive",
          {"test_attention_visible": 0, "test_attention_hidden": 0, "test_attention_masking_hidden": 0,
           "test_masks_visible": 0, "test_padding_mask_hidden": 0, "test_causal_mask_hidden": 0,
           "test_self_attention_visible": 0, "test_self_attention_hidden": 0,
           "test_causal_property_hidden": 0, "test_padding_property_hidden": 0},
          "The same names through importlib.import_module, a computed __import__, sys.modules and a "
          "subclass with only pass: each reaches the sandbox's stand-ins (on main: 15): 4.",
          message="is the course's reference; the grader does not provide it: write your own"),
    Wrong("course_source_exec",
          {"test_attention_visible": 0, "test_attention_hidden": 0, "test_attention_masking_hidden": 0,
           "test_masks_visible": 0, "test_padding_mask_hidden": 0, "test_causal_mask_hidden": 0,
           "test_self_attention_visible": 0, "test_self_attention_hidden": 0,
           "test_causal_property_hidden": 0, "test_padding_property_hidden": 0},
          "The course module's source exec-ed (inspect.getsource, and the .py file read from disk): "
          "the source in the sandbox is the copy with stand-ins (on main: 16): 4.",
          message="is the course's reference; the grader does not provide it: write your own"),
]
