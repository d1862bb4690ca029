# %% parameter_count
def predicted_parameter_count(d_model, num_heads):
    """The number of trainable numbers (weights and biases) of part 2's layer,
    MultiHeadAttention(d_model, num_heads), as a formula in d_model and num_heads. A number.
    """
    per_head = 4 * (d_model * d_model + d_model)        # four full projections for every head
    return num_heads * per_head


def measured_parameter_count(layer_class, d_model, num_heads):
    """The number of trainable numbers of layer_class(d_model, num_heads), built and called
    once on an input of shape (1, 2, d_model). A number.
    """
    layer = layer_class(d_model, num_heads)
    with torch.no_grad():
        layer(torch.zeros(1, 2, d_model))                   # (1, 2, d_model): one call
    return sum(p.numel() for p in layer.parameters() if p.requires_grad)  # every element
