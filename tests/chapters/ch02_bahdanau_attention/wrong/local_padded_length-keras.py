# %% local_attention
def local_attention(query, keys, mask, W, U, v, W_p, v_p, D):
    """Luong's local-p attention for one decoder step, with additive scores.

    query: (B, H) decoder states s_{t-1}; keys: (B, S, K) encoder states; mask: (B, S) bool, True at
    real tokens; W, U, v: the layers of part 1; W_p: layers.Dense(A_p, use_bias=False),
    v_p: layers.Dense(1, use_bias=False); D: the window's half-width, an integer >= 1.
    Returns (context (B, K), weights (B, S), positions p_t (B,)). Use keras.ops.
    """
    last = ops.full((ops.shape(keys)[0],), ops.shape(keys)[1] - 1.0)     # (B,) S - 1: the padded length
    p_t = last * ops.squeeze(ops.sigmoid(v_p(ops.tanh(W_p(query)))), -1)  # (B,) between 0 and L - 1
    offset = ops.arange(ops.shape(keys)[1], dtype="float32") - ops.expand_dims(p_t, -1)   # (B, S): s - p_t
    window = ops.logical_and(mask, ops.abs(offset) <= D)                  # real, and within D of p_t
    align = masked_softmax(additive_scores(query, keys, W, U, v), window)   # 0 outside the window
    weights = align * ops.exp(-offset ** 2 / (2 * (D / 2) ** 2))         # the Gaussian, sigma = D / 2
    return context_vector(weights, keys), weights, p_t
