"""Chapter 1's known-wrong submissions (01-rnn-bottleneck-keras and -pytorch).

The points per part (16 in all): part 1 gru_step, one step of Cho et al.'s GRU (the reset gate
applied to h before the recurrent product, where the chapter's step applies it after), 2 (visible
1, hidden 1); part 2 encoder_summary,
the variation (two one-direction GRUs, the backward one reading each row from its last real
token), 4 (visible 1, hidden 3); part 3 decoder_step and teacher_forced_logits 3 (visible 1,
decoder_step hidden 1, teacher forcing hidden 1); part 4 greedy_decode 4 (visible 1, hidden 3);
part 5, predict then count the encoder's parameters, 3 (visible 1, prediction hidden 1,
measurement hidden 1).

Each Wrong declares a student, the scores of the test cells that do not get full marks, why, and
what the feedback must show; the student's code (the answer cells that differ from the solution,
in full) is in wrong/<student>-<framework>.py beside this file. tests/harness/declarations.py
describes both; tests/test_grading.py grades them.
"""
from harness.declarations import Wrong

WRONG = [
    Wrong("ch01_gru_step_chapter_cell",
          {"test_gru_step_visible": 0, "test_gru_step_hidden": 0},
          "The chapter's NumPy gru_step of section 1.1 pasted (PyTorch: np.exp and np.tanh renamed to "
          "torch's; Keras: Keras' weights reordered into the chapter's layout first): it applies the reset "
          "gate after the recurrent product, the libraries' form, so the visible case where the two forms "
          "differ (r = (0, 1), W_hn swapping the units) fails (0 of 1), and so do the hidden random "
          "weights (0 of 1).",
          message="the reset gate multiplies h before the recurrent product"),
    Wrong("wrong_gate_order",
          {"test_gru_step_hidden": 0},
          "Swapping r and z is invisible in the visible cases (all-zero weights: both gates are 1/2; the "
          "reset case: both gates are (0, 1)), so the visible test passes (1 point), but with random "
          "weights it no longer matches Cho et al.'s step (hidden: 0 of 1). No other part uses gru_step.",
          message="gru_step differs from"),
    Wrong("library_gru_cell",
          {"test_gru_step_hidden": 0},
          "Keras only (PyTorch has no cell of Cho et al.'s form: nn.GRUCell is the chapter's cell, which "
          "ch01_gru_step_chapter_cell covers): keras.layers.GRUCell(reset_after=False) called with the "
          "given weights gets the values right (visible: 1 point), but part 1 asks for the formulas: the "
          "hidden test makes the library GRU refuse to run (0 of 1).",
          message="gru_step called the library GRU"),
    Wrong("padding_ignored",
          {"test_encoder_summary_hidden": 0},
          "Running both GRUs over the padded batch (the backward one on the padded rows reversed as a "
          "whole) is right for a row without padding, which is all the visible test checks in values "
          "(1 point); the padded rows and the appended-padding check fail (hidden: 0 of 3).",
          message="differs from reading that row alone, without padding"),
    Wrong("backward_from_padding",
          {"test_encoder_summary_hidden": 0},
          "The forward direction stops at each row's length, but the backward GRU gets the padded rows "
          "reversed as a whole (PyTorch: src.flip(1), packed with the true lengths; Keras: the rows "
          "flipped, their mask not), so a padded row's backward pass starts in its padding: right on "
          "the unpadded row of the visible test (1 point), off in the backward half of every padded "
          "row (hidden: 0 of 3).",
          message="backward half off by"),
    Wrong("free_running",
          {"test_teacher_forcing_hidden": 0},
          "Feeding back its own predictions instead of the gold tokens: the shapes and step 0 (which "
          "reads <bos> either way) are right, so the visible test passes, and decoder_step itself is "
          "right (1 point); only the teacher-forcing test fails (0 of 1).",
          message="with teacher forcing step t reads the gold token"),
    Wrong("greedy_off_by_one",
          {"test_greedy_decode_visible": 0, "test_greedy_decode_hidden": 0},
          "Writing the token fed in (starting with <bos>) instead of the one predicted shifts every row "
          "by one step: the visible script already shows it (0 of 1), and so do the hidden ones (0 of 3).",
          message="column t holds the token predicted at step t"),
    Wrong("greedy_never_stops",
          {"test_greedy_decode_hidden": 0},
          "Ignoring <eos> is invisible when every row ends exactly at max_len, as in the visible script "
          "(1 point); the hidden scripts keep talking after <eos> and end early (0 of 3).",
          message="a row that has produced <eos> must be PAD_ID from then on"),
    Wrong("parts_1_2_only",
          {"test_decoder_visible": 0, "test_decoder_step_hidden": 0, "test_teacher_forcing_hidden": 0,
           "test_greedy_decode_visible": 0, "test_greedy_decode_hidden": 0},
          "Parts 3 and 4 left as released: their five test cells score 0 (7 points), and parts 1, 2 and "
          "5 keep their 9 points (the parts are graded independently).",
          message="NotImplementedError"),
    Wrong("typed_in_encoder_count",
          {"test_encoder_parameters_prediction_hidden": 0},
          "The prediction is a number worked out for the chapter's sizes (V=30, E=32, H=64, one layer) "
          "and typed in: it returns one number, so the visible test passes, and the count is right "
          "(2 points), but at the hidden sizes the number is wrong (0 of 1).",
          message="which is not the number of parameters of that encoder"),
    Wrong("one_bias_per_gate",
          {"test_encoder_parameters_prediction_hidden": 0},
          "The formula of the classic GRU (Cho et al.'s, Keras' reset_after=False): one bias vector per "
          "gate, where both libraries' default GRU keeps two (an input and a recurrent one), so it is "
          "3H short per direction and layer at every hidden size (0 of 1); the count is right (2).",
          message="which is not the number of parameters of that encoder"),
    Wrong("prediction_by_building",
          {"test_encoder_parameters_prediction_hidden": 0},
          "The 'prediction' builds the library layers at the asked sizes and counts them, which gives "
          "the right numbers without any formula: building library layers is refused while the "
          "prediction runs (0 of 1); the count is right (2).",
          message="predicted_encoder_parameters built a library layer"),
    Wrong("measure_by_formula",
          {"test_encoder_parameters_measurement_hidden": 0},
          "The 'measurement' reads the layers' sizes and applies the prediction's formula: right for "
          "the chapter's kind of GRU and for the visible test's encoder without a GRU (1 point), and "
          "the prediction is right (1), but the hidden GRU without bias vectors holds fewer numbers "
          "than the formula says (0 of 1).",
          message="but the layers hold 158 numbers once built"),
    Wrong("rnn_only",
          {"test_encoder_parameters_visible": 0, "test_encoder_parameters_measurement_hidden": 0},
          "The count leaves out the embedding's V x E numbers: 0 instead of 40 on the visible test's "
          "encoder without a GRU (0 of 1), short by V x E on every hidden case (0 of 1); the "
          "prediction is right (1).",
          message={"pytorch": "holds 10 x 4 = 40 numbers and nn.Identity none",
                   "keras": "holds 10 x 4 = 40 numbers and layers.Identity none"}),
    Wrong("measure_unbuilt",
          {"test_encoder_parameters_visible": 0, "test_encoder_parameters_measurement_hidden": 0},
          "Keras only: counting the weights without running the layers first. A Keras layer creates "
          "its weights at its first call, so layers handed over unbuilt hold none yet: 0 on the visible "
          "test (0 of 1) and on every hidden case (0 of 1); the prediction is right (1).",
          message="a Keras layer has no weights before its first call"),
]
