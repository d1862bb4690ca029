# %% context_and_attention
def context_vector(weights, keys):
    """The context vector c_t = sum_i alpha_{t,i} h_i.

    weights: (B, S) attention weights; keys: (B, S, K) encoder states.
    Returns the contexts, (B, K). Use keras.ops.
    """
    return ops.mean(ops.expand_dims(weights, -1) * keys, axis=1)   # weight each position's state, add them up


def additive_attention(query, keys, mask, W, U, v):
    """Bahdanau attention for one decoder step, from additive_scores, masked_softmax and
    context_vector. Returns (context (B, K), weights (B, S)).
    """
    weights = masked_softmax(additive_scores(query, keys, W, U, v), mask)
    return context_vector(weights, keys), weights
