"""Chapter 4 (multi-head attention), Keras: the hidden tests' checks.

Part 1 checks split_heads and merge_heads against their definition; parts 2 to 4 check the layer
against keras.layers.MultiHeadAttention with the same weights loaded into both (the chapter's
recipe, section 4.6), with reference parts swapped in (`reference_parts`); part 5 counts the
operations of one forward pass; part 7 checks grouped-query attention against ``ch04_gqa``'s
reference. The cases, hints and shared assertions are in ``ch04`` and ``ch04_gqa``.
"""
import math

import keras
import numpy as np
from keras import layers, ops

from . import ch04, ch04_gqa, keras_reference, reference
from .ch04 import (BATCHED_CASES, CROSS_ATTENTION_CASES, DECOUPLED_CASES, MASK_CASES,  # noqa: F401 (cells)
                   MERGE_CASES,
                   PADDED_CROSS_ATTENTION_CASES, PARAMETER_COUNT_CASES, PARAMETER_MEASUREMENT_CASES,
                   SELF_ATTENTION_CASES, SPLIT_CASES, parameter_count_prediction,
                   refuses_indivisible_heads)
from .ch04_gqa import GQA_AS_MULTI_HEAD_CASES, GQA_CASES, GQA_MASK_CASES, refuses_bad_sizes  # noqa: F401

LIBRARY = "keras.layers.MultiHeadAttention"


def attention(q, k, v, mask=None):
    """softmax(q k^T / sqrt(d_k)) v in keras.ops, float32 (mask: True = may attend): chapter 3's
    attention, as parts 2 to 5 grade the layer with it. Not keras_reference.attention, which goes
    through NumPy: Keras could not trace the layer with it to build it, and a mask that does not
    broadcast would raise NumPy's error instead of TensorFlow's. Not the course package's either: it
    takes d_k from q.shape, where ops.shape(q) runs one TensorFlow operation per call, which the
    operation counts of part 5 (and their messages) include."""
    scores = ops.matmul(q, ops.swapaxes(k, -1, -2)) / math.sqrt(ops.shape(q)[-1])
    if mask is not None:
        scores = ops.where(mask, scores, float("-inf"))
    weights = ops.softmax(scores, axis=-1)
    return ops.matmul(weights, v), weights


