"""Chapter 5's positional encodings against the formula, keras-hub and each other.

- sinusoidal_encoding equals the formula PE(p, 2i) = sin(p / 10000^(2i/d)),
  PE(p, 2i+1) = cos(...) in NumPy float64, for even and odd d_model (odd: the last
  column is the sine of one more frequency), and keras-hub's SinePositionEncoding;
- PE(p + k) = R_k PE(p) for every offset k and every p, R_k block-diagonal 2x2 rotations;
- the layers: SinusoidalEncoding has nothing trainable (a non-trainable weight / a
  buffer); PositionEmbedding and TokenAndPositionEmbedding train exactly their tables
  and equal keras-hub's PositionEmbedding / TokenAndPositionEmbedding with copied
  weights; Keras and PyTorch agree with copied weights;
- RoPE: interleaved pairs; keras-hub's RotaryEmbedding pairs halves, and equals ours
  after reordering the features [x0, x2, ..., x1, x3, ...]; the score of a rotated
  query and key depends only on n - m; position 0 is unchanged; norms are kept;
- RotaryMultiHeadAttention: chapter 4's parameters, no more; Keras = PyTorch with
  copied weights;
- attention without positions is permutation-equivariant, and each encoding breaks it.
"""
import numpy as np
import pytest

from attention_course import common, convert  # first: quiet TensorFlow, Keras on TensorFlow

import keras  # noqa: E402
import keras_hub  # noqa: E402
import torch  # noqa: E402
from keras import ops  # noqa: E402

from attention_course import keras_multi_head, torch_multi_head  # noqa: E402
from attention_course import keras_positional, torch_positional  # noqa: E402

ATOL = 1e-5


def formula(length, d_model):
    """The paper's formula, one column at a time, in float64."""
    pe = np.zeros((length, d_model))
    for p in range(length):
        for column in range(d_model):
            i = column // 2
            angle = p / 10000 ** (2 * i / d_model)
            pe[p, column] = np.sin(angle) if column % 2 == 0 else np.cos(angle)
    return pe


def keras_pe(length, d_model):
    return ops.convert_to_numpy(keras_positional.sinusoidal_encoding(length, d_model))


def torch_pe(length, d_model):
    return torch_positional.sinusoidal_encoding(length, d_model).numpy()


