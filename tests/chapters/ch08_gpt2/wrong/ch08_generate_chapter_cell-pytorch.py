# %% generate
@torch.no_grad()
def generate(model, prompt_ids, max_new_tokens, temperature=1.0, top_k=None, top_p=None,
             use_cache=True, seed=0):
    """Continue prompt_ids (B, P) by max_new_tokens tokens: NumPy (B, P + max_new_tokens).
    With use_cache, the prompt runs once and each new token alone after it; without, the
    whole sequence runs again for every token. The two give the same tokens."""
    model.eval()
    device = next(model.parameters()).device
    rng = np.random.default_rng(seed)
    tokens = np.asarray(prompt_ids)
    if tokens.shape[1] + max_new_tokens > model.max_len:
        raise ValueError(f"{tokens.shape[1]} + {max_new_tokens} tokens: over max_len")
    logits, cache = model(torch.as_tensor(tokens, device=device))
    for _ in range(max_new_tokens):
        next_token = sample_next(logits[:, -1], rng, temperature, top_k, top_p)  # (B,)
        tokens = np.concatenate([tokens, next_token[:, None]], axis=1)
        if use_cache:                                  # the new token only: (B, 1)
            logits, cache = model(torch.as_tensor(next_token[:, None], device=device), cache)
        else:                                          # everything again: (B, P + t)
            logits, _ = model(torch.as_tensor(tokens, device=device))
    return tokens
