# %% np_scaled_dot_product_attention
def np_scaled_dot_product_attention(Q, K, V, mask=None):
    """Scaled dot-product attention for one sequence, in NumPy: softmax(Q K^T / sqrt(d_k)) V.

    Q: (L, d_k) queries; K: (S, d_k) keys; V: (S, d_v) values;
    mask: None, or a boolean array broadcastable to (L, S), True where query i may attend to key j.
    Returns (output (L, d_v), weights (L, S)); blocked positions get weight exactly 0.
    """
    scores = Q @ K.T / np.sqrt(K.shape[-1])                   # (L, S)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)              # blocked: exp(-inf) is exactly 0
    weights = np.exp(scores)                                  # (no maximum subtracted)
    weights = weights / weights.sum(axis=-1, keepdims=True)   # each query's weights sum to 1
    return weights @ V, weights
