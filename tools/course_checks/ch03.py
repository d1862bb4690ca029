"""Chapter 3 (self-attention): what the Keras and the PyTorch notebooks' hidden tests share, in NumPy.

The NumPy warm-up (``np_scaled_dot_product_attention``) is checked here whole; for the framework parts
this module holds the case tables, the inputs, the references and the comparisons, and
``ch03_pytorch`` / ``ch03_keras`` call the student's code on them. A check returns what its cell
observes: a ``(name, value)`` pair.
"""
import functools

import numpy as np

from . import reference
# Part 6 (predict, then measure) lives in ch03_measure; the cells and ch03_keras / ch03_pytorch
# reach it through this module.
from .ch03_measure import (MEASUREMENT_BAND, MEASUREMENT_KEYS, MEASUREMENT_QUERIES,  # noqa: F401
                           SCORE_MEASUREMENT_CASES, SCORE_VARIANCE_CASES, attention_given,
                           measurement_range, measurement_standard_error, one_number,
                           score_variance, score_variance_measurement, score_variance_prediction)

# np_scaled_dot_product_attention against the formula: (L, S, d_k, d_v, mask kind, seed).
NP_ATTENTION_CASES = (
    (5, 3, 4, 7, "none", 11), (1, 1, 3, 2, "none", 12), (4, 6, 9, 2, "(L, S)", 13),
    (3, 5, 2, 3, "(1, S)", 14), (6, 6, 8, 8, "causal (L, S)", 15), (2, 7, 5, 1, "(L, S)", 16),
)
# scaled_dot_product_attention against the formula: (B, L, S, d_k, d_v, mask kind, seed).
ATTENTION_CASES = (
    (3, 4, 6, 5, 2, "none", 21), (1, 1, 1, 3, 4, "none", 22), (2, 5, 3, 8, 8, "(B, L, S)", 23),
    (4, 2, 5, 2, 3, "(B, 1, S)", 24), (2, 4, 4, 6, 5, "(L, S)", 25), (1, 6, 2, 4, 1, "(B, L, S)", 26),
)
# padding_mask: (lengths, S, pad_id or None for the default PAD_ID, seed).
PADDING_MASK_CASES = (
    ((4, 1, 6, 6), 6, None, 41),
    ((1,), 1, None, 42),
    ((3, 5, 2), 5, 7, 43),
)
# causal_mask: the lengths.
CAUSAL_MASK_LENGTHS = (1, 2, 6, 9)
# SelfAttention against the reference: (B, L, d_model, d_k, mask kind, seed).
SELF_ATTENTION_CASES = (
    (3, 5, 8, 4, "causal (L, L)", 61), (1, 1, 3, 5, "none", 62),
    (2, 6, 4, 6, "padding and causal (B, L, L)", 63), (4, 3, 6, 2, "padding (B, 1, L)", 64),
)
# The causal property: (B, L, d_model, d_k, seed).
CAUSAL_PROPERTY_CASES = ((2, 6, 5, 3, 71), (1, 4, 3, 7, 72))
# The padding property: (lengths, L, d_model, d_k, causal, seed).
PADDING_PROPERTY_CASES = (((5, 2, 3), 5, 6, 4, False, 81), ((4, 6), 6, 3, 5, True, 82))



def causal(length, keys=None):
    """(length, keys or length) bool: query i may attend to the keys j <= i."""
    return np.tril(np.ones((length, length if keys is None else keys), dtype=bool))


def real_positions(lengths, length):
    """(B, length) bool: True at the first lengths[b] positions of sequence b."""
    return np.arange(length)[None, :] < np.array(lengths)[:, None]


def result_arrays(result, to_numpy, function_name="scaled_dot_product_attention"):
    """The (output, weights) pair that the student's attention returned, as NumPy arrays."""
    assert isinstance(result, tuple) and len(result) == 2, f"{function_name} should return (output, weights)"
    return to_numpy(result[0]), to_numpy(result[1])


def attention_shapes(q, k, v):
    """The shapes that attention over q (..., L, d_k), k (..., S, d_k), v (..., S, d_v) must return:
    (output (..., L, d_v), weights (..., L, S))."""
    return q.shape[:-1] + (v.shape[-1],), q.shape[:-1] + (k.shape[-2],)


# ---- part 1: np_scaled_dot_product_attention


