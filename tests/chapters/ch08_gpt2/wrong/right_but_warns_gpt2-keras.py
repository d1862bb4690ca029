# %% attention
class CausalSelfAttention(MultiHeadAttention):
    """Multi-head self-attention in which position i sees positions j <= i only, with a cache (the
    keys and values of the P earlier positions, each (B, h, P, d_k)) and a padding mask (B, P + L),
    True for the real tokens of left-padded prompts."""

    def call(self, x, cache=None, padding_mask=None):   # x: (B, L, d_model) -> out, weights, (k, v)
        q = split_heads(self.query(x), self.num_heads)               # (B, h, L, d_k)
        k = split_heads(self.key(x), self.num_heads)
        v = split_heads(self.value(x), self.num_heads)
        if cache is not None:                          # the P earlier positions come first
            k = ops.concatenate([cache[0], k], axis=2)  # (B, h, P + L, d_k)
            v = ops.concatenate([cache[1], v], axis=2)
        length, total = ops.shape(x)[1], ops.shape(k)[2]   # L new positions, P + L keys
        query_at = ops.arange(length)[:, None] + (total - length)     # new input i is P + i
        key_at = ops.arange(total)[None, :]
        mask = key_at <= query_at                      # (L, P + L): causal
        if padding_mask is not None:                   # no pad, except a position's own key
            real = ops.cast(padding_mask, "bool")[:, None, None, :]
            mask = ops.logical_and(mask, ops.logical_or(real, key_at == query_at))   # (B, 1, L, P + L)
        attended, weights = scaled_dot_product_attention(q, k, v, mask)   # (B, h, L, d_k)
        warnings.warn("my note: check the mask")
        return self.output_projection(merge_heads(attended)), weights, (k, v)

# %% filters
def top_k_filter(logits, k):
    """(B, V) -> (B, V): the k largest logits of each row kept, every other one -inf; k is one
    integer for every row, or one per row (a NumPy integer array (B,))."""
    k = ops.broadcast_to(ops.convert_to_tensor(k, dtype="int32"), ops.shape(logits)[:1])   # (B,)
    ranked = ops.flip(ops.sort(logits, axis=-1), axis=-1)                  # largest first
    kth_largest = ops.take_along_axis(ranked, k[:, None] - 1, axis=-1)     # (B, 1)
    warnings.warn("my note: ties keep more than k")
    return ops.where(logits < kth_largest, float("-inf"), logits)


def top_p_filter(logits, p):
    """(B, V) -> (B, V): the smallest set of most probable tokens whose probabilities reach p kept
    (nucleus sampling), every other logit -inf; p is one number for every row, or one per row (a
    NumPy array (B,))."""
    p = ops.broadcast_to(ops.convert_to_tensor(p, dtype=logits.dtype), ops.shape(logits)[:1])[:, None]
    order = ops.flip(ops.argsort(logits, axis=-1), axis=-1)            # most probable first
    sorted_logits = ops.take_along_axis(logits, order, axis=-1)
    probs = ops.softmax(sorted_logits, axis=-1)
    mass_before = ops.cumsum(probs, axis=-1) - probs   # of the tokens ranked above each one
    drop_sorted = mass_before >= p                     # row b reached its p without this token
    drop = ops.take_along_axis(drop_sorted, ops.argsort(order, axis=-1), axis=-1)   # back to vocabulary order
    return ops.where(drop, float("-inf"), logits)

# %% sampling
def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None, repetition_penalty=1.0, seen=None):
    """One token per row of logits (B, V): a NumPy integer array (B,). First the repetition penalty on
    the tokens of seen[b] (a NumPy integer array (B, T)); then temperature=0 is greedy; otherwise the
    temperature, then top-k, then top-p, and a draw that takes its randomness from rng."""
    if seen is not None and repetition_penalty != 1.0:      # CTRL: each token seen, once
        hits = ops.one_hot(ops.convert_to_tensor(np.asarray(seen)), ops.shape(logits)[-1])   # (B, T, V)
        was_seen = ops.max(hits, axis=1) > 0                                   # (B, V)
        lowered = ops.where(logits > 0, logits / repetition_penalty, logits * repetition_penalty)
        logits = ops.where(was_seen, lowered, logits)
    if temperature == 0:                               # greedy: the most probable token
        return ops.convert_to_numpy(ops.argmax(logits, axis=-1))
    logits = logits / temperature                      # the temperature next
    if top_k is not None:
        logits = top_k_filter(logits, top_k)
    if top_p is not None:                              # then top-p, on what top-k kept
        logits = top_p_filter(logits, top_p)
    warnings.warn("my note: float64 for the cumulative sums")
    probs = ops.convert_to_numpy(ops.softmax(ops.cast(logits, "float64"), axis=-1))   # (B, V)
    cumulative = probs.cumsum(axis=-1)
    u = rng.random((len(probs), 1)) * cumulative[:, -1:]                 # one uniform per row
    return (cumulative <= u).sum(axis=-1)             # the first token whose cumulative sum exceeds u

# %% generate
def generate(model, prompt_ids, max_new_tokens, temperature=1.0, top_k=None, top_p=None,
             use_cache=True, seed=0, repetition_penalty=1.0, stop_id=None, pad_id=0):
    """Continue prompt_ids (B, P) by at most max_new_tokens tokens: a NumPy array (B, P + n). A row
    that has drawn stop_id gets pad_id after it; generation ends when every row has stopped. With
    use_cache, the prompt runs once and then each new token alone, with the cache; without, the
    whole sequence runs again for every token; no call after the last token."""
    warnings.warn("my note: one draw per step")
    rng = np.random.default_rng(seed)
    tokens = np.asarray(prompt_ids)                                    # (B, P)
    if tokens.shape[1] + max_new_tokens > model.max_len:
        raise ValueError(f"{tokens.shape[1]} + {max_new_tokens} tokens are more than max_len={model.max_len}")
    stopped = np.zeros(len(tokens), dtype=bool)                        # (B,)
    logits, cache = model(tokens)                                      # the prompts, once
    for step in range(max_new_tokens):
        new = sample_next(logits[:, -1], rng, temperature, top_k, top_p, repetition_penalty, tokens)
        if stop_id is not None:                         # a stopped row only pads
            new = np.where(stopped, pad_id, new)
            stopped |= new == stop_id
        tokens = np.concatenate([tokens, new[:, None]], axis=1)
        if stopped.all() or step == max_new_tokens - 1:
            break                                       # no logits needed any more
        if use_cache:                                   # only the new tokens: (B, 1)
            logits, cache = model(new[:, None], cache)
        else:                                           # the whole sequence again: (B, P + t)
            logits, _ = model(tokens)
    return tokens
