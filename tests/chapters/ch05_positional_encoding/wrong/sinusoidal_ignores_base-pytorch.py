# %% sinusoidal
def sinusoidal_encoding(positions, d_model, base=10000):
    """(P, d_model) float32 tensor for a 1-D tensor of P positions: row j is PE(positions[j]),
    PE[p, 2i] = sin(p / base^(2i / d_model)), PE[p, 2i+1] = cos(same); for an odd d_model the last
    column is the sine of one more frequency."""
    where = torch.as_tensor(positions, dtype=torch.float32)[:, None]      # (P, 1): the positions given
    two_i = torch.arange(0, d_model, 2, dtype=torch.float32)               # (ceil(d/2),)
    angles = where / 10000.0 ** (two_i / d_model)                         # (P, ceil(d/2))
    pairs = torch.stack([torch.sin(angles), torch.cos(angles)], dim=-1)   # (P, ceil(d/2), 2)
    return pairs.reshape(len(where), -1)[:, :d_model]                     # sin, cos, sin, ...
