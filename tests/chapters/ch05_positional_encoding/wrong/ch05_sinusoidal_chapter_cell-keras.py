# %% sinusoidal
def sinusoidal_encoding(length, d_model):            # -> (L, d_model), a float32 tensor
    """PE(p, 2i) = sin(p / 10000^(2i / d_model)), PE(p, 2i+1) = cos(the same angle).

    For an odd d_model the last column is the sine of one more frequency: its
    cosine partner would be column d_model, which does not exist.
    """
    positions = ops.arange(length, dtype="float32")[:, None]             # (L, 1)
    two_i = ops.arange(0, d_model, 2, dtype="float32")                     # (ceil(d/2),)
    angles = positions / ops.power(10000.0, two_i / d_model)              # (L, ceil(d/2))
    pairs = ops.stack([ops.sin(angles), ops.cos(angles)], axis=-1)     # (L, ceil(d/2), 2)
    return ops.reshape(pairs, (length, -1))[:, :d_model]              # sin, cos, sin, ...
