# %% sliding_window
class SlidingWindowAttention(MultiHeadAttention):
    """Causal multi-head self-attention over a sliding window: position i sees itself and the
    `window` positions before it; the cache keeps the keys and values of the last `window`
    positions only, each (B, h, P, d_k) with P <= window."""

    def __init__(self, d_model, num_heads, window):
        super().__init__(d_model, num_heads)
        self.window = window                           # an integer >= 1

    def forward(self, x, cache=None):                # x: (B, L, d_model) -> out, weights, (k, v)
        q, k, v = (split_heads(project(x), self.num_heads)                  # (B, h, L, d_k) each
                   for project in (self.query, self.key, self.value))
        if cache is not None:                          # the P <= window latest positions first
            k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)   # (B, h, P + L, d_k)
        cached = k.shape[2] - x.shape[1]               # P
        row = torch.arange(x.shape[1], device=x.device)[:, None] + cached   # new input i is key P + i
        col = torch.arange(k.shape[2], device=x.device)[None, :]
        band = (col <= row) & (col >= row - self.window)                    # (L, P + L)
        attended, weights = scaled_dot_product_attention(q, k, v, band)     # (B, h, L, d_k)
        rolled = (k, v)                                                     # every position kept
        return self.output_projection(merge_heads(attended)), weights, rolled
