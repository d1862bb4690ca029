# %% encoder_parameters
def predicted_encoder_parameters(V, E, H, num_layers):
    """The number of parameters of nn.Embedding(V, E) and nn.GRU(E, H, num_layers=num_layers,
    batch_first=True, bidirectional=True), as a formula in the sizes. A number.
    """
    embedding = nn.Embedding(V, E)
    rnn = nn.GRU(E, H, num_layers=num_layers, batch_first=True, bidirectional=True)
    return sum(p.numel() for layer in (embedding, rnn) for p in layer.parameters())


def measured_encoder_parameters(embedding, rnn, src):
    """Runs rnn(embedding(src)) once, then counts the numbers held by the parameters of embedding
    and rnn. A number.
    """
    with torch.no_grad():
        rnn(embedding(src))
    return sum(p.numel() for layer in (embedding, rnn) for p in layer.parameters())
