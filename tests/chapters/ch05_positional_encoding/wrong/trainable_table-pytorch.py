# %% sinusoidal_layer
class SinusoidalEncoding(nn.Module):
    """Adds the fixed sinusoidal encoding of the positions start .. start + L - 1 to embeddings
    (B, L, d_model); no parameters."""

    def __init__(self, max_len, d_model):
        super().__init__()
        table = sinusoidal_encoding(torch.arange(max_len), d_model)           # (max_len, d_model)
        self.encoding = nn.Parameter(table)                                   # trained with the rest

    def forward(self, x, start=0):
        return x + self.encoding[start:start + x.shape[1]]        # rows start .. start + L - 1
