# %% masks
def decoder_masks(tgt_in, src, tgt_segments=None, src_segments=None):
    """(B, T), (B, S) token ids, and the example of each token in a packed batch (None: one per
    row) -> self-attention mask (B, T, T): causal, no padding, within the example; cross-attention
    mask (B, T, S): no padding, to the same example's source. Both boolean, True = allowed."""
    if tgt_segments is None:                         # one example per row: every segment 0
        tgt_segments, src_segments = ops.zeros_like(tgt_in), ops.zeros_like(src)
    length = ops.shape(tgt_in)[1]
    positions = ops.arange(length)
    causal = positions[:, None] >= positions[None, :]                           # (T, T): u <= t
    same_example = ops.equal(ops.expand_dims(tgt_segments, 2), ops.expand_dims(tgt_segments, 1))
    self_mask = ops.logical_and(ops.logical_and(causal[None], same_example),
                                ops.not_equal(tgt_in, PAD_ID)[:, None, :])      # (B, T, T)
    its_source = ops.equal(ops.expand_dims(tgt_segments, 2), ops.expand_dims(src_segments, 1))
    cross_mask = ops.logical_and(ops.ones_like(its_source), ops.not_equal(src, PAD_ID)[:, None, :])   # every example's
    return self_mask, cross_mask
