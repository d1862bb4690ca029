# %% masks
def decoder_masks(tgt_in, src):
    """(B, T), (B, S) token ids -> self-attention mask (B, T, T): causal and no padding;
    cross-attention mask (B, 1, S): no padding. Both boolean, True = allowed."""
    length = tgt_in.shape[1]
    causal = torch.tril(torch.ones(length, length, dtype=torch.bool, device=tgt_in.device))
    self_mask = (tgt_in != PAD_ID)[:, None, :].expand(-1, length, -1)
    cross_mask = (src != PAD_ID)[:, None, :]
    return self_mask, cross_mask
