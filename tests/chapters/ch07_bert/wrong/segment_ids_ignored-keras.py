# %% embeddings
class BertEmbeddings(layers.Layer):
    """Token + segment + learned position embeddings, summed, then a layer norm and dropout.
    embed_dim=None: BERT's layer, every table d_model wide. embed_dim=E: ALBERT's factorised
    embedding, tables and norm E wide, then a dense projection from E to d_model."""

    def __init__(self, vocab_size, d_model, max_len=512, type_vocab_size=2, dropout=0.1, norm_eps=1e-12,
                 embed_dim=None, **kwargs):
        super().__init__(**kwargs)
        width = d_model if embed_dim is None else embed_dim
        self.tokens = layers.Embedding(vocab_size, width)
        self.segments = layers.Embedding(type_vocab_size, width)
        self.positions = layers.Embedding(max_len, width)         # learned, one row per position
        self.norm = layers.LayerNormalization(epsilon=norm_eps)
        self.dropout = layers.Dropout(dropout)
        self.projection = None if embed_dim is None else layers.Dense(d_model)

    def call(self, token_ids, segment_ids=None):         # (B, L) -> (B, L, d_model)
        if segment_ids is None:                           # one segment: all 0
            segment_ids = ops.zeros_like(token_ids)
        positions = ops.arange(ops.shape(token_ids)[1])   # (L,)
        x = self.tokens(token_ids) + self.segments(ops.zeros_like(token_ids)) + self.positions(positions)
        x = self.dropout(self.norm(x))                    # (B, L, E)
        return x if self.projection is None else self.projection(x)
