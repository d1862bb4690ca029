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
    lengths = (src != PAD_ID).sum(dim=1).cpu()

    def state_after_last_token(rnn, ids):
        packed = pack_padded_sequence(embedding(ids), lengths, batch_first=True, enforce_sorted=False)
        return rnn(packed)[1][-1]

    # The whole padded row reversed: a padded row now starts in its padding.
    return torch.cat([state_after_last_token(forward_rnn, src),
                      state_after_last_token(backward_rnn, src.flip(1))], dim=-1)
