# %% sliding_window_mask
def sliding_window_mask(length, window):
    """Which positions each position may attend to when it sees only the last `window` positions,
    itself included, and nothing ahead (a sliding-window causal mask).
    Returns a boolean tensor of shape (length, length): [i, j] is True for i - window < j <= i.
    Use keras.ops.
    """
    query_at = ops.expand_dims(ops.arange(length), 1)       # (L, 1): i
    key_at = ops.expand_dims(ops.arange(length), 0)         # (1, L): j
    behind = query_at - key_at                              # (L, L): how far key j lies behind query i
    return ops.logical_and(behind >= 0, behind <= window)   # window positions back, plus itself
