"""Chapter 4 (multi-head attention), PyTorch: the hidden tests' checks.

Part 1 checks split_heads and merge_heads against their definition; parts 2 to 4 check the layer
against nn.MultiheadAttention with the same weights loaded into both (the chapter's recipe,
section 4.6), with reference parts swapped in (`reference_parts`); part 5 counts the operations of
one forward pass; part 7 checks grouped-query attention against ``ch04_gqa``'s reference. The
cases, hints and shared assertions are in ``ch04`` and ``ch04_gqa``.
"""
import numpy as np
import torch
from torch import nn

from attention_course.torch_self_attention import scaled_dot_product_attention

from . import ch04, ch04_gqa, reference, torch_reference
from .ch04 import (BATCHED_CASES, CROSS_ATTENTION_CASES, DECOUPLED_CASES, MASK_CASES,  # noqa: F401 (cells)
                   MERGE_CASES,
                   PADDED_CROSS_ATTENTION_CASES, PARAMETER_COUNT_CASES, PARAMETER_MEASUREMENT_CASES,
                   SELF_ATTENTION_CASES, SPLIT_CASES, parameter_count_prediction,
                   refuses_indivisible_heads)
from .ch04_gqa import GQA_AS_MULTI_HEAD_CASES, GQA_CASES, GQA_MASK_CASES, refuses_bad_sizes  # noqa: F401

LIBRARY = "nn.MultiheadAttention"


