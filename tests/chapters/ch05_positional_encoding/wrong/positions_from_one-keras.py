# %% token_and_position
class TokenAndPositionEmbedding(layers.Layer):
    """Token embedding plus a learned position table: (B, L) token ids -> (B, L, embed_dim)."""

    def __init__(self, vocab_size, max_len, embed_dim, **kwargs):
        super().__init__(**kwargs)
        self.tokens = layers.Embedding(vocab_size, embed_dim)    # (V, d_e)
        self.positions = layers.Embedding(max_len, embed_dim)    # (max_len, d_e)

    def call(self, token_ids):
        where = ops.arange(1, ops.shape(token_ids)[1] + 1)                # 0 .. L-1
        return self.tokens(token_ids) + self.positions(where)     # (B, L, d_e)
