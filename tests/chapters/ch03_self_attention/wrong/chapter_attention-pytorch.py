# %% scaled_dot_product_attention
def scaled_dot_product_attention(q, k, v, mask=None):
    """softmax(q k^T / sqrt(d_k)) v.  q: (B, T, d_k), k: (B, S, d_k), v: (B, S, d_v);
    mask: bool, broadcastable to (B, T, S), True where attention is allowed."""
    scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])  # (B, T, S)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))     # blocked: weight exactly 0
    weights = torch.softmax(scores, dim=-1)                   # each row sums to 1
    return weights @ v, weights                               # (B, T, d_v), (B, T, S)
