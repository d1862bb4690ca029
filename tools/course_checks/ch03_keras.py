"""Chapter 3 (self-attention), Keras: the hidden tests of 03-self-attention-keras.

The NumPy warm-up's checks, the case tables, the inputs and the comparisons are in ``ch03`` (shared
with the PyTorch notebook); the case tables and the masking cases are imported here, so that a cell
needs one module.
"""
import functools

import numpy as np
from keras import layers, ops
from keras.src import backend as keras_backend

from . import ch03, ch03_window, keras_reference, reference
# What the cells loop over (defined in ch03, shared with the PyTorch checks).
from .ch03 import (  # noqa: F401  pylint: disable=unused-import
    ATTENTION_CASES, CAUSAL_MASK_LENGTHS, CAUSAL_PROPERTY_CASES, PADDING_MASK_CASES, PADDING_PROPERTY_CASES,
    SCORE_MEASUREMENT_CASES, SCORE_VARIANCE_CASES, SELF_ATTENTION_CASES, attention_masking_cases,
    score_variance_prediction)
from .ch03_window import WINDOW_CASES, WINDOW_PROPERTY_CASES  # noqa: F401


def library_attention_refused():
    """While inside: the library's attention (ops.dot_product_attention, the backend's, and the
    attention layers' call) raises the feedback's AssertionError."""
    attention_layers = ("MultiHeadAttention", "Attention", "GroupQueryAttention")
    targets = [(keras_backend.nn, "dot_product_attention"), (ops, "dot_product_attention")]
    targets += [(getattr(layers, name), "call") for name in attention_layers if hasattr(layers, name)]
    return reference.refused(targets, (
        "scaled_dot_product_attention called the library's attention "
        "(keras.ops.dot_product_attention, keras.layers.MultiHeadAttention or keras.layers.Attention): "
        "the point of this part is to write the computation yourself, from matrix products and a softmax"))


# ---- part 2: scaled_dot_product_attention


def attention_against_formula(attention, B, L, S, d_k, d_v, mask_kind, seed):
    """scaled_dot_product_attention against the float64 reference (within 1e-5), for a case of
    ATTENTION_CASES, without the library's attention."""
    q, k, v, mask = ch03.attention_case(B, L, S, d_k, d_v, mask_kind, seed)
    expected = reference.attention(q, k, v, mask)
    with library_attention_refused():
        # (a warning is no failure: Keras' softmax warns about a single key)
        result = reference.quietly(attention, q, k, v, mask)
    output, weights = ch03.result_arrays(result, keras_reference.to_numpy)
    return ch03.attention_agrees(output, weights, expected, B, L, S, d_k, d_v, mask_kind)


def attention_with_masks(attention, name, q, k, v, mask):
    """scaled_dot_product_attention on a case of ch03.attention_masking_cases() (q and k given in
    float32), without the library's attention: see ch03.masking_holds."""
    output_shape, weights_shape = ch03.attention_shapes(q, k, v)
    with library_attention_refused():
        result = reference.quietly(attention, q.astype("float32"), k.astype("float32"), v, mask)
    output, weights = ch03.result_arrays(result, keras_reference.to_numpy)
    return ch03.masking_holds(name, output, weights, v, mask, output_shape, weights_shape)


# ---- part 3: the masks


def padding_mask_against_lengths(padding_mask, default_pad_id, lengths, S, pad_id, seed):
    """padding_mask on a case of PADDING_MASK_CASES (pad_id None: tokens padded with default_pad_id,
    the kernel's PAD_ID, and padding_mask called without pad_id): a boolean mask (B, 1, S), True
    exactly at the real tokens, that combines with a causal mask into (B, S, S)."""
    rng = np.random.default_rng(seed)
    tokens, real = ch03.tokens_with_padding(rng, lengths, S, default_pad_id if pad_id is None else pad_id)
    tokens = tokens.astype("int32")
    got = padding_mask(tokens) if pad_id is None else padding_mask(tokens, pad_id=pad_id)
    got = ops.convert_to_numpy(got)
    what = ch03.padding_mask_description(lengths, S, pad_id)
    assert got.dtype == bool, (
        f"with {what}: padding_mask should return a boolean mask, got dtype {got.dtype}")
    assert got.shape == (len(lengths), 1, S), (
        f"with {what}: expected a mask of shape (B, 1, S) = {(len(lengths), 1, S)}, got {got.shape}")
    assert np.array_equal(got, real[:, None, :]), (
        f"with {what}: padding_mask should be True exactly at the real tokens")
    combined = ops.convert_to_numpy(ops.logical_and(got, ch03.causal(S)))
    expected = real[:, None, :] & ch03.causal(S)
    assert combined.shape == expected.shape and np.array_equal(combined, expected), (
        f"with {what}: combined with causal_mask({S}), the padding mask should block the padded keys for "
        "every query (it broadcasts over the query axis)")
    return f"padding_mask with {what}", [got, combined]


