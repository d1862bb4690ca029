"""Chapter 4, part 7 (grouped-query attention): what the Keras and the PyTorch checks share, NumPy only.

GroupedQueryAttention(d_model, num_heads, num_kv_heads) projects the queries to h = num_heads
heads and the keys and values to g = num_kv_heads heads of the same width d_head = d_model / h;
query head i attends with key-value head i // (h / g) (Ainslie et al. 2023; g = 1 is Shazeer's
multi-query attention, g = h multi-head attention). The chapter shows only g = h. The checks
load known weights into the student's layer and compare it with `gqa_reference` (below, float64),
and, for g = h, with the library's multi-head attention (the framework modules do that).
"""
import numpy as np

from . import reference

PROJECTIONS = ("query", "key", "value", "output_projection")

# (d_model, h, g) that the constructor must refuse with ValueError: g does not divide h (twice),
# h does not divide d_model (g does divide h there).
GQA_BAD_SIZES = ((12, 6, 4), (16, 8, 3), (12, 5, 5))

# Without masks, against the reference: (B, L, S or None for self-attention, d_model, h, g, seed).
# Multi-query (g = 1), groups of 2 and 3, d_head = 1, L = 1 and S = 1 among them; each case has g < h.
GQA_CASES = (
    (2, 5, None, 12, 6, 2, 81), (3, 4, 7, 16, 8, 1, 82), (1, 1, 3, 8, 4, 2, 83),
    (1, 6, None, 12, 12, 4, 84), (2, 3, 1, 18, 6, 3, 85),
)
# g = h: multi-head attention, against the library's layer: (B, L, S or None, d_model, h, seed)
GQA_AS_MULTI_HEAD_CASES = ((2, 4, None, 12, 3, 86), (1, 3, 5, 8, 4, 87))
GQA_HINT = (": query head i must attend with key-value head i // (num_heads / num_kv_heads) (the query "
            "heads of one group are consecutive), scores scaled by sqrt(d_head), then merge_heads and the "
            "output projection")

# With masks, against the reference: (B, L, S or None, d_model, h, g, real lengths of the keys,
# kind, seed). B = h among them (a mask without its head axis lines B up with the heads there).
GQA_MASK_CASES = (
    (3, 6, None, 12, 6, 2, (6, 2, 4), "padding (B, 1, S)", 91),
    (2, 5, None, 8, 4, 1, (5, 3), "padding and causal (B, L, S)", 92),
    (2, 4, None, 16, 8, 4, (4, 4), "causal (L, S)", 93),
    (3, 4, 7, 12, 6, 3, (7, 2, 5), "padding (B, 1, S)", 94),
    (4, 3, None, 8, 4, 2, (3, 1, 2, 3), "padding and causal (B, L, S)", 95),
)
GQA_MASK_HINT = (": a mask of shape (B, L, S), (B, 1, S) or (L, S) (True = may attend) applies to every "
                 "query head of its batch row")


