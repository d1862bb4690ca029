# %% encoder_layer
class EncoderLayer(nn.Module):
    """Self-attention and a feed-forward network, each inside a residual connection with a layer
    norm: after the sum (post-LN), before the sublayer (pre-LN, norm_first=True) or, with
    parallel=True, both reading the same input through their own norms, added to it in one sum."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.1, norm_first=False, parallel=False):
        super().__init__()
        self.self_attention = MultiHeadAttention(d_model, num_heads)
        self.attention_norm = nn.LayerNorm(d_model, eps=1e-5)
        self.feed_forward = FeedForward(d_model, d_ff, dropout)
        self.feed_forward_norm = nn.LayerNorm(d_model, eps=1e-5)
        self.dropout = nn.Dropout(dropout)
        self.norm_first = norm_first
        self.parallel = parallel

    def forward(self, x, attention_mask=None):      # x: (B, S, d_model); mask (B, 1, S)
        if self.parallel:                            # GPT-J, GPT-NeoX, PaLM: one residual sum
            normed = self.attention_norm(x)
            attended, weights = self.self_attention(normed, normed, attention_mask)
            branch = self.feed_forward(self.feed_forward_norm(x))
            return x + self.dropout(attended) + self.dropout(branch), weights
        z = self.attention_norm(x) if self.norm_first else x
        attended, weights = self.self_attention(z, z, attention_mask)
        x = x + nn.functional.dropout(attended, self.dropout.p, training=True)   # in evaluation too
        if not self.norm_first:
            x = self.attention_norm(x)
        z = self.feed_forward_norm(x) if self.norm_first else x
        x = x + nn.functional.dropout(self.feed_forward(z), self.dropout.p, training=True)
        if not self.norm_first:
            x = self.feed_forward_norm(x)
        return x, weights
