# %% masked_softmax
def masked_softmax(scores, attention_mask):    # (B, S); True = real token
    """Softmax over the last axis, exactly 0 where the mask is False."""
    scores = scores.masked_fill(~attention_mask, float("-inf"))  # exp(-inf) = 0
    return torch.softmax(scores, dim=-1)
