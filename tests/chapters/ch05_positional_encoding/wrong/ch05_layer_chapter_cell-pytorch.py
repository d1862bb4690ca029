# %% sinusoidal_layer
class SinusoidalEncoding(nn.Module):
    """Adds the fixed sinusoidal encoding to embeddings (B, L, d_model); trains nothing."""

    def __init__(self, max_len, d_model):
        super().__init__()
        table = sinusoidal_encoding(torch.arange(max_len), d_model)       # (max_len, d_model)
        self.register_buffer("encoding", table)             # a buffer, not a parameter

    def forward(self, x):                             # (B, L, d_model) -> (B, L, d_model)
        return x + self.encoding[:x.shape[1]]
