"""Chapter 2's attention: the formula, the mask, and Keras against PyTorch.

- Each attention layer computes its formula (NumPy, from the weights);
- the masked softmax gives exactly zero weight to padding, rows sum to one, and
  huge scores on padding change nothing (no NaN, no leak);
- attention does not care about the order of the source positions: permuting
  keys and mask together permutes the weights and leaves the context unchanged;
- with the PyTorch weights copied into the Keras model, logits, attention weights
  and greedy decodes agree, for both scores;
- extra padding columns never change an output, in either framework;
- greedy decoding, step by step, is the teacher-forced model fed its own outputs.

Tiny random models: the whole file runs in seconds.
"""
import numpy as np
import pytest

from attention_course import common, convert  # first: quiet TensorFlow, Keras on TensorFlow
from attention_course.data import BOS_ID, PAD_ID

import keras  # noqa: E402
from random_batches import seq2seq_batch  # noqa: E402
import torch  # noqa: E402
from attention_course import keras_attention, torch_attention  # noqa: E402

SRC_VOCAB, TGT_VOCAB, EMBED, HIDDEN = 13, 9, 6, 7   # all different, so a mixed-up axis fails
ATOL = 1e-5
SCORES = ["additive", "multiplicative"]


@pytest.fixture(scope="module")
def batch():
    return seq2seq_batch(SRC_VOCAB, TGT_VOCAB)


def random_torch_model(score, seed=0):
    """Larger-than-default weights, so that every input visibly matters."""
    common.set_seed(seed)
    model = torch_attention.AttentionSeq2Seq(SRC_VOCAB, TGT_VOCAB, score, EMBED, HIDDEN).eval()
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.normal_(0.0, 0.8)
    return model


@pytest.fixture(scope="module", params=SCORES)
def models(request, batch):
    torch_model = random_torch_model(request.param)
    keras_model = keras_attention.AttentionSeq2Seq(SRC_VOCAB, TGT_VOCAB, request.param,
                                                   EMBED, HIDDEN)
    keras_model(*batch)                                   # build the Keras weights
    for variable in keras_model.weights:                 # poison: a weight left uncopied shows
        variable.assign(np.full(variable.shape, np.nan, dtype="float32"))
    convert.copy_attention_seq2seq_torch_to_keras(torch_model, keras_model)
    return torch_model, keras_model


def torch_forward(model, src, tgt_in):
    with torch.no_grad():
        logits, weights = model(torch.as_tensor(src), torch.as_tensor(tgt_in),
                                return_weights=True)
    return logits.numpy(), weights.numpy()


def keras_forward(model, src, tgt_in):
    logits, weights = model(src, tgt_in, return_weights=True)
    return keras.ops.convert_to_numpy(logits), keras.ops.convert_to_numpy(weights)


# ---------------------------------------------------------------- the layers alone
def numpy_masked_softmax(scores, mask):
    scores = np.where(mask, scores, -np.inf)
    z = np.exp(scores - scores.max(-1, keepdims=True))
    return z / z.sum(-1, keepdims=True)


def layer_inputs(seed=0, B=3, S=6, Q=5, K=4):
    rng = np.random.default_rng(seed)
    query = rng.normal(size=(B, Q)).astype("float32")
    keys = rng.normal(size=(B, S, K)).astype("float32")
    mask = np.arange(S) < np.array([S, 3, 1])[:, None]
    return query, keys, mask


def torch_layer(score, Q=5, K=4, A=3):
    common.set_seed(0)
    if score == "additive":
        return torch_attention.AdditiveAttention(Q, K, A)
    return torch_attention.MultiplicativeAttention(Q, K)


def expected_scores(layer, query, keys):
    """The formulas of §2.3, from the PyTorch layer's weights (W x = x @ W.T)."""
    W = layer.W.weight.detach().numpy()
    if isinstance(layer, torch_attention.AdditiveAttention):
        U, b = layer.U.weight.detach().numpy(), layer.U.bias.detach().numpy()
        v = layer.v.weight.detach().numpy()[0]
        return np.tanh((query @ W.T)[:, None, :] + keys @ U.T + b) @ v     # v^T tanh(Wq+Uk+b)
    return np.einsum("bq,bsq->bs", query, keys @ W.T)                        # q^T W k


@pytest.mark.parametrize("score", SCORES)
def test_torch_layer_computes_its_formula(score):
    query, keys, mask = layer_inputs()
    layer = torch_layer(score)
    with torch.no_grad():
        context, weights = layer(torch.tensor(query), torch.tensor(keys), torch.tensor(mask))
    expected = numpy_masked_softmax(expected_scores(layer, query, keys), mask)
    np.testing.assert_allclose(weights.numpy(), expected, atol=1e-6)
    np.testing.assert_allclose(context.numpy(), np.einsum("bs,bsk->bk", expected, keys),
                               atol=1e-6)


@pytest.mark.parametrize("score", SCORES)
def test_keras_layer_matches_torch_layer(score):
    query, keys, mask = layer_inputs(seed=1)
    reference = torch_layer(score)
    layer = (keras_attention.AdditiveAttention(5, 4, 3) if score == "additive"
             else keras_attention.MultiplicativeAttention(5, 4))
    layer(query, keys, mask)                                # build
    convert.copy_attention(reference, layer)
    with torch.no_grad():
        torch_context, torch_weights = reference(torch.tensor(query), torch.tensor(keys),
                                                 torch.tensor(mask))
    context, weights = layer(query, keys, mask)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(weights), torch_weights.numpy(),
                               atol=1e-6)
    np.testing.assert_allclose(keras.ops.convert_to_numpy(context), torch_context.numpy(),
                               atol=1e-6)


