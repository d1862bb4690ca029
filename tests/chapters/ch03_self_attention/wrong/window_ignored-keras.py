# %% sliding_window_mask
def sliding_window_mask(length, window):
    """(L, L): True on and below the diagonal (position i sees positions j <= i)."""
    return ops.tril(ops.ones((length, length), dtype="bool"))
