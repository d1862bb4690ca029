# %% encoder_summary
def encoder_summary(src, embedding, forward_rnn, backward_rnn):
    """The bidirectional context vector of a right-padded batch, from two one-direction GRUs.

    src:          (B, S) int64 token ids, each row right-padded with PAD_ID (every row has a real token)
    embedding:    nn.Embedding(V, E)
    forward_rnn:  nn.GRU(E, H, batch_first=True), to read each row left to right
    backward_rnn: nn.GRU(E, H, batch_first=True), to read each row from its last real token to its first
    Returns (B, 2H): [forward_rnn's final state ; backward_rnn's final state], each taken after the
    row's real tokens, so that padding at the end of src never changes the result.
    """
    x = embedding(src)                                          # the padded batch as it is
    _, forward_last = forward_rnn(x)                            # (1, B, H)
    _, backward_last = backward_rnn(x.flip(1))                  # reversed, padding and all
    return torch.cat([forward_last[0], backward_last[0]], dim=-1)   # (B, 2H)
