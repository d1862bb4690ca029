# %% embeddings
from attention_course.keras_seq2seq import embedding


class BertEmbeddings(layers.Layer):
    """Token + segment (token type) + learned position embeddings, layer norm, dropout."""

    def __init__(self, vocab_size, d_model, max_len=512, type_vocab_size=2, dropout=0.1,
                 norm_eps=1e-12, **kwargs):
        super().__init__(**kwargs)
        self.tokens = embedding(vocab_size, d_model)          # N(0, 1), as in PyTorch
        self.segments = embedding(type_vocab_size, d_model)
        self.positions = embedding(max_len, d_model)          # learned, not sinusoids
        self.norm = layers.LayerNormalization(epsilon=norm_eps)
        self.dropout = layers.Dropout(dropout)

    def call(self, token_ids, segment_ids=None):         # (B, L) -> (B, L, d_model)
        if segment_ids is None:                           # one segment: all 0
            segment_ids = ops.zeros_like(token_ids)
        positions = ops.arange(ops.shape(token_ids)[1])   # (L,)
        x = self.tokens(token_ids) + self.segments(segment_ids) + self.positions(positions)
        return self.dropout(self.norm(x))
