"""Chapter 4's multi-head attention against the library layers and itself.

- split_heads / merge_heads are inverse, and head i gets columns i*d_head:(i+1)*d_head;
- our layer equals `nn.MultiheadAttention` and `keras.layers.MultiHeadAttention`
  with copied weights, for self-attention (padding + causal masks) and
  cross-attention (L != S, padding mask), outputs and per-head weights;
- each head equals chapter 3's single-head attention on its slice of the weights
  (the batched computation is the definition, without a loop);
- our Keras and PyTorch layers agree; the two library layers agree;
- both layers start from Glorot uniform weights and zero biases;
- d_model not divisible by num_heads is refused.
"""
import numpy as np
import pytest

from attention_course import common, convert  # first: quiet TensorFlow, Keras on TensorFlow

import keras  # noqa: E402
import torch  # noqa: E402
from attention_course import keras_multi_head, torch_multi_head  # noqa: E402
from torch_reference import copy_into_torch_mha  # noqa: E402
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
    common.set_seed(0)
    ours = torch_multi_head.MultiHeadAttention(D, H).eval()
    library = torch.nn.MultiheadAttention(D, H, batch_first=True).eval()
    copy_into_torch_mha(ours, library)
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


def test_both_layers_start_like_keras_dense():
    d_model, num_heads = 64, 8
    common.set_seed(1)
    ours_torch = torch_multi_head.MultiHeadAttention(d_model, num_heads)
    ours_keras = keras_multi_head.MultiHeadAttention(d_model, num_heads)
    ours_keras(np.zeros((1, 2, d_model), "float32"))
    limit = np.sqrt(6 / (2 * d_model))                     # Glorot uniform, fan-in = fan-out
    for dense in ("query", "key", "value", "output_projection"):
        kernels = (to_numpy(getattr(ours_torch, dense).weight),
                   getattr(ours_keras, dense).kernel.numpy())
        for kernel in kernels:
            assert np.abs(kernel).max() <= limit
            assert abs(kernel.std() / (limit / np.sqrt(3)) - 1) < 0.1
        assert np.all(to_numpy(getattr(ours_torch, dense).bias) == 0)
        assert np.all(getattr(ours_keras, dense).bias.numpy() == 0)


def test_one_recipe_trains_the_same_in_both_frameworks():
    """Chapter 4's claim: from the same initial weights and the same batches, the two
    training loops (Adam, cosine decay, clipping to norm 1) give the same loss at every
    step, so what differs between the frameworks' runs is only the random draws."""
    from attention_course import keras_training, torch_training

    vocab, length, width, steps, batch = 16, 8, 16, 60, 32
    x = np.random.default_rng(0).integers(0, vocab, size=(steps * batch, length))
    y = np.roll(x, 1, axis=1)                                  # the previous symbol

    def batches():
        for step in range(steps):
            rows = slice(step * batch, (step + 1) * batch)
            yield x[rows], y[rows]

    class KerasModel(keras.Model):
        def __init__(self):
            super().__init__()
            self.tokens = keras.layers.Embedding(vocab, width)
            self.positions = keras.layers.Embedding(length, width)
            self.attention = keras_multi_head.MultiHeadAttention(width, 2)
            self.readout = keras.layers.Dense(vocab)

        def call(self, tokens):
            h = self.tokens(tokens) + self.positions(keras.ops.arange(length))
            return self.readout(self.attention(h)[0])

    class TorchModel(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.tokens = torch.nn.Embedding(vocab, width)
            self.positions = torch.nn.Embedding(length, width)
            self.attention = torch_multi_head.MultiHeadAttention(width, 2)
            self.readout = torch.nn.Linear(width, vocab)

        def forward(self, tokens):
            return self.readout(self.attention(self.tokens(tokens) + self.positions.weight)[0])

    def keras_loss(model, batch):
        tokens, targets = batch
        return keras.ops.mean(keras.losses.sparse_categorical_crossentropy(
            targets, model(tokens), from_logits=True))

    def torch_loss(model, batch):
        tokens, targets = (torch.as_tensor(a) for a in batch)
        return torch.nn.functional.cross_entropy(model(tokens).flatten(0, 1), targets.flatten())

    common.set_seed(2)
    torch_model, keras_model = TorchModel(), KerasModel()
    keras_model(x[:1])
    keras_model.tokens.embeddings.assign(torch_model.tokens.weight.detach().numpy())
    keras_model.positions.embeddings.assign(torch_model.positions.weight.detach().numpy())
    convert.copy_self_attention(torch_model.attention, keras_model.attention)
    keras_model.readout.kernel.assign(torch_model.readout.weight.detach().numpy().T)
    keras_model.readout.bias.assign(torch_model.readout.bias.detach().numpy())

    settings = dict(lr=3e-3, final_lr_fraction=0.05, clip_norm=1.0)
    keras_losses = keras_training.train(keras_model, batches(), steps, keras_loss, **settings)
    torch_losses = torch_training.train(torch_model, batches(), steps, torch_loss, **settings)
    assert keras_losses[-1] < keras_losses[0] - 0.1             # the weights do move
    np.testing.assert_allclose(keras_losses, torch_losses, rtol=1e-3, atol=1e-4)