def gqa_widths(d_model, num_heads, num_kv_heads):
    """{projection: (in, out)}: the queries and the output d_model wide, the keys and values
    g d_head wide."""
    kv = num_kv_heads * (d_model // num_heads)
    return dict(query=(d_model, d_model), key=(d_model, kv), value=(d_model, kv),
                output_projection=(d_model, d_model))


def gqa_projections(d_model, num_heads, num_kv_heads, seed):
    """{projection: (weight (in, out), bias (out,))}, float32, drawn from `seed` in the order
    PROJECTIONS."""
    rng = np.random.default_rng(seed)
    drawn = {}
    for name, (fan_in, fan_out) in gqa_widths(d_model, num_heads, num_kv_heads).items():
        weight = rng.normal(0.0, fan_in ** -0.5, size=(fan_in, fan_out)).astype("float32")
        drawn[name] = (weight, rng.normal(0.0, 0.1, size=fan_out).astype("float32"))
    return drawn


def gqa_reference(drawn, num_heads, num_kv_heads, x, source=None, mask=None):
    """Grouped-query attention in float64 with the weights `drawn` (gqa_projections): every key-value
    head copied to its num_heads / num_kv_heads query heads, then multi-head attention. Returns
    (output (B, L, d_model), weights (B, h, L, S)); mask: True = may attend, (B, L, S), (B, 1, S)
    or (L, S)."""
    def project(name, inputs):
        weight, bias = drawn[name]
        return np.asarray(inputs, "float64") @ weight.astype("float64") + bias.astype("float64")
    kv_input = x if source is None else source
    copies = num_heads // num_kv_heads
    queries = reference.split_heads(project("query", x), num_heads)                    # (B, h, L, d_head)
    keys, values = (np.repeat(reference.split_heads(project(name, kv_input), num_kv_heads), copies, axis=1)
                    for name in ("key", "value"))                                      # (B, h, S, d_head)
    attended, weights = reference.attention(queries, keys, values,
                                            None if mask is None else np.expand_dims(mask, -3))
    return project("output_projection", reference.merge_heads(attended)), weights


def gqa_what(B, L, S, d_model, num_heads, num_kv_heads, kind=None, mask_shape=None):
    """The name of a case."""
    which = "self-attention" if S is None else f"cross-attention with S={S}"
    masked = "" if kind is None else f" and a {kind} mask of shape {tuple(mask_shape)}"
    return (f"GroupedQueryAttention({d_model}, num_heads={num_heads}, num_kv_heads={num_kv_heads}), "
            f"{which}{masked}, B={B}, L={L}")


def case_inputs(B, L, S, d_model, seed):
    """x (B, L, d_model) and source (B, S, d_model) or None, float32, drawn from seed + 1000."""
    rng = np.random.default_rng(seed + 1000)
    x = rng.normal(size=(B, L, d_model)).astype("float32")
    return x, None if S is None else rng.normal(size=(B, S, d_model)).astype("float32")


def case_mask(B, L, S, lengths, kind):
    """The mask of a GQA_MASK_CASES case (True = may attend): padding of the keys, (B, 1, S);
    padding and causal, (B, L, S); causal, (L, S)."""
    S = L if S is None else S
    real = np.arange(S)[None, :] < np.array(lengths)[:, None]                  # (B, S)
    causal = np.tril(np.ones((L, S), dtype=bool))                                # (L, S)
    if kind.startswith("padding (B, 1, S)"):
        return real[:, None, :]
    if kind.startswith("padding and causal"):
        return real[:, None, :] & causal
    return causal


def refuses_bad_sizes(GroupedQueryAttention):
    """The constructor must raise ValueError for every GQA_BAD_SIZES."""
    for d_model, num_heads, num_kv_heads in GQA_BAD_SIZES:
        try:
            reference.quietly(GroupedQueryAttention, d_model, num_heads, num_kv_heads)
        except ValueError:
            continue
        reason = (f"{num_kv_heads} key-value heads do not divide {num_heads} query heads"
                  if num_heads % num_kv_heads else f"{num_heads} heads do not divide d_model = {d_model}")
        raise AssertionError(f"GroupedQueryAttention({d_model}, {num_heads}, {num_kv_heads}) should raise "
                             f"ValueError: {reason}")


def assert_projection(d_model, num_heads, num_kv_heads, name, found_in_out, has_bias):
    """One projection's (in, out) widths, with a bias; found_in_out None: not a dense layer."""
    fan_in, fan_out = gqa_widths(d_model, num_heads, num_kv_heads)[name]
    assert found_in_out == (fan_in, fan_out) and has_bias, (
        f"GroupedQueryAttention({d_model}, {num_heads}, {num_kv_heads}).{name} should be a dense layer "
        f"from {fan_in} to {fan_out} numbers, with a bias"
        + (": the keys and values have num_kv_heads heads of d_head = d_model / num_heads"
           if name in ("key", "value") else ""))


def assert_agrees(what, hint, output, weights, expected):
    """The student's (output, weights), NumPy arrays, against the reference's (within 1e-5)."""
    expected_output, expected_weights = expected
    assert output.shape == expected_output.shape and weights.shape == expected_weights.shape, (
        f"{what}: expected an output of shape (B, L, d_model) = {expected_output.shape} and weights of "
        f"shape (B, h, L, S) = {expected_weights.shape}, got {output.shape} and {weights.shape}")
    weights_err = float(np.abs(weights - expected_weights).max())
    assert weights_err < 1e-5, (
        f"{what}: the weights differ from grouped-query attention's (with the same weights loaded) by "
        f"up to {weights_err:.3g}{hint}")
    output_err = float(np.abs(output - expected_output).max())
    assert output_err < 1e-5, (
        f"{what}: the weights are right, but the output differs from grouped-query attention's by up "
        f"to {output_err:.3g}{hint}")
