# %% decoder_step
def decoder_step(prev_tokens, state, keys, mask, embedding, attention, cell, out):
    """One step of the Bahdanau decoder.

    prev_tokens: (B,) int64 ids of the previous target tokens y_{t-1} (<bos> at the first step)
    state:       (B, H) the decoder state s_{t-1}
    keys, mask:  (B, S, K) encoder states and (B, S) bool mask
    embedding:   nn.Embedding(V, E); attention: a function (query, keys, mask) -> (context, weights)
    cell:        nn.GRUCell(E + K, H); out: nn.Linear(H + K, V)
    Returns (logits (B, V), new state s_t (B, H), attention weights (B, S)).
    """
    x = embedding(prev_tokens)                            # (B, E)
    context, weights = attention(state, keys, mask)       # the previous state asks the source
    state = cell(torch.cat([context, x], dim=-1), state)  # s_t from [x; c_t] and s_{t-1}
    logits = out(torch.cat([state, context], dim=-1))     # from [s_t; c_t]
    return logits, state, weights
