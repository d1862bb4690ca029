# %% rope
def apply_rope(x, start=0):
    """(..., L, d_k) -> (..., L, d_k): row j stands at position p = start + j, and each pair
    (x_2i, x_2i+1) of it is rotated by p / 10000^(2i / d_k)."""
    *batch, length, d_k = ops.shape(x)
    positions = ops.arange(length, dtype="float32")[:, None]   # (L, 1): 0 .. L - 1
    two_i = ops.arange(0, d_k, 2, dtype="float32")                         # (d_k / 2,)
    angles = positions / ops.power(10000.0, two_i / d_k)                  # (L, d_k / 2)
    cos, sin = ops.cos(angles), ops.sin(angles)
    pairs = ops.reshape(x, (*batch, length, d_k // 2, 2))
    even, odd = pairs[..., 0], pairs[..., 1]                             # (..., L, d_k / 2)
    rotated = ops.stack([even * cos - odd * sin, even * sin + odd * cos], axis=-1)
    return ops.reshape(rotated, (*batch, length, d_k))