def np_attention_mask(rng, L, S, kind):
    """The mask of a case of NP_ATTENTION_CASES: None, causal (L, S), or random of shape (L, S) or
    (1, S) in which every query may attend to at least one key."""
    if kind == "none":
        return None
    if kind == "causal (L, S)":
        return causal(L, S)
    return reference.random_mask(rng, (1 if kind == "(1, S)" else L, S))


def np_attention_against_formula(np_attention, L, S, d_k, d_v, mask_kind, seed):
    """np_scaled_dot_product_attention against the float64 reference (within 1e-6), for one case of
    NP_ATTENTION_CASES."""
    rng = np.random.default_rng(seed)
    Q, K, V = rng.normal(size=(L, d_k)), rng.normal(size=(S, d_k)), rng.normal(size=(S, d_v))
    mask = np_attention_mask(rng, L, S, mask_kind)
    expected_output, expected_weights = reference.attention(Q, K, V, mask)
    result = reference.quietly(np_attention, Q, K, V, mask)
    what = f"L={L}, S={S}, d_k={d_k}, d_v={d_v} and mask {mask_kind}"
    output, weights = result_arrays(result, np.asarray, "np_scaled_dot_product_attention")
    assert output.shape == (L, d_v) and weights.shape == (L, S), (
        f"with {what}: expected an output of shape {(L, d_v)} and weights of shape {(L, S)}, "
        f"got {output.shape} and {weights.shape}")
    weights_err = float(np.abs(weights - expected_weights).max())
    assert weights_err < 1e-6, (
        f"with {what}: the weights differ from softmax(Q K^T / sqrt(d_k)) by up to {weights_err:.3g}; "
        "check the scale, the axis of the softmax and how the mask goes in")
    output_err = float(np.abs(output - expected_output).max())
    assert output_err < 1e-6, (
        f"with {what}: the output differs from the weights times V by up to {output_err:.3g}")
    return f"np_scaled_dot_product_attention with {what}", [output, weights]


def np_large_score_cases():
    """{name: (Q (4, 16), K (5, 16), V (5, 3), mask (4, 5) or None)}: scores in the thousands, and a
    blocked key that scores far above the allowed ones. The cases share V."""
    rng = np.random.default_rng(31)
    Q, K, V = rng.normal(size=(4, 16)), rng.normal(size=(5, 16)), rng.normal(size=(5, 3))
    K_hot = K.copy()
    K_hot[0] = 1000.0                       # key 0 scores about +3000 with every (positive) query
    blocked_0 = np.ones((4, 5), dtype=bool)
    blocked_0[:, 0] = False
    return {
        "scores in the thousands": (60 * Q, 60 * K, V, None),
        "scores in the thousands and a causal mask": (60 * Q, 60 * K, V, causal(4, 5)),
        "a blocked key that scores far above the allowed ones": (np.abs(Q), K_hot, V, blocked_0),
    }


def np_attention_with_large_scores(np_attention, name, Q, K, V, mask):
    """np_scaled_dot_product_attention on a case of np_large_score_cases(): finite, exactly 0 where
    blocked, weights that sum to 1 and an output equal to the weights times V (within 1e-6)."""
    output_shape, weights_shape = attention_shapes(Q, K, V)
    result = reference.quietly(np_attention, Q, K, V, mask)
    output, weights = result_arrays(result, np.asarray, "np_scaled_dot_product_attention")
    assert output.shape == output_shape and weights.shape == weights_shape, (
        f"with {name}: expected an output of shape {output_shape} and weights of shape {weights_shape}, "
        f"got {output.shape} and {weights.shape}")
    finite = bool(np.isfinite(output).all() and np.isfinite(weights).all())
    assert finite, (
        f"with {name}: np_scaled_dot_product_attention returned NaN or inf; no step may overflow, "
        "or divide 0 by 0")
    allowed = np.ones(weights_shape, dtype=bool) if mask is None else mask
    on_blocked = float(np.abs(weights[~allowed]).max()) if (~allowed).any() else 0.0
    assert on_blocked == 0.0, (
        f"with {name}: blocked positions must get weight exactly 0, got up to {on_blocked:.3g}")
    sums_off = float(np.abs(weights.sum(axis=-1) - 1.0).max())
    assert sums_off < 1e-6, (
        f"with {name}: the weights of each query must sum to 1, they are off by up to {sums_off:.3g}")
    mismatch = float(np.abs(output - weights @ V).max())
    assert mismatch < 1e-6, (
        f"with {name}: the output must be the weights times V, it is off by up to {mismatch:.3g}")
    return f"large scores: {name}", [finite, on_blocked, sums_off < 1e-6, mismatch < 1e-6]


