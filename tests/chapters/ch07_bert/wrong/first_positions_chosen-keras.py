# %% masking
def mask_tokens(token_ids, vocab_size, mask_id, special_ids, rng, mask_rate=0.15, split=(0.8, 0.1, 0.1)):
    """Masking with a fixed number of positions per row. In each row, exactly round(mask_rate * n) of
    its n ordinary tokens (id not in special_ids) are chosen, uniformly without replacement; a chosen
    token becomes mask_id, a random ordinary token or stays, with the probabilities of split.
    Returns (inputs, labels), both (B, L): labels hold the original id where a token was chosen,
    IGNORE_INDEX elsewhere. Every random number comes from rng, a np.random.Generator."""
    ids = np.asarray(token_ids)
    real = ~np.isin(ids, special_ids)                                  # (B, L): may be chosen
    keys = np.where(real, np.arange(ids.shape[1]), np.inf)             # the first ordinary ones
    rank = np.argsort(np.argsort(keys, axis=1), axis=1)                # 0 for a row's smallest key
    quota = np.rint(mask_rate * real.sum(axis=1, keepdims=True))       # (B, 1): round(rate * n)
    chosen = real & (rank < quota)
    labels = np.where(chosen, ids, IGNORE_INDEX)
    to_mask, to_random, _ = split
    roll = rng.random(ids.shape)                                       # one draw per token
    pool = np.setdiff1d(np.arange(vocab_size), special_ids)           # the ordinary ids
    drawn = rng.choice(pool, size=ids.shape)
    inputs = np.where(chosen & (roll < to_mask), mask_id, ids)
    inputs = np.where(chosen & (roll >= to_mask) & (roll < to_mask + to_random), drawn, inputs)
    return inputs, labels
