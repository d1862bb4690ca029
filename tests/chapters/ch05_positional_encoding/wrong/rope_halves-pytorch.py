# %% rope
def apply_rope(x, start=0):
    """(..., L, d_k) -> (..., L, d_k): row j stands at position p = start + j, and each pair
    (x_2i, x_2i+1) of it is rotated by p / 10000^(2i / d_k)."""
    *batch, length, d_k = x.shape
    positions = torch.arange(start, start + length, dtype=torch.float32, device=x.device)[:, None]  # (L, 1)
    two_i = torch.arange(0, d_k, 2, dtype=torch.float32, device=x.device)  # (d_k / 2,)
    angles = positions / 10000.0 ** (two_i / d_k)                         # (L, d_k / 2)
    cos, sin = torch.cos(angles), torch.sin(angles)
    pairs = x.reshape(*batch, length, 2, d_k // 2).transpose(-1, -2)
    even, odd = pairs[..., 0], pairs[..., 1]                             # (..., L, d_k / 2)
    rotated = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)
    return rotated.transpose(-1, -2).reshape(*batch, length, d_k)
