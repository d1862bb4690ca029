"""Chapter 01 (the RNN bottleneck): the cases, the expected greedy outputs and the verdicts (with the
messages students see) that the PyTorch and the Keras checks share, and part 5's formula and its
check. Framework-free: plain Python.

The framework modules compute each difference (a float) with their own tensors and hand it to the
``assert_...`` functions here, in the order the checks have always made them."""
from attention_course.data import BOS_ID, EOS_ID, PAD_ID

from . import reference
from .reference import one_number   # the number a student's function returned, as a float

FIRST_WORD_ID = 4               # ids 0-3 are <pad>, <bos>, <eos>, <unk>

# gru_step against the library cell with the same random weights, for other batch sizes and widths.
GRU_STEP_CASES = (              # (B, D, H, seed)
    (5, 7, 6, 11),
    (1, 3, 2, 12),
    (4, 2, 9, 13),
)
# encoder_summary on right-padded rows, from two one-direction GRUs: each row against the forward
# GRU run on it alone and the backward GRU on it alone, reversed; then with three more padding
# columns appended.
ENCODER_SUMMARY_CASES = (       # (lengths of the rows, S, V, E, H, seed)
    ([6, 3, 1, 4], 6, 12, 3, 5, 21),
    ([2, 7], 9, 9, 6, 2, 22),
    ([4], 4, 8, 2, 3, 23),
)
# decoder_step against a reference step from the same layers (embedding and context of other widths).
DECODER_STEP_CASES = (          # (B, V, E, C, H, seed)
    (3, 9, 2, 6, 4, 31),
    (1, 5, 4, 3, 2, 32),
)
# teacher_forced_logits with the reference decoder_step swapped in.
TEACHER_FORCING_CASES = (       # (B, T, V, E, C, H, seed)
    (3, 6, 11, 3, 4, 5, 41),
    (1, 2, 6, 2, 2, 3, 42),
)
# greedy_decode against scripted steps: rows that end at different steps, rows that never end, a
# decoder that keeps talking after <eos>, B = 1 and max_len = 1.
GREEDY_CASES = (                # (script: the token each row predicts at each call, max_len, expected calls)
    ([[5, 6, EOS_ID, 7, 8, 9],
      [EOS_ID, 4, 4, 4, 4, 4],
      [4, 5, 6, 7, 8, 9],
      [3, 3, 3, 3, EOS_ID, 5]], 6, 6),
    ([[7, EOS_ID, 9, 9, 9, 9, 9, 9],
      [4, 4, 5, EOS_ID, 6, 6, 6, 6],
      [EOS_ID, 8, 8, 8, 8, 8, 8, 8]], 8, 4),
    ([[9, 10, 11, EOS_ID, 5]], 5, 4),
    ([[EOS_ID, 5]], 1, 1),
    ([[6, 5], [EOS_ID, 5]], 1, 1),
)
# Part 5, predict, then measure, the parameters of the encoder.
# predicted_encoder_parameters at hidden sizes: (V, E, H, num_layers). No constant matches them all,
# nor a formula with one bias vector per gate, one direction, the embedding left out, or E (not 2H)
# as the input width of the layers above the first (E != 2H wherever num_layers > 1).
ENCODER_PARAMETER_CASES = (
    (12, 3, 5, 1), (30, 32, 64, 1), (9, 5, 3, 2), (11, 4, 6, 3), (2, 1, 1, 1), (40, 16, 24, 2),
)
# measured_encoder_parameters on layers built by the check, not yet run (Keras creates a layer's
# weights at its first call); the last case has no bias vectors at all, so that a measurement
# which applies the formula to the layers' sizes instead of counting fails.
ENCODER_MEASUREMENT_CASES = (   # (V, E, H, num_layers, with biases, B, S, seed)
    (12, 3, 5, 1, True, 3, 6, 51),
    (9, 4, 3, 2, True, 2, 4, 52),
    (7, 2, 4, 1, False, 4, 5, 53),
)
# What a prediction that builds library layers to count them is told.
PREDICTION_BUILT_LAYERS = ("predicted_encoder_parameters built a library layer: a prediction is a "
                           "formula in V, E, H and num_layers, worked out from what each gate stores; "
                           "counting built layers is measured_encoder_parameters' job")

# The message of a scripted step whose state comes back other than it handed it out.
STATE_NOT_PASSED = "greedy_decode must pass the state returned by one step into the next step"


def defined_in(namespace, name):
    """What `name` means in the kernel's globals `namespace`, or the NameError that a cell looking
    it up would raise."""
    if name not in namespace:
        raise NameError(f"name '{name}' is not defined")
    return namespace[name]


# ---------------------------------------------------------------- encoder_summary
def assert_row_matches_unpadded(i, n, S, forward_err, backward_err):
    """Row i (n real tokens of S) must equal its real tokens read alone, in both halves."""
    assert max(forward_err, backward_err) < 1e-5, (
        f"row {i} (length {n} of {S}) differs from reading that row alone, without padding "
        "(forward_rnn from its first token to its last, backward_rnn from its last to its first): "
        f"forward half off by {forward_err:.3g}, backward half off by {backward_err:.3g}. "
        "Use each row's true length in both directions")


def assert_padding_changes_nothing(change):
    """Appending padding columns must not change the summary."""
    assert change < 1e-5, (
        f"appending padding changed the summary by {change:.3g}: the final states must come from "
        "each row's true length")


# ---------------------------------------------------------------- decoder_step, teacher forcing
def assert_new_state_matches(state_err):
    """decoder_step's new state against the reference step's."""
    assert state_err < 1e-5, (
        f"the new state differs from the reference by {state_err:.3g}: "
        "the GRU input is [embedding(prev_tokens) ; context], in that order")


