# %% token_and_position
class PositionEmbedding(nn.Module):
    """Adds a learned vector per position: a (max_len, d_model) table, self.table."""

    def __init__(self, max_len, d_model):
        super().__init__()
        self.table = nn.Embedding(max_len, d_model)               # (max_len, d_model)

    def forward(self, x, start=0):
        rows = self.table.weight[start + 1:start + x.shape[1] + 1]  # (L, d_model): start .. start + L - 1
        return x + rows                                            # broadcast over the batch


class TokenAndPositionEmbedding(nn.Module):
    """Token embedding plus learned positions: (B, L) token ids -> (B, L, embed_dim)."""

    def __init__(self, vocab_size, max_len, embed_dim):
        super().__init__()
        self.tokens = nn.Embedding(vocab_size, embed_dim)          # (V, d_e)
        self.positions = PositionEmbedding(max_len, embed_dim)     # its table: (max_len, d_e)

    def forward(self, token_ids, start=0):
        embedded = self.tokens(token_ids)                          # (B, L, d_e)
        return self.positions(embedded, start=start)
