"""Chapter 5's known-wrong submissions (05-positional-encoding-keras and -pytorch).

Each Wrong declares a student, the scores of the test cells that do not get full marks, why, and
what the feedback must show; the student's code (the answer cells that differ from the solution,
in full) is in wrong/<student>-<framework>.py beside this file. tests/harness/declarations.py
describes both; tests/test_grading.py grades them.

The points per part (16 in all, the same in both frameworks): part 1 sinusoidal_encoding(positions,
d_model, base=10000) 4 (visible 1, values 1, rotation 1, vectorised 1); part 2 SinusoidalEncoding,
called with a start, 1 (one cell, visible and hidden); part 3 PositionEmbedding and
TokenAndPositionEmbedding 3 (visible 1, values 1, weights 1); part 4 apply_rope(x, start=0) 2
(visible 1, values and the relative offset 1); part 5, the
variation, ALiBi 3 (visible 1, slopes and bias 1, attention 1); part 6, predict and measure the
distance of two encodings, 3 (visible 1, prediction 1, measurement 1).

Every score below was verified by an autograde of both frameworks: it is what nbgrader gave, cell
by cell.
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
    Wrong("sinusoidal_ignores_base",
          {"test_sinusoidal_values_hidden": 0},
          "base accepted but 10,000 written in the formula: right for every table the visible test and "
          "the rotation and vectorisation tests build (base 10,000), wrong for the hidden test's other "
          "bases: 15",
          message="base=100) differs from the formula"),
    Wrong("ch05_sinusoidal_chapter_cell",
          {"test_sinusoidal_visible": 0, "test_sinusoidal_values_hidden": 0,
           "test_sinusoidal_rotation_hidden": 0, "test_sinusoidal_vectorised_hidden": 0},
          "the chapter's sinusoidal_encoding(length, d_model) pasted: given a tensor of positions it "
          "calls arange on it and fails, and it takes no base: every test of part 1 (0 of 4); part 2 "
          "grades with a reference encoding: 12",
          message={"pytorch": "arange() received an invalid combination of arguments",
                   "keras": "limit must be a scalar"}),
    Wrong("trainable_table",
          {"test_sinusoidal_layer_visible": 0},
          "the fixed table is a trainable parameter: right values, but an optimiser would change it",
          message={"pytorch": "the layer should have no parameters",
                   "keras": "the layer should have no trainable weights"}),
    Wrong("ch05_layer_chapter_cell",
          {"test_sinusoidal_layer_visible": 0},
          "the chapter's SinusoidalEncoding pasted (its table built from the positions 0 .. max_len - 1, "
          "as part 1's sinusoidal_encoding takes them): right from position 0, but it takes no start, "
          "which the part's one cell asks for (0 of 1): 15",
          message="got an unexpected keyword argument 'start'"),
    Wrong("positions_from_one",
          {"test_token_and_position_visible": 0, "test_token_and_position_hidden": 0,
           "test_token_and_position_weights_hidden": 0},
          "PositionEmbedding counts positions from 1: every output shifted by one row of the table, "
          "and L = max_len indexes past its end",
          message="out[b, p] should be tokens[ids[b, p]] + table[p]"),
    Wrong("ignores_start",
          {"test_token_and_position_visible": 0, "test_token_and_position_hidden": 0},
          "PositionEmbedding takes start but always adds rows 0 .. L-1 (the chapter's layer): right "
          "from position 0, wrong for the new tokens of a cached generation",
          message="with start = 2 the tokens stand at positions 2, 3, 4"),
    Wrong("rope_halves",
          {"test_rope_visible": 0, "test_rope_hidden": 0},
          "keras-hub's convention (pairs (i, i + d_k/2)) instead of interleaved pairs: right for d_k = "
          "2, wrong beyond (its scores still depend only on the offset: it is a rotation too)",
          message="pairs are interleaved"),
    Wrong("rope_ignores_start",
          {"test_rope_visible": 0, "test_rope_hidden": 0},
          "apply_rope takes start but counts the positions from 0 (the chapter's rotation): right for "
          "whole sequences, but the new tokens of a cached generation turn as if they began the text: "
          "the visible test's last two tokens from start = 3 (0 of 1), the hidden starts (0 of 1): 14",
          message="should rotate those two tokens by their true positions, 3 and 4"),
    Wrong("ch05_rope_chapter_cell",
          {"test_rope_visible": 0, "test_rope_hidden": 0},
          "the chapter's apply_rope(x) pasted: it has no start, so both tests of part 4 raise (0 of 2): 14",
          message="apply_rope() got an unexpected keyword argument 'start'"),
    Wrong("parts_1_3_only",
          {"test_rope_visible": 0, "test_rope_hidden": 0, "test_alibi_visible": 0,
           "test_alibi_bias_hidden": 0, "test_alibi_attention_hidden": 0,
           "test_encoding_distance_visible": 0, "test_encoding_distance_prediction_hidden": 0,
           "test_encoding_distance_measurement_hidden": 0},
          "parts 4 to 6 left blank (the released cells): 8 of 16 points",
          message="NotImplementedError"),
    Wrong("python_math_loop",
          {"test_sinusoidal_vectorised_hidden": 0},
          "right values from a Python loop over positions and columns with math.sin and math.cos, "
          "converted to a tensor at the end: the operation count stays flat, but the lines of Python run "
          "grow with the table",
          message="it does some work once per position or per column"),
    Wrong("slopes_floor_division",
          {"test_alibi_bias_hidden": 0},
          "the slopes' exponent by integer division, 2^-(8 h // num_heads): exact for 1, 2, 4 and 8 "
          "heads (the visible test's), wrong for 16 and 32; alibi_attention's test swaps in a "
          "reference bias",
          message="alibi_slopes(16) should be 2^(-8 h / num_heads)"),
    Wrong("alibi_not_causal",
          {"test_alibi_visible": 0, "test_alibi_attention_hidden": 0},
          "ALiBi's bias without the causal mask: every query also attends to later positions",
          message="attention is causal"),
    Wrong("alibi_unscaled",
          {"test_alibi_attention_hidden": 0},
          "no 1 / sqrt(d_k) on the scores: invisible with the visible test's q = k = 0, wrong with "
          "real queries and keys",
          message="differs from softmax(q k^T / sqrt(d_k) + alibi_bias, causal)"),
    Wrong("typed_in_distance",
          {"test_encoding_distance_prediction_hidden": 0},
          "the prediction typed in (0 at k = 0, else the number for one case): passes the visible "
          "test, not the hidden offsets and widths",
          message="which is not |PE(p + k) - PE(p)|^2"),
    Wrong("distance_without_two",
          {"test_encoding_distance_prediction_hidden": 0},
          "sum of 1 - cos(k omega_i): half the distance (each pair contributes 2 - 2 cos), still 0 "
          "at k = 0",
          message="which is not |PE(p + k) - PE(p)|^2"),
    Wrong("measure_formula",
          {"test_encoding_distance_visible": 0, "test_encoding_distance_measurement_hidden": 0},
          "the measurement returns the prediction at every position without building the table it "
          "is given",
          message="should call encoding(length, 4)"),
]
