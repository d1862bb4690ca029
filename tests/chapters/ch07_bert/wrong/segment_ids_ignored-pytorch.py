# %% embeddings
class BertEmbeddings(nn.Module):
    """Token + segment + learned position embeddings, summed, then a layer norm and dropout.
    embed_dim=None: BERT's layer, every table d_model wide. embed_dim=E: ALBERT's factorised
    embedding, tables and norm E wide, then a linear projection from E to d_model."""

    def __init__(self, vocab_size, d_model, max_len=512, type_vocab_size=2, dropout=0.1, norm_eps=1e-12,
                 embed_dim=None):
        super().__init__()
        width = d_model if embed_dim is None else embed_dim
        self.tokens = nn.Embedding(vocab_size, width)
        self.segments = nn.Embedding(type_vocab_size, width)
        self.positions = nn.Embedding(max_len, width)            # learned, one row per position
        self.norm = nn.LayerNorm(width, eps=norm_eps)
        self.dropout = nn.Dropout(dropout)
        self.projection = None if embed_dim is None else nn.Linear(embed_dim, d_model)

    def forward(self, token_ids, segment_ids=None):      # (B, L) -> (B, L, d_model)
        if segment_ids is None:                           # one segment: all 0
            segment_ids = torch.zeros_like(token_ids)
        positions = torch.arange(token_ids.shape[1], device=token_ids.device)   # (L,)
        x = self.tokens(token_ids) + self.segments(torch.zeros_like(token_ids)) + self.positions(positions)
        x = self.dropout(self.norm(x))                    # (B, L, E)
        return x if self.projection is None else self.projection(x)
