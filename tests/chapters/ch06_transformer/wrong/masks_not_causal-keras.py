# %% masks
def decoder_masks(tgt_in, src):
    """(B, T), (B, S) token ids -> self-attention mask (B, T, T): causal and no padding;
    cross-attention mask (B, 1, S): no padding. Both boolean, True = allowed."""
    length = ops.shape(tgt_in)[1]
    positions = ops.arange(length)
    causal = positions[:, None] >= positions[None, :]                 # (T, T): u <= t
    self_mask = ops.logical_and(ops.ones_like(causal)[None], ops.not_equal(tgt_in, PAD_ID)[:, None, :])
    cross_mask = ops.not_equal(src, PAD_ID)[:, None, :]
    return self_mask, cross_mask
