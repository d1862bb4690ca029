# %% filters
def top_k_filter(logits, k):
    """(B, V) -> (B, V): the k largest logits of each row kept, the others -inf."""
    kth_largest = ops.top_k(logits, k)[0][:, -1:]                      # (B, 1)
    return ops.where(logits < kth_largest, float("-inf"), logits)


def top_p_filter(logits, p):
    """(B, V) -> (B, V): keep the smallest set of most probable tokens whose probability
    reaches p (nucleus sampling, Holtzman et al. 2020); the others -inf."""
    order = ops.flip(ops.argsort(logits, axis=-1), axis=-1)            # descending
    sorted_logits = ops.take_along_axis(logits, order, axis=-1)
    probs = ops.softmax(sorted_logits, axis=-1)
    mass_before = ops.cumsum(probs, axis=-1) - probs   # of the tokens ranked above each
    drop_sorted = mass_before >= p                     # p reached without this token
    drop = ops.take_along_axis(drop_sorted, ops.argsort(order, axis=-1), axis=-1)
    return ops.where(drop, float("-inf"), logits)
