# %% scaled_dot_product_attention
def scaled_dot_product_attention(q, k, v, mask=None):
    """Scaled dot-product attention for a batch: softmax(q k^T / sqrt(d_k)) v.

    q: (B, L, d_k) queries; k: (B, S, d_k) keys; v: (B, S, d_v) values (float tensors);
    mask: None, or a bool tensor broadcastable to (B, L, S), True where query i may attend to key j.
    Returns (output (B, L, d_v), weights (B, L, S)); blocked positions get weight exactly 0,
    and a query that may attend to no key gets weights all 0.
    """
    scores = q @ k.transpose(-2, -1)   # (B, L, S)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))      # blocked: exp(-inf) is exactly 0
    weights = torch.softmax(scores, dim=-1)                     # over the keys (subtracts each row's maximum)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)               # a query with no key: 0, not 0 / 0
    return weights @ v, weights
