# %% encoder_summary
def encoder_summary(src, embedding, rnn):
    """The encoder's one context vector for a right-padded batch.

    src:       (B, S) int token ids, each row right-padded with PAD_ID (every row has a real token)
    embedding: layers.Embedding(V, E)
    rnn:       layers.Bidirectional(layers.GRU(H, return_sequences=True, return_state=True))
    Returns (B, 2H): [forward final state ; backward final state], where "final" respects each
    row's true length, so that padding at the end of src never changes the result.
    """
    mask = ops.not_equal(src, PAD_ID)                   # True at real tokens
    _, forward_last, backward_last = rnn(embedding(src))
    return ops.concatenate([forward_last, backward_last], axis=-1)   # (B, 2H)