def split_heads_by_width(x, d_head):
    """The reference split_heads(x, d_head): (B, L, d_model) -> (B, d_model / d_head, L, d_head)."""
    return keras_reference.split_heads(x, ops.shape(x)[-1] // d_head)


# What parts 2 to 5 grade the layer with: reference split_heads, merge_heads and attention.
REFERENCE_PARTS = dict(split_heads=split_heads_by_width, merge_heads=keras_reference.merge_heads,
                       scaled_dot_product_attention=attention)


def reference_parts(namespace):
    """The reference parts in the kernel's namespace (`globals()`), warnings ignored: a context
    manager, or install() it in one hidden region and restore() it in a later one."""
    return ch04.ReferenceParts(namespace, REFERENCE_PARTS)


count_operations = keras_reference.count_operations


# ---- part 1: split_heads and merge_heads

def split_heads_against_definition(split_heads, B, L, d_model, num_heads, seed):
    """split_heads(x, d_head)[b, i, l] must be x[b, l, i*d_head:(i+1)*d_head], d_head = d_model / h,
    exactly; returns the observation."""
    x, = ch04.normal_inputs(seed, (B, L, d_model))
    expected = reference.split_heads(x, num_heads).copy()                    # (B, h, L, d_head)
    got = ops.convert_to_numpy(split_heads(x, d_model // num_heads))
    assert got.shape == expected.shape, (
        f"with B={B}, L={L}, d_model={d_model}, h={num_heads}: expected an array of shape "
        f"(B, h, L, d_head) = {expected.shape}, got {got.shape}")
    assert np.array_equal(got, expected), (
        f"with B={B}, L={L}, d_model={d_model}, h={num_heads}: split_heads(x, d_head)[b, i, l] should be "
        "x[b, l, i*d_head:(i+1)*d_head]; some numbers are in the wrong places")
    return f"split_heads B={B} L={L} d_model={d_model} h={num_heads}", got


def split_heads_without_head_loop(split_heads):
    """split_heads(x, 2) (16 heads) must run about as many operations as split_heads(x, 16) (2
    heads), x (2, 5, 32); returns the observation."""
    x = ops.convert_to_tensor(ch04.normal_inputs(ch04.SPLIT_COUNT_SEED, (2, 5, 32))[0])
    counts = {h: count_operations(lambda: split_heads(x, 32 // h)) for h in (ch04.FEW_HEADS, ch04.MANY_HEADS)}
    return ch04.split_heads_count_observation(counts)


def merge_heads_against_definition(merge_heads, B, num_heads, L, d_head, seed):
    """merge_heads(x)[b, l, i*d_head:(i+1)*d_head] must be x[b, i, l], exactly; returns the
    observation."""
    x, = ch04.normal_inputs(seed, (B, num_heads, L, d_head))
    expected = reference.merge_heads(x).copy()                                # (B, L, h d_head)
    got = ops.convert_to_numpy(merge_heads(x))
    assert got.shape == expected.shape, (
        f"with B={B}, h={num_heads}, L={L}, d_head={d_head}: expected an array of shape (B, L, h d_head) = "
        f"{expected.shape}, got {got.shape}")
    assert np.array_equal(got, expected), (
        f"with B={B}, h={num_heads}, L={L}, d_head={d_head}: merge_heads(x)[b, l, i*d_head:(i+1)*d_head] "
        "should be x[b, i, l]; some numbers are in the wrong places")
    return f"merge_heads B={B} h={num_heads} L={L} d_head={d_head}", got


def merge_heads_without_head_loop(merge_heads):
    """merge_heads must run about as many operations for 16 heads as for 2, x (2, h, 5, 32 / h);
    returns the observation."""
    counts = {}
    for h in (ch04.FEW_HEADS, ch04.MANY_HEADS):
        x = ops.convert_to_tensor(ch04.normal_inputs(ch04.MERGE_COUNT_SEED, (2, h, 5, 32 // h))[0])
        counts[h] = count_operations(lambda: merge_heads(x))
    return ch04.merge_heads_count_observation(counts)


# ---- parts 2 to 4: the layer against keras.layers.MultiHeadAttention

def layer_error(what, error, hint):
    """The AssertionError that says the student's layer raised `error`. (The first line is the
    visible mask test's, word for word: the feedback scrubs the checks' lines that visible code
    does not also hold.)"""
    message = " ".join(str(error).split("Arguments received")[0].split())   # without Keras' call summary
    return AssertionError(f"{what}: your layer raised {type(error).__name__}: {message}{hint}")


def known_layer(MultiHeadAttention, what, hint, d_model, num_heads, seed, args, identity_output=False):
    """The student's layer, built by a first call on args, with known weights (the output
    projection the identity if asked)."""
    layer = MultiHeadAttention(d_model, num_heads)
    for name in ch04.PROJECTIONS:
        dense = getattr(layer, name, None)
        assert isinstance(dense, layers.Dense) and dense.units == d_model and dense.use_bias, (
            f"MultiHeadAttention({d_model}, {num_heads}).{name} should be layers.Dense(d_model), "
            "with a bias")
    try:
        layer(*args)                                          # builds it
    except Exception as error:
        raise layer_error(what, error, hint) from None
    projections = ch04.known_projections(d_model, seed, identity_output)
    for name in ch04.PROJECTIONS:
        dense = getattr(layer, name)
        if not dense.built:
            dense.build((None, d_model))                      # a sublayer that the call did not use
        kernel, bias = projections[name]                      # kernel (in, out), as layers.Dense keeps it
        dense.kernel.assign(kernel)
        dense.bias.assign(bias)
    return layer


def library_layer(layer, d_model, num_heads, x, kv):
    """keras.layers.MultiHeadAttention with the student's layer's weights (the chapter's recipe,
    section 4.6), built by a call on x and kv."""
    # (Keras 3.15 on TensorFlow: with key_dim = 1 the library adds its (h, 1) biases along the wrong
    # axis when L or S equals h (keras.ops.add takes them for a bias_add): the cases avoid that.)
    d_head = d_model // num_heads
    library = keras.layers.MultiHeadAttention(num_heads=num_heads, key_dim=d_head)
    library(x, kv)                                            # builds it
    for mine, theirs in [(layer.query, library.query_dense), (layer.key, library.key_dense),
                         (layer.value, library.value_dense)]:
        theirs.kernel.assign(ops.reshape(mine.kernel, (d_model, num_heads, d_head)))
        theirs.bias.assign(ops.reshape(mine.bias, (num_heads, d_head)))
    library.output_dense.kernel.assign(
        ops.reshape(layer.output_projection.kernel, (num_heads, d_head, d_model)))
    library.output_dense.bias.assign(layer.output_projection.bias)
    return library


def compare_with_library(MultiHeadAttention, what, hint, d_model, num_heads, seed, x, source=None, mask=None,
                         identity_output=False):
    """The student's layer against keras.layers.MultiHeadAttention with the same weights and mask
    (True = attend); returns the observation. x (B, L, d_model), source (B, S, d_model) or None
    (self-attention)."""
    args = (x,) if source is None else (x, source)
    layer = known_layer(MultiHeadAttention, what, hint, d_model, num_heads, seed, args, identity_output)
    B, L, _ = x.shape
    kv = x if source is None else source
    S = kv.shape[1]
    library = library_layer(layer, d_model, num_heads, x, kv)
    try:
        result = layer(*args) if mask is None else layer(*args, attention_mask=mask)
    except Exception as error:
        raise layer_error(what, error, hint) from None
    library_mask = None if mask is None else np.broadcast_to(mask, (B, L, S))
    expected_output, expected_weights = (ops.convert_to_numpy(t) for t in library(
        x, kv, attention_mask=library_mask, return_attention_scores=True))
    ch04.assert_output_and_weights(what, result)
    output, weights = (ops.convert_to_numpy(t) for t in result)
    ch04.assert_layer_shapes(what, output.shape, weights.shape, B, L, S, d_model, num_heads)
    ch04.assert_weights_agree(what, hint, LIBRARY, float(np.abs(weights - expected_weights).max()))
    ch04.assert_output_agrees(what, hint, LIBRARY, float(np.abs(output - expected_output).max()))
    return what, [output, weights]


def self_attention_against_library(MultiHeadAttention, B, L, d_model, num_heads, seed):
    """Self-attention without masks (a case of SELF_ATTENTION_CASES); returns the observation."""
    x, = ch04.normal_inputs(seed, (B, L, d_model))
    return compare_with_library(MultiHeadAttention, ch04.self_attention_what(B, L, d_model, num_heads),
                                ch04.SELF_ATTENTION_HINT, d_model, num_heads, seed, x)


def decoupled_against_library(MultiHeadAttention, B, L, S, d_model, num_heads, d_head, seed):
    """A case of DECOUPLED_CASES: MultiHeadAttention(d_model, h, d_head=d_head), h d_head wide inside,
    with known weights, against keras.layers.MultiHeadAttention(h, key_dim=d_head) with the same
    weights; returns the observation."""
    what, hint = ch04.decoupled_what(B, L, S, d_model, num_heads, d_head), ch04.DECOUPLED_HINT
    layer = ch04.build_decoupled(MultiHeadAttention, what, d_model, num_heads, d_head)
    for name in ch04.PROJECTIONS:
        if not isinstance(getattr(layer, name, None), layers.Dense):
            ch04.assert_decoupled_projection(what, d_model, num_heads, d_head, name, None, False)
    x, source = ch04_gqa.case_inputs(B, L, S, d_model, seed)
    args = (x,) if source is None else (x, source)
    kv = x if source is None else source
    try:
        layer(*args)                                          # builds it
    except Exception as error:
        raise layer_error(what, error, hint) from None
    drawn = ch04.decoupled_projections(d_model, num_heads, d_head, seed)
    for name in ch04.PROJECTIONS:
        dense = getattr(layer, name)
        if not dense.built:
            dense.build((None, ch04.layer_widths(d_model, num_heads, d_head)[name][0]))
        ch04.assert_decoupled_projection(what, d_model, num_heads, d_head, name, tuple(dense.kernel.shape),
                                         dense.use_bias)
        kernel, bias = drawn[name]                            # kernel (in, out), as layers.Dense keeps it
        dense.kernel.assign(kernel)
        dense.bias.assign(bias)
    library = keras.layers.MultiHeadAttention(num_heads=num_heads, key_dim=d_head)
    library(x, kv)                                            # builds it
    for name, theirs in [("query", library.query_dense), ("key", library.key_dense),
                         ("value", library.value_dense)]:
        kernel, bias = drawn[name]
        theirs.kernel.assign(kernel.reshape(d_model, num_heads, d_head))
        theirs.bias.assign(bias.reshape(num_heads, d_head))
    kernel, bias = drawn["output_projection"]
    library.output_dense.kernel.assign(kernel.reshape(num_heads, d_head, d_model))
    library.output_dense.bias.assign(bias)
    try:
        result = layer(*args)
    except Exception as error:
        raise layer_error(what, error, hint) from None
    expected_output, expected_weights = (ops.convert_to_numpy(t) for t in library(
        x, kv, return_attention_scores=True))
    ch04.assert_output_and_weights(what, result)
    output, weights = (ops.convert_to_numpy(t) for t in result)
    ch04.assert_layer_shapes(what, output.shape, weights.shape, B, L, kv.shape[1], d_model, num_heads)
    ch04.assert_weights_agree(what, hint, LIBRARY, float(np.abs(weights - expected_weights).max()))
    ch04.assert_output_agrees(what, hint, LIBRARY, float(np.abs(output - expected_output).max()))
    return what, [output, weights]


def masked_self_attention_against_library(MultiHeadAttention, B, L, d_model, num_heads, lengths, kind, seed):
    """Self-attention with a mask of the kind (a case of MASK_CASES), the output projection the
    identity; returns the observation."""
    x, = ch04.normal_inputs(seed, (B, L, d_model))
    real = np.arange(L)[None, :] < np.array(lengths)[:, None]                  # (B, S)
    causal = np.tril(np.ones((L, L), dtype=bool))                                # (L, S)
    if kind.startswith("padding (B, 1, S)"):
        mask = real[:, None, :]
    elif kind.startswith("padding and causal"):
        mask = real[:, None, :] & causal
    else:
        mask = causal
    return compare_with_library(
        MultiHeadAttention, ch04.masked_self_attention_what(kind, mask.shape, B, L, d_model, num_heads),
        ch04.MASK_HINT, d_model, num_heads, seed, x, mask=mask, identity_output=True)


def cross_attention_against_library(MultiHeadAttention, B, L, S, d_model, num_heads, seed):
    """Cross-attention without masks (a case of CROSS_ATTENTION_CASES), the output projection the
    identity; returns the observation."""
    x, source = ch04.normal_inputs(seed, (B, L, d_model), (B, S, d_model))
    return compare_with_library(MultiHeadAttention, ch04.cross_attention_what(B, L, S, d_model, num_heads),
                                ch04.CROSS_ATTENTION_HINT, d_model, num_heads, seed, x, source=source,
                                identity_output=True)


def padded_cross_attention_against_library(MultiHeadAttention, B, L, S, d_model, num_heads, lengths, full,
                                           seed):
    """Cross-attention with a padding mask on the source, (B, L, S) if `full` else (B, 1, S) (a case
    of PADDED_CROSS_ATTENTION_CASES), the output projection the identity; returns the observation."""
    x, source = ch04.normal_inputs(seed, (B, L, d_model), (B, S, d_model))
    real = np.arange(S)[None, :] < np.array(lengths)[:, None]                  # (B, S)
    mask = np.broadcast_to(real[:, None, :], (B, L, S)) if full else real[:, None, :]
    return compare_with_library(
        MultiHeadAttention, ch04.padded_cross_attention_what(mask.shape, B, L, S, d_model, num_heads),
        ch04.PADDING_HINT, d_model, num_heads, seed, x, source=source, mask=mask, identity_output=True)


# ---- part 5: all heads at once

def forward_pass(kind):
    """The forward pass `kind` of BATCHED_CASES, on the inputs drawn from BATCHED_SEED: a function
    of the layer."""
    target, source, x = ch04.normal_inputs(ch04.BATCHED_SEED, (3, 4, 48), (3, 6, 48), (1, 6, 32))
    causal = np.tril(np.ones((1, 6, 6), dtype=bool))
    if kind == "cross-attention":
        return lambda layer: layer(target, source)
    return lambda layer: layer(x, attention_mask=causal)


def no_work_per_head(MultiHeadAttention, what, d_model, few, many, kind):
    """One forward pass with `many` heads must run fewer than many - few operations more than one
    with `few` (a case of BATCHED_CASES); returns the observation."""
    return ch04.no_work_per_head(MultiHeadAttention, what, d_model, few, many, forward_pass(kind),
                                 count_operations)


# ---- part 6: predict, then measure (parameter_count_prediction, from ch04, is framework-free)


class LibraryLayer(layers.Layer):
    """keras.layers.MultiHeadAttention with num_heads heads of d_model / num_heads, with biases
    or without, called like the assignment's layer: layer(query_input, key_value_input=None)
    -> (output, weights). Its weights are created on the first call."""

    def __init__(self, d_model, num_heads, bias=True, **kwargs):
        super().__init__(**kwargs)
        self.attention = layers.MultiHeadAttention(num_heads, d_model // num_heads, use_bias=bias)

    def call(self, query_input, key_value_input=None, attention_mask=None):
        key_value_input = query_input if key_value_input is None else key_value_input
        return self.attention(query_input, key_value_input, attention_mask=attention_mask,
                              return_attention_scores=True)


def parameter_count_measurement(measure, which, d_model, num_heads):
    """ch04.parameter_count_measurement with keras.layers.MultiHeadAttention as the layer."""
    return ch04.parameter_count_measurement(measure, LibraryLayer, which, d_model, num_heads)


# ---- part 7: grouped-query attention (cases, reference and assertions in ch04_gqa)

def known_gqa(GroupedQueryAttention, what, hint, d_model, num_heads, num_kv_heads, seed, args):
    """The student's layer, built by a first call on args, with the weights that
    ch04_gqa.gqa_projections draws: (layer, drawn)."""
    layer = reference.quietly(GroupedQueryAttention, d_model, num_heads, num_kv_heads)
    for name in ch04_gqa.PROJECTIONS:
        if not isinstance(getattr(layer, name, None), layers.Dense):
            ch04_gqa.assert_projection(d_model, num_heads, num_kv_heads, name, None, False)
    try:
        layer(*args)                                          # builds it
    except Exception as error:
        raise layer_error(what, error, hint) from None
    drawn = ch04_gqa.gqa_projections(d_model, num_heads, num_kv_heads, seed)
    for name in ch04_gqa.PROJECTIONS:
        dense = getattr(layer, name)
        if not dense.built:
            dense.build((None, d_model))                      # a sublayer that the call did not use
        ch04_gqa.assert_projection(d_model, num_heads, num_kv_heads, name, tuple(dense.kernel.shape),
                                   dense.use_bias)
        kernel, bias = drawn[name]                            # kernel (in, out), as layers.Dense keeps it
        dense.kernel.assign(kernel)
        dense.bias.assign(bias)
    return layer, drawn


def run_gqa(layer, what, hint, args, mask):
    """The layer's (output, weights) as NumPy arrays."""
    try:
        result = layer(*args) if mask is None else layer(*args, attention_mask=mask)
    except Exception as error:
        raise layer_error(what, error, hint) from None
    ch04.assert_output_and_weights(what, result)
    return tuple(ops.convert_to_numpy(t) for t in result)


def gqa_against_reference(GroupedQueryAttention, B, L, S, d_model, num_heads, num_kv_heads, seed):
    """A case of GQA_CASES (no mask) against ch04_gqa.gqa_reference; returns the observation."""
    x, source = ch04_gqa.case_inputs(B, L, S, d_model, seed)
    args = (x,) if source is None else (x, source)
    what, hint = ch04_gqa.gqa_what(B, L, S, d_model, num_heads, num_kv_heads), ch04_gqa.GQA_HINT
    layer, drawn = known_gqa(GroupedQueryAttention, what, hint, d_model, num_heads, num_kv_heads, seed, args)
    output, weights = run_gqa(layer, what, hint, args, None)
    ch04_gqa.assert_agrees(what, hint, output, weights,
                           ch04_gqa.gqa_reference(drawn, num_heads, num_kv_heads, x, source))
    return what, [output, weights]


def gqa_masked_against_reference(GroupedQueryAttention, B, L, S, d_model, num_heads, num_kv_heads, lengths,
                                 kind, seed):
    """A case of GQA_MASK_CASES against ch04_gqa.gqa_reference; returns the observation."""
    x, source = ch04_gqa.case_inputs(B, L, S, d_model, seed)
    args = (x,) if source is None else (x, source)
    mask = ch04_gqa.case_mask(B, L, S, lengths, kind)
    what = ch04_gqa.gqa_what(B, L, S, d_model, num_heads, num_kv_heads, kind, mask.shape)
    hint = ch04_gqa.GQA_MASK_HINT
    layer, drawn = known_gqa(GroupedQueryAttention, what, hint, d_model, num_heads, num_kv_heads, seed, args)
    output, weights = run_gqa(layer, what, hint, args, mask)
    ch04_gqa.assert_agrees(what, hint, output, weights,
                           ch04_gqa.gqa_reference(drawn, num_heads, num_kv_heads, x, source, mask))
    return what, [output, weights]


def gqa_as_multi_head(GroupedQueryAttention, B, L, S, d_model, num_heads, seed):
    """A case of GQA_AS_MULTI_HEAD_CASES: with num_kv_heads = num_heads the layer is multi-head
    attention, against keras.layers.MultiHeadAttention with the same weights; returns the
    observation."""
    x, source = ch04_gqa.case_inputs(B, L, S, d_model, seed)
    return compare_with_library(
        lambda width, heads: GroupedQueryAttention(width, heads, heads),
        ch04_gqa.gqa_what(B, L, S, d_model, num_heads, num_heads), ch04_gqa.GQA_HINT, d_model, num_heads,
        seed, x, source=source)
