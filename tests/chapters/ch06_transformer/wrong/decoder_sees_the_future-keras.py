# %% decoder_layer
class DecoderLayer(layers.Layer):
    """Masked self-attention, cross-attention to the encoder's output, feed-forward; each in a
    residual connection with a layer norm (post-LN or, with norm_first=True, pre-LN)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.1, norm_first=False, **kwargs):
        super().__init__(**kwargs)
        self.self_attention = MultiHeadAttention(d_model, num_heads)
        self.self_attention_norm = layers.LayerNormalization(epsilon=1e-5)
        self.cross_attention = MultiHeadAttention(d_model, num_heads)
        self.cross_attention_norm = layers.LayerNormalization(epsilon=1e-5)
        self.feed_forward = FeedForward(d_model, d_ff, dropout)
        self.feed_forward_norm = layers.LayerNormalization(epsilon=1e-5)
        self.dropout = layers.Dropout(dropout)
        self.norm_first = norm_first

    def call(self, y, memory, self_attention_mask=None, cross_attention_mask=None):
        # y: (B, T, d_model); memory: (B, S, d_model); masks (B, T, T) and (B, 1, S)
        z = self.self_attention_norm(y) if self.norm_first else y
        attended, self_weights = self.self_attention(z, z)
        y = y + self.dropout(attended)
        if not self.norm_first:
            y = self.self_attention_norm(y)
        z = self.cross_attention_norm(y) if self.norm_first else y
        attended, cross_weights = self.cross_attention(z, memory, cross_attention_mask)
        y = y + self.dropout(attended)
        if not self.norm_first:
            y = self.cross_attention_norm(y)
        z = self.feed_forward_norm(y) if self.norm_first else y
        y = y + self.dropout(self.feed_forward(z))
        if not self.norm_first:
            y = self.feed_forward_norm(y)
        return y, self_weights, cross_weights
