"""Chapter 4's multi-head attention against the library layers and itself.

- split_heads / merge_heads are inverse, and head i gets columns i*d_head:(i+1)*d_head;
- our layer equals `nn.MultiheadAttention` and `keras.layers.MultiHeadAttention`
  with copied weights, for self-attention (padding + causal masks) and
  cross-attention (L != S, padding mask), outputs and per-head weights;
- each head equals chapter 3's single-head attention on its slice of the weights
  (the batched computation is the definition, without a loop);
- our Keras and PyTorch layers agree; the two library layers agree;
- d_model not divisible by num_heads is refused.
"""
import numpy as np
import pytest

from attention_course import convert  # first: quiet TensorFlow, Keras on TensorFlow

import keras  # noqa: E402
import torch  # noqa: E402
from attention_course import keras_multi_head, torch_multi_head  # noqa: E402
from attention_course import torch_self_attention  # noqa: E402

B, L, S, D, H = 3, 5, 7, 24, 4
ATOL = 1e-5
LENGTHS = np.array([7, 3, 1])


def data(seed=0):
    rng = np.random.default_rng(seed)
    return (rng.normal(size=(B, L, D)).astype("float32"),
            rng.normal(size=(B, S, D)).astype("float32"))


def to_numpy(x):
    return x.detach().numpy() if isinstance(x, torch.Tensor) else keras.ops.convert_to_numpy(x)


@pytest.mark.parametrize("module", [torch_multi_head, keras_multi_head], ids=["pytorch", "keras"])
def test_split_and_merge_heads(module):
    x = np.arange(2 * 3 * 12, dtype="float32").reshape(2, 3, 12)
    tensor = torch.as_tensor(x) if module is torch_multi_head else x
    split = to_numpy(module.split_heads(tensor, 4))
    assert split.shape == (2, 4, 3, 3)
    np.testing.assert_array_equal(split[:, 1], x[:, :, 3:6])        # head 1: columns 3..5
    merged = module.merge_heads(torch.as_tensor(split) if module is torch_multi_head else split)
    np.testing.assert_array_equal(to_numpy(merged), x)


@pytest.fixture(scope="module")
def torch_layers():
    torch.manual_seed(0)
    ours = torch_multi_head.MultiHeadAttention(D, H).eval()
    library = torch.nn.MultiheadAttention(D, H, batch_first=True).eval()
    with torch.no_grad():
        library.in_proj_weight.copy_(torch.cat([ours.query.weight, ours.key.weight,
                                                ours.value.weight]))
        library.in_proj_bias.copy_(torch.cat([ours.query.bias, ours.key.bias, ours.value.bias]))
        library.out_proj.weight.copy_(ours.output_projection.weight)
        library.out_proj.bias.copy_(ours.output_projection.bias)
    return ours, library


def test_torch_self_attention_matches_library(torch_layers):
    ours, library = torch_layers
    x, _ = data()
    real = torch.as_tensor(np.arange(L) < np.minimum(LENGTHS, L)[:, None])
    causal = torch.ones(L, L, dtype=torch.bool).tril()
    with torch.no_grad():
        out, weights = ours(torch.as_tensor(x), attention_mask=real[:, None, :] & causal)
        lib_out, lib_weights = library(*[torch.as_tensor(x)] * 3, attn_mask=~causal,
                                       key_padding_mask=~real, average_attn_weights=False)
    np.testing.assert_allclose(out.numpy(), lib_out.numpy(), atol=ATOL)
    np.testing.assert_allclose(weights.numpy(), lib_weights.numpy(), atol=1e-6)
    assert weights.shape == (B, H, L, L)


def test_torch_cross_attention_matches_library(torch_layers):
    ours, library = torch_layers
    x, memory = data(1)
    real = torch.as_tensor(np.arange(S) < LENGTHS[:, None])
    with torch.no_grad():
        out, weights = ours(torch.as_tensor(x), torch.as_tensor(memory),
                            attention_mask=real[:, None, :])
        lib_out, lib_weights = library(torch.as_tensor(x), torch.as_tensor(memory),
                                       torch.as_tensor(memory), key_padding_mask=~real,
                                       average_attn_weights=False)
    np.testing.assert_allclose(out.numpy(), lib_out.numpy(), atol=ATOL)
    np.testing.assert_allclose(weights.numpy(), lib_weights.numpy(), atol=1e-6)
    assert weights.shape == (B, H, L, S)
    assert torch.all(weights[2, :, :, 1:] == 0)                     # row 2 has one real key