def block_rotation(k, d_model):
    """R_k with PE(p + k) = R_k PE(p): one [[cos, sin], [-sin, cos]] block per pair."""
    R = np.zeros((d_model, d_model))
    for i in range(d_model // 2):
        b = k * 10000 ** (-2 * i / d_model)
        R[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[np.cos(b), np.sin(b)], [-np.sin(b), np.cos(b)]]
    return R


def torch_state(module):
    return {name: p.detach().numpy().copy() for name, p in module.named_parameters()}


# --- the sinusoidal encoding ------------------------------------------------------------

@pytest.mark.parametrize("length, d_model", [(1, 2), (10, 4), (37, 16), (50, 7), (20, 1),
                                             (64, 33), (300, 512)])
@pytest.mark.parametrize("framework", ["keras", "torch"])
def test_sinusoidal_encoding_is_the_formula(framework, length, d_model):
    ours = keras_pe(length, d_model) if framework == "keras" else torch_pe(length, d_model)
    assert ours.shape == (length, d_model)
    assert str(ours.dtype) == "float32"
    # float32 angles: the error grows with the position (about p * 6e-8)
    assert np.abs(ours - formula(length, d_model)).max() < 1e-6 + 1e-7 * length


def test_odd_d_model_keeps_the_sine_of_one_more_frequency():
    d_model = 7
    for pe in (keras_pe(30, d_model), torch_pe(30, d_model)):
        last = np.sin(np.arange(30) / 10000 ** (6 / d_model))
        np.testing.assert_allclose(pe[:, -1], last, atol=1e-6)
        # the first six columns are the even-size pattern with d_model = 7 in the exponent
        np.testing.assert_allclose(pe[:, :6], formula(30, 7)[:, :6], atol=1e-6)


@pytest.mark.parametrize("length, d_model", [(40, 16), (25, 9), (200, 64)])
def test_sinusoidal_encoding_matches_keras_hub(length, d_model):
    hub = keras_hub.layers.SinePositionEncoding()(np.zeros((2, length, d_model), "float32"))
    hub = ops.convert_to_numpy(hub)
    tolerance = 1e-6 + 1e-7 * length             # float32 angles, as above
    assert np.abs(hub[0] - keras_pe(length, d_model)).max() < tolerance
    assert np.abs(hub[1] - torch_pe(length, d_model)).max() < tolerance


@pytest.mark.parametrize("framework", ["keras", "torch"])
def test_a_shift_by_k_is_the_same_rotation_from_every_position(framework):
    length, d_model = 48, 16
    pe = (keras_pe if framework == "keras" else torch_pe)(length, d_model).astype(np.float64)
    for k in range(length):                      # every offset, every start p
        shifted = pe[:length - k] @ block_rotation(k, d_model).T
        assert np.abs(shifted - pe[k:]).max() < 1e-5, k
    # and the rotation does not depend on p: R_k is orthogonal, R_j R_k = R_{j+k}
    R3, R5 = block_rotation(3, d_model), block_rotation(5, d_model)
    np.testing.assert_allclose(R3 @ R5, block_rotation(8, d_model), atol=1e-12)
    np.testing.assert_allclose(R3 @ R3.T, np.eye(d_model), atol=1e-12)


def test_dot_product_of_encodings_depends_only_on_distance():
    pe = torch_pe(200, 64).astype(np.float64)
    for k in (0, 1, 5, 30):
        dots = np.einsum("pd,pd->p", pe[:200 - k], pe[k:])
        assert np.ptp(dots) < 1e-3, k
    assert pe[0] @ pe[0] == pytest.approx(32, abs=1e-4)   # d_model / 2 pairs of sin^2 + cos^2


# --- the layers -------------------------------------------------------------------------

def test_sinusoidal_layers_add_the_table_and_train_nothing():
    x = np.random.default_rng(0).normal(size=(2, 9, 12)).astype("float32")
    keras_layer = keras_positional.SinusoidalEncoding(max_len=20, d_model=12)
    torch_layer = torch_positional.SinusoidalEncoding(max_len=20, d_model=12)
    from_keras = ops.convert_to_numpy(keras_layer(x))
    with torch.no_grad():
        from_torch = torch_layer(torch.as_tensor(x)).numpy()
    expected = x + formula(9, 12)
    np.testing.assert_allclose(from_keras, expected, atol=ATOL)
    np.testing.assert_allclose(from_torch, expected, atol=ATOL)
    assert keras_layer.trainable_weights == []
    assert [tuple(w.shape) for w in keras_layer.non_trainable_weights] == [(20, 12)]
    assert list(torch_layer.parameters()) == []
    assert {name: tuple(b.shape) for name, b in torch_layer.named_buffers()} == \
        {"encoding": (20, 12)}
    assert "encoding" in torch_layer.state_dict()       # saved with the model


def test_learned_tables_are_the_only_trainable_weights():
    V, max_len, d = 13, 30, 8
    keras_layer = keras_positional.TokenAndPositionEmbedding(V, max_len, d)
    keras_layer(np.zeros((1, 4), "int32"))
    torch_layer = torch_positional.TokenAndPositionEmbedding(V, max_len, d)
    keras_shapes = sorted(tuple(w.shape) for w in keras_layer.trainable_weights)
    torch_shapes = sorted(tuple(p.shape) for p in torch_layer.parameters())
    assert keras_shapes == torch_shapes == sorted([(V, d), (max_len, d)])
    # both start N(0, 1)
    common.set_seed(0)
    big = keras_positional.PositionEmbedding(2000, 50)
    big(np.zeros((1, 3, 50), "float32"))
    table = big.table.embeddings.numpy()
    assert abs(table.std() - 1) < 0.02
    assert abs(torch_positional.PositionEmbedding(2000, 50).table.weight.std().item() - 1) < 0.02


def test_token_and_position_embedding_keras_torch_and_keras_hub_agree():
    V, max_len, d, length = 17, 24, 10, 11
    ids = np.random.default_rng(1).integers(0, V, size=(4, length))
    common.set_seed(1)
    torch_layer = torch_positional.TokenAndPositionEmbedding(V, max_len, d)
    with torch.no_grad():
        expected = torch_layer(torch.as_tensor(ids)).numpy()
    tokens = torch_layer.tokens.weight.detach().numpy()
    positions = torch_layer.positions.table.weight.detach().numpy()
    np.testing.assert_allclose(expected, tokens[ids] + positions[:length], atol=1e-6)

    keras_layer = keras_positional.TokenAndPositionEmbedding(V, max_len, d)
    keras_layer(ids)
    convert.copy_embedding(torch_layer.tokens, keras_layer.tokens)
    convert.copy_embedding(torch_layer.positions.table, keras_layer.positions.table)
    np.testing.assert_allclose(ops.convert_to_numpy(keras_layer(ids)), expected, atol=1e-6)

    hub = keras_hub.layers.TokenAndPositionEmbedding(V, max_len, d)
    hub(ids)
    hub.token_embedding.embeddings.assign(tokens)
    hub.position_embedding.position_embeddings.assign(positions)
    np.testing.assert_allclose(ops.convert_to_numpy(hub(ids)), expected, atol=1e-6)

    hub_positions = keras_hub.layers.PositionEmbedding(max_len)
    x = tokens[ids]
    hub_positions(x)
    hub_positions.position_embeddings.assign(positions)
    ours = keras_positional.PositionEmbedding(max_len, d)
    ours(x)
    ours.table.embeddings.assign(positions)
    np.testing.assert_allclose(ops.convert_to_numpy(ours(x)),
                               x + ops.convert_to_numpy(hub_positions(x)), atol=1e-6)


def test_position_embedding_cannot_index_beyond_its_table():
    layer = torch_positional.PositionEmbedding(max_len=8, d_model=4)
    with pytest.raises((IndexError, RuntimeError)):
        layer(torch.zeros(1, 9, 4))


# --- RoPE ---------------------------------------------------------------------------------

def rope_numpy(x):
    """RoPE by its definition: pair (2i, 2i+1) at position p turned by p / 10000^(2i/d_k)."""
    *_, length, d_k = x.shape
    out = np.array(x, dtype=np.float64)
    for p in range(length):
        for i in range(d_k // 2):
            angle = p / 10000 ** (2 * i / d_k)
            c, s = np.cos(angle), np.sin(angle)
            a, b = x[..., p, 2 * i], x[..., p, 2 * i + 1]
            out[..., p, 2 * i], out[..., p, 2 * i + 1] = a * c - b * s, a * s + b * c
    return out


@pytest.mark.parametrize("shape", [(6, 4), (2, 9, 8), (2, 3, 12, 16)])
def test_rope_is_its_definition_in_both_frameworks(shape):
    x = np.random.default_rng(2).normal(size=shape).astype("float32")
    expected = rope_numpy(x)
    np.testing.assert_allclose(ops.convert_to_numpy(keras_positional.apply_rope(x)), expected,
                               atol=ATOL)
    np.testing.assert_allclose(torch_positional.apply_rope(torch.as_tensor(x)).numpy(),
                               expected, atol=ATOL)


@pytest.mark.parametrize("d_k", [2, 8, 32])
def test_keras_hub_rotary_embedding_is_ours_with_halves_instead_of_pairs(d_k):
    x = np.random.default_rng(3).normal(size=(2, 30, 3, d_k)).astype("float32")  # (B, L, h, d_k)
    halves = np.r_[0:d_k:2, 1:d_k:2]            # [x0, x2, ..., x1, x3, ...]
    hub = ops.convert_to_numpy(keras_hub.layers.RotaryEmbedding()(x[..., halves]))
    ours = ops.convert_to_numpy(keras_positional.apply_rope(np.swapaxes(x, 1, 2)))
    ours = np.swapaxes(ours, 1, 2)               # back to (B, L, h, d_k)
    np.testing.assert_allclose(hub, ours[..., halves], atol=1e-5)
    if d_k > 2:                                  # without the reordering they differ
        assert np.abs(hub - ours).max() > 1e-2


@pytest.mark.parametrize("framework", ["keras", "torch"])
def test_rope_score_depends_only_on_the_offset(framework):
    rng = np.random.default_rng(4)
    q, k = rng.normal(size=(2, 16)).astype("float32")
    length = 40
    rope = (lambda a: ops.convert_to_numpy(keras_positional.apply_rope(a))) \
        if framework == "keras" else (lambda a: torch_positional.apply_rope(torch.as_tensor(a))
                                      .numpy())
    rq, rk = rope(np.tile(q, (length, 1))), rope(np.tile(k, (length, 1)))
    scores = rq.astype(np.float64) @ rk.T                       # e_mn, query m, key n
    # constant along every diagonal n - m ...
    assert np.abs(scores[1:, 1:] - scores[:-1, :-1]).max() < 1e-4
    # ... equal to q . R k with the key rotated by the offset alone
    for offset in (-7, 0, 3, 25):
        rotated_k = rope_numpy(np.tile(k, (abs(offset) + 1, 1)))[abs(offset)]
        if offset >= 0:
            expected = q @ rotated_k
            assert scores[0, offset] == pytest.approx(expected, abs=1e-4)
        else:
            rotated_q = rope_numpy(np.tile(q, (-offset + 1, 1)))[-offset]
            assert scores[-offset, 0] == pytest.approx(rotated_q @ k, abs=1e-4)


def test_rope_keeps_norms_and_leaves_position_zero_alone():
    x = np.random.default_rng(5).normal(size=(3, 20, 10)).astype("float32")
    for rotated in (ops.convert_to_numpy(keras_positional.apply_rope(x)),
                    torch_positional.apply_rope(torch.as_tensor(x)).numpy()):
        np.testing.assert_allclose(np.linalg.norm(rotated, axis=-1),
                                   np.linalg.norm(x, axis=-1), rtol=1e-5)
        np.testing.assert_allclose(rotated[:, 0], x[:, 0], atol=1e-7)


def copy_multi_head(torch_layer, keras_layer):
    for name in ("query", "key", "value", "output_projection"):
        convert.copy_dense(getattr(torch_layer, name), getattr(keras_layer, name))


def test_rotary_attention_has_chapter_4s_parameters_and_frameworks_agree():
    d_model, heads, length = 24, 3, 10
    x = np.random.default_rng(6).normal(size=(2, length, d_model)).astype("float32")
    mask = np.arange(length) < np.array([10, 6])[:, None]                 # (B, S)
    common.set_seed(6)
    torch_layer = torch_positional.RotaryMultiHeadAttention(d_model, heads)
    plain = torch_multi_head.MultiHeadAttention(d_model, heads)
    assert [tuple(p.shape) for p in torch_layer.parameters()] == \
        [tuple(p.shape) for p in plain.parameters()]
    keras_layer = keras_positional.RotaryMultiHeadAttention(d_model, heads)
    keras_layer(x)
    assert keras_layer.count_params() == sum(p.numel() for p in torch_layer.parameters())
    copy_multi_head(torch_layer, keras_layer)
    with torch.no_grad():
        out_t, w_t = torch_layer(torch.as_tensor(x),
                                 attention_mask=torch.as_tensor(mask)[:, None, :])
    out_k, w_k = keras_layer(x, attention_mask=mask[:, None, :])
    np.testing.assert_allclose(ops.convert_to_numpy(out_k), out_t.numpy(), atol=ATOL)
    np.testing.assert_allclose(ops.convert_to_numpy(w_k), w_t.numpy(), atol=ATOL)
    assert np.abs(w_t.numpy()[1, :, :, 6:]).max() < 1e-6              # padding masked

    # The same as rotating the projected queries and keys by hand.
    q = torch_multi_head.split_heads(torch_layer.query(torch.as_tensor(x)), heads)
    k = torch_multi_head.split_heads(torch_layer.key(torch.as_tensor(x)), heads)
    scores = torch_positional.apply_rope(q) @ torch_positional.apply_rope(k).transpose(-1, -2)
    weights = torch.softmax(scores / (d_model // heads) ** 0.5, dim=-1)
    with torch.no_grad():
        _, unmasked = torch_layer(torch.as_tensor(x))
    np.testing.assert_allclose(unmasked.numpy(), weights.detach().numpy(), atol=ATOL)


# --- order --------------------------------------------------------------------------------

def test_attention_without_positions_is_permutation_equivariant_and_encodings_break_it():
    d_model, heads, length = 16, 2, 7
    x = np.random.default_rng(7).normal(size=(1, length, d_model)).astype("float32")
    order = np.random.default_rng(8).permutation(length)
    common.set_seed(7)
    torch_plain = torch_multi_head.MultiHeadAttention(d_model, heads)
    torch_rotary = torch_positional.RotaryMultiHeadAttention(d_model, heads)
    torch_rotary.load_state_dict(torch_plain.state_dict())
    keras_plain = keras_multi_head.MultiHeadAttention(d_model, heads)
    sinusoids = torch_positional.SinusoidalEncoding(32, d_model)

    def torch_out(layer, inputs, encode=lambda t: t):
        with torch.no_grad():
            return layer(encode(torch.as_tensor(inputs)))[0].numpy()[0]

    keras_out = lambda inputs: ops.convert_to_numpy(keras_plain(inputs)[0])[0]   # noqa: E731
    for out in (lambda a: torch_out(torch_plain, a), keras_out):
        np.testing.assert_allclose(out(x[:, order]), out(x)[order], atol=ATOL)
    for out in (lambda a: torch_out(torch_rotary, a),
                lambda a: torch_out(torch_plain, a, sinusoids)):
        assert np.abs(out(x[:, order]) - out(x)[order]).max() > 1e-3
