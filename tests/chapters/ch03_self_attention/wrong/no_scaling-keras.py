# %% scaled_dot_product_attention
def scaled_dot_product_attention(q, k, v, mask=None):
    """Scaled dot-product attention for a batch: softmax(q k^T / sqrt(d_k)) v.

    q: (B, L, d_k) queries; k: (B, S, d_k) keys; v: (B, S, d_v) values (float arrays or tensors);
    mask: None, or a boolean array broadcastable to (B, L, S), True where query i may attend to key j.
    Returns (output (B, L, d_v), weights (B, L, S)); blocked positions get weight exactly 0,
    and a query that may attend to no key gets weights all 0. Use keras.ops.
    """
    scores = ops.matmul(q, ops.swapaxes(k, -1, -2))   # (B, L, S)
    if mask is not None:
        scores = ops.where(mask, scores, float("-inf"))     # blocked: exp(-inf) is exactly 0
    weights = ops.softmax(scores, axis=-1)                  # over the keys (subtracts each row's maximum)
    if mask is not None:
        weights = ops.where(mask, weights, 0.0)             # a query with no key: 0, not 0 / 0
    return ops.matmul(weights, v), weights