def split_heads_by_width(x, d_head):
    """The reference split_heads(x, d_head): (B, L, d_model) -> (B, d_model / d_head, L, d_head)."""
    return torch_reference.split_heads(x, x.shape[-1] // d_head)


# What parts 2 to 5 grade the layer with: chapter 3's attention (the course package's, which the
# notebook imports), and reference split_heads and merge_heads.
REFERENCE_PARTS = dict(split_heads=split_heads_by_width, merge_heads=torch_reference.merge_heads,
                       scaled_dot_product_attention=scaled_dot_product_attention)


def reference_parts(namespace):
    """The reference parts in the kernel's namespace (`globals()`), warnings ignored: a context
    manager, or install() it in one hidden region and restore() it in a later one."""
    return ch04.ReferenceParts(namespace, REFERENCE_PARTS)


count_operations = torch_reference.count_operations


# ---- part 1: split_heads and merge_heads

def split_heads_against_definition(split_heads, B, L, d_model, num_heads, seed):
    """split_heads(x, d_head)[b, i, l] must be x[b, l, i*d_head:(i+1)*d_head], d_head = d_model / h,
    exactly; returns the observation."""
    x, = ch04.normal_inputs(seed, (B, L, d_model))
    expected = reference.split_heads(x, num_heads).copy()                    # (B, h, L, d_head)
    with torch.no_grad():
        got = split_heads(torch.from_numpy(x), d_model // num_heads)
    assert isinstance(got, torch.Tensor) and tuple(got.shape) == expected.shape, (
        f"with B={B}, L={L}, d_model={d_model}, h={num_heads}: expected a tensor of shape "
        f"(B, h, L, d_head) = {expected.shape}, got {tuple(getattr(got, 'shape', ()))}")
    assert np.array_equal(got.numpy(), expected), (
        f"with B={B}, L={L}, d_model={d_model}, h={num_heads}: split_heads(x, d_head)[b, i, l] should be "
        "x[b, l, i*d_head:(i+1)*d_head]; some numbers are in the wrong places")
    return f"split_heads B={B} L={L} d_model={d_model} h={num_heads}", got


def split_heads_without_head_loop(split_heads):
    """split_heads(x, 2) (16 heads) must run about as many operations as split_heads(x, 16) (2
    heads), x (2, 5, 32); returns the observation."""
    x = torch.from_numpy(ch04.normal_inputs(ch04.SPLIT_COUNT_SEED, (2, 5, 32))[0])
    counts = {h: count_operations(lambda: split_heads(x, 32 // h)) for h in (ch04.FEW_HEADS, ch04.MANY_HEADS)}
    return ch04.split_heads_count_observation(counts)


def merge_heads_against_definition(merge_heads, B, num_heads, L, d_head, seed):
    """merge_heads(x)[b, l, i*d_head:(i+1)*d_head] must be x[b, i, l], exactly; returns the
    observation."""
    x, = ch04.normal_inputs(seed, (B, num_heads, L, d_head))
    expected = reference.merge_heads(x).copy()                                # (B, L, h d_head)
    with torch.no_grad():
        got = merge_heads(torch.from_numpy(x))
    assert isinstance(got, torch.Tensor) and tuple(got.shape) == expected.shape, (
        f"with B={B}, h={num_heads}, L={L}, d_head={d_head}: expected a tensor of shape (B, L, h d_head) = "
        f"{expected.shape}, got {tuple(getattr(got, 'shape', ()))}")
    assert np.array_equal(got.numpy(), expected), (
        f"with B={B}, h={num_heads}, L={L}, d_head={d_head}: merge_heads(x)[b, l, i*d_head:(i+1)*d_head] "
        "should be x[b, i, l]; some numbers are in the wrong places")
    return f"merge_heads B={B} h={num_heads} L={L} d_head={d_head}", got


def merge_heads_without_head_loop(merge_heads):
    """merge_heads must run about as many operations for 16 heads as for 2, x (2, h, 5, 32 / h);
    returns the observation."""
    counts = {}
    for h in (ch04.FEW_HEADS, ch04.MANY_HEADS):
        x = torch.from_numpy(ch04.normal_inputs(ch04.MERGE_COUNT_SEED, (2, h, 5, 32 // h))[0])
        counts[h] = count_operations(lambda: merge_heads(x))
    return ch04.merge_heads_count_observation(counts)


# ---- parts 2 to 4: the layer against nn.MultiheadAttention

def known_layer(MultiHeadAttention, d_model, num_heads, seed, identity_output=False):
    """The student's layer, with known weights (the output projection the identity if asked)."""
    layer = MultiHeadAttention(d_model, num_heads)
    projections = ch04.known_projections(d_model, seed, identity_output)
    with torch.no_grad():
        for name in ch04.PROJECTIONS:
            dense = getattr(layer, name, None)
            assert isinstance(dense, nn.Linear) and tuple(dense.weight.shape) == (d_model, d_model) and (
                dense.bias is not None), (
                f"MultiHeadAttention({d_model}, {num_heads}).{name} should be nn.Linear(d_model, d_model), "
                "with a bias")
            weight, bias = projections[name]                   # weight (out, in), as nn.Linear keeps it
            dense.weight.copy_(torch.from_numpy(weight))
            dense.bias.copy_(torch.from_numpy(bias))
    return layer.eval()


def library_layer(layer, d_model, num_heads):
    """nn.MultiheadAttention with the student's layer's weights (the chapter's recipe, section 4.6)."""
    library = nn.MultiheadAttention(d_model, num_heads, batch_first=True).eval()
    with torch.no_grad():
        library.in_proj_weight.copy_(torch.cat([layer.query.weight, layer.key.weight, layer.value.weight]))
        library.in_proj_bias.copy_(torch.cat([layer.query.bias, layer.key.bias, layer.value.bias]))
        library.out_proj.weight.copy_(layer.output_projection.weight)
        library.out_proj.bias.copy_(layer.output_projection.bias)
    return library


def compare_with_library(MultiHeadAttention, what, hint, d_model, num_heads, seed, x, source=None, mask=None,
                         real=None, causal=None, identity_output=False):
    """The student's layer against nn.MultiheadAttention with the same weights; returns the
    observation. x (B, L, d_model), source (B, S, d_model) or None (self-attention); mask: what the
    layer gets (True = attend); real (B, S) and causal (L, S): the same mask as the library takes it."""
    layer = known_layer(MultiHeadAttention, d_model, num_heads, seed, identity_output)
    library = library_layer(layer, d_model, num_heads)
    B, L, _ = x.shape
    kv = x if source is None else source
    S = kv.shape[1]
    library_masks = {}
    if real is not None:
        library_masks["key_padding_mask"] = ~real             # the library's True = blocked
    if causal is not None:
        library_masks["attn_mask"] = ~causal
    with torch.no_grad():
        args = (x,) if source is None else (x, source)
        try:
            result = layer(*args) if mask is None else layer(*args, attention_mask=mask)
        except Exception as error:
            raise AssertionError(
                f"{what}: your layer raised {type(error).__name__}: {error}{hint}") from None
        expected_output, expected_weights = library(x, kv, kv, average_attn_weights=False, **library_masks)
    ch04.assert_output_and_weights(what, result)
    output, weights = result
    ch04.assert_layer_shapes(what, tuple(output.shape), tuple(weights.shape), B, L, S, d_model, num_heads)
    ch04.assert_weights_agree(what, hint, LIBRARY, (weights - expected_weights).abs().max().item())
    ch04.assert_output_agrees(what, hint, LIBRARY, (output - expected_output).abs().max().item())
    return what, [output, weights]


def self_attention_against_library(MultiHeadAttention, B, L, d_model, num_heads, seed):
    """Self-attention without masks (a case of SELF_ATTENTION_CASES); returns the observation."""
    x = torch.from_numpy(ch04.normal_inputs(seed, (B, L, d_model))[0])
    return compare_with_library(MultiHeadAttention, ch04.self_attention_what(B, L, d_model, num_heads),
                                ch04.SELF_ATTENTION_HINT, d_model, num_heads, seed, x)


def decoupled_against_library(MultiHeadAttention, B, L, S, d_model, num_heads, d_head, seed):
    """A case of DECOUPLED_CASES: MultiHeadAttention(d_model, h, d_head=d_head), h d_head wide inside,
    with known weights, against nn.MultiheadAttention(embed_dim = h d_head, kdim = vdim = d_model)
    between the query projection and the output projection (the library's query projection and
    output projection the identity: it asks for queries embed_dim wide and gives back embed_dim
    numbers); returns the observation."""
    what, hint = ch04.decoupled_what(B, L, S, d_model, num_heads, d_head), ch04.DECOUPLED_HINT
    layer = ch04.build_decoupled(MultiHeadAttention, what, d_model, num_heads, d_head)
    drawn = ch04.decoupled_projections(d_model, num_heads, d_head, seed)
    with torch.no_grad():
        for name in ch04.PROJECTIONS:
            dense = getattr(layer, name, None)
            linear = isinstance(dense, nn.Linear)
            ch04.assert_decoupled_projection(what, d_model, num_heads, d_head, name,
                                             (dense.in_features, dense.out_features) if linear else None,
                                             linear and dense.bias is not None)
            kernel, bias = drawn[name]                          # kernel (in, out); nn.Linear keeps (out, in)
            dense.weight.copy_(torch.from_numpy(kernel.T.copy()))
            dense.bias.copy_(torch.from_numpy(bias))
    layer.eval()
    inner = num_heads * d_head
    library = nn.MultiheadAttention(inner, num_heads, kdim=d_model, vdim=d_model, batch_first=True).eval()
    (w_k, b_k), (w_v, b_v) = (tuple(torch.from_numpy(a) for a in drawn[name]) for name in ("key", "value"))
    with torch.no_grad():
        if library._qkv_same_embed_dim:                         # h d_head = d_model: one in_proj_weight
            library.in_proj_weight.copy_(torch.cat([torch.eye(inner), w_k.T, w_v.T]))
        else:
            library.q_proj_weight.copy_(torch.eye(inner))
            library.k_proj_weight.copy_(w_k.T)
            library.v_proj_weight.copy_(w_v.T)
        library.in_proj_bias.copy_(torch.cat([torch.zeros(inner), b_k, b_v]))
        library.out_proj.weight.copy_(torch.eye(inner))
        library.out_proj.bias.zero_()
    x, source = (None if a is None else torch.from_numpy(a) for a in ch04_gqa.case_inputs(B, L, S, d_model, seed))
    kv = x if source is None else source
    (w_q, b_q), (w_o, b_o) = (tuple(torch.from_numpy(a) for a in drawn[name])
                              for name in ("query", "output_projection"))
    with torch.no_grad():
        try:
            result = layer(x) if source is None else layer(x, source)
        except Exception as error:
            raise AssertionError(f"{what}: your layer raised {type(error).__name__}: {error}{hint}") from None
        attended, expected_weights = library(x @ w_q + b_q, kv, kv, average_attn_weights=False)
        expected_output = attended @ w_o + b_o
    ch04.assert_output_and_weights(what, result)
    output, weights = result
    ch04.assert_layer_shapes(what, tuple(output.shape), tuple(weights.shape), B, L, kv.shape[1], d_model,
                             num_heads)
    ch04.assert_weights_agree(what, hint, LIBRARY, (weights - expected_weights).abs().max().item())
    ch04.assert_output_agrees(what, hint, LIBRARY, (output - expected_output).abs().max().item())
    return what, [output, weights]


def masked_self_attention_against_library(MultiHeadAttention, B, L, d_model, num_heads, lengths, kind, seed):
    """Self-attention with a mask of the kind (a case of MASK_CASES), the output projection the
    identity; returns the observation."""
    x = torch.from_numpy(ch04.normal_inputs(seed, (B, L, d_model))[0])
    real = torch.arange(L)[None, :] < torch.tensor(lengths)[:, None]          # (B, S)
    causal = torch.ones(L, L, dtype=torch.bool).tril()                         # (L, S)
    if kind.startswith("padding (B, 1, S)"):
        mask, library_real, library_causal = real[:, None, :], real, None
    elif kind.startswith("padding and causal"):
        mask, library_real, library_causal = real[:, None, :] & causal, real, causal
    else:
        mask, library_real, library_causal = causal, None, causal
    return compare_with_library(
        MultiHeadAttention, ch04.masked_self_attention_what(kind, mask.shape, B, L, d_model, num_heads),
        ch04.MASK_HINT, d_model, num_heads, seed, x, mask=mask, real=library_real, causal=library_causal,
        identity_output=True)


def cross_attention_against_library(MultiHeadAttention, B, L, S, d_model, num_heads, seed):
    """Cross-attention without masks (a case of CROSS_ATTENTION_CASES), the output projection the
    identity; returns the observation."""
    x, source = (torch.from_numpy(a) for a in ch04.normal_inputs(seed, (B, L, d_model), (B, S, d_model)))
    return compare_with_library(MultiHeadAttention, ch04.cross_attention_what(B, L, S, d_model, num_heads),
                                ch04.CROSS_ATTENTION_HINT, d_model, num_heads, seed, x, source=source,
                                identity_output=True)


def padded_cross_attention_against_library(MultiHeadAttention, B, L, S, d_model, num_heads, lengths, full,
                                           seed):
    """Cross-attention with a padding mask on the source, (B, L, S) if `full` else (B, 1, S) (a case
    of PADDED_CROSS_ATTENTION_CASES), the output projection the identity; returns the observation."""
    x, source = (torch.from_numpy(a) for a in ch04.normal_inputs(seed, (B, L, d_model), (B, S, d_model)))
    real = torch.arange(S)[None, :] < torch.tensor(lengths)[:, None]          # (B, S)
    mask = real[:, None, :].expand(B, L, S) if full else real[:, None, :]
    return compare_with_library(
        MultiHeadAttention, ch04.padded_cross_attention_what(mask.shape, B, L, S, d_model, num_heads),
        ch04.PADDING_HINT, d_model, num_heads, seed, x, source=source, mask=mask, real=real,
        identity_output=True)


# ---- part 5: all heads at once

def forward_pass(kind):
    """The forward pass `kind` of BATCHED_CASES, on the inputs drawn from BATCHED_SEED: a function
    of the layer."""
    target, source, x = (torch.from_numpy(a) for a in ch04.normal_inputs(
        ch04.BATCHED_SEED, (3, 4, 48), (3, 6, 48), (1, 6, 32)))
    causal = torch.ones(1, 6, 6, dtype=torch.bool).tril()

    def run(layer):
        with torch.no_grad():
            return layer(target, source) if kind == "cross-attention" else layer(x, attention_mask=causal)
    return run


def no_work_per_head(MultiHeadAttention, what, d_model, few, many, kind):
    """One forward pass with `many` heads must run fewer than many - few operations more than one
    with `few` (a case of BATCHED_CASES); returns the observation."""
    return ch04.no_work_per_head(MultiHeadAttention, what, d_model, few, many, forward_pass(kind),
                                 count_operations)


# ---- part 6: predict, then measure (parameter_count_prediction, from ch04, is framework-free)


class LibraryLayer(nn.Module):
    """nn.MultiheadAttention(d_model, num_heads), with biases or without, called like the
    assignment's layer: layer(query_input, key_value_input=None) -> (output, weights)."""

    def __init__(self, d_model, num_heads, bias=True):
        super().__init__()
        self.attention = nn.MultiheadAttention(d_model, num_heads, bias=bias, batch_first=True)

    def forward(self, query_input, key_value_input=None, attention_mask=None):
        key_value_input = query_input if key_value_input is None else key_value_input
        return self.attention(query_input, key_value_input, key_value_input,
                              average_attn_weights=False)


def parameter_count_measurement(measure, which, d_model, num_heads):
    """ch04.parameter_count_measurement with nn.MultiheadAttention as the layer measured."""
    return ch04.parameter_count_measurement(measure, LibraryLayer, which, d_model, num_heads)


# ---- part 7: grouped-query attention (cases, reference and assertions in ch04_gqa)

def known_gqa(GroupedQueryAttention, d_model, num_heads, num_kv_heads, seed):
    """The student's layer with the weights that ch04_gqa.gqa_projections draws: (layer, drawn)."""
    layer = reference.quietly(GroupedQueryAttention, d_model, num_heads, num_kv_heads)
    drawn = ch04_gqa.gqa_projections(d_model, num_heads, num_kv_heads, seed)
    with torch.no_grad():
        for name in ch04_gqa.PROJECTIONS:
            dense = getattr(layer, name, None)
            linear = isinstance(dense, nn.Linear)
            ch04_gqa.assert_projection(d_model, num_heads, num_kv_heads, name,
                                       (dense.in_features, dense.out_features) if linear else None,
                                       linear and dense.bias is not None)
            weight, bias = drawn[name]                          # weight (in, out); nn.Linear keeps (out, in)
            dense.weight.copy_(torch.from_numpy(weight.T.copy()))
            dense.bias.copy_(torch.from_numpy(bias))
    return layer.eval(), drawn


def run_gqa(layer, what, hint, x, source, mask):
    """The layer's (output, weights) on NumPy inputs, as NumPy arrays."""
    args = [torch.from_numpy(a) for a in ((x,) if source is None else (x, source))]
    try:
        with torch.no_grad():
            result = layer(*args) if mask is None else layer(*args, attention_mask=torch.from_numpy(mask))
    except Exception as error:
        raise AssertionError(f"{what}: your layer raised {type(error).__name__}: {error}{hint}") from None
    ch04.assert_output_and_weights(what, result)
    return tuple(torch_reference.to_numpy(t) for t in result)


def gqa_against_reference(GroupedQueryAttention, B, L, S, d_model, num_heads, num_kv_heads, seed):
    """A case of GQA_CASES (no mask) against ch04_gqa.gqa_reference; returns the observation."""
    x, source = ch04_gqa.case_inputs(B, L, S, d_model, seed)
    what = ch04_gqa.gqa_what(B, L, S, d_model, num_heads, num_kv_heads)
    layer, drawn = known_gqa(GroupedQueryAttention, d_model, num_heads, num_kv_heads, seed)
    output, weights = run_gqa(layer, what, ch04_gqa.GQA_HINT, x, source, None)
    ch04_gqa.assert_agrees(what, ch04_gqa.GQA_HINT, output, weights,
                           ch04_gqa.gqa_reference(drawn, num_heads, num_kv_heads, x, source))
    return what, [output, weights]


def gqa_masked_against_reference(GroupedQueryAttention, B, L, S, d_model, num_heads, num_kv_heads, lengths,
                                 kind, seed):
    """A case of GQA_MASK_CASES against ch04_gqa.gqa_reference; returns the observation."""
    x, source = ch04_gqa.case_inputs(B, L, S, d_model, seed)
    mask = ch04_gqa.case_mask(B, L, S, lengths, kind)
    what = ch04_gqa.gqa_what(B, L, S, d_model, num_heads, num_kv_heads, kind, mask.shape)
    layer, drawn = known_gqa(GroupedQueryAttention, d_model, num_heads, num_kv_heads, seed)
    output, weights = run_gqa(layer, what, ch04_gqa.GQA_MASK_HINT, x, source, mask)
    ch04_gqa.assert_agrees(what, ch04_gqa.GQA_MASK_HINT, output, weights,
                           ch04_gqa.gqa_reference(drawn, num_heads, num_kv_heads, x, source, mask))
    return what, [output, weights]


def gqa_as_multi_head(GroupedQueryAttention, B, L, S, d_model, num_heads, seed):
    """A case of GQA_AS_MULTI_HEAD_CASES: with num_kv_heads = num_heads the layer is multi-head
    attention, against nn.MultiheadAttention with the same weights; returns the observation."""
    x, source = (None if a is None else torch.from_numpy(a)
                 for a in ch04_gqa.case_inputs(B, L, S, d_model, seed))
    return compare_with_library(
        lambda width, heads: GroupedQueryAttention(width, heads, heads),
        ch04_gqa.gqa_what(B, L, S, d_model, num_heads, num_heads), ch04_gqa.GQA_HINT, d_model, num_heads,
        seed, x, source=source)
