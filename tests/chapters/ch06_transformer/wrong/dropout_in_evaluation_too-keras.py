# %% encoder_layer
class EncoderLayer(layers.Layer):
    """Self-attention and a feed-forward network, each inside a residual connection with a layer
    norm: after the sum (post-LN), before the sublayer (pre-LN, norm_first=True) or, with
    parallel=True, both reading the same input through their own norms, added to it in one sum."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.1, norm_first=False, parallel=False,
                 **kwargs):
        super().__init__(**kwargs)
        self.self_attention = MultiHeadAttention(d_model, num_heads)
        self.attention_norm = layers.LayerNormalization(epsilon=1e-5)
        self.feed_forward = FeedForward(d_model, d_ff, dropout)
        self.feed_forward_norm = layers.LayerNormalization(epsilon=1e-5)
        self.dropout = layers.Dropout(dropout)
        self.norm_first = norm_first
        self.parallel = parallel

    def call(self, x, attention_mask=None):         # x: (B, S, d_model); mask (B, 1, S)
        if self.parallel:                           # GPT-J, GPT-NeoX, PaLM: one residual sum
            normed = self.attention_norm(x)
            attended, weights = self.self_attention(normed, normed, attention_mask)
            branch = self.feed_forward(self.feed_forward_norm(x))
            return x + self.dropout(attended) + self.dropout(branch), weights
        z = self.attention_norm(x) if self.norm_first else x
        attended, weights = self.self_attention(z, z, attention_mask)
        x = x + self.dropout(attended, training=True)   # in inference too
        if not self.norm_first:
            x = self.attention_norm(x)
        z = self.feed_forward_norm(x) if self.norm_first else x
        x = x + self.dropout(self.feed_forward(z), training=True)
        if not self.norm_first:
            x = self.feed_forward_norm(x)
        return x, weights
