"""The PyTorch and the Keras seq2seq models compute the same function.

With the PyTorch weights copied into the Keras model (attention_course.convert),
encoders, decoders, teacher-forced logits and greedy decodes agree to float32
rounding (largest differences seen: 3e-7 in the encoder states, 2e-6
in logits of size up to 7).  A NumPy GRU written from the
formulas checks the PyTorch GRU itself, and padding must never change what the
encoder says about the real tokens.  Tiny random models: the whole file runs in
seconds.
"""
import numpy as np
import pytest

from attention_course import common, convert  # first: quiet TensorFlow, Keras on TensorFlow
from attention_course.data import BOS_ID, PAD_ID

import keras  # noqa: E402
from random_batches import SRC_LENGTHS, seq2seq_batch  # noqa: E402
import torch  # noqa: E402
from attention_course import keras_seq2seq, torch_seq2seq  # noqa: E402

SRC_VOCAB, TGT_VOCAB, EMBED, HIDDEN = 13, 9, 6, 7   # all different, so a mixed-up axis fails
ATOL = 1e-5                                         # float32; differences seen are <= 2e-6
LENGTHS = SRC_LENGTHS
MAX_LEN = 7


@pytest.fixture(scope="module")
def batch():
    return seq2seq_batch(SRC_VOCAB, TGT_VOCAB)


def random_torch_model(seed=0):
    """PyTorch's default initialisation is so small that an untrained model
    decodes the same token for every source; larger weights make every input matter."""
    common.set_seed(seed)
    model = torch_seq2seq.Seq2Seq(SRC_VOCAB, TGT_VOCAB, EMBED, HIDDEN).eval()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.normal_(0.0, 0.8)
    return model


@pytest.fixture(scope="module")
def models(batch):
    torch_model = random_torch_model()
    keras_model = keras_seq2seq.Seq2Seq(SRC_VOCAB, TGT_VOCAB, EMBED, HIDDEN)
    keras_model(*batch)                                   # build the Keras weights
    for variable in keras_model.weights:                 # poison: a weight left uncopied shows
        variable.assign(np.full(variable.shape, np.nan, dtype="float32"))
    convert.copy_seq2seq_torch_to_keras(torch_model, keras_model)
    return torch_model, keras_model


def to_numpy(x):
    return x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else keras.ops.convert_to_numpy(x)


def assert_close(torch_value, keras_value, atol=ATOL):
    a, b = to_numpy(torch_value), to_numpy(keras_value)
    assert a.shape == b.shape
    np.testing.assert_allclose(a, b, rtol=0, atol=atol)


# ---------------------------------------------------------------- the conversion
def test_every_keras_weight_is_copied(models):
    torch_model, keras_model = models
    for variable in keras_model.weights:
        assert np.isfinite(variable.numpy()).all(), variable.path
    n_torch = sum(p.numel() for p in torch_model.parameters())
    n_keras = sum(int(np.prod(v.shape)) for v in keras_model.weights)
    assert n_torch == n_keras


def test_copy_dense_transposes():
    linear = torch.nn.Linear(4, 3)
    dense = keras.layers.Dense(3)
    dense.build((None, 4))
    convert.copy_dense(linear, dense)
    x = np.random.default_rng(1).normal(size=(5, 4)).astype("float32")
    assert_close(linear(torch.as_tensor(x)), dense(x))


def test_gate_order_converts_r_z_n_to_z_r_n():
    h = 2
    stacked = np.repeat(np.array([0, 1, 2]), h)          # blocks r, z, n of height h
    np.testing.assert_array_equal(convert.gru_gates_torch_to_keras(stacked), [1, 1, 0, 0, 2, 2])


def test_copy_gru_needs_reset_after():
    gru = keras.layers.GRU(HIDDEN, reset_after=False)
    gru.build((None, 3, EMBED))
    with pytest.raises(ValueError, match="reset_after"):
        convert.copy_gru(torch.nn.GRU(EMBED, HIDDEN), gru)


def test_copy_needs_a_built_keras_model():
    with pytest.raises(ValueError, match="build"):
        convert.copy_seq2seq_torch_to_keras(torch_seq2seq.Seq2Seq(SRC_VOCAB, TGT_VOCAB, EMBED, HIDDEN),
                                            keras_seq2seq.Seq2Seq(SRC_VOCAB, TGT_VOCAB, EMBED, HIDDEN))


