# %% masking
def mask_tokens(token_ids, vocab_size, mask_id, special_ids, rng, mask_rate=0.15):
    """BERT's masking. Every token whose id is not in special_ids is chosen with probability
    mask_rate; a chosen token becomes mask_id (80%), a random ordinary token (10%) or stays (10%).
    Returns (inputs, labels), both (B, L): labels hold the original id where a token was chosen,
    IGNORE_INDEX elsewhere. Every random number comes from rng, a np.random.Generator."""
    token_ids = np.asarray(token_ids)
    can_choose = ~np.isin(token_ids, special_ids)                      # (B, L)
    chosen = can_choose & (rng.random(token_ids.shape) < mask_rate)
    labels = np.where(chosen, token_ids, IGNORE_INDEX)
    action = rng.random(token_ids.shape)                               # which of 80/10/10
    ordinary = np.setdiff1d(np.arange(vocab_size), special_ids)       # ids to draw from
    random_ids = rng.choice(ordinary, size=token_ids.shape)
    inputs = np.where(chosen & (action < 0.8), random_ids, token_ids)
    inputs = np.where(chosen & (action >= 0.8) & (action < 0.9), mask_id, inputs)
    return inputs, labels
