# %% generate
def generate(model, prompt_ids, max_new_tokens, temperature=1.0, top_k=None, top_p=None,
             use_cache=True, seed=0, repetition_penalty=1.0, stop_id=None, pad_id=0):
    """Continue prompt_ids (B, P) by at most max_new_tokens tokens: a NumPy array (B, P + n). A row
    that has drawn stop_id gets pad_id after it; generation ends when every row has stopped. With
    use_cache, the prompt runs once and then each new token alone, with the cache; without, the
    whole sequence runs again for every token; no call after the last token."""
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
            logits, cache = model(tokens)
        else:                                           # the whole sequence again: (B, P + t)
            logits, _ = model(tokens)
    return tokens
