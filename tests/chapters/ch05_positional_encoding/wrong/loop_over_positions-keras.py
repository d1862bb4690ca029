# %% sinusoidal
def sinusoidal_encoding(length, d_model):
    """(L, d_model) float32 tensor: PE[p, 2i] = sin(p / 10000^(2i / d_model)), PE[p, 2i+1] = cos(same);
    for an odd d_model the last column is the sine of one more frequency."""
    positions = ops.arange(length, dtype="float32")[:, None]             # (L, 1)
    two_i = ops.arange(0, d_model, 2, dtype="float32")                     # (ceil(d/2),)
    angles = ops.stack([p / ops.power(10000.0, two_i / d_model) for p in range(length)])   # row by row
    pairs = ops.stack([ops.sin(angles), ops.cos(angles)], axis=-1)        # (L, ceil(d/2), 2)
    return ops.reshape(pairs, (length, -1))[:, :d_model]                  # sin, cos, sin, ...
