"""Chapter 3 (self-attention), PyTorch: the hidden tests of 03-self-attention-pytorch.

The NumPy warm-up's checks, the case tables, the inputs and the comparisons are in ``ch03`` (shared
with the Keras notebook); the case tables and the masking cases are imported here, so that a cell
needs one module.
"""
import functools

import numpy as np
import torch
from torch import nn
from torch.overrides import TorchFunctionMode

from . import ch03, ch03_window, reference, torch_reference
# What the cells loop over (defined in ch03, shared with the Keras checks).
from .ch03 import (  # noqa: F401  pylint: disable=unused-import
    ATTENTION_CASES, CAUSAL_MASK_LENGTHS, CAUSAL_PROPERTY_CASES, PADDING_MASK_CASES, PADDING_PROPERTY_CASES,
    SCORE_MEASUREMENT_CASES, SCORE_VARIANCE_CASES, SELF_ATTENTION_CASES, attention_masking_cases,
    score_variance_prediction)
from .ch03_window import WINDOW_CASES, WINDOW_PROPERTY_CASES  # noqa: F401


class LibraryAttentionRefused(TorchFunctionMode):
    """Inside it, the library's fused attention raises the feedback's AssertionError (the mode sees
    every torch function that the code calls)."""

    FUSED = {"scaled_dot_product_attention", "multi_head_attention_forward", "_native_multi_head_attention"}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", "") in self.FUSED:
            raise AssertionError(
                "scaled_dot_product_attention called the library's attention "
                "(torch.nn.functional.scaled_dot_product_attention or nn.MultiheadAttention): "
                "the point of this part is to write the computation yourself, from matrix products and a "
                "softmax")
        return func(*args, **(kwargs or {}))


# ---- part 2: scaled_dot_product_attention


def attention_against_formula(attention, B, L, S, d_k, d_v, mask_kind, seed):
    """scaled_dot_product_attention against the float64 reference (within 1e-5), for a case of
    ATTENTION_CASES, without the library's attention."""
    q, k, v, mask = ch03.attention_case(B, L, S, d_k, d_v, mask_kind, seed)
    expected = reference.attention(q, k, v, mask)
    with torch.no_grad(), LibraryAttentionRefused():
        result = reference.quietly(attention, torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v),
                                   None if mask is None else torch.from_numpy(mask))
    output, weights = ch03.result_arrays(result, torch_reference.to_numpy)
    return ch03.attention_agrees(output, weights, expected, B, L, S, d_k, d_v, mask_kind)


def attention_with_masks(attention, name, q, k, v, mask):
    """scaled_dot_product_attention on a case of ch03.attention_masking_cases() (given in float32),
    without the library's attention: see ch03.masking_holds."""
    output_shape, weights_shape = ch03.attention_shapes(q, k, v)
    with torch.no_grad(), LibraryAttentionRefused():
        result = reference.quietly(attention, *(torch.from_numpy(a.astype("float32")) for a in (q, k, v)),
                                   torch.from_numpy(mask))
    output, weights = ch03.result_arrays(result, torch_reference.to_numpy)
    return ch03.masking_holds(name, output, weights, v, mask, output_shape, weights_shape)


# ---- part 3: the masks


def padding_mask_against_lengths(padding_mask, default_pad_id, lengths, S, pad_id, seed):
    """padding_mask on a case of PADDING_MASK_CASES (pad_id None: tokens padded with default_pad_id,
    the kernel's PAD_ID, and padding_mask called without pad_id): a bool tensor (B, 1, S), True
    exactly at the real tokens, that combines with a causal mask into (B, S, S)."""
    rng = np.random.default_rng(seed)
    tokens, real = ch03.tokens_with_padding(rng, lengths, S, default_pad_id if pad_id is None else pad_id)
    tokens = torch.from_numpy(tokens)
    got = padding_mask(tokens) if pad_id is None else padding_mask(tokens, pad_id=pad_id)
    what = ch03.padding_mask_description(lengths, S, pad_id)
    assert isinstance(got, torch.Tensor) and got.dtype == torch.bool, (
        f"with {what}: padding_mask should return a bool tensor, "
        f"got {type(got).__name__} {getattr(got, 'dtype', '')}")
    assert tuple(got.shape) == (len(lengths), 1, S), (
        f"with {what}: expected a mask of shape (B, 1, S) = {(len(lengths), 1, S)}, got {tuple(got.shape)}")
    assert np.array_equal(got.numpy(), real[:, None, :]), (
        f"with {what}: padding_mask should be True exactly at the real tokens")
    combined = got & torch.from_numpy(ch03.causal(S))
    expected = real[:, None, :] & ch03.causal(S)
    assert tuple(combined.shape) == expected.shape and np.array_equal(combined.numpy(), expected), (
        f"with {what}: combined with causal_mask({S}), the padding mask should block the padded keys for "
        "every query (it broadcasts over the query axis)")
    return f"padding_mask with {what}", [got, combined]