@pytest.mark.parametrize("masked_softmax", [torch_attention.masked_softmax,
                                            keras_attention.masked_softmax],
                         ids=["pytorch", "keras"])
def test_masked_softmax_is_exactly_zero_on_padding_even_for_huge_scores(masked_softmax):
    scores = np.array([[1.0, 2.0, 1e30, 3e38], [0.5, -1e30, 7.0, 1e30]], dtype="float32")
    mask = np.array([[True, True, False, False], [True, True, True, False]])
    if masked_softmax is torch_attention.masked_softmax:
        weights = masked_softmax(torch.tensor(scores), torch.tensor(mask)).numpy()
    else:
        weights = keras.ops.convert_to_numpy(masked_softmax(scores, mask))
    assert np.all(np.isfinite(weights))
    assert np.all(weights[~mask] == 0.0)
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-6)
    np.testing.assert_allclose(weights, numpy_masked_softmax(scores.astype(float), mask),
                               atol=1e-6)


@pytest.mark.parametrize("score", SCORES)
def test_permuting_source_positions_permutes_the_weights_only(score):
    """Attention has no notion of order: the same keys in another order give the same
    context, and each key keeps its weight."""
    query, keys, mask = layer_inputs(seed=2)
    permutation = np.random.default_rng(3).permutation(keys.shape[1])
    layer = torch_layer(score)
    with torch.no_grad():
        context, weights = layer(torch.tensor(query), torch.tensor(keys), torch.tensor(mask))
        shuffled_context, shuffled_weights = layer(torch.tensor(query),
                                                   torch.tensor(keys[:, permutation]),
                                                   torch.tensor(mask[:, permutation]))
    np.testing.assert_allclose(shuffled_weights.numpy(), weights.numpy()[:, permutation],
                               atol=1e-6)
    np.testing.assert_allclose(shuffled_context.numpy(), context.numpy(), atol=1e-6)


# ---------------------------------------------------------------- whole models
def test_keras_and_torch_models_agree(models, batch):
    torch_model, keras_model = models
    torch_logits, torch_weights = torch_forward(torch_model, *batch)
    keras_logits, keras_weights = keras_forward(keras_model, *batch)
    assert np.abs(torch_logits).max() > 1.0             # a real test, not of near-zero outputs
    np.testing.assert_allclose(keras_logits, torch_logits, atol=ATOL)
    np.testing.assert_allclose(keras_weights, torch_weights, atol=ATOL)


def test_greedy_decodes_agree(models, batch):
    torch_model, keras_model = models
    src = batch[0]
    torch_tokens, torch_weights = torch_attention.greedy_decode(
        torch_model, torch.as_tensor(src), 8, return_weights=True)
    keras_tokens, keras_weights = keras_attention.greedy_decode(keras_model, src, 8,
                                                                return_weights=True)
    assert isinstance(torch_tokens, np.ndarray) and isinstance(keras_tokens, np.ndarray)
    assert len(np.unique(torch_tokens)) > 2             # the outputs depend on the input
    np.testing.assert_array_equal(keras_tokens, torch_tokens)
    np.testing.assert_allclose(keras_weights, torch_weights, atol=ATOL)


@pytest.mark.parametrize("forward", [torch_forward, keras_forward], ids=["pytorch", "keras"])
def test_weights_are_zero_on_padding_and_sum_to_one(models, batch, forward):
    model = models[0] if forward is torch_forward else models[1]
    src, tgt_in = batch
    _, weights = forward(model, src, tgt_in)                       # (B, T, S)
    padding = np.broadcast_to((src == PAD_ID)[:, None, :], weights.shape)
    assert np.all(weights[padding] == 0.0)
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-6)


@pytest.mark.parametrize("forward", [torch_forward, keras_forward], ids=["pytorch", "keras"])
def test_extra_padding_changes_nothing(models, batch, forward):
    model = models[0] if forward is torch_forward else models[1]
    src, tgt_in = batch
    logits, weights = forward(model, src, tgt_in)
    padded_logits, padded_weights = forward(model, np.pad(src, ((0, 0), (0, 3))), tgt_in)
    np.testing.assert_allclose(padded_logits, logits, atol=ATOL)
    np.testing.assert_allclose(padded_weights[..., :src.shape[1]], weights, atol=ATOL)
    assert np.all(padded_weights[..., src.shape[1]:] == 0.0)


def test_greedy_decoding_is_the_model_fed_its_own_outputs(models, batch):
    torch_model = models[0]
    src = batch[0]
    tokens = torch_attention.greedy_decode(torch_model, src, 6)              # (B, 6)
    fed_back = np.concatenate([np.full((len(src), 1), BOS_ID), tokens[:, :-1]], axis=1)
    with torch.no_grad():
        teacher_forced = torch_model(torch.as_tensor(src), torch.as_tensor(fed_back))
    np.testing.assert_array_equal(teacher_forced.argmax(-1).numpy(), tokens)


def test_unknown_score_is_refused():
    with pytest.raises(ValueError, match="unknown score"):
        torch_attention.AttentionSeq2Seq(SRC_VOCAB, TGT_VOCAB, "cosine")
    with pytest.raises(ValueError, match="unknown score"):
        keras_attention.AttentionSeq2Seq(SRC_VOCAB, TGT_VOCAB, "cosine")