def assert_logits_match(logits_err):
    """decoder_step's logits against the reference step's."""
    assert logits_err < 1e-5, (
        f"the logits differ from the reference by {logits_err:.3g}: they come from the new state")


def other_gold_tokens(tokens, vocab_size):
    """Each word id moved on by one, cycling within FIRST_WORD_ID .. vocab_size - 1 (any int array)."""
    return (tokens + 1 - FIRST_WORD_ID) % (vocab_size - FIRST_WORD_ID) + FIRST_WORD_ID


def assert_earlier_steps_unchanged(early, T):
    """`early`: how much changing the gold tokens from step T // 2 on moved the earlier logits."""
    assert early < 1e-5, (
        f"changing the gold tokens from step {T // 2} on changed the logits of earlier steps: "
        "step t may only read tgt_in[:, t] (and the state built from earlier steps)")


def assert_gold_token_read(late, T):
    """`late`: how much changing the gold token of step T // 2 moved that step's logits."""
    assert late > 1e-4, (
        f"changing the gold token tgt_in[:, {T // 2}] did not change the logits of step {T // 2}: "
        "with teacher forcing step t reads the gold token tgt_in[:, t], not the model's own prediction")


def assert_matches_stepping(err):
    """teacher_forced_logits against stepping the reference decoder_step through the gold tokens."""
    assert err < 1e-5, (
        f"teacher_forced_logits differs from stepping decoder_step through tgt_in by {err:.3g}: "
        "start from the given state and pass each step's new state to the next step")


# ---------------------------------------------------------------- greedy_decode
def expected_ids(script, max_len):
    """What greedy decoding of a scripted step must return (B lists of max_len ids): each row's
    script (its last token repeated past its end) up to its first <eos>, then PAD_ID."""
    rows = []
    for row in script:
        row = list(row[:max_len]) + [row[-1]] * (max_len - len(row))
        if EOS_ID in row:
            end = row.index(EOS_ID) + 1
            row = row[:end] + [PAD_ID] * (max_len - end)
        rows.append(row)
    return rows


def greedy_run_against_script(rows, step, script, max_len, expected_calls):
    """The verdict on a greedy run whose shape is checked: `rows` (B lists of ids) as returned, and
    what the scripted `step` was fed (step.fed: one (B,) array or tensor per call) and how often it
    was called. Returns the observation (name, value)."""
    expected = expected_ids(script, max_len)
    for i, (row, want) in enumerate(zip(rows, expected)):
        if row != want:
            hint = "column t holds the token predicted at step t"
            if EOS_ID in want and row[:want.index(EOS_ID) + 1] == want[:want.index(EOS_ID) + 1]:
                hint = "a row that has produced <eos> must be PAD_ID from then on"
            raise AssertionError(f"row {i}: expected {want}, got {row}: {hint}")
    assert step.fed[0].tolist() == [BOS_ID] * len(script), "the first step must be fed <bos> in every row"
    for k in range(1, len(step.fed)):
        for i, want in enumerate(expected):
            if EOS_ID not in want[:k]:                       # row i still running at step k
                assert int(step.fed[k][i]) == want[k - 1], (
                    f"at step {k}, row {i} must be fed its own prediction from step {k - 1}")
    assert step.calls == expected_calls, (
        f"greedy_decode called step {step.calls} times; every row had produced <eos> after "
        f"{expected_calls} steps (max_len={max_len}): stop once all rows are done, and not before")
    fed_while_running = [[int(step.fed[k][i]) for i, want in enumerate(expected) if EOS_ID not in want[:k]]
                         for k in range(1, len(step.fed))]
    return (f"greedy_decode script={script} max_len={max_len}",
            [rows, step.fed[0].tolist(), fed_while_running, step.calls])


# ---------------------------------------------------------------- part 5: the encoder's parameters
def gru_direction_parameters(input_width, H):
    """The numbers in one direction of a GRU layer (PyTorch, or Keras with reset_after=True): three
    gates, each with an input matrix (H, input_width), a recurrent matrix (H, H) and two biases."""
    return 3 * (input_width * H + H * H + 2 * H)


def encoder_parameters(V, E, H, num_layers):
    """The numbers in the chapter's encoder with num_layers stacked bidirectional GRU layers: the
    embedding (V, E), then two directions per layer, the first reading E numbers per position and
    each later one the 2H of the layer below."""
    first = 2 * gru_direction_parameters(E, H)
    return V * E + first + (num_layers - 1) * 2 * gru_direction_parameters(2 * H, H)


def encoder_parameters_prediction(predict, V, E, H, num_layers):
    """predicted_encoder_parameters(V, E, H, num_layers) against encoder_parameters (exactly), for
    a case of ENCODER_PARAMETER_CASES; the observation."""
    what = f"predicted_encoder_parameters(V={V}, E={E}, H={H}, num_layers={num_layers})"
    predicted = one_number(reference.quietly(predict, V, E, H, num_layers), what)
    expected = encoder_parameters(V, E, H, num_layers)
    assert predicted == expected, (
        f"{what} returned {predicted:.10g}, which is not the number of parameters of that "
        "encoder: count the embedding, then every weight matrix and bias vector of each gate, "
        "in each direction of each layer (what does a layer above the first read?)")
    return what, predicted


def assert_measured(what, measured, expected, hint):
    """A measured count against the count of the layers it was given."""
    assert measured == expected, (
        f"{what}: measured {measured:.10g}, but the layers hold {expected} numbers once built: "
        f"{hint}")