def causal_mask_of_length(causal_mask, length):
    """causal_mask(length): a bool tensor (length, length), True at j <= i, that combines with a
    padding mask of two sequences (2, 1, length) into (2, length, length)."""
    got = causal_mask(length)
    assert isinstance(got, torch.Tensor) and got.dtype == torch.bool, (
        f"causal_mask({length}) should return a bool tensor, got {type(got).__name__} "
        f"{getattr(got, 'dtype', '')}")
    assert tuple(got.shape) == (length, length), (
        f"expected causal_mask({length}) of shape {(length, length)}, got {tuple(got.shape)}")
    expected = ch03.causal(length)
    assert np.array_equal(got.numpy(), expected), (
        f"causal_mask({length}) should let position i attend to the positions j <= i only")
    real = ch03.real_positions([length, max(1, length - 2)], length)                  # 2 sequences
    combined = torch.from_numpy(real[:, None, :]) & got
    assert (tuple(combined.shape) == (2, length, length)
            and np.array_equal(combined.numpy(), real[:, None, :] & expected)), (
        f"combined with a padding mask of shape (2, 1, {length}), causal_mask({length}) should give shape "
        f"(2, {length}, {length}) and block what either mask blocks")
    return f"causal_mask({length})", [got, combined]


# ---- part 4: SelfAttention, with the reference attention swapped in for the student's


def layer_with_weights(self_attention_class, d_model, d_k, rng):
    """SelfAttention(d_model, d_k) with random weights; also returns them as {name: (W, b)}, x @ W + b."""
    layer, params = self_attention_class(d_model, d_k), {}
    for name, (n_in, n_out) in {"query": (d_model, d_k), "key": (d_model, d_k), "value": (d_model, d_k),
                                "output_projection": (d_k, d_model)}.items():
        sub = getattr(layer, name, None)
        assert (isinstance(sub, nn.Linear) and (sub.in_features, sub.out_features) == (n_in, n_out)
                and sub.bias is not None), (
            f"with d_model={d_model} and d_k={d_k}, layer.{name} should be an nn.Linear({n_in}, {n_out}) "
            "with bias")
        weight = rng.normal(0.0, 0.5, size=(n_out, n_in)).astype("float32")
        bias = rng.normal(0.0, 0.5, size=n_out).astype("float32")
        with torch.no_grad():
            sub.weight.copy_(torch.from_numpy(weight))
            sub.bias.copy_(torch.from_numpy(bias))
        params[name] = (weight.T.astype("float64"), bias.astype("float64"))
    return layer, params


def run_with_reference_attention(namespace, layer, x, mask):
    """The layer's (output, weights) on x (B, L, d_model) as float64 arrays, with
    torch_reference.attention as the kernel's scaled_dot_product_attention (namespace: the kernel's
    globals(); the student's is put back, or None where there was none)."""
    students = namespace.get("scaled_dot_product_attention")
    namespace["scaled_dot_product_attention"] = torch_reference.attention
    try:
        with torch.no_grad():
            result = reference.quietly(layer, torch.from_numpy(x.astype("float32")),
                                       attention_mask=None if mask is None else torch.from_numpy(mask))
    finally:
        namespace["scaled_dot_product_attention"] = students
    assert isinstance(result, tuple) and len(result) == 2, "SelfAttention should return (output, weights)"
    return tuple(r.detach().numpy().astype("float64") for r in result)


