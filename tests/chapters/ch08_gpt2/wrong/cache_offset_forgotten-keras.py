# %% attention
class CausalSelfAttention(MultiHeadAttention):
    """Multi-head self-attention in which position i sees positions j <= i only, with a cache (the
    keys and values of the P earlier positions, each (B, h, P, d_k)) and a padding mask (B, P + L),
    True for the real tokens of left-padded prompts."""

    def call(self, x, cache=None, padding_mask=None):   # x: (B, L, d_model) -> out, weights, (k, v)
        q = split_heads(self.query(x), self.num_heads)               # (B, h, L, d_k)
        k = split_heads(self.key(x), self.num_heads)
        v = split_heads(self.value(x), self.num_heads)
        if cache is not None:                          # the P earlier positions come first
            k = ops.concatenate([cache[0], k], axis=2)  # (B, h, P + L, d_k)
            v = ops.concatenate([cache[1], v], axis=2)
        length, total = ops.shape(x)[1], ops.shape(k)[2]   # L new positions, P + L keys
        query_at = ops.arange(length)[:, None]     # new input i is P + i
        key_at = ops.arange(total)[None, :]
        mask = key_at <= query_at                      # (L, P + L): causal
        if padding_mask is not None:                   # no pad, except a position's own key
            real = ops.cast(padding_mask, "bool")[:, None, None, :]
            mask = ops.logical_and(mask, ops.logical_or(real, key_at == query_at))   # (B, 1, L, P + L)
        attended, weights = scaled_dot_product_attention(q, k, v, mask)   # (B, h, L, d_k)
        return self.output_projection(merge_heads(attended)), weights, (k, v)
