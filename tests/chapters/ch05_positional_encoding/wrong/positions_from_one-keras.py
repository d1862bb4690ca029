# %% token_and_position
class PositionEmbedding(layers.Layer):
    """Adds a learned vector per position: a (max_len, d_model) table, self.table."""

    def __init__(self, max_len, d_model, **kwargs):
        super().__init__(**kwargs)
        self.table = layers.Embedding(max_len, d_model)           # (max_len, d_model)

    def call(self, x, start=0):
        where = ops.arange(start + 1, start + ops.shape(x)[1] + 1)  # start .. start + L - 1
        rows = self.table(where)                                   # (L, d_model)
        return x + rows                                            # broadcast over the batch


class TokenAndPositionEmbedding(layers.Layer):
    """Token embedding plus learned positions: (B, L) token ids -> (B, L, embed_dim)."""

    def __init__(self, vocab_size, max_len, embed_dim, **kwargs):
        super().__init__(**kwargs)
        self.tokens = layers.Embedding(vocab_size, embed_dim)      # (V, d_e)
        self.positions = PositionEmbedding(max_len, embed_dim)     # its table: (max_len, d_e)

    def call(self, token_ids, start=0):
        embedded = self.tokens(token_ids)                          # (B, L, d_e)
        return self.positions(embedded, start=start)
