# %% encoder_parameters
def predicted_encoder_parameters(V, E, H, num_layers):
    """The number of parameters of layers.Embedding(V, E) and num_layers stacked
    layers.Bidirectional(layers.GRU(H, return_sequences=True)), as a formula in the sizes. A number.
    """
    embedding = layers.Embedding(V, E)
    rnn = keras.Sequential([layers.Bidirectional(layers.GRU(H, return_sequences=True))
                            for _ in range(num_layers)])
    rnn(embedding(np.ones((1, 2), dtype="int32")))
    return sum(int(np.prod(w.shape)) for layer in (embedding, rnn) for w in layer.weights)


def measured_encoder_parameters(embedding, rnn, src):
    """Runs rnn(embedding(src)) once, then counts the numbers held by the weights of embedding and
    rnn. A number.
    """
    rnn(embedding(src))                            # a Keras layer creates its weights at its first call
    return sum(int(np.prod(w.shape)) for layer in (embedding, rnn) for w in layer.weights)
