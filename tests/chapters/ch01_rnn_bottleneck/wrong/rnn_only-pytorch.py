# %% encoder_parameters
def predicted_encoder_parameters(V, E, H, num_layers):
    """The number of parameters of nn.Embedding(V, E) and nn.GRU(E, H, num_layers=num_layers,
    batch_first=True, bidirectional=True), as a formula in the sizes. A number.
    """
    def one_direction(width_in):                   # 3 gates: W (H, width_in), U (H, H), two biases
        return 3 * (H * width_in + H * H + 2 * H)
    lowest = 2 * one_direction(E)                  # reads the embeddings
    above = 2 * one_direction(2 * H)               # each reads both directions of the layer below
    return V * E + lowest + (num_layers - 1) * above


def measured_encoder_parameters(embedding, rnn, src):
    """Runs rnn(embedding(src)) once, then counts the numbers held by the parameters of embedding
    and rnn. A number.
    """
    with torch.no_grad():
        rnn(embedding(src))
    return sum(p.numel() for p in rnn.parameters())      # the embedding forgotten

