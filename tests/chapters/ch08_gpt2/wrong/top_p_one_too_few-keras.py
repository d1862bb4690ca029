# %% filters
def top_k_filter(logits, k):
    """(B, V) -> (B, V): the k largest logits of each row kept, every other one -inf; k is one
    integer for every row, or one per row (a NumPy integer array (B,))."""
    k = ops.broadcast_to(ops.convert_to_tensor(k, dtype="int32"), ops.shape(logits)[:1])   # (B,)
    ranked = ops.flip(ops.sort(logits, axis=-1), axis=-1)                  # largest first
    kth_largest = ops.take_along_axis(ranked, k[:, None] - 1, axis=-1)     # (B, 1)
    return ops.where(logits < kth_largest, float("-inf"), logits)


def top_p_filter(logits, p):
    """(B, V) -> (B, V): the smallest set of most probable tokens whose probabilities reach p kept
    (nucleus sampling), every other logit -inf; p is one number for every row, or one per row (a
    NumPy array (B,))."""
    p = ops.broadcast_to(ops.convert_to_tensor(p, dtype=logits.dtype), ops.shape(logits)[:1])[:, None]
    order = ops.flip(ops.argsort(logits, axis=-1), axis=-1)            # most probable first
    sorted_logits = ops.take_along_axis(logits, order, axis=-1)
    probs = ops.softmax(sorted_logits, axis=-1)
    mass_before = ops.cumsum(probs, axis=-1)  # ops.cumsum(probs, axis=-1) - probs   # of the tokens ranked above each one
    drop_sorted = mass_before >= p                     # row b reached its p without this token
    drop = ops.take_along_axis(drop_sorted, ops.argsort(order, axis=-1), axis=-1)   # back to vocabulary order
    return ops.where(drop, float("-inf"), logits)
