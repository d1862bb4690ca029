# %% decoder_step
def decoder_step(prev_tokens, state, keys, mask, embedding, attention, cell, out):
    """One step of the Bahdanau decoder.

    prev_tokens: (B,) int ids of the previous target tokens y_{t-1} (<bos> at the first step)
    state:       (B, H) the decoder state s_{t-1}
    keys, mask:  (B, S, K) encoder states and (B, S) bool mask
    embedding:   layers.Embedding(V, E); attention: a function (query, keys, mask) -> (context, weights)
    cell:        layers.GRUCell(H), reading E + K numbers; out: layers.Dense(V), reading H + K numbers
    Returns (logits (B, V), new state s_t (B, H), attention weights (B, S)).
    """
    x = embedding(prev_tokens)                                       # (B, E)
    context, weights = attention(state, keys, mask)                  # the previous state asks the source
    state, _ = cell(ops.concatenate([x, context], axis=-1), state)   # s_t from [x; c_t] and s_{t-1}
    logits = out(state)         # from [s_t; c_t]
    return logits, state, weights
