# %% generate
@torch.no_grad()
def generate(model, prompt_ids, max_new_tokens, temperature=1.0, top_k=None, top_p=None,
             use_cache=True, seed=0):
    """Continue prompt_ids (B, P) by max_new_tokens tokens: a NumPy array (B, P + max_new_tokens).
    With use_cache, the prompt runs once and then each new token alone, with the cache; without,
    the whole sequence runs again for every token."""
    model.eval()
    device = next(model.parameters()).device
    rng = np.random.default_rng(seed)
    tokens = np.asarray(prompt_ids)                                    # (B, P)
    if tokens.shape[1] + max_new_tokens > model.max_len:
        raise ValueError(f"{tokens.shape[1]} + {max_new_tokens} tokens are more than max_len={model.max_len}")
    logits, cache = model(torch.as_tensor(tokens, device=device))      # the prompts, once
    for _ in range(max_new_tokens):
        new = sample_next(logits[:, -1], rng, temperature, top_k, top_p)      # (B,)
        tokens = np.concatenate([tokens, new[:, None]], axis=1)
        if use_cache:                                   # only the new tokens: (B, 1)
            logits, cache = model(torch.as_tensor(tokens, device=device))
        else:                                           # the whole sequence again: (B, P + t)
            logits, _ = model(torch.as_tensor(tokens, device=device))
    return tokens
