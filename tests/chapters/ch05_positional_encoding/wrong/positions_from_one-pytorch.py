# %% token_and_position
class TokenAndPositionEmbedding(nn.Module):
    """Token embedding plus a learned position table: (B, L) token ids -> (B, L, embed_dim)."""

    def __init__(self, vocab_size, max_len, embed_dim):
        super().__init__()
        self.tokens = nn.Embedding(vocab_size, embed_dim)       # (V, d_e)
        self.positions = nn.Embedding(max_len, embed_dim)       # (max_len, d_e)

    def forward(self, token_ids):
        where = torch.arange(1, token_ids.shape[1] + 1, device=token_ids.device)   # 0 .. L-1
        return self.tokens(token_ids) + self.positions(where)               # (B, L, d_e)
