# %% masked_softmax
def masked_softmax(scores, mask):
    """Attention weights: a softmax over the source positions that gives padding exactly 0.

    scores: (B, S) float scores; mask: (B, S) bool, True at real tokens (at least one per row).
    Returns (B, S) weights: each row sums to 1 and is exactly 0 wherever mask is False,
    whatever the scores there.
    """
    weights = torch.softmax(scores, dim=-1) * mask      # softmax first, then drop the padding
    return weights / weights.sum(dim=-1, keepdim=True)
