# %% sliding_window_mask
def sliding_window_mask(length, window):
    """Which positions each position may attend to when it sees only the last `window` positions,
    itself included, and nothing ahead (a sliding-window causal mask).
    Returns a bool tensor of shape (length, length): [i, j] is True for i - window < j <= i.
    """
    positions = torch.arange(length)
    behind = positions[:, None] - positions[None, :]        # (L, L): how far key j lies behind query i
    return (behind >= 0) & (behind <= window)               # window positions back, plus itself
