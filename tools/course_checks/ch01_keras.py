"""Chapter 01 (the RNN bottleneck), Keras: the checks of the hidden tests. Each takes the student's
function and one case of ch01's tables, asserts, and returns what the cell observes."""
import keras
import numpy as np
from keras import layers, ops

from attention_course.data import BOS_ID, PAD_ID

from . import ch01, reference
from .ch01 import (DECODER_STEP_CASES, ENCODER_MEASUREMENT_CASES,  # noqa: F401
                   ENCODER_PARAMETER_CASES, ENCODER_SUMMARY_CASES, GREEDY_CASES, GRU_STEP_CASES,
                   TEACHER_FORCING_CASES)


# ---------------------------------------------------------------- gru_step
def library_gru_refused():
    """While inside: layers.GRUCell and layers.GRU raise the student's failure message."""
    targets = [(layers.GRUCell, "call"), (layers.GRU, "call")]
    return reference.refused(targets,
                             "gru_step called the library GRU (keras.layers.GRUCell or keras.layers.GRU): "
                             "compute the gates from the formulas yourself")


def gru_step_against_library(gru_step, B, D, H, seed):
    """gru_step against layers.GRUCell(reset_after=False) (Cho et al.'s form: the reset gate applied
    to h before the recurrent product, one bias per gate) with the same random weights, the library
    GRU refused while it runs. A step that gives the library's default form instead (the reset gate
    after the product, the chapter's) is told so. Returns (name, new states (B, H))."""
    rng = np.random.default_rng(seed)
    before = layers.GRUCell(H, reset_after=False)       # Cho et al.'s form
    before.build((None, D))
    before.set_weights([rng.normal(size=w.shape).astype("float32") for w in before.get_weights()])
    x, h = rng.normal(size=(B, D)).astype("float32"), rng.normal(size=(B, H)).astype("float32")
    expected = ops.convert_to_numpy(before(x, h)[0])
    weights = before.get_weights()
    after = layers.GRUCell(H)                            # the default form, with the same numbers
    after.build((None, D))
    after.set_weights(weights[:2] + [np.stack([weights[2], np.zeros_like(weights[2])])])
    reset_after = ops.convert_to_numpy(after(x, h)[0])
    with library_gru_refused():
        got = ops.convert_to_numpy(gru_step(x, h, *weights))
    assert got.shape == (B, H), f"with B={B}, D={D}, H={H} expected shape (B, H) = {(B, H)}, got {got.shape}"
    err = float(np.abs(got - expected).max())
    assert float(np.abs(got - reset_after).max()) >= 1e-5, (
        f"gru_step gives the values of keras.layers.GRUCell(reset_after=True) (B={B}, D={D}, H={H}), "
        "the chapter's form: in Cho et al.'s GRU the reset gate multiplies h before the recurrent "
        "product, W_hn (r * h)")
    assert err < 1e-5, (
        f"gru_step differs from keras.layers.GRUCell(reset_after=False) with the same weights by up to "
        f"{err:.3g} (B={B}, D={D}, H={H}): check which columns of the stacked weights belong to which "
        "gate, and where the reset gate applies")
    return f"gru_step B={B} D={D} H={H}", got


# ---------------------------------------------------------------- encoder_summary
def summary_of_row(row, embedding, forward_rnn, backward_rnn):
    """[forward final state ; backward final state] (2H,) of one row's real tokens, read left to
    right by forward_rnn and right to left by backward_rnn, without padding."""
    n = int((row != PAD_ID).sum())
    tokens = embedding(row[None, :n])                     # one unpadded row: (1, n, E)
    left_to_right = ops.convert_to_numpy(forward_rnn(tokens))[0]
    right_to_left = ops.convert_to_numpy(backward_rnn(ops.flip(tokens, axis=1)))[0]
    return np.concatenate([left_to_right, right_to_left])


