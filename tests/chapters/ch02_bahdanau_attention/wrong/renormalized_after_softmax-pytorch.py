# %% masked_softmax
def masked_softmax(scores, mask):
    """Attention weights: a softmax over the source positions that gives padding exactly 0.

    scores: (B, S) float scores; mask: (B, S) bool, True at real tokens (a row may have none).
    Returns (B, S) weights: each row with a real position sums to 1, a row without one is all 0,
    and every weight is exactly 0 wherever mask is False, whatever the scores there.
    """
    weights = torch.softmax(scores, dim=-1) * mask      # softmax first, then drop the padding
    total = weights.sum(dim=-1, keepdim=True)
    return weights / total.clamp_min(1e-30)             # a row of padding only: 0 / tiny = 0
