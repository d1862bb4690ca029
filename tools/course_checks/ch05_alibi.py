"""Chapter 5's part 5, the variation: ALiBi (Press et al. 2022), in NumPy.

The chapter builds RoPE and names ALiBi in one paragraph of prose; the assignment asks for it:
`alibi_slopes(num_heads)`, `alibi_bias(length, num_heads)` and `alibi_attention(q, k, v)`. Here are
the hidden cases, the references (float64) and the checks on NumPy arrays, with the messages the
feedback shows; ``ch05_pytorch`` and ``ch05_keras`` call the student's code and convert what it
returns.
"""
import numpy as np

# alibi_slopes on hidden numbers of heads (powers of two): one head, two, 16 (the paper's second
# example: 1/sqrt(2), 1/2, ..., 1/256) and 32.
SLOPE_HEADS = (1, 2, 16, 32)
# alibi_bias: (L, num_heads); one position, one head, long sequences.
BIAS_CASES = ((1, 4), (7, 2), (40, 16), (12, 1))
# alibi_attention with a reference alibi_bias: ((B, h, L, d_k), seed); L = 1, one head, many heads.
ATTENTION_CASES = (((2, 4, 7, 8), 61), ((1, 8, 1, 4), 62), ((3, 1, 12, 6), 63), ((1, 16, 20, 2), 64))


def slopes(num_heads):
    """The paper's slopes for a power of two: 2^(-8 h / num_heads), h = 1 .. num_heads, float64."""
    return np.power(2.0, -8.0 * np.arange(1, num_heads + 1) / num_heads)


def bias(n_pos, num_heads):
    """(num_heads, L, L): -slope_h |i - j|, float64."""
    distance = np.abs(np.arange(n_pos)[:, None] - np.arange(n_pos)[None, :])   # (L, L)
    return -slopes(num_heads)[:, None, None] * distance


def causal_attention(q, k, v):
    """The reference ALiBi attention in float64: scores q.k / sqrt(d_k) plus bias, a causal mask,
    a softmax over the keys. Returns (attended (B, h, L, d_k), weights (B, h, L, L))."""
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    heads, n_pos, d_k = q.shape[-3:]
    logits = q @ np.swapaxes(k, -1, -2) / np.sqrt(d_k) + bias(n_pos, heads)   # (B, h, L, L)
    logits = np.where(np.tril(np.ones((n_pos, n_pos), dtype=bool)), logits, -np.inf)
    logits = logits - logits.max(axis=-1, keepdims=True)
    weights = np.exp(logits) / np.exp(logits).sum(axis=-1, keepdims=True)
    return weights @ v, weights


def attention_inputs(shape, seed):
    """q, k, v, float32, each of `shape` (B, h, L, d_k)."""
    rng = np.random.default_rng(seed)
    return [rng.normal(size=shape).astype("float32") for _ in range(3)]


def shape_of(got):
    """The shape of what a student's function returned, as a tuple (() when it has none)."""
    return tuple(getattr(got, "shape", ()))


def assert_slopes(got, num_heads):
    """alibi_slopes(num_heads) (a float64 array) is the paper's sequence, within 1e-6 relative."""
    assert got.shape == (num_heads,), (
        f"alibi_slopes({num_heads}) should have shape (num_heads,) = ({num_heads},), got {got.shape}")
    error = np.abs(got / slopes(num_heads) - 1).max()
    assert error < 1e-6, (
        f"alibi_slopes({num_heads}) should be 2^(-8 h / num_heads) for h = 1, ..., num_heads (a "
        f"geometric sequence that starts and steps at 2^(-8 / num_heads) and ends at 2^(-8) = 1/256); "
        f"got {np.round(got, 5).tolist()}")


def assert_bias(got, n_pos, num_heads):
    """alibi_bias(n_pos, num_heads) (a float64 array) depends only on i - j, and equals
    -slope_h |i - j|, within 1e-5."""
    assert got.shape == (num_heads, n_pos, n_pos), (
        f"alibi_bias({n_pos}, {num_heads}) should have shape (num_heads, L, L) = "
        f"{(num_heads, n_pos, n_pos)}, got {got.shape}")
    drift = np.abs(got[:, 1:, 1:] - got[:, :-1, :-1]).max(initial=0.0)
    assert drift < 1e-5, (
        f"alibi_bias({n_pos}, {num_heads})[h, i, j] should depend only on the offset i - j: along a "
        f"diagonal it changes by up to {drift:.3g}")
    error = np.abs(got - bias(n_pos, num_heads)).max()
    assert error < 1e-5, (
        f"alibi_bias({n_pos}, {num_heads})[h, i, j] should be -slope_h * |i - j| with head h's slope "
        f"from alibi_slopes; it differs by up to {error:.3g}")


def assert_attention(attended, weights, q, k, v):
    """alibi_attention(q, k, v) (float64 arrays): causal, then the reference's values within 1e-5."""
    shape, n_pos = q.shape, q.shape[-2]
    want_attended, want_weights = causal_attention(q, k, v)
    assert attended.shape == shape and weights.shape == shape[:-1] + (n_pos,), (
        f"alibi_attention on q, k, v of shape {shape} should return the attended values {shape} and "
        f"the weights {shape[:-1] + (n_pos,)}, got {attended.shape} and {weights.shape}")
    future = np.abs(np.triu(weights, 1)).max(initial=0.0)
    assert future < 1e-6, (
        f"alibi_attention on shape {shape}: a query gives weight up to {future:.3g} to a later "
        "position; it is causal: query i attends to keys j <= i only")
    error = max(np.abs(weights - want_weights).max(), np.abs(attended - want_attended).max())
    assert error < 1e-5, (
        f"alibi_attention on shape {shape} differs from softmax(q k^T / sqrt(d_k) + alibi_bias, "
        f"causal) and its weighted values by up to {error:.3g}: the bias of each head is added "
        "to that head's scores before the softmax")