def build_and_run(self_attention_class, namespace):
    """The (build, run) pair that ch03's SelfAttention checks take."""
    return (functools.partial(layer_with_weights, self_attention_class),
            functools.partial(run_with_reference_attention, namespace))


# ch03's SelfAttention checks, called as check(SelfAttention, globals(), *case).
self_attention_against_reference = ch03.on_layer_class(build_and_run, ch03.self_attention_against_reference)
causal_property = ch03.on_layer_class(build_and_run, ch03.causal_property)
padding_property = ch03.on_layer_class(build_and_run, ch03.padding_property)


def self_attention_against_library(self_attention_class, namespace, B, L, d_model, seed):
    """SelfAttention against nn.MultiheadAttention(d_model, num_heads=1) with the same weights and a
    causal mask, within 1e-5 (nn.MultiheadAttention needs d_k = d_model)."""
    rng = np.random.default_rng(seed)
    layer, _ = layer_with_weights(self_attention_class, d_model, d_model, rng)
    library = nn.MultiheadAttention(d_model, num_heads=1, batch_first=True)
    with torch.no_grad():
        library.in_proj_weight.copy_(torch.cat([layer.query.weight, layer.key.weight, layer.value.weight]))
        library.in_proj_bias.copy_(torch.cat([layer.query.bias, layer.key.bias, layer.value.bias]))
        library.out_proj.weight.copy_(layer.output_projection.weight)
        library.out_proj.bias.copy_(layer.output_projection.bias)
        x = rng.normal(size=(B, L, d_model)).astype("float32")
        mask = ch03.causal(L)
        blocked = torch.from_numpy(~mask)                  # nn.MultiheadAttention: True = blocked
        expected_output, expected_weights = (r.numpy() for r in library(
            torch.from_numpy(x), torch.from_numpy(x), torch.from_numpy(x), attn_mask=blocked))
    output, weights = run_with_reference_attention(namespace, layer, x, mask)
    assert output.shape == (B, L, d_model) and weights.shape == (B, L, L), (
        f"with B={B}, L={L}, d_model=d_k={d_model}: expected an output of shape {(B, L, d_model)} and "
        f"weights of shape {(B, L, L)}, got {output.shape} and {weights.shape}")
    err = max(float(np.abs(output - expected_output).max()), float(np.abs(weights - expected_weights).max()))
    assert err < 1e-5, (
        "SelfAttention differs from nn.MultiheadAttention(d_model, num_heads=1) with the same weights "
        f"and a causal mask by up to {err:.3g} (B={B}, L={L}, d_model=d_k={d_model})")
    return f"SelfAttention against nn.MultiheadAttention B={B} L={L} d_model={d_model}", [output, weights]


# ---- part 5 (the variation): sliding_window_mask, checked by ch03_window


def bool_tensor(mask, what):
    """A mask the student's code returned, checked to be a bool tensor, as a NumPy array."""
    assert isinstance(mask, torch.Tensor) and mask.dtype == torch.bool, (
        f"{what} should return a bool tensor, got {type(mask).__name__} {getattr(mask, 'dtype', '')}")
    return mask.detach().cpu().numpy()


def tensors_and(real, mask):
    """A NumPy bool array & the student's mask, as PyTorch combines them, back as NumPy."""
    return (torch.from_numpy(real) & mask).numpy()


def sliding_window_mask_against_reference(sliding_window_mask, length, window):
    """ch03_window.window_mask_against_reference on bool tensors."""
    return ch03_window.window_mask_against_reference(sliding_window_mask, bool_tensor, tensors_and,
                                                     length, window)


def sliding_window_reach(sliding_window_mask, length, window, n_layers, seed):
    """ch03_window.window_property on a bool tensor."""
    return ch03_window.window_property(sliding_window_mask, bool_tensor, length, window, n_layers, seed)


# ---- part 6: predict, then measure (score_variance_prediction, from ch03, is framework-free)


def score_variance_measurement(measure, which, d_k, sigma):
    """ch03.score_variance_measurement with torch_reference.attention as the reference."""
    return ch03.score_variance_measurement(measure, torch_reference.attention, which, d_k, sigma)
