# %% scaled_dot_product_attention
def scaled_dot_product_attention(q, k, v, mask=None):
    """Scaled dot-product attention for a batch: softmax(q k^T / sqrt(d_k)) v.

    q: (B, L, d_k) queries; k: (B, S, d_k) keys; v: (B, S, d_v) values (float arrays or tensors);
    mask: None, or a boolean array broadcastable to (B, L, S), True where query i may attend to key j.
    Returns (output (B, L, d_v), weights (B, L, S)); blocked positions get weight exactly 0. Use keras.ops.
    """
    scores = ops.matmul(q, ops.swapaxes(k, -1, -2)) / math.sqrt(ops.shape(q)[-1])   # (B, L, S)
    if mask is not None:
        scores = ops.where(mask, scores, float("-inf"))     # blocked: exp(-inf) is exactly 0
    weights = ops.softmax(scores, axis=-1)                  # over the keys (subtracts each row's maximum)
    fused = ops.dot_product_attention(ops.expand_dims(q, 2), ops.expand_dims(k, 2), ops.expand_dims(v, 2),
                                      mask=None if mask is None else ops.expand_dims(mask, -3))
    return fused[:, :, 0], weights
