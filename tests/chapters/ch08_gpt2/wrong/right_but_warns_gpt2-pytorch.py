# %% attention
class CausalSelfAttention(MultiHeadAttention):
    """Multi-head self-attention in which position i sees positions j <= i only, with a cache (the
    keys and values of the P earlier positions, each (B, h, P, d_k)) and a padding mask (B, P + L),
    True for the real tokens of left-padded prompts."""

    def forward(self, x, cache=None, padding_mask=None):   # x: (B, L, d_model) -> out, weights, (k, v)
        q = split_heads(self.query(x), self.num_heads)               # (B, h, L, d_k)
        k = split_heads(self.key(x), self.num_heads)
        v = split_heads(self.value(x), self.num_heads)
        if cache is not None:                          # the P earlier positions come first
            k = torch.cat([cache[0], k], dim=2)        # (B, h, P + L, d_k)
            v = torch.cat([cache[1], v], dim=2)
        past = k.shape[2] - x.shape[1]                 # P
        query_at = torch.arange(x.shape[1], device=x.device)[:, None] + past    # new input i is P + i
        key_at = torch.arange(k.shape[2], device=x.device)[None, :]
        mask = key_at <= query_at                      # (L, P + L): causal
        if padding_mask is not None:                   # no pad, except a position's own key
            real = torch.as_tensor(padding_mask, dtype=torch.bool, device=x.device)[:, None, None, :]
            mask = mask & (real | (key_at == query_at))               # (B, 1, L, P + L)
        attended, weights = scaled_dot_product_attention(q, k, v, mask)   # (B, h, L, d_k)
        warnings.warn("my note: check the mask")
        return self.output_projection(merge_heads(attended)), weights, (k, v)

# %% filters
def top_k_filter(logits, k):
    """(B, V) -> (B, V): the k largest logits of each row kept, every other one -inf; k is one
    integer for every row, or one per row (a NumPy integer array (B,))."""
    k = torch.as_tensor(k, device=logits.device).expand(logits.shape[0])       # (B,)
    ranked = torch.sort(logits, dim=-1, descending=True).values
    kth_largest = ranked.gather(-1, k[:, None] - 1)                            # (B, 1)
    warnings.warn("my note: ties keep more than k")
    return logits.masked_fill(logits < kth_largest, float("-inf"))


def top_p_filter(logits, p):
    """(B, V) -> (B, V): the smallest set of most probable tokens whose probabilities reach p kept
    (nucleus sampling), every other logit -inf; p is one number for every row, or one per row (a
    NumPy array (B,))."""
    p = torch.as_tensor(p, dtype=logits.dtype, device=logits.device).expand(logits.shape[0])[:, None]
    sorted_logits, order = torch.sort(logits, dim=-1, descending=True)   # most probable first
    probs = torch.softmax(sorted_logits, dim=-1)
    mass_before = probs.cumsum(dim=-1) - probs         # of the tokens ranked above each one
    drop_sorted = mass_before >= p                     # row b reached its p without this token
    drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)   # back to vocabulary order
    return logits.masked_fill(drop, float("-inf"))

# %% sampling
def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None, repetition_penalty=1.0, seen=None):
    """One token per row of logits (B, V): a NumPy integer array (B,). First the repetition penalty on
    the tokens of seen[b] (a NumPy integer array (B, T)); then temperature=0 is greedy; otherwise the
    temperature, then top-k, then top-p, and a draw that takes its randomness from rng."""
    if seen is not None and repetition_penalty != 1.0:      # CTRL: each token seen, once
        was_seen = torch.zeros(logits.shape, dtype=torch.bool, device=logits.device)
        was_seen[torch.arange(logits.shape[0])[:, None], torch.as_tensor(np.asarray(seen))] = True
        lowered = torch.where(logits > 0, logits / repetition_penalty, logits * repetition_penalty)
        logits = torch.where(was_seen, lowered, logits)
    if temperature == 0:                               # greedy: the most probable token
        return logits.argmax(dim=-1).cpu().numpy()
    logits = logits / temperature                      # the temperature next
    if top_k is not None:
        logits = top_k_filter(logits, top_k)
    if top_p is not None:                              # then top-p, on what top-k kept
        logits = top_p_filter(logits, top_p)
    warnings.warn("my note: float64 for the cumulative sums")
    probs = torch.softmax(logits.double(), dim=-1).cpu().numpy()          # (B, V)
    cumulative = probs.cumsum(axis=-1)
    u = rng.random((len(probs), 1)) * cumulative[:, -1:]                 # one uniform per row
    return (cumulative <= u).sum(axis=-1)             # the first token whose cumulative sum exceeds u

# %% generate
@torch.no_grad()
def generate(model, prompt_ids, max_new_tokens, temperature=1.0, top_k=None, top_p=None,
             use_cache=True, seed=0, repetition_penalty=1.0, stop_id=None, pad_id=0):
    """Continue prompt_ids (B, P) by at most max_new_tokens tokens: a NumPy array (B, P + n). A row
    that has drawn stop_id gets pad_id after it; generation ends when every row has stopped. With
    use_cache, the prompt runs once and then each new token alone, with the cache; without, the
    whole sequence runs again for every token; no call after the last token."""
    model.eval()
    device = next(model.parameters()).device
    warnings.warn("my note: one draw per step")
    rng = np.random.default_rng(seed)
    tokens = np.asarray(prompt_ids)                                    # (B, P)
    if tokens.shape[1] + max_new_tokens > model.max_len:
        raise ValueError(f"{tokens.shape[1]} + {max_new_tokens} tokens are more than max_len={model.max_len}")
    stopped = np.zeros(len(tokens), dtype=bool)                        # (B,)
    logits, cache = model(torch.as_tensor(tokens, device=device))      # the prompts, once
    for step in range(max_new_tokens):
        new = sample_next(logits[:, -1], rng, temperature, top_k, top_p, repetition_penalty, tokens)
        if stop_id is not None:                         # a stopped row only pads
            new = np.where(stopped, pad_id, new)
            stopped |= new == stop_id
        tokens = np.concatenate([tokens, new[:, None]], axis=1)
        if stopped.all() or step == max_new_tokens - 1:
            break                                       # no logits needed any more
        if use_cache:                                   # only the new tokens: (B, 1)
            logits, cache = model(torch.as_tensor(new[:, None], device=device), cache)
        else:                                           # the whole sequence again: (B, P + t)
            logits, _ = model(torch.as_tensor(tokens, device=device))
    return tokens