def test_without_reordering_the_gates_the_models_differ(batch, monkeypatch):
    # The equivalence tests can fail: copy the GRUs with PyTorch's gate order kept.
    monkeypatch.setattr(convert, "gru_gates_torch_to_keras", lambda stacked: stacked)
    torch_model = random_torch_model()
    keras_model = keras_seq2seq.Seq2Seq(SRC_VOCAB, TGT_VOCAB, EMBED, HIDDEN)
    keras_model(*batch)
    convert.copy_seq2seq_torch_to_keras(torch_model, keras_model)
    src = batch[0]
    difference = np.abs(to_numpy(torch_model.encoder(torch.as_tensor(src))[1])
                        - to_numpy(keras_model.encoder(src)[1])).max()
    assert difference > 100 * ATOL


# ---------------------------------------------------------------- Keras == PyTorch
def test_encoders_agree(models, batch):
    torch_model, keras_model = models
    src = batch[0]
    torch_states, torch_context = torch_model.encoder(torch.as_tensor(src))
    keras_states, keras_context = keras_model.encoder(src)
    assert tuple(torch_states.shape) == (len(LENGTHS), max(LENGTHS), 2 * HIDDEN)
    assert tuple(torch_context.shape) == (len(LENGTHS), 2 * HIDDEN)
    assert_close(torch_states, keras_states)             # padded positions too (zeros in both)
    assert_close(torch_context, keras_context)


def test_decoders_agree(models, batch):
    torch_model, keras_model = models
    tgt_in = batch[1]
    rng = np.random.default_rng(2)
    context = rng.normal(size=(len(tgt_in), 2 * HIDDEN)).astype("float32")
    state = np.tanh(rng.normal(size=(len(tgt_in), HIDDEN))).astype("float32")
    assert_close(torch_model.decoder.initial_state(torch.as_tensor(context)),
                 keras_model.decoder.initial_state(context))
    torch_logits, torch_state = torch_model.decoder(torch.as_tensor(tgt_in), torch.as_tensor(context),
                                                    torch.as_tensor(state))
    keras_logits, keras_state = keras_model.decoder(tgt_in, context, state)
    assert tuple(torch_logits.shape) == (*tgt_in.shape, TGT_VOCAB)
    assert_close(torch_logits, keras_logits)
    assert_close(torch_state, keras_state)


def test_teacher_forced_logits_agree(models, batch):
    torch_model, keras_model = models
    src, tgt_in = batch
    torch_logits = torch_model(torch.as_tensor(src), torch.as_tensor(tgt_in))
    keras_logits = keras_model(src, tgt_in)
    assert_close(torch_logits, keras_logits)


def test_greedy_decodes_agree(models, batch):
    torch_model, keras_model = models
    src = batch[0]
    torch_tokens = torch_seq2seq.greedy_decode(torch_model, src, MAX_LEN)
    keras_tokens = keras_seq2seq.greedy_decode(keras_model, src, MAX_LEN)
    assert torch_tokens.shape == keras_tokens.shape == (len(src), MAX_LEN)
    np.testing.assert_array_equal(torch_tokens, keras_tokens)
    assert len({tuple(row) for row in torch_tokens}) > 1  # the rows do not all say the same


def test_greedy_decode_is_teacher_forcing_on_its_own_output(models, batch):
    # Step-by-step decoding and one teacher-forced pass over the decoded tokens
    # must agree, in each framework.
    torch_model, keras_model = models
    src = batch[0]
    tokens = keras_seq2seq.greedy_decode(keras_model, src, MAX_LEN)
    fed = np.concatenate([np.full((len(src), 1), BOS_ID), tokens[:, :-1]], axis=1)
    torch_logits = torch_model(torch.as_tensor(src), torch.as_tensor(fed))
    np.testing.assert_array_equal(to_numpy(torch_logits).argmax(-1), tokens)
    np.testing.assert_array_equal(to_numpy(keras_model(src, fed)).argmax(-1), tokens)


