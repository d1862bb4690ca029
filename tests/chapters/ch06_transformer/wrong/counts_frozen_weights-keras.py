# %% parameter_count
def predicted_parameter_count(d_model, num_heads, d_ff, decoder=False):
    """The number of trainable numbers (weights and biases) of EncoderLayer(d_model, num_heads,
    d_ff) or, with decoder=True, of the decoder layer of the same sizes, as a formula. A number."""
    projections = 4 * (d_model * d_model + d_model)      # W_Q, W_K, W_V, W_O: the heads split d_model
    network = (d_model * d_ff + d_ff) + (d_ff * d_model + d_model)   # W_1, b_1, W_2, b_2
    norm = 2 * d_model                                    # a scale and a shift per feature
    if decoder:                                           # a second attention and a third norm
        return 2 * projections + network + 3 * norm
    return projections + network + 2 * norm


def measured_parameter_count(layer):
    """The number of trainable numbers that a built layer holds. A number."""
    return sum(int(np.prod(w.shape)) for w in layer.weights)
