# %% masked_softmax
def masked_softmax(scores, mask):
    """Attention weights: a softmax over the source positions that gives padding exactly 0.

    scores: (B, S) float scores; mask: (B, S) bool, True at real tokens (a row may have none).
    Returns (B, S) weights: each row with a real position sums to 1, a row without one is all 0,
    and every weight is exactly 0 wherever mask is False, whatever the scores there. Use keras.ops.
    """
    weights = ops.softmax(scores, axis=-1) * ops.cast(mask, "float32")   # softmax first, then drop the padding
    total = ops.sum(weights, axis=-1, keepdims=True)
    return weights / ops.maximum(total, 1e-30)                           # a row of padding only: 0 / tiny = 0
