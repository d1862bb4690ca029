# %% sinusoidal
def sinusoidal_encoding(length, d_model):            # -> (L, d_model), a float32 tensor
    """PE(p, 2i) = sin(p / 10000^(2i / d_model)), PE(p, 2i+1) = cos(the same angle).

    For an odd d_model the last column is the sine of one more frequency: its
    cosine partner would be column d_model, which does not exist.
    """
    positions = torch.arange(length, dtype=torch.float32)[:, None]       # (L, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float32)               # (ceil(d/2),)
    angles = positions / 10000.0 ** (two_i / d_model)                     # (L, ceil(d/2))
    pairs = torch.stack([torch.sin(angles), torch.cos(angles)], -1)     # (L, ceil(d/2), 2)
    return pairs.reshape(length, -1)[:, :d_model]                     # sin, cos, sin, ...
