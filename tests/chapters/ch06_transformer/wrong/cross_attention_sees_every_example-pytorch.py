# %% masks
def decoder_masks(tgt_in, src, tgt_segments=None, src_segments=None):
    """(B, T), (B, S) token ids, and the example of each token in a packed batch (None: one per
    row) -> self-attention mask (B, T, T): causal, no padding, within the example; cross-attention
    mask (B, T, S): no padding, to the same example's source. Both boolean, True = allowed."""
    if tgt_segments is None:                         # one example per row: every segment 0
        tgt_segments, src_segments = torch.zeros_like(tgt_in), torch.zeros_like(src)
    length = tgt_in.shape[1]
    causal = torch.tril(torch.ones(length, length, dtype=torch.bool, device=tgt_in.device))
    same_example = tgt_segments[:, :, None] == tgt_segments[:, None, :]        # (B, T, T)
    self_mask = causal[None] & same_example & (tgt_in != PAD_ID)[:, None, :]
    its_source = tgt_segments[:, :, None] == src_segments[:, None, :]          # (B, T, S)
    cross_mask = (src != PAD_ID)[:, None, :].expand(-1, length, -1)   # every example's source
    return self_mask, cross_mask
