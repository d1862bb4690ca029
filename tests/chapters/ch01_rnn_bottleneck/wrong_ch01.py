"""Chapter 1's known-wrong submissions (01-rnn-bottleneck-keras and -pytorch).

Each Wrong declares a student, the scores of the test cells that do not get full marks, why, and
what the feedback must show; the student's code (the answer cells that differ from the solution,
in full) is in wrong/<student>-<framework>.py beside this file. tests/harness/declarations.py
describes both; tests/test_grading.py grades them.
"""
from harness.declarations import Wrong

WRONG = [
    Wrong("wrong_gate_order",
          {"test_gru_step_hidden": 0},
          "Swapping r and z is invisible with all-zero weights (both gates are 1/2, so the visible known "
          "case h' = h/2 still holds: 1 point), but with random weights it no longer matches the library "
          "cell (hidden: 0 of 3). No other part uses gru_step.",
          message="gru_step differs from"),
    Wrong("library_gru_cell",
          {"test_gru_step_hidden": 0},
          "Calling the library cell with the given weights gets the values right (visible: 1 point), but "
          "part 1 asks for the formulas: the hidden test makes the library GRU refuse to run (0 of 3).",
          message="gru_step called the library GRU"),
    Wrong("padding_ignored",
          {"test_encoder_summary_hidden": 0},
          "Running the GRU over the padded batch is right for a row without padding, which is all the "
          "visible test checks in values (1 point); the padded rows and the appended-padding check fail "
          "(hidden: 0 of 3).",
          message="differs from running the GRU on that row alone, without padding"),
    Wrong("free_running",
          {"test_teacher_forcing_hidden": 0},
          "Feeding back its own predictions instead of the gold tokens: the shapes and step 0 (which "
          "reads <bos> either way) are right, so the visible test passes, and decoder_step itself is "
          "right (2 points); only the teacher-forcing test fails (0 of 1).",
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
          "Parts 3 and 4 left as released: their four test cells score 0, and parts 1 and 2 keep their 8 "
          "points (the parts are graded independently).",
          message="NotImplementedError"),
]
