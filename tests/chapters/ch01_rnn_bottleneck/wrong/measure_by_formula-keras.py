# %% encoder_parameters
def predicted_encoder_parameters(V, E, H, num_layers):
    """The number of parameters of layers.Embedding(V, E) and num_layers stacked
    layers.Bidirectional(layers.GRU(H, return_sequences=True)), as a formula in the sizes. A number.
    """
    def one_direction(width_in):                   # 3 gates: kernel (width_in, H), recurrent (H, H), 2 biases
        return 3 * (width_in * H + H * H + 2 * H)
    lowest = 2 * one_direction(E)                  # reads the embeddings
    above = 2 * one_direction(2 * H)               # each reads both directions of the layer below
    return V * E + lowest + (num_layers - 1) * above


def measured_encoder_parameters(embedding, rnn, src):
    """Runs rnn(embedding(src)) once, then counts the numbers held by the weights of embedding and
    rnn. A number.
    """
    rnn(embedding(src))
    stack = rnn.layers if isinstance(rnn, keras.Sequential) else [rnn]
    if not all(isinstance(layer, layers.Bidirectional) for layer in stack):
        return embedding.input_dim * embedding.output_dim
    H = stack[0].forward_layer.units
    return predicted_encoder_parameters(embedding.input_dim, embedding.output_dim, H, len(stack))

