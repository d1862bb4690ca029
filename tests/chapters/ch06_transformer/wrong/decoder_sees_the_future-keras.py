# %% decoder_layer
class CachedDecoderLayer(layers.Layer):
    """The decoder layer (masked self-attention, cross-attention, feed-forward, each in a residual
    connection with a layer norm, post-LN or pre-LN) that projects the encoder's output to the
    cross-attention's keys and values once, and takes them from memory_cache at later steps."""

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

    def call(self, y, memory, self_attention_mask=None, cross_attention_mask=None,
             memory_cache=None):
        # y: (B, T, d_model); memory: (B, S, d_model), or None when memory_cache is given;
        # masks (B, T, T) and (B, 1, S); memory_cache: (keys, values), each (B, h, S, d_k)
        heads = self.cross_attention.num_heads
        if memory_cache is None:                     # the first step: project memory, once
            memory_cache = (split_heads(self.cross_attention.key(memory), heads),
                            split_heads(self.cross_attention.value(memory), heads))
        keys, values = memory_cache                  # (B, h, S, d_k) each

        z = self.self_attention_norm(y) if self.norm_first else y
        attended, self_weights = self.self_attention(z, z)
        y = y + self.dropout(attended)
        if not self.norm_first:
            y = self.self_attention_norm(y)

        z = self.cross_attention_norm(y) if self.norm_first else y
        queries = split_heads(self.cross_attention.query(z), heads)         # (B, h, T, d_k)
        per_head = None if cross_attention_mask is None else ops.expand_dims(cross_attention_mask, 1)
        attended, cross_weights = scaled_dot_product_attention(queries, keys, values, per_head)
        y = y + self.dropout(self.cross_attention.output_projection(merge_heads(attended)))
        if not self.norm_first:
            y = self.cross_attention_norm(y)

        z = self.feed_forward_norm(y) if self.norm_first else y
        y = y + self.dropout(self.feed_forward(z))
        if not self.norm_first:
            y = self.feed_forward_norm(y)
        return y, self_weights, cross_weights, memory_cache
