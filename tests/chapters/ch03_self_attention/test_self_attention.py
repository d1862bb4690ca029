"""Chapter 3's scaled dot-product attention and self-attention layer.

- The function matches `F.scaled_dot_product_attention` and
  `keras.ops.dot_product_attention`, with and without masks, for cross shapes
  (L != S) and d_k != d_v;
- the layer matches `nn.MultiheadAttention` / `keras.layers.MultiHeadAttention`
  with one head and copied weights (masks translated: PyTorch's layer wants True
  where attention is *blocked*);
- Keras and PyTorch layers agree with copied weights;
- both layers start from the same distribution (Glorot uniform weights, zero
  biases: Keras' Dense default, which the PyTorch layer adopts);
- properties: blocked weights are exactly 0 and rows sum to 1; a future token
  never changes an earlier output under the causal mask; padded positions never
  change real outputs; permuting the input permutes the output.
"""
import numpy as np
import pytest

from attention_course import common, convert  # first: quiet TensorFlow, Keras on TensorFlow

import keras  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from attention_course import keras_self_attention as ksa  # noqa: E402
from torch_reference import copy_into_torch_mha  # noqa: E402
from attention_course import torch_self_attention as tsa  # noqa: E402

ATOL = 1e-5
TOKENS = np.array([[4, 3, 9, 2, 8, 6, 5], [7, 5, 1, 0, 0, 0, 0], [2, 0, 0, 0, 0, 0, 0]])


def to_numpy(x):
    return x.detach().numpy() if isinstance(x, torch.Tensor) else keras.ops.convert_to_numpy(x)


def random_qkv(B=3, L=4, S=6, d_k=5, d_v=3, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(B, L, d_k)).astype("float32"),
            rng.normal(size=(B, S, d_k)).astype("float32"),
            rng.normal(size=(B, S, d_v)).astype("float32"))


def cross_mask(B=3, L=4, S=6, seed=1):
    """A random (B, L, S) mask with at least one allowed key per query."""
    mask = np.random.default_rng(seed).random((B, L, S)) < 0.6
    mask[..., 0] = True
    return mask


def numpy_attention(q, k, v, mask):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    scores = np.where(mask, scores, -np.inf)
    weights = np.exp(scores - scores.max(-1, keepdims=True))
    weights /= weights.sum(-1, keepdims=True)
    return weights @ v, weights


# ---------------------------------------------------------------- the function
def test_torch_function_matches_fused_attention_and_formula():
    q, k, v = random_qkv()
    mask = cross_mask()
    out, weights = tsa.scaled_dot_product_attention(*map(torch.tensor, (q, k, v)),
                                                   torch.tensor(mask))
    fused = F.scaled_dot_product_attention(*map(torch.tensor, (q, k, v)),
                                           attn_mask=torch.tensor(mask))
    np.testing.assert_allclose(to_numpy(out), fused.numpy(), atol=ATOL)
    expected_out, expected_weights = numpy_attention(q, k, v, mask)
    np.testing.assert_allclose(to_numpy(out), expected_out, atol=ATOL)
    np.testing.assert_allclose(to_numpy(weights), expected_weights, atol=1e-6)
    assert np.all(to_numpy(weights)[~mask] == 0.0)


def test_keras_function_matches_fused_attention_and_formula():
    q, k, v = random_qkv(seed=2)
    mask = cross_mask(seed=3)
    out, weights = ksa.scaled_dot_product_attention(q, k, v, mask)
    fused = keras.ops.dot_product_attention(q[:, :, None], k[:, :, None], v[:, :, None],
                                            mask=mask[:, None])[:, :, 0]
    np.testing.assert_allclose(to_numpy(out), to_numpy(fused), atol=ATOL)
    expected_out, expected_weights = numpy_attention(q, k, v, mask)
    np.testing.assert_allclose(to_numpy(out), expected_out, atol=ATOL)
    np.testing.assert_allclose(to_numpy(weights), expected_weights, atol=1e-6)


