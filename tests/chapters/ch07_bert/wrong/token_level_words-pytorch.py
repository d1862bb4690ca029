# %% whole_words
def mask_whole_words(token_ids, vocab_size, mask_id, special_ids, continuation_ids, rng, mask_rate=0.15):
    """Whole-word masking. A word (an ordinary token that is not a continuation piece, with the pieces that
    follow it; a piece after no word is a word of its own) is chosen with probability mask_rate, all its
    tokens together; each token of a chosen word becomes mask_id (80%), a random ordinary token (10%) or
    stays (10%), on its own draw. Returns (inputs, labels), both (B, L), as mask_tokens does."""
    token_ids = np.asarray(token_ids)
    plain = ~np.isin(token_ids, special_ids)                           # (B, L)
    follows_plain = np.pad(plain[:, :-1], ((0, 0), (1, 0)))            # is the token before ordinary?
    starts = plain                                                     # every token on its own
    start_of = np.where(starts, np.arange(token_ids.shape[1]), 0)
    start_of = np.maximum.accumulate(start_of, axis=1)                 # (B, L): where each word begins
    word_drawn = starts & (rng.random(token_ids.shape) < mask_rate)   # one draw per word, at its start
    chosen = plain & np.take_along_axis(word_drawn, start_of, axis=1)
    labels = np.where(chosen, token_ids, IGNORE_INDEX)
    roll = rng.random(token_ids.shape)                                 # 80/10/10, token by token
    pool = np.setdiff1d(np.arange(vocab_size), special_ids)
    replacement = rng.choice(pool, size=token_ids.shape)
    inputs = np.where(chosen & (roll < 0.8), mask_id, token_ids)
    inputs = np.where(chosen & (roll >= 0.8) & (roll < 0.9), replacement, inputs)
    return inputs, labels
