# %% sliding_window
class SlidingWindowAttention(MultiHeadAttention):
    """Causal multi-head self-attention over a sliding window: position i sees itself and the
    `window` positions before it; the cache keeps the keys and values of the last `window`
    positions only, each (B, h, P, d_k) with P <= window."""

    def __init__(self, d_model, num_heads, window, **kwargs):
        super().__init__(d_model, num_heads, **kwargs)
        self.window = window                           # an integer >= 1

    def call(self, x, cache=None):                   # x: (B, L, d_model) -> out, weights, (k, v)
        q, k, v = (split_heads(project(x), self.num_heads)                  # (B, h, L, d_k) each
                   for project in (self.query, self.key, self.value))
        if cache is not None:                          # the P <= window latest positions first
            k = ops.concatenate([cache[0], k], axis=2)  # (B, h, P + L, d_k)
            v = ops.concatenate([cache[1], v], axis=2)
        cached = ops.shape(k)[2] - ops.shape(x)[1]     # P
        row = ops.arange(ops.shape(x)[1])[:, None]                          # new input i as key i: P forgotten
        col = ops.arange(ops.shape(k)[2])[None, :]
        band = ops.logical_and(col <= row, col >= row - self.window)        # (L, P + L)
        attended, weights = scaled_dot_product_attention(q, k, v, band)     # (B, h, L, d_k)
        rolled = (k[:, :, -self.window:], v[:, :, -self.window:])           # the oldest dropped
        return self.output_projection(merge_heads(attended)), weights, rolled
