# %% sinusoidal_layer
class SinusoidalEncoding(nn.Module):
    """Adds the fixed sinusoidal encoding to embeddings (B, L, d_model); no parameters."""

    def __init__(self, max_len, d_model):
        super().__init__()
        self.encoding = nn.Parameter(sinusoidal_encoding(max_len, d_model))   # (max_len, d_model)

    def forward(self, x):
        return x + self.encoding[:x.shape[1]]
