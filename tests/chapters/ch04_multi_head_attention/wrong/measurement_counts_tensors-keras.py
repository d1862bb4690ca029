# %% parameter_count
def predicted_parameter_count(d_model, num_heads):
    """The number of trainable numbers (weights and biases) of part 2's layer,
    MultiHeadAttention(d_model, num_heads), as a formula in d_model and num_heads. A number.
    """
    per_projection = d_model * d_model + d_model            # the matrix and its bias
    return 4 * per_projection                               # W_Q, W_K, W_V and W_O


def measured_parameter_count(layer_class, d_model, num_heads):
    """The number of trainable numbers of layer_class(d_model, num_heads), built and called
    once on an input of shape (1, 2, d_model). A number.
    """
    layer = layer_class(d_model, num_heads)
    layer(np.zeros((1, 2, d_model), dtype="float32"))    # the weights are made on this call
    return len(layer.trainable_weights)                  # one per weight array