def causal_mask_of_length(causal_mask, length):
    """causal_mask(length): a boolean mask (length, length), True at j <= i, that combines with a
    padding mask of two sequences (2, 1, length) into (2, length, length)."""
    got = ops.convert_to_numpy(causal_mask(length))
    assert got.dtype == bool, f"causal_mask({length}) should return a boolean mask, got dtype {got.dtype}"
    assert got.shape == (length, length), (
        f"expected causal_mask({length}) of shape {(length, length)}, got {got.shape}")
    expected = ch03.causal(length)
    assert np.array_equal(got, expected), (
        f"causal_mask({length}) should let position i attend to the positions j <= i only")
    real = ch03.real_positions([length, max(1, length - 2)], length)                  # 2 sequences
    combined = ops.convert_to_numpy(ops.logical_and(real[:, None, :], causal_mask(length)))
    assert (combined.shape == (2, length, length)
            and np.array_equal(combined, real[:, None, :] & expected)), (
        f"combined with a padding mask of shape (2, 1, {length}), causal_mask({length}) should give shape "
        f"(2, {length}, {length}) and block what either mask blocks")
    return f"causal_mask({length})", [got, combined]


# ---- part 4: SelfAttention, with the reference attention swapped in for the student's


def run_with_reference_attention(namespace, layer, x, mask):
    """The layer's (output, weights) on x (B, L, d_model) as float64 arrays, with
    keras_reference.attention as the kernel's scaled_dot_product_attention (namespace: the kernel's
    globals(); the student's is put back, or None where there was none)."""
    students = namespace.get("scaled_dot_product_attention")
    namespace["scaled_dot_product_attention"] = keras_reference.attention
    try:
        result = reference.quietly(layer, x.astype("float32"), attention_mask=mask)
    finally:
        namespace["scaled_dot_product_attention"] = students
    assert isinstance(result, tuple) and len(result) == 2, "SelfAttention should return (output, weights)"
    return tuple(ops.convert_to_numpy(r).astype("float64") for r in result)


def layer_with_weights(self_attention_class, namespace, d_model, d_k, rng):
    """SelfAttention(d_model, d_k) with random weights, built by a first call on zeros (1, 2, d_model);
    also returns them as {name: (W, b)}, x @ W + b."""
    layer, params = self_attention_class(d_model, d_k), {}
    sizes = {"query": (d_model, d_k), "key": (d_model, d_k), "value": (d_model, d_k),
             "output_projection": (d_k, d_model)}
    for name, (n_in, n_out) in sizes.items():
        sub = getattr(layer, name, None)
        assert isinstance(sub, layers.Dense) and sub.units == n_out and sub.use_bias, (
            f"with d_model={d_model} and d_k={d_k}, layer.{name} should be a layers.Dense({n_out}) "
            "with bias")
    run_with_reference_attention(namespace, layer, np.zeros((1, 2, d_model), dtype="float32"), None)
    for name, (n_in, n_out) in sizes.items():
        sub = getattr(layer, name)
        if not sub.built:                                  # (a layer that call() does not use)
            sub.build((None, n_in))
        assert tuple(sub.kernel.shape) == (n_in, n_out), (
            f"with d_model={d_model} and d_k={d_k}, layer.{name} should read {n_in} numbers per position")
        kernel = rng.normal(0.0, 0.5, size=(n_in, n_out)).astype("float32")
        bias = rng.normal(0.0, 0.5, size=n_out).astype("float32")
        sub.set_weights([kernel, bias])
        params[name] = (kernel.astype("float64"), bias.astype("float64"))
    return layer, params