@pytest.mark.parametrize("module", [tsa, ksa], ids=["pytorch", "keras"])
def test_function_without_mask_is_plain_softmax(module):
    q, k, v = random_qkv(seed=4)
    args = tuple(map(torch.tensor, (q, k, v))) if module is tsa else (q, k, v)
    out, weights = module.scaled_dot_product_attention(*args)
    expected_out, _ = numpy_attention(q, k, v, np.ones((1, 1, 1), bool))
    np.testing.assert_allclose(to_numpy(out), expected_out, atol=ATOL)
    np.testing.assert_allclose(to_numpy(weights).sum(-1), 1.0, atol=1e-6)


@pytest.mark.parametrize("module", [tsa, ksa], ids=["pytorch", "keras"])
def test_mask_builders(module):
    tokens = torch.tensor(TOKENS) if module is tsa else TOKENS
    padding = to_numpy(module.padding_mask(tokens))
    causal = to_numpy(module.causal_mask(4))
    assert padding.shape == (3, 1, 7) and padding.dtype == bool
    np.testing.assert_array_equal(padding[:, 0], TOKENS != 0)
    np.testing.assert_array_equal(causal, np.tril(np.ones((4, 4), bool)))


# ---------------------------------------------------------------- the layers
def torch_layer(d_model=12, d_k=5, seed=0):
    common.set_seed(seed)
    return tsa.SelfAttention(d_model, d_k).eval()


def glorot_limit(fan_in, fan_out):
    return np.sqrt(6 / (fan_in + fan_out))


def test_both_layers_start_like_keras_dense():
    d_model, d_k = 64, 48
    torch_weights = {name: p.detach().numpy()
                     for name, p in torch_layer(d_model, d_k).named_parameters()}
    keras_layer = ksa.SelfAttention(d_model, d_k)
    keras_layer(np.zeros((1, 2, d_model), "float32"))
    for dense in ("query", "key", "value", "output_projection"):
        torch_kernel = torch_weights[f"{dense}.weight"].T              # (in, out), as Keras
        keras_kernel = getattr(keras_layer, dense).kernel.numpy()
        assert torch_kernel.shape == keras_kernel.shape
        limit = glorot_limit(*keras_kernel.shape)
        for kernel in (torch_kernel, keras_kernel):
            assert np.abs(kernel).max() <= limit
            assert abs(kernel.std() / (limit / np.sqrt(3)) - 1) < 0.1   # uniform on ±limit
        assert np.all(torch_weights[f"{dense}.bias"] == 0)
        assert np.all(getattr(keras_layer, dense).bias.numpy() == 0)


def test_torch_layer_matches_multihead_attention_with_one_head():
    d_model = 12
    layer = torch_layer(d_model, d_k=d_model)
    mha = torch.nn.MultiheadAttention(d_model, 1, batch_first=True).eval()
    copy_into_torch_mha(layer, mha)
    with torch.no_grad():
        x = torch.randn(3, 7, d_model)
        tokens = torch.tensor(TOKENS)
        mask = tsa.padding_mask(tokens) & tsa.causal_mask(7)
        out, weights = layer(x, mask)
        theirs, their_weights = mha(x, x, x, attn_mask=~tsa.causal_mask(7),
                                    key_padding_mask=tokens == 0)
    np.testing.assert_allclose(out.numpy(), theirs.numpy(), atol=ATOL)
    np.testing.assert_allclose(weights.numpy(), their_weights.numpy(), atol=1e-6)


