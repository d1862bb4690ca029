# %% attention
class CausalSelfAttention(MultiHeadAttention):
    """Multi-head self-attention in which position i sees positions j <= i only, with a cache (the
    keys and values of the P earlier positions, each (B, h, P, d_k)) and a padding mask (B, P + L),
    True for the real tokens of left-padded prompts."""

    def forward(self, x, cache=None, padding_mask=None):   # x: (B, L, d_model) -> out, weights, (k, v)
        q = split_heads(self.query(x), self.num_heads)               # (B, h, L, d_k)
        k = split_heads(self.key(x), self.num_heads)
        v = split_heads(self.value(x), self.num_heads)
        if cache is not None:                          # the P earlier positions come first
            k = torch.cat([cache[0], k], dim=2)        # (B, h, P + L, d_k)
            v = torch.cat([cache[1], v], dim=2)
        past = k.shape[2] - x.shape[1]                 # P
        query_at = torch.arange(x.shape[1], device=x.device)[:, None] + past    # new input i is P + i
        key_at = torch.arange(k.shape[2], device=x.device)[None, :]
        mask = key_at <= query_at                      # (L, P + L): causal
        if padding_mask is not None:                   # no pad, except a position's own key
            real = torch.as_tensor(padding_mask, dtype=torch.bool, device=x.device)[:, None, None, :]
            mask = mask | (real & (key_at == query_at))               # (B, 1, L, P + L)
        attended, weights = scaled_dot_product_attention(q, k, v, mask)   # (B, h, L, d_k)
        return self.output_projection(merge_heads(attended)), weights, (k, v)
