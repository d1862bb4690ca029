# %% sinusoidal
def sinusoidal_encoding(positions, d_model, base=10000):
    """(P, d_model) float32 tensor for a 1-D tensor of P positions: row j is PE(positions[j]),
    PE[p, 2i] = sin(p / base^(2i / d_model)), PE[p, 2i+1] = cos(same); for an odd d_model the last
    column is the sine of one more frequency."""
    where = torch.as_tensor(positions).tolist()                           # the positions, as Python numbers
    table = [[0.0] * d_model for _ in where]                              # (P, d_model), in Python
    for j, p in enumerate(where):
        for col in range(d_model):
            angle = p / float(base) ** ((col - col % 2) / d_model)
            table[j][col] = math.sin(angle) if col % 2 == 0 else math.cos(angle)
    return torch.tensor(table, dtype=torch.float32)
