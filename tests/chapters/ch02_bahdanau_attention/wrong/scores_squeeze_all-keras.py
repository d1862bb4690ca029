# %% additive_scores
def additive_scores(query, keys, W, U, v):
    """Additive (Bahdanau) scores e_{t,i} = v^T tanh(W s_{t-1} + U h_i + b).

    query: (B, H) decoder states s_{t-1}; keys: (B, S, K) encoder states h_i (arrays or tensors);
    W: layers.Dense(A, use_bias=False), U: layers.Dense(A) (its bias is b), v: layers.Dense(1, use_bias=False).
    Returns the scores, (B, S). Use keras.ops (ops.tanh, ops.expand_dims, ops.squeeze, ...).
    """
    projected = ops.expand_dims(W(query), 1) + U(keys)   # (B, 1, A) + (B, S, A): the query meets every key
    return ops.squeeze(v(ops.tanh(projected)))  # (B, S, 1) -> (B, S)
