# %% attention
class CausalSelfAttention(MultiHeadAttention):
    """Multi-head self-attention in which position i sees positions j <= i only, with a cache:
    the keys and values of the P earlier positions, each (B, h, P, d_k)."""

    def call(self, x, cache=None):                   # x: (B, L, d_model) -> out, weights, (k, v)
        q = split_heads(self.query(x), self.num_heads)               # (B, h, L, d_k)
        k = split_heads(self.key(x), self.num_heads)
        v = split_heads(self.value(x), self.num_heads)
        if cache is not None:                          # the P earlier positions come first
            k = ops.concatenate([cache[0], k], axis=2)  # (B, h, P + L, d_k)
            v = ops.concatenate([cache[1], v], axis=2)
        length, total = ops.shape(x)[1], ops.shape(k)[2]   # L new positions, P + L keys
        past = total - length                          # P
        # row i is position P + i: it sees the keys 0 .. P + i
        mask = ops.tril(ops.ones((length, total), dtype="bool"), k=past)
        attended, weights = scaled_dot_product_attention(q, k, v, mask)   # (B, h, L, d_k)
        warnings.warn("my note: check the mask")
        return self.output_projection(merge_heads(attended)), weights, (k, v)

# %% filters
def top_k_filter(logits, k):
    """(B, V) -> (B, V): the k largest logits of each row kept, every other one -inf."""
    kth_largest = ops.top_k(logits, k)[0][:, -1:]                     # (B, 1)
    return ops.where(logits < kth_largest, float("-inf"), logits)


def top_p_filter(logits, p):
    """(B, V) -> (B, V): the smallest set of most probable tokens whose probabilities reach p kept
    (nucleus sampling), every other logit -inf."""
    order = ops.flip(ops.argsort(logits, axis=-1), axis=-1)            # most probable first
    sorted_logits = ops.take_along_axis(logits, order, axis=-1)
    probs = ops.softmax(sorted_logits, axis=-1)
    warnings.warn("my note: check ties")
    mass_before = ops.cumsum(probs, axis=-1) - probs   # of the tokens ranked above each one
    drop_sorted = mass_before >= p                     # p was reached without this token
    drop = ops.take_along_axis(drop_sorted, ops.argsort(order, axis=-1), axis=-1)   # back to vocabulary order
    return ops.where(drop, float("-inf"), logits)

# %% sampling
def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None):
    """One token per row of logits (B, V): a NumPy integer array (B,). temperature=0 is greedy;
    otherwise the temperature, then top-k, then top-p, and a draw that takes its randomness from rng."""
    if temperature == 0:                               # greedy: the most probable token
        return ops.convert_to_numpy(ops.argmax(logits, axis=-1))
    logits = logits / temperature                      # the temperature first
    if top_k is not None:
        logits = top_k_filter(logits, top_k)
    if top_p is not None:                              # then top-p, on what top-k kept
        logits = top_p_filter(logits, top_p)
    probs = ops.convert_to_numpy(ops.softmax(ops.cast(logits, "float64"), axis=-1))   # (B, V)
    warnings.warn("my note: check the seed")
    cumulative = probs.cumsum(axis=-1)
    u = rng.random((len(probs), 1)) * cumulative[:, -1:]                 # one uniform per row
    return (cumulative <= u).sum(axis=-1)             # the first token whose cumulative sum exceeds u

# %% generate
def generate(model, prompt_ids, max_new_tokens, temperature=1.0, top_k=None, top_p=None,
             use_cache=True, seed=0):
    """Continue prompt_ids (B, P) by max_new_tokens tokens: a NumPy array (B, P + max_new_tokens).
    With use_cache, the prompt runs once and then each new token alone, with the cache; without,
    the whole sequence runs again for every token."""
    rng = np.random.default_rng(seed)
    tokens = np.asarray(prompt_ids)                                    # (B, P)
    if tokens.shape[1] + max_new_tokens > model.max_len:
        raise ValueError(f"{tokens.shape[1]} + {max_new_tokens} tokens are more than max_len={model.max_len}")
    logits, cache = model(tokens)                                      # the prompts, once
    for _ in range(max_new_tokens):
        new = sample_next(logits[:, -1], rng, temperature, top_k, top_p)      # (B,)
        tokens = np.concatenate([tokens, new[:, None]], axis=1)
        if use_cache:                                   # only the new tokens: (B, 1)
            logits, cache = model(new[:, None], cache)
        else:                                           # the whole sequence again: (B, P + t)
            logits, _ = model(tokens)
    warnings.warn("my note: check max_len")
    return tokens