# ---- part 2: scaled_dot_product_attention (the frameworks call it, these give inputs and compare)


def attention_case(B, L, S, d_k, d_v, mask_kind, seed):
    """The inputs of a case of ATTENTION_CASES: q (B, L, d_k), k (B, S, d_k), v (B, S, d_v) in
    float32, and None or a random bool mask of the kind's shape in which every query may attend to
    at least one key."""
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=(B, L, d_k)).astype("float32"), rng.normal(size=(B, S, d_k)).astype("float32")
    v = rng.normal(size=(B, S, d_v)).astype("float32")
    if mask_kind == "none":
        return q, k, v, None
    shape = {"(B, L, S)": (B, L, S), "(B, 1, S)": (B, 1, S), "(L, S)": (L, S)}[mask_kind]
    return q, k, v, reference.random_mask(rng, shape)


def attention_agrees(output, weights, expected, B, L, S, d_k, d_v, mask_kind):
    """The student's (output, weights) as arrays against `expected` = reference.attention(q, k, v,
    mask) (within 1e-5), for a case of ATTENTION_CASES (its seed left off)."""
    expected_output, expected_weights = expected
    what = f"B={B}, L={L}, S={S}, d_k={d_k}, d_v={d_v} and mask {mask_kind}"
    assert output.shape == (B, L, d_v) and weights.shape == (B, L, S), (
        f"with {what}: expected an output of shape {(B, L, d_v)} and weights of shape {(B, L, S)}, "
        f"got {output.shape} and {weights.shape}")
    weights_err = float(np.abs(weights - expected_weights).max())
    assert weights_err < 1e-5, (
        f"with {what}: the weights differ from softmax(q k^T / sqrt(d_k)) by up to {weights_err:.3g}; "
        "check the scale, the axes and how the mask goes in")
    output_err = float(np.abs(output - expected_output).max())
    assert output_err < 1e-5, (
        f"with {what}: the output differs from the weights times v by up to {output_err:.3g}")
    return f"scaled_dot_product_attention with {what}", [output, weights]


def attention_masking_cases():
    """{name: (q (2, 3, 8), k (2, 5, 8), v (2, 5, 4), mask)}, q and k float64, v float32 (shared by
    the cases): a blocked key that scores far above the allowed ones, scores in the hundreds, and
    queries that may attend to no key at all."""
    rng = np.random.default_rng(51)
    B, L, S, d_k, d_v = 2, 3, 5, 8, 4
    q, k = rng.normal(size=(B, L, d_k)), rng.normal(size=(B, S, d_k))
    v = rng.normal(size=(B, S, d_v)).astype("float32")
    k_hot = k.copy()
    k_hot[:, 0] = 1000.0                    # key 0 scores about +2000 with every (positive) query
    padding = np.ones((B, 1, S), dtype=bool)
    padding[:, :, 0] = False
    padding[1, :, 4] = False
    random = rng.random((B, L, S)) < 0.5
    random[:, :, 2] = True
    none_allowed = rng.random((B, L, S)) < 0.5
    none_allowed[:, :, 1] = True
    none_allowed[0, 2] = False              # these two queries may attend to no key
    none_allowed[1, 0] = False
    return {
        "a blocked key that scores far above the allowed ones, mask (B, 1, S)":
            (np.abs(q), k_hot, v, padding),
        "scores in the hundreds, causal mask (L, S)": (15 * q, 15 * k, v, causal(L, S)),
        "scores near -300, mask (B, L, S)": (15 * q, 15 * k - 10 * np.abs(q).sum(axis=-1).mean(), v, random),
        "two queries that may attend to no key, mask (B, L, S)": (q, k, v, none_allowed),
    }