def encoder_summary_against_unpadded_rows(encoder_summary, lengths, S, V, E, H, seed):
    """encoder_summary of right-padded rows (B = len(lengths), S), from two one-direction GRUs with
    different weights, against each row read alone, then with three more padding columns.
    Returns (name, [summary, padded summary])."""
    keras.utils.set_random_seed(seed)
    rng = np.random.default_rng(seed)
    embedding = layers.Embedding(V, E)                     # <pad> gets a non-zero vector: padding would show
    forward_rnn, backward_rnn = layers.GRU(H), layers.GRU(H)
    src = np.full((len(lengths), S), PAD_ID, dtype="int32")
    for i, n in enumerate(lengths):
        src[i, :n] = rng.integers(ch01.FIRST_WORD_ID, V, size=n)
    got = ops.convert_to_numpy(encoder_summary(src, embedding, forward_rnn, backward_rnn))
    assert got.shape == (len(lengths), 2 * H), (
        f"expected shape (B, 2H) = {(len(lengths), 2 * H)}, got {got.shape}")
    for i, n in enumerate(lengths):
        expected = summary_of_row(src[i], embedding, forward_rnn, backward_rnn)
        ch01.assert_row_matches_unpadded(i, n, S, float(np.abs(got[i, :H] - expected[:H]).max()),
                                         float(np.abs(got[i, H:] - expected[H:]).max()))
    padded = np.concatenate([src, np.full((len(lengths), 3), PAD_ID, dtype="int32")], axis=1)
    got_padded = ops.convert_to_numpy(encoder_summary(padded, embedding, forward_rnn, backward_rnn))
    ch01.assert_padding_changes_nothing(float(np.abs(got_padded - got).max()))
    return f"encoder_summary lengths={lengths} S={S}", [got, got_padded]


# ---------------------------------------------------------------- decoder_step, teacher forcing
def reference_decoder_step(prev_tokens, context, state, embedding, cell, out):
    """The decoder step of the chapter: the GRU cell on [embedding(prev_tokens) ; context]."""
    state, _ = cell(ops.concatenate([embedding(prev_tokens), context], axis=-1), state)
    return out(state), state


def decoder_step_against_reference(decoder_step, B, V, E, C, H, seed):
    """decoder_step against reference_decoder_step with the same layers (the reference runs first:
    it builds them). Returns (name, [logits (B, V), new state (B, H)])."""
    keras.utils.set_random_seed(seed)
    rng = np.random.default_rng(seed)
    embedding, cell, out = layers.Embedding(V, E), layers.GRUCell(H), layers.Dense(V)
    prev = rng.integers(0, V, size=B)
    context = rng.normal(size=(B, C)).astype("float32")
    state = rng.normal(size=(B, H)).astype("float32")
    ref_logits, ref_state = map(ops.convert_to_numpy,
                                reference_decoder_step(prev, context, state, embedding, cell, out))
    logits, new_state = map(ops.convert_to_numpy, decoder_step(prev, context, state, embedding, cell, out))
    assert logits.shape == (B, V) and new_state.shape == (B, H), (
        f"with B={B}, V={V}, H={H} expected shapes {(B, V)} and {(B, H)}, "
        f"got {logits.shape} and {new_state.shape}")
    ch01.assert_new_state_matches(float(np.abs(new_state - ref_state).max()))
    ch01.assert_logits_match(float(np.abs(logits - ref_logits).max()))
    return f"decoder_step B={B} V={V} H={H}", [logits, new_state]


