"""Chapter 5's known-wrong submissions (05-positional-encoding-keras and -pytorch).

Each Wrong declares a student, the scores of the test cells that do not get full marks, why, and
what the feedback must show; the student's code (the answer cells that differ from the solution,
in full) is in wrong/<student>-<framework>.py beside this file. tests/harness/declarations.py
describes both; tests/test_grading.py grades them.

Every score below was verified by a one-off autograde of both frameworks: it is what
nbgrader gave, cell by cell.
"""
from harness.declarations import Wrong

WRONG = [
    Wrong("cos_first",
          {"test_sinusoidal_visible": 0, "test_sinusoidal_values_hidden": 0,
           "test_sinusoidal_rotation_hidden": 0},
          "cosines in the even columns: every value of part 1 and the rotation are wrong; still "
          "vectorised, and part 2's tests swap in a reference encoding, so they keep their points",
          message="PE(0) should be [sin 0, cos 0, sin 0, cos 0]"),
    Wrong("loop_over_positions",
          {"test_sinusoidal_vectorised_hidden": 0},
          "right values, but one tensor per position: the operation count grows with the length",
          message="it does some work once per position or per column"),
    Wrong("trainable_table",
          {"test_sinusoidal_layer_visible": 0, "test_sinusoidal_layer_hidden": 0},
          "the fixed table is a trainable parameter: right values, but an optimiser would change it",
          message={"pytorch": "the layer should have no parameters",
                   "keras": "the layer should have no trainable weights"}),
    Wrong("positions_from_one",
          {"test_token_and_position_visible": 0, "test_token_and_position_hidden": 0,
           "test_token_and_position_weights_hidden": 0},
          "positions counted from 1: every output shifted by one row of the table, and L = max_len "
          "indexes past its end",
          message="out[b, p] should be tokens[ids[b, p]] + positions[p]"),
    Wrong("rope_halves",
          {"test_rope_visible": 0, "test_rope_hidden": 0},
          "keras-hub's convention (pairs (i, i + d_k/2)) instead of interleaved pairs: right for d_k = "
          "2, wrong beyond; part 5 uses the reference apply_rope when graded",
          message="pairs are interleaved"),
    Wrong("scores_unscaled",
          {"test_rope_scores_visible": 0, "test_rope_scores_hidden": 0},
          "no 1 / sqrt(d_k): rotations right, scores too large",
          message="the score should be q . k / sqrt(d_k)"),
    Wrong("parts_1_3_only",
          {"test_rope_visible": 0, "test_rope_hidden": 0, "test_rope_scores_visible": 0,
           "test_rope_scores_hidden": 0},
          "parts 4 and 5 left blank (the released cells): 11 of 16 points",
          message="NotImplementedError"),
    Wrong("python_math_loop",
          {"test_sinusoidal_vectorised_hidden": 0},
          "right values from a Python loop over positions and columns with math.sin and math.cos, "
          "converted to a tensor at the end: the operation count stays flat, but the lines of Python run "
          "grow with the table",
          message="it does some work once per position or per column"),
]