def masking_holds(name, output, weights, v, mask, output_shape, weights_shape):
    """The student's (output, weights) as arrays on a case of attention_masking_cases(): finite,
    exactly 0 where blocked, weights that sum to 1 (to 0 for a query that may attend to no key) and
    an output equal to the weights times v (1e-5)."""
    assert output.shape == output_shape and weights.shape == weights_shape, (
        f"with {name}: expected an output of shape {output_shape} and weights of shape {weights_shape}, "
        f"got {output.shape} and {weights.shape}")
    allowed = np.broadcast_to(mask, weights.shape)
    finite = bool(np.isfinite(output).all() and np.isfinite(weights).all())
    assert finite, (
        f"with {name}: scaled_dot_product_attention returned NaN or inf; no step may overflow, "
        "or divide 0 by 0" + ("" if allowed.any(axis=-1).all() else
                              " (a query that may attend to no key gets weights all 0 and an output of 0)"))
    on_blocked = float(np.abs(weights[~allowed]).max())
    assert on_blocked == 0.0, (
        f"with {name}: blocked positions must get weight exactly 0, got up to {on_blocked:.3g}")
    sums_off = float(np.abs(weights.astype("float64").sum(axis=-1) - allowed.any(axis=-1)).max())
    assert sums_off < 1e-5, (
        f"with {name}: the weights of each query must sum to 1 (to 0 where it may attend to no key), "
        f"they are off by up to {sums_off:.3g}")
    mismatch = float(np.abs(output - weights.astype("float64") @ v.astype("float64")).max())
    assert mismatch < 1e-5, (
        f"with {name}: the output must be the weights times v, it is off by up to {mismatch:.3g}")
    return f"masking: {name}", [finite, on_blocked, sums_off < 1e-5, mismatch < 1e-5]


# ---- part 3: padding_mask


def tokens_with_padding(rng, lengths, S, pad_id):
    """(tokens (B, S) int64, real (B, S) bool): random ids in [0, 12) at the real positions, pad_id
    after them; real tokens never equal pad_id (they may be PAD_ID)."""
    real = real_positions(lengths, S)
    ids = rng.integers(0, 12, size=real.shape)
    ids = np.where(ids == pad_id, pad_id + 1, ids)
    return np.where(real, ids, pad_id), real


def padding_mask_description(lengths, S, pad_id):
    """How the feedback names a case of PADDING_MASK_CASES."""
    return f"lengths {list(lengths)}, S={S}" + ("" if pad_id is None else f" and pad_id={pad_id}")


# ---- part 4: SelfAttention. `build(d_model, d_k, rng)` makes the student's layer with random weights
# and returns (layer, {name: (W, b)}) for x @ W + b; `run(layer, x, mask)` runs it with the reference
# attention swapped in and returns (output, weights) as float64 arrays (ch03_pytorch, ch03_keras).


def on_layer_class(build_and_run, check):
    """`check(build, run, *case)` as the cells call it: `check(SelfAttention, globals(), *case)`, with
    build and run from the framework's build_and_run(SelfAttention, namespace)."""
    @functools.wraps(check)
    def checked(self_attention_class, namespace, *case):
        return check(*build_and_run(self_attention_class, namespace), *case)
    return checked


def self_attention_mask(rng, B, L, kind):
    """The mask of a case of SELF_ATTENTION_CASES (a random padding is drawn for every kind)."""
    causal_mask = causal(L)
    padding = real_positions(rng.integers(1, L + 1, size=B), L)[:, None, :]     # (B, 1, L)
    return {"none": None, "causal (L, L)": causal_mask, "padding (B, 1, L)": padding,
            "padding and causal (B, L, L)": padding & causal_mask}[kind]


def reference_self_attention(x, params, mask):
    """NumPy, float64: (output (B, L, d_model), weights (B, L, L)); params[name] = (W, b), x @ W + b."""
    q, k, v = (x @ params[name][0] + params[name][1] for name in ("query", "key", "value"))
    context, weights = reference.attention(q, k, v, mask)
    return context @ params["output_projection"][0] + params["output_projection"][1], weights


