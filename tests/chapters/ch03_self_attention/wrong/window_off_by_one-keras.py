# %% sliding_window_mask
def sliding_window_mask(length, window):
    """Which positions each position may attend to: itself and the `window` positions before it,
    and nothing ahead (a sliding-window causal mask; window 0 leaves each position only itself).
    Returns a boolean tensor of shape (length, length): [i, j] is True for i - window <= j <= i.
    Use keras.ops.
    """
    query_at = ops.expand_dims(ops.arange(length), 1)       # (L, 1): i
    key_at = ops.expand_dims(ops.arange(length), 0)         # (1, L): j
    behind = query_at - key_at                              # (L, L): how far key j lies behind query i
    return ops.logical_and(behind >= 0, behind < window)    # the window counting position i itself