def test_keras_layer_matches_multihead_attention_with_one_head():
    d_model, d_k = 12, 5
    x = np.random.default_rng(5).normal(size=(3, 7, d_model)).astype("float32")
    mask = to_numpy(ksa.padding_mask(TOKENS) & ksa.causal_mask(7))
    layer = ksa.SelfAttention(d_model, d_k)
    out, weights = layer(x, attention_mask=mask)
    mha = keras.layers.MultiHeadAttention(num_heads=1, key_dim=d_k)
    mha(x, x, attention_mask=mask)
    for ours, theirs in [(layer.query, mha.query_dense), (layer.key, mha.key_dense),
                         (layer.value, mha.value_dense)]:
        theirs.kernel.assign(keras.ops.reshape(ours.kernel, (d_model, 1, d_k)))
        theirs.bias.assign(keras.ops.reshape(ours.bias, (1, d_k)))
    mha.output_dense.kernel.assign(keras.ops.reshape(layer.output_projection.kernel,
                                                     (1, d_k, d_model)))
    mha.output_dense.bias.assign(layer.output_projection.bias)
    theirs, their_weights = mha(x, x, attention_mask=mask, return_attention_scores=True)
    np.testing.assert_allclose(to_numpy(out), to_numpy(theirs), atol=ATOL)
    np.testing.assert_allclose(to_numpy(weights), to_numpy(their_weights)[:, 0], atol=1e-6)


@pytest.fixture(scope="module")
def layers():
    reference = torch_layer()
    copy = ksa.SelfAttention(12, 5)
    copy(np.zeros((1, 2, 12), "float32"))
    for variable in copy.weights:                       # poison: an uncopied weight shows
        variable.assign(np.full(variable.shape, np.nan, "float32"))
    convert.copy_self_attention(reference, copy)
    return reference, copy


def run(layer, x, mask=None):
    if isinstance(layer, torch.nn.Module):
        with torch.no_grad():
            out, weights = layer(torch.as_tensor(x),
                                 None if mask is None else torch.as_tensor(mask))
    else:
        out, weights = layer(x, attention_mask=mask)
    return to_numpy(out), to_numpy(weights)


def test_keras_and_torch_layers_agree(layers):
    x = np.random.default_rng(6).normal(size=(3, 7, 12)).astype("float32")
    mask = (TOKENS != 0)[:, None, :] & np.tril(np.ones((7, 7), bool))
    torch_out, torch_weights = run(layers[0], x, mask)
    keras_out, keras_weights = run(layers[1], x, mask)
    np.testing.assert_allclose(keras_out, torch_out, atol=ATOL)
    np.testing.assert_allclose(keras_weights, torch_weights, atol=1e-6)


@pytest.mark.parametrize("which", [0, 1], ids=["pytorch", "keras"])
def test_causal_property(layers, which):
    layer = layers[which]
    x = np.random.default_rng(7).normal(size=(2, 6, 12)).astype("float32")
    causal = np.tril(np.ones((6, 6), bool))
    for position in range(1, 6):
        changed = x.copy()
        changed[:, position] += 5.0
        before, weights = run(layer, x, causal)
        after, _ = run(layer, changed, causal)
        np.testing.assert_allclose(after[:, :position], before[:, :position], atol=1e-6)
        assert not np.allclose(after[:, position], before[:, position])
        assert np.all(weights[:, ~causal] == 0.0)


@pytest.mark.parametrize("which", [0, 1], ids=["pytorch", "keras"])
def test_padding_never_changes_real_positions(layers, which):
    layer = layers[which]
    x = np.random.default_rng(8).normal(size=(3, 7, 12)).astype("float32")
    mask = (TOKENS != 0)[:, None, :]
    noisy = x.copy()
    noisy[TOKENS == 0] = 50.0
    real = TOKENS != 0
    before, weights = run(layer, x, mask)
    after, _ = run(layer, noisy, mask)
    np.testing.assert_allclose(after[real], before[real], atol=1e-5)
    assert np.all(weights[np.broadcast_to(~mask, weights.shape)] == 0.0)
    np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-6)


@pytest.mark.parametrize("which", [0, 1], ids=["pytorch", "keras"])
def test_permutation_equivariance(layers, which):
    layer = layers[which]
    x = np.random.default_rng(9).normal(size=(2, 6, 12)).astype("float32")
    order = np.random.default_rng(10).permutation(6)
    out, weights = run(layer, x)
    shuffled_out, shuffled_weights = run(layer, x[:, order])
    np.testing.assert_allclose(shuffled_out, out[:, order], atol=1e-5)
    np.testing.assert_allclose(shuffled_weights, weights[:, order][:, :, order], atol=1e-6)