def self_attention_against_reference(build, run, B, L, d_model, d_k, mask_kind, seed):
    """SelfAttention with fixed weights against reference_self_attention (within 1e-5), for a case of
    SELF_ATTENTION_CASES."""
    rng = np.random.default_rng(seed)
    layer, params = build(d_model, d_k, rng)
    x = rng.normal(size=(B, L, d_model)).astype("float32")
    mask = self_attention_mask(rng, B, L, mask_kind)
    expected_output, expected_weights = reference_self_attention(x.astype("float64"), params, mask)
    output, weights = run(layer, x, mask)
    what = f"B={B}, L={L}, d_model={d_model}, d_k={d_k} and mask {mask_kind}"
    assert output.shape == (B, L, d_model) and weights.shape == (B, L, L), (
        f"with {what}: expected an output of shape {(B, L, d_model)} and weights of shape {(B, L, L)}, "
        f"got {output.shape} and {weights.shape}")
    weights_err = float(np.abs(weights - expected_weights).max())
    assert weights_err < 1e-5, (
        f"with {what}: the weights differ from the reference by up to {weights_err:.3g}: check which "
        "projection makes the queries, which the keys, and that the mask reaches the attention")
    output_err = float(np.abs(output - expected_output).max())
    assert output_err < 1e-5, (
        f"with {what}: the output differs from the reference by up to {output_err:.3g}: check which "
        "projection makes the values, and what the output projection is applied to")
    return f"SelfAttention with {what}", [output, weights]


def causal_property(build, run, B, L, d_model, d_k, seed):
    """With a causal mask, changing the inputs at position p and later must leave the outputs before
    p as they were (within 1e-5) and change the output at p (by over 1e-3), for every p."""
    rng = np.random.default_rng(seed)
    layer, _ = build(d_model, d_k, rng)
    x = rng.normal(size=(B, L, d_model)).astype("float32")
    mask = causal(L)
    base, _ = run(layer, x, mask)
    assert base.shape[:2] == (B, L), (
        f"expected an output of shape (B, L, d_model) = {(B, L, d_model)}, got {base.shape}")
    leaks, changed = [], []
    for p in range(L):
        later = x.copy()
        later[:, p:] += 3.0 * rng.normal(size=later[:, p:].shape).astype("float32")
        out, _ = run(layer, later, mask)
        leaks.append(float(np.abs(out[:, :p] - base[:, :p]).max()) if p > 0 else 0.0)
        changed.append(bool(np.abs(out[:, p] - base[:, p]).max() > 1e-3))
        assert leaks[-1] <= 1e-5, (
            f"with a causal mask, changing the inputs at positions {p} and later changed the outputs at "
            f"earlier positions by up to {leaks[-1]:.3g} (B={B}, L={L}): an output may only depend on its "
            "own and earlier positions")
        assert changed[-1], (
            f"changing the input at position {p} did not change the output at position {p} (B={B}, L={L}): "
            "the output at a position must depend on that position's input")
    return f"causal property B={B} L={L} d_model={d_model} d_k={d_k}", [list(base.shape[:2]), leaks, changed]


def padding_property(build, run, lengths, L, d_model, d_k, causal_too, seed):
    """With a padding mask (and a causal one if causal_too), changing the inputs at padded positions
    must leave the outputs at real positions as they were (within 1e-5), and changing the input at
    position 0 must change the output there (by over 1e-3) in every sequence."""
    rng = np.random.default_rng(seed)
    B = len(lengths)
    layer, _ = build(d_model, d_k, rng)
    real = real_positions(lengths, L)                                          # (B, L)
    mask = real[:, None, :] & causal(L) if causal_too else real[:, None, :]
    kind = "padding and causal (B, L, L)" if causal_too else "padding (B, 1, L)"
    what = f"lengths {list(lengths)}, L={L} and mask {kind}"
    x = rng.normal(size=(B, L, d_model)).astype("float32")
    base, _ = run(layer, x, mask)
    assert base.shape[:2] == (B, L), (
        f"with {what}: expected an output of shape {(B, L, d_model)}, got {base.shape}")
    padded = x.copy()
    padded[~real] = 10.0 * rng.normal(size=(int((~real).sum()), d_model)).astype("float32")
    out, _ = run(layer, padded, mask)
    leak = float(np.abs(out[real] - base[real]).max())
    assert leak <= 1e-5, (
        f"with {what}: changing the inputs at padded positions changed the outputs at real positions by up "
        f"to {leak:.3g}: real positions must never look at padding")
    first = x.copy()
    first[:, 0] += 3.0 * rng.normal(size=(B, d_model)).astype("float32")
    out, _ = run(layer, first, mask)
    changed = bool((np.abs(out[:, 0] - base[:, 0]).max(axis=-1) > 1e-3).all())
    assert changed, (
        f"with {what}: changing the input at position 0 did not change the output there: the output at a "
        "position must depend on that position's input")
    return f"padding property with {what}", [list(base.shape[:2]), leak, changed]
