# %% decoder
def decoder_step(prev_tokens, context, state, embedding, cell, out):
    """One step of the Cho et al. (2014) decoder.

    prev_tokens: (B,) int64 ids of the previous target token (<bos> at the first step)
    context:     (B, C) the encoder's summary; state: (B, H) the decoder state
    embedding:   nn.Embedding(V, E); cell: nn.GRUCell(E + C, H); out: nn.Linear(H, V)
    Returns (logits (B, V) for the next token, new state (B, H)).
    """
    inputs = torch.cat([embedding(prev_tokens), context], dim=-1)   # [e(y_{t-1}); c]
    state = cell(inputs, state)
    return out(state), state


def teacher_forced_logits(tgt_in, context, state, embedding, cell, out):
    """Logits for every step of tgt_in (B, T) = <bos> y1 y2 ..., with teacher forcing.

    Step t reads the gold token tgt_in[:, t]. Returns (B, T, V).
    """
    logits = []
    prev = tgt_in[:, 0]
    for t in range(tgt_in.shape[1]):
        step_logits, state = decoder_step(prev, context, state, embedding, cell, out)
        prev = step_logits.argmax(dim=-1)           # feeds back its own prediction
        logits.append(step_logits)
    return torch.stack(logits, dim=1)
