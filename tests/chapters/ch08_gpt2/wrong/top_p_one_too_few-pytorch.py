# %% filters
def top_k_filter(logits, k):
    """(B, V) -> (B, V): the k largest logits of each row kept, every other one -inf; k is one
    integer for every row, or one per row (a NumPy integer array (B,))."""
    k = torch.as_tensor(k, device=logits.device).expand(logits.shape[0])       # (B,)
    ranked = torch.sort(logits, dim=-1, descending=True).values
    kth_largest = ranked.gather(-1, k[:, None] - 1)                            # (B, 1)
    return logits.masked_fill(logits < kth_largest, float("-inf"))


def top_p_filter(logits, p):
    """(B, V) -> (B, V): the smallest set of most probable tokens whose probabilities reach p kept
    (nucleus sampling), every other logit -inf; p is one number for every row, or one per row (a
    NumPy array (B,))."""
    p = torch.as_tensor(p, dtype=logits.dtype, device=logits.device).expand(logits.shape[0])[:, None]
    sorted_logits, order = torch.sort(logits, dim=-1, descending=True)   # most probable first
    probs = torch.softmax(sorted_logits, dim=-1)
    mass_before = probs.cumsum(dim=-1)  # probs.cumsum(dim=-1) - probs         # of the tokens ranked above each one
    drop_sorted = mass_before >= p                     # row b reached its p without this token
    drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)   # back to vocabulary order
    return logits.masked_fill(drop, float("-inf"))
