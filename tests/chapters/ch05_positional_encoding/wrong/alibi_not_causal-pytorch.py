# %% alibi
def alibi_slopes(num_heads):
    """(num_heads,) float32: head h = 1, ..., num_heads gets the slope 2^(-8 h / num_heads)."""
    heads = torch.arange(1, num_heads + 1, dtype=torch.float32)            # 1 .. h
    return 2.0 ** (-8.0 * heads / num_heads)                                # (h,): 2^(-8/h) ... 2^(-8)


def alibi_bias(length, num_heads):
    """(num_heads, L, L) float32: bias[h, i, j] = -slope_h * |i - j|."""
    where = torch.arange(length, dtype=torch.float32)                      # (L,)
    distance = (where[:, None] - where[None, :]).abs()                      # (L, L): |i - j|
    return -alibi_slopes(num_heads)[:, None, None] * distance               # (h, L, L)


def alibi_attention(q, k, v):
    """Causal attention with linear biases: q, k, v (B, h, L, d_k) -> attended (B, h, L, d_k), weights (B, h, L, L)."""
    num_heads, length, d_k = q.shape[-3:]
    scores = q @ k.transpose(-1, -2) / math.sqrt(d_k)                      # (B, h, L, L)
    scores = scores + alibi_bias(length, num_heads).to(q.device)            # the same for every batch row
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
