# %% rope
def apply_rope(x):                                   # (..., L, d_k) -> (..., L, d_k)
    """Rotate each pair (x_2i, x_2i+1) at position p by the angle p / 10000^(2i / d_k)."""
    *batch, length, d_k = x.shape
    if d_k % 2:
        raise ValueError(f"apply_rope rotates pairs of features: d_k must be even, got {d_k}")
    positions = torch.arange(length, dtype=torch.float32, device=x.device)[:, None]
    two_i = torch.arange(0, d_k, 2, dtype=torch.float32, device=x.device)  # (d_k / 2,)
    angles = positions / 10000.0 ** (two_i / d_k)                         # (L, d_k / 2)
    cos, sin = torch.cos(angles), torch.sin(angles)
    pairs = x.reshape(*batch, length, d_k // 2, 2)
    even, odd = pairs[..., 0], pairs[..., 1]                           # (..., L, d_k / 2)
    rotated = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)
    return rotated.reshape(*batch, length, d_k)
