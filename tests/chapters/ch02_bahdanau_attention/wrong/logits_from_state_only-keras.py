# %% decoder_step
def decoder_step(prev_tokens, state, keys, mask, embedding, attention, cell, combine, out):
    """One step of the attention decoder in Luong et al.'s order: the GRU first, then attention with
    the new state, then the output layer on the attentional vector tanh(W_c [c_t; s_t]).

    prev_tokens: (B,) int ids of the previous target tokens y_{t-1} (<bos> at the first step)
    state:       (B, H) the decoder state s_{t-1}
    keys, mask:  (B, S, K) encoder states and (B, S) bool mask
    embedding:   layers.Embedding(V, E); attention: a function (query, keys, mask) -> (context, weights)
    cell:        layers.GRUCell(H), reading E numbers; combine: layers.Dense(H, use_bias=False) (W_c),
                 reading K + H numbers; out: layers.Dense(V), reading H numbers
    Returns (logits (B, V), new state s_t (B, H), attention weights (B, S)).
    """
    state, _ = cell(embedding(prev_tokens), state)         # s_t: the GRU moves first, on y_{t-1} alone
    context, weights = attention(state, keys, mask)        # the new state asks the source
    return out(state), state, weights                      # the logits from s_t alone