def build_and_run(self_attention_class, namespace):
    """The (build, run) pair that ch03's SelfAttention checks take."""
    return (functools.partial(layer_with_weights, self_attention_class, namespace),
            functools.partial(run_with_reference_attention, namespace))


# ch03's SelfAttention checks, called as check(SelfAttention, globals(), *case).
self_attention_against_reference = ch03.on_layer_class(build_and_run, ch03.self_attention_against_reference)
causal_property = ch03.on_layer_class(build_and_run, ch03.causal_property)
padding_property = ch03.on_layer_class(build_and_run, ch03.padding_property)


def self_attention_against_library(self_attention_class, namespace, B, L, d_model, d_k, seed):
    """SelfAttention against keras.layers.MultiHeadAttention(num_heads=1, key_dim=d_k) with the same
    weights and a causal mask, within 1e-5."""
    rng = np.random.default_rng(seed)
    layer, params = layer_with_weights(self_attention_class, namespace, d_model, d_k, rng)
    x = rng.normal(size=(B, L, d_model)).astype("float32")
    mask = ch03.causal(L)
    library = layers.MultiHeadAttention(num_heads=1, key_dim=d_k)
    library(x, x)                                          # builds it
    (w_q, b_q), (w_k, b_k), (w_v, b_v), (w_o, b_o) = (
        params[name] for name in ("query", "key", "value", "output_projection"))
    # MultiHeadAttention's weights: kernels (d_model, heads, key_dim) and (heads, key_dim, d_model)
    library.set_weights([w.astype("float32") for w in (w_q[:, None, :], b_q[None, :], w_k[:, None, :],
                                                       b_k[None, :], w_v[:, None, :], b_v[None, :],
                                                       w_o[None, :, :], b_o)])
    expected_output, expected_weights = library(x, x, attention_mask=np.broadcast_to(mask, (B, L, L)),
                                                return_attention_scores=True)
    expected_output = ops.convert_to_numpy(expected_output)
    expected_weights = ops.convert_to_numpy(expected_weights)[:, 0]       # the one head
    output, weights = run_with_reference_attention(namespace, layer, x, mask)
    assert output.shape == (B, L, d_model) and weights.shape == (B, L, L), (
        f"with B={B}, L={L}, d_model={d_model}, d_k={d_k}: expected an output of shape {(B, L, d_model)} "
        f"and weights of shape {(B, L, L)}, got {output.shape} and {weights.shape}")
    err = max(float(np.abs(output - expected_output).max()), float(np.abs(weights - expected_weights).max()))
    assert err < 1e-5, (
        "SelfAttention differs from keras.layers.MultiHeadAttention(num_heads=1, key_dim=d_k) with the "
        f"same weights and a causal mask by up to {err:.3g} (B={B}, L={L}, d_model={d_model}, d_k={d_k})")
    return (f"SelfAttention against keras.layers.MultiHeadAttention B={B} L={L} d_model={d_model} d_k={d_k}",
            [output, weights])


# ---- part 5 (the variation): sliding_window_mask, checked by ch03_window


def bool_mask(mask, what):
    """A mask the student's code returned, checked to be boolean, as a NumPy array."""
    got = ops.convert_to_numpy(mask)
    assert got.dtype == bool, f"{what} should return a boolean mask, got dtype {got.dtype}"
    return got


def ops_and(real, mask):
    """ops.logical_and of a NumPy bool array and the student's mask, as NumPy."""
    return ops.convert_to_numpy(ops.logical_and(real, mask))


def sliding_window_mask_against_reference(sliding_window_mask, length, window):
    """ch03_window.window_mask_against_reference on boolean Keras tensors."""
    return ch03_window.window_mask_against_reference(sliding_window_mask, bool_mask, ops_and, length, window)


def sliding_window_reach(sliding_window_mask, length, window, n_layers, seed):
    """ch03_window.window_property on a boolean Keras tensor."""
    return ch03_window.window_property(sliding_window_mask, bool_mask, length, window, n_layers, seed)


# ---- part 6: predict, then measure (score_variance_prediction, from ch03, is framework-free)


def score_variance_measurement(measure, which, d_k, sigma):
    """ch03.score_variance_measurement with keras_reference.attention as the reference."""
    return ch03.score_variance_measurement(measure, keras_reference.attention, which, d_k, sigma)
