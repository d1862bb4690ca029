# %% masked_softmax
def masked_softmax(scores, attention_mask):    # (B, S); True = real token
    """Softmax over the last axis, exactly 0 where the mask is False."""
    scores = ops.where(attention_mask, scores, float("-inf"))    # exp(-inf) = 0
    return ops.softmax(scores, axis=-1)
