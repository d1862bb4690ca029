# %% embeddings
class BertEmbeddings(nn.Module):
    """Token + segment (token type) + learned position embeddings, layer norm, dropout."""

    def __init__(self, vocab_size, d_model, max_len=512, type_vocab_size=2, dropout=0.1,
                 norm_eps=1e-12):
        super().__init__()
        self.tokens = nn.Embedding(vocab_size, d_model)       # N(0, 1), as in Keras
        self.segments = nn.Embedding(type_vocab_size, d_model)
        self.positions = nn.Embedding(max_len, d_model)       # learned, not sinusoids
        self.norm = nn.LayerNorm(d_model, eps=norm_eps)
        self.dropout = nn.Dropout(dropout)

    def forward(self, token_ids, segment_ids=None):      # (B, L) -> (B, L, d_model)
        if segment_ids is None:                           # one segment: all 0
            segment_ids = torch.zeros_like(token_ids)
        positions = torch.arange(token_ids.shape[1], device=token_ids.device)   # (L,)
        x = self.tokens(token_ids) + self.segments(segment_ids) + self.positions(positions)
        return self.dropout(self.norm(x))
