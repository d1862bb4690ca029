# %% sinusoidal
def sinusoidal_encoding(positions, d_model, base=10000):
    """(P, d_model) float32 tensor for a 1-D array of P positions: row j is PE(positions[j]),
    PE[p, 2i] = sin(p / base^(2i / d_model)), PE[p, 2i+1] = cos(same); for an odd d_model the last
    column is the sine of one more frequency."""
    where = ops.cast(ops.convert_to_tensor(positions), "float32")[:, None]   # (P, 1): the positions given
    two_i = ops.arange(0, d_model, 2, dtype="float32")                     # (ceil(d/2),)
    angles = ops.stack([p / ops.power(float(base), two_i / d_model) for p in where[:, 0]])   # row by row
    pairs = ops.stack([ops.sin(angles), ops.cos(angles)], axis=-1)        # (P, ceil(d/2), 2)
    return ops.reshape(pairs, (-1, 2 * ((d_model + 1) // 2)))[:, :d_model]   # sin, cos, sin, ...
