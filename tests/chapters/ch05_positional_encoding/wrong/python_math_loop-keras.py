# %% sinusoidal
def sinusoidal_encoding(length, d_model):
    """(L, d_model) float32 tensor: PE[p, 2i] = sin(p / 10000^(2i / d_model)), PE[p, 2i+1] = cos(same);
    for an odd d_model the last column is the sine of one more frequency."""
    table = [[0.0] * d_model for _ in range(length)]                     # (L, d_model), in Python
    for p in range(length):
        for col in range(d_model):
            angle = p / 10000.0 ** ((col - col % 2) / d_model)
            table[p][col] = math.sin(angle) if col % 2 == 0 else math.cos(angle)
    return ops.convert_to_tensor(table, dtype="float32")