# ---------------------------------------------------------------- padding
@pytest.mark.parametrize("framework", ["torch", "keras"])
def test_padding_never_changes_the_encoder(models, batch, framework):
    torch_model, keras_model = models
    src = batch[0]

    def encode(ids):
        if framework == "torch":
            states, context = torch_model.encoder(torch.as_tensor(ids))
        else:
            states, context = keras_model.encoder(ids)
        return to_numpy(states), to_numpy(context)

    states, context = encode(src)
    extra = np.concatenate([src, np.full((len(src), 3), PAD_ID)], axis=1)   # 3 more PAD columns
    more_states, more_context = encode(extra)
    np.testing.assert_allclose(more_context, context, rtol=0, atol=1e-6)
    np.testing.assert_allclose(more_states[:, :src.shape[1]], states, rtol=0, atol=1e-6)
    assert not more_states[:, src.shape[1]:].any()         # states at padding are zero

    for row, length in enumerate(LENGTHS):                  # each row alone, with no padding
        alone_states, alone_context = encode(src[row:row + 1, :length])
        np.testing.assert_allclose(alone_context[0], context[row], rtol=0, atol=1e-6)
        np.testing.assert_allclose(alone_states[0], states[row, :length], rtol=0, atol=1e-6)


# ---------------------------------------------------------------- a NumPy reference GRU
def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def numpy_gru(x, h, w_ih, w_hh, b_ih, b_hh):
    """GRU over x (T, in) from state h (H,), weights in PyTorch's layout (gates r, z, n).

        r  = sigmoid(W_ir x + b_ir + W_hr h + b_hr)
        z  = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
        n  = tanh(W_in x + b_in + r * (W_hn h + b_hn))
        h' = (1 - z) * n + z * h
    """
    outputs = []
    for x_t in x:
        gi_r, gi_z, gi_n = np.split(w_ih @ x_t + b_ih, 3)
        gh_r, gh_z, gh_n = np.split(w_hh @ h + b_hh, 3)
        r = sigmoid(gi_r + gh_r)
        z = sigmoid(gi_z + gh_z)
        n = np.tanh(gi_n + r * gh_n)
        h = (1 - z) * n + z * h
        outputs.append(h)
    return np.stack(outputs), h


def gru_weights(gru, suffix=""):
    return [getattr(gru, f"{name}_l0{suffix}").detach().double().numpy()
            for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]


def test_torch_gru_matches_numpy_reference():
    common.set_seed(3)
    gru = torch.nn.GRU(EMBED, HIDDEN, batch_first=True)
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 5, EMBED)).astype("float32")
    h0 = rng.normal(size=(2, HIDDEN)).astype("float32")
    outputs, last = gru(torch.as_tensor(x), torch.as_tensor(h0)[None])
    for b in range(2):
        ref_outputs, ref_last = numpy_gru(x[b], h0[b], *gru_weights(gru))
        np.testing.assert_allclose(to_numpy(outputs[b]), ref_outputs, rtol=0, atol=1e-6)
        np.testing.assert_allclose(to_numpy(last[0, b]), ref_last, rtol=0, atol=1e-6)

    # And the Keras GRU, after copy_gru, matches the same reference.
    keras_gru = keras.layers.GRU(HIDDEN, return_sequences=True, return_state=True)
    keras_gru.build((None, 5, EMBED))
    convert.copy_gru(gru, keras_gru)
    keras_outputs, keras_last = keras_gru(x, initial_state=[h0])
    assert_close(outputs, keras_outputs)
    assert_close(last[0], keras_last)


def test_torch_encoder_matches_numpy_reference(models, batch):
    # Forward over each row's real tokens; backward from its last real token to its first.
    torch_model, _ = models
    src = batch[0]
    states, context = torch_model.encoder(torch.as_tensor(src))
    table = torch_model.encoder.embedding.weight.detach().double().numpy()
    rnn = torch_model.encoder.rnn
    zero = np.zeros(HIDDEN)
    for row, length in enumerate(LENGTHS):
        x = table[src[row, :length]]                                       # (L, E)
        forward, forward_last = numpy_gru(x, zero, *gru_weights(rnn))
        backward, backward_last = numpy_gru(x[::-1], zero, *gru_weights(rnn, "_reverse"))
        expected = np.concatenate([forward, backward[::-1]], axis=-1)      # (L, 2H)
        np.testing.assert_allclose(to_numpy(states[row, :length]), expected, rtol=0, atol=1e-6)
        np.testing.assert_allclose(to_numpy(context[row]),
                                   np.concatenate([forward_last, backward_last]), rtol=0, atol=1e-6)
