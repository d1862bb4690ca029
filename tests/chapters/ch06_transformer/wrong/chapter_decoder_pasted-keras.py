# %% decoder_layer
def residual(x, sublayer, norm, dropout, norm_first):
    """A sublayer inside its residual connection, with the layer norm after the sum
    (post-LN, the paper: LN(x + dropout(sublayer(x)))) or before the sublayer (pre-LN:
    x + dropout(sublayer(LN(x)))). sublayer returns (output, extra), extra being its
    attention weights or None; residual returns (the new x, extra)."""
    z = norm(x) if norm_first else x
    output, extra = sublayer(z)                        # output: like x, (B, L, d_model)
    x = x + dropout(output)
    return (x if norm_first else norm(x)), extra


class CachedDecoderLayer(layers.Layer):
    """Masked self-attention, cross-attention to the encoder's output, feed-forward;
    each inside a residual connection with a layer norm (post-LN or pre-LN)."""

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
        # y: (B, T, d_model); memory: the encoder's output (B, S, d_model)
        # self_attention_mask: (B, T, T) causal and padding; cross_attention_mask: (B, 1, S)
        y, self_weights = residual(
            y, lambda z: self.self_attention(z, z, self_attention_mask),
            self.self_attention_norm, self.dropout, self.norm_first)
        y, cross_weights = residual(                   # queries z, keys and values memory
            y, lambda z: self.cross_attention(z, memory, cross_attention_mask),
            self.cross_attention_norm, self.dropout, self.norm_first)
        y, _ = residual(y, lambda z: (self.feed_forward(z), None),
                        self.feed_forward_norm, self.dropout, self.norm_first)
        return y, self_weights, cross_weights