def keras_pair():
    ours = keras_multi_head.MultiHeadAttention(D, H)
    library = keras.layers.MultiHeadAttention(num_heads=H, key_dim=D // H)
    x, memory = data()
    ours(x, memory), library(x, memory)
    d_head = D // H
    for mine, theirs in [(ours.query, library.query_dense), (ours.key, library.key_dense),
                         (ours.value, library.value_dense)]:
        theirs.kernel.assign(keras.ops.reshape(mine.kernel, (D, H, d_head)))
        theirs.bias.assign(keras.ops.reshape(mine.bias, (H, d_head)))
    library.output_dense.kernel.assign(keras.ops.reshape(ours.output_projection.kernel,
                                                         (H, d_head, D)))
    library.output_dense.bias.assign(ours.output_projection.bias)
    return ours, library


@pytest.mark.parametrize("kind", ["self", "cross"])
def test_keras_layer_matches_library(kind):
    ours, library = keras_pair()
    x, memory = data(2)
    if kind == "self":
        kv = x
        mask = ((np.arange(L) < np.minimum(LENGTHS, L)[:, None])[:, None, :]
                & np.tril(np.ones((L, L), bool)))
    else:
        kv = memory
        mask = np.broadcast_to((np.arange(S) < LENGTHS[:, None])[:, None, :], (B, L, S))
    out, weights = ours(x, kv, attention_mask=mask)
    lib_out, lib_weights = library(x, kv, attention_mask=mask, return_attention_scores=True)
    np.testing.assert_allclose(to_numpy(out), to_numpy(lib_out), atol=ATOL)
    np.testing.assert_allclose(to_numpy(weights), to_numpy(lib_weights), atol=1e-6)


def test_each_head_is_single_head_attention_on_its_slice(torch_layers):
    ours, _ = torch_layers
    x, memory = data(3)
    d_head = D // H
    with torch.no_grad():
        _, weights = ours(torch.as_tensor(x), torch.as_tensor(memory))
        for i in range(H):
            cols = slice(i * d_head, (i + 1) * d_head)
            q = torch.as_tensor(x) @ ours.query.weight[cols].T + ours.query.bias[cols]
            k = torch.as_tensor(memory) @ ours.key.weight[cols].T + ours.key.bias[cols]
            v = torch.as_tensor(memory) @ ours.value.weight[cols].T + ours.value.bias[cols]
            _, head_weights = torch_self_attention.scaled_dot_product_attention(q, k, v)
            np.testing.assert_allclose(weights[:, i].numpy(), head_weights.numpy(), atol=1e-6)


def test_our_keras_and_torch_layers_agree(torch_layers):
    ours_torch, _ = torch_layers
    ours_keras = keras_multi_head.MultiHeadAttention(D, H)
    x, memory = data(4)
    ours_keras(x, memory)
    for variable in ours_keras.weights:                  # poison: an uncopied weight shows
        variable.assign(np.full(variable.shape, np.nan, "float32"))
    convert.copy_self_attention(ours_torch, ours_keras)
    mask = (np.arange(S) < LENGTHS[:, None])[:, None, :]
    with torch.no_grad():
        torch_out, torch_weights = ours_torch(torch.as_tensor(x), torch.as_tensor(memory),
                                              attention_mask=torch.as_tensor(mask))
    keras_out, keras_weights = ours_keras(x, memory, attention_mask=mask)
    np.testing.assert_allclose(to_numpy(keras_out), torch_out.numpy(), atol=ATOL)
    np.testing.assert_allclose(to_numpy(keras_weights), torch_weights.numpy(), atol=1e-6)


@pytest.mark.parametrize("layer", [torch_multi_head.MultiHeadAttention,
                                   keras_multi_head.MultiHeadAttention],
                         ids=["pytorch", "keras"])
def test_width_must_divide_by_heads(layer):
    with pytest.raises(ValueError, match="not divisible"):
        layer(24, 5)
