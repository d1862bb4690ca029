# %% attention
class CausalSelfAttention(MultiHeadAttention):
    """Multi-head self-attention in which position i sees positions j <= i only.

    cache: the keys and values of the P positions already seen, each (B, h, P, d_k); the
    new positions attend to those and to themselves, and the longer cache is returned,
    so that generating one more token computes one query, one key and one value."""

    def forward(self, x, cache=None):                # x: (B, L, d_model)
        q = split_heads(self.query(x), self.num_heads)            # (B, h, L, d_k)
        k = split_heads(self.key(x), self.num_heads)
        v = split_heads(self.value(x), self.num_heads)
        if cache is not None:                          # prepend the earlier positions
            k = torch.cat([cache[0], k], dim=2)        # (B, h, P + L, d_k)
            v = torch.cat([cache[1], v], dim=2)
        past = k.shape[2] - x.shape[1]                 # P
        mask = causal_mask(k.shape[2])[past:].to(x.device)  # (L, P + L): row i = position P + i
        attended, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.output_projection(merge_heads(attended)), weights, (k, v)
