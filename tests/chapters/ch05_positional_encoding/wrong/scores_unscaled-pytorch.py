# %% rope_scores_cell
def rope_scores(q, k):
    """Scores of rotated queries (..., T, d_k) and keys (..., S, d_k): (..., T, S), scaled by 1 / sqrt(d_k)."""
    d_k = q.shape[-1]
    return apply_rope(q) @ apply_rope(k).transpose(-1, -2)
