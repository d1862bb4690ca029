# %% alibi
def alibi_slopes(num_heads):
    """(num_heads,) float32: head h = 1, ..., num_heads gets the slope 2^(-8 h / num_heads)."""
    heads = ops.arange(1, num_heads + 1)                  # 1 .. h
    return ops.power(2.0, -(8 * heads // num_heads))                      # (h,): 2^(-8/h) ... 2^(-8)


def alibi_bias(length, num_heads):
    """(num_heads, L, L) float32: bias[h, i, j] = -slope_h * |i - j|."""
    where = ops.arange(length, dtype="float32")                            # (L,)
    distance = ops.abs(where[:, None] - where[None, :])                     # (L, L): |i - j|
    return -alibi_slopes(num_heads)[:, None, None] * distance               # (h, L, L)


def alibi_attention(q, k, v):
    """Causal attention with linear biases: q, k, v (B, h, L, d_k) -> attended (B, h, L, d_k), weights (B, h, L, L)."""
    num_heads, length, d_k = ops.shape(q)[-3:]
    scores = ops.matmul(q, ops.swapaxes(k, -1, -2)) / math.sqrt(d_k)      # (B, h, L, L)
    scores = scores + alibi_bias(length, num_heads)                         # the same for every batch row
    allowed = ops.tril(ops.ones((length, length))) > 0                      # (L, L): j <= i
    weights = ops.softmax(ops.where(allowed, scores, float("-inf")), axis=-1)
    return ops.matmul(weights, v), weights
