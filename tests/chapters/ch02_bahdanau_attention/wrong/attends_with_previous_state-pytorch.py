# %% decoder_step
def decoder_step(prev_tokens, state, keys, mask, embedding, attention, cell, combine, out):
    """One step of the attention decoder in Luong et al.'s order: the GRU first, then attention with
    the new state, then the output layer on the attentional vector tanh(W_c [c_t; s_t]).

    prev_tokens: (B,) int64 ids of the previous target tokens y_{t-1} (<bos> at the first step)
    state:       (B, H) the decoder state s_{t-1}
    keys, mask:  (B, S, K) encoder states and (B, S) bool mask
    embedding:   nn.Embedding(V, E); attention: a function (query, keys, mask) -> (context, weights)
    cell:        nn.GRUCell(E, H); combine: nn.Linear(K + H, H, bias=False) (W_c); out: nn.Linear(H, V)
    Returns (logits (B, V), new state s_t (B, H), attention weights (B, S)).
    """
    context, weights = attention(state, keys, mask)        # the previous state asks the source
    state = cell(embedding(prev_tokens), state)            # s_t
    attentional = torch.tanh(combine(torch.cat([context, state], dim=-1)))   # tanh(W_c [c_t; s_t])
    return out(attentional), state, weights