def teacher_forcing_against_reference(namespace, B, T, V, E, C, H, seed):
    """The kernel's teacher_forced_logits with reference_decoder_step swapped in for its decoder_step
    (`namespace`: the kernel's globals, restored after), on gold tokens and on gold tokens changed
    from step T // 2 on. Returns (name, [logits (B, T, V), changed run's logits up to T // 2])."""
    keras.utils.set_random_seed(seed)
    rng = np.random.default_rng(seed)
    embedding, cell, out = layers.Embedding(V, E), layers.GRUCell(H), layers.Dense(V)
    context = rng.normal(size=(B, C)).astype("float32")
    state = rng.normal(size=(B, H)).astype("float32")
    tgt_in = rng.integers(ch01.FIRST_WORD_ID, V, size=(B, T))
    tgt_in[:, 0] = BOS_ID
    expected, s = [], state
    for t in range(T):
        step_logits, s = reference_decoder_step(tgt_in[:, t], context, s, embedding, cell, out)
        expected.append(ops.convert_to_numpy(step_logits))
    expected = np.stack(expected, axis=1)                 # (B, T, V)
    students_step = namespace["decoder_step"]
    namespace["decoder_step"] = reference_decoder_step
    try:
        teacher_forced_logits = ch01.defined_in(namespace, "teacher_forced_logits")
        got = ops.convert_to_numpy(teacher_forced_logits(tgt_in, context, state, embedding, cell, out))
        changed = tgt_in.copy()
        changed[:, T // 2:] = ch01.other_gold_tokens(changed[:, T // 2:], V)   # from T//2 on
        got_changed = ops.convert_to_numpy(
            teacher_forced_logits(changed, context, state, embedding, cell, out))
    finally:
        namespace["decoder_step"] = students_step
    assert got.shape == (B, T, V), f"expected (B, T, V) = {(B, T, V)}, got {got.shape}"
    ch01.assert_earlier_steps_unchanged(float(np.abs(got_changed[:, :T // 2] - got[:, :T // 2]).max()), T)
    ch01.assert_gold_token_read(float(np.abs(got_changed[:, T // 2] - got[:, T // 2]).max()), T)
    ch01.assert_matches_stepping(float(np.abs(got - expected).max()))
    return f"teacher_forced_logits B={B} T={T}", [got, got_changed[:, :T // 2 + 1]]


# ---------------------------------------------------------------- greedy_decode
class ScriptedStep:
    """A stand-in for a trained decoder step: at its k-th call it "predicts" script[:, k] for
    every row, whatever it is fed. It records what it is fed, and its state counts the calls,
    so it can tell whether the state is passed along."""

    def __init__(self, script, vocab_size=12):
        self.script = np.asarray(script)                      # (B, L) token predicted at each call
        self.vocab_size, self.calls, self.fed = vocab_size, 0, []

    def __call__(self, prev_tokens, state):
        assert int(np.asarray(ops.convert_to_numpy(state)).reshape(-1)[0]) == self.calls, (
            ch01.STATE_NOT_PASSED)
        self.fed.append(np.asarray(ops.convert_to_numpy(prev_tokens)).reshape(-1).copy())
        tokens = self.script[:, min(self.calls, self.script.shape[1] - 1)]
        self.calls += 1
        logits = np.full((len(tokens), self.vocab_size), -5.0, dtype="float32")
        logits[np.arange(len(tokens)), tokens] = 5.0
        return ops.convert_to_tensor(logits), ops.add(state, 1.0)


def greedy_decode_against_script(greedy_decode, script, max_len, expected_calls):
    """greedy_decode of a ScriptedStep from a (B, 2) zero state: the ids, what each step was fed,
    how often it was called. Returns (name, [ids, first tokens fed, tokens fed later, calls])."""
    step = ScriptedStep(script)
    got = np.asarray(greedy_decode(step, np.zeros((len(script), 2), dtype="float32"), max_len))
    assert got.shape == (len(script), max_len), (
        f"expected shape (B, max_len) = {(len(script), max_len)}, got {got.shape}")
    return ch01.greedy_run_against_script(got.tolist(), step, script, max_len, expected_calls)


# ---------------------------------------------------------------- part 5: the encoder's parameters
def library_layers_refused():
    """While inside: building a library embedding or recurrent cell raises the student's failure
    message (a prediction is a formula, not a count of layers built on the spot)."""
    targets = [(layers.Embedding, "build"), (layers.GRUCell, "build"), (layers.LSTMCell, "build"),
               (layers.SimpleRNNCell, "build")]
    return reference.refused(targets, ch01.PREDICTION_BUILT_LAYERS)


def encoder_parameters_prediction(predicted_encoder_parameters, V, E, H, num_layers):
    """predicted_encoder_parameters at a case of ENCODER_PARAMETER_CASES, with library layers
    refused while they would be built; the observation."""
    with library_layers_refused():
        return ch01.encoder_parameters_prediction(predicted_encoder_parameters, V, E, H, num_layers)


def encoder_parameters_measurement(measured_encoder_parameters, V, E, H, num_layers, biases, B, S,
                                   seed):
    """measured_encoder_parameters(embedding, rnn, src) on a layers.Embedding(V, E) and num_layers
    layers.Bidirectional(layers.GRU(H, return_sequences=True, use_bias=biases)) (one, or a
    keras.Sequential of them), handed over not yet built, against the numbers they hold once run,
    for a case of ENCODER_MEASUREMENT_CASES. Returns (name, the measured count)."""
    keras.utils.set_random_seed(seed)
    embedding = layers.Embedding(V, E)
    stack = [layers.Bidirectional(layers.GRU(H, return_sequences=True, use_bias=biases))
             for _ in range(num_layers)]
    rnn = stack[0] if num_layers == 1 else keras.Sequential(stack)
    src = np.random.default_rng(seed).integers(ch01.FIRST_WORD_ID, V, size=(B, S))
    what = (f"measured_encoder_parameters on layers.Embedding({V}, {E}) and {num_layers} "
            f"layers.Bidirectional(layers.GRU({H}, use_bias={biases}))")
    measured = ch01.one_number(reference.quietly(measured_encoder_parameters, embedding, rnn, src),
                               what)
    rnn(embedding(src))                                   # built now, if the measurement did not run them
    held = sum(int(np.prod(w.shape)) for layer in (embedding, rnn) for w in layer.weights)
    ch01.assert_measured(what, measured, held,
                         "Keras creates a layer's weights at its first call, so run the layers on "
                         "src first, then count every number in every weight of the two layers "
                         "(do not apply a formula: this GRU may differ from the chapter's)")
    return what, measured
