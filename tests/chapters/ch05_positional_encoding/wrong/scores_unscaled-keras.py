# %% rope_scores_cell
def rope_scores(q, k):
    """Scores of rotated queries (..., T, d_k) and keys (..., S, d_k): (..., T, S), scaled by 1 / sqrt(d_k)."""
    d_k = ops.shape(q)[-1]
    return ops.matmul(apply_rope(q), ops.swapaxes(apply_rope(k), -1, -2))
