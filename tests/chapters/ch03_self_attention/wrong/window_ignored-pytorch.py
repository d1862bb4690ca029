# %% sliding_window_mask
def sliding_window_mask(length, window):
    """(L, L): True on and below the diagonal (position i sees positions j <= i).
    Built on the CPU, like every tensor made without a device: move it with .to(device)."""
    return torch.ones(length, length, dtype=torch.bool).tril()
