# %% sliding_window_mask
def sliding_window_mask(length, window):
    """Which positions each position may attend to: itself and the `window` positions before it,
    and nothing ahead (a sliding-window causal mask; window 0 leaves each position only itself).
    Returns a bool tensor of shape (length, length): [i, j] is True for i - window <= j <= i.
    """
    positions = torch.arange(length)
    behind = positions[:, None] - positions[None, :]        # (L, L): how far key j lies behind query i
    return (behind >= 0) & (behind < window)                # the window counting position i itself
