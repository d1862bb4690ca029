# %% masking
def mask_tokens(token_ids, vocab_size, mask_id, special_ids, rng, mask_rate=0.15):
    """BERT's masking for masked language modelling (Devlin et al. 2019).

    Every token that is not special (padding, [CLS], [SEP], ...) is chosen with
    probability mask_rate; a chosen token is replaced by [MASK] 80% of the time,
    by a random ordinary token 10% of the time, and left unchanged 10% of the time.

    token_ids: (B, L) integer array; special_ids: the ids never chosen (and never
    drawn as random replacements); rng: a np.random.Generator.
    Returns (inputs, labels), both (B, L): the ids the model reads, and the original
    id at every chosen position, IGNORE_INDEX elsewhere.
    """
    token_ids = np.asarray(token_ids)
    can_choose = ~np.isin(token_ids, special_ids)                      # (B, L)
    chosen = can_choose & (rng.random(token_ids.shape) < mask_rate)
    labels = np.where(chosen, token_ids, IGNORE_INDEX)
    action = rng.random(token_ids.shape)                               # which of 80/10/10
    ordinary = np.setdiff1d(np.arange(vocab_size), special_ids)       # ids to draw from
    random_ids = rng.choice(ordinary, size=token_ids.shape)
    inputs = np.where(chosen & (action < 0.8), mask_id, token_ids)
    inputs = np.where(chosen & (action >= 0.8) & (action < 0.9), random_ids, inputs)
    return inputs, labels
