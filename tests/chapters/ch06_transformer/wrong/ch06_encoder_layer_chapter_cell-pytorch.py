# %% encoder_layer
def residual(x, sublayer, norm, dropout, norm_first):
    """A sublayer inside its residual connection, with the layer norm after the sum
    (post-LN, the paper: LN(x + dropout(sublayer(x)))) or before the sublayer (pre-LN:
    x + dropout(sublayer(LN(x)))). sublayer returns (output, extra), extra being its
    attention weights or None; residual returns (the new x, extra)."""
    z = norm(x) if norm_first else x
    output, extra = sublayer(z)                        # output: like x, (B, L, d_model)
    x = x + dropout(output)
    return (x if norm_first else norm(x)), extra


class EncoderLayer(nn.Module):
    """Self-attention, then a feed-forward network, each inside a residual connection
    with a layer norm: after the sum (post-LN, the paper) or before the sublayer (pre-LN)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.1, norm_first=False,
                 activation="relu", norm_eps=1e-5):
        super().__init__()
        self.self_attention = MultiHeadAttention(d_model, num_heads)    # chapter 4's
        self.attention_norm = nn.LayerNorm(d_model, eps=norm_eps)
        self.feed_forward = FeedForward(d_model, d_ff, dropout, activation)
        self.feed_forward_norm = nn.LayerNorm(d_model, eps=norm_eps)
        self.dropout = nn.Dropout(dropout)
        self.norm_first = norm_first

    def forward(self, x, attention_mask=None):       # x: (B, S, d_model); mask (B, 1, S)
        x, weights = residual(x, lambda z: self.self_attention(z, z, attention_mask),
                              self.attention_norm, self.dropout, self.norm_first)
        x, _ = residual(x, lambda z: (self.feed_forward(z), None),
                        self.feed_forward_norm, self.dropout, self.norm_first)
        return x, weights                              # (B, S, d_model), (B, h, S, S)
