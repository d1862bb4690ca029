# %% whole_words
def mask_whole_words(token_ids, vocab_size, mask_id, special_ids, continuation_ids, rng, mask_rate=0.15):
    """Whole-word masking. A word (an ordinary token that is not a continuation piece, with the pieces that
    follow it; a piece after no word is a word of its own) is chosen with probability mask_rate, all its
    tokens together; each token of a chosen word becomes mask_id (80%), a random ordinary token (10%) or
    stays (10%), on its own draw. Returns (inputs, labels), both (B, L), as mask_tokens does."""
    ids = np.array(token_ids)                                          # a copy: token_ids stays as it was
    special = np.isin(ids, special_ids)                                # (B, L)
    after_word = np.zeros_like(special)
    after_word[:, 1:] = ~special[:, :-1]                               # the token before is ordinary
    piece = np.isin(ids, continuation_ids)                             # a "##" piece
    starts = ~special & ~(piece & after_word)                          # where a word begins
    begin = np.maximum.accumulate(np.where(starts, np.arange(ids.shape[1]), 0), axis=1)   # (B, L)
    picked = starts & (rng.random(ids.shape) < mask_rate)              # one draw per word, at its start
    chosen = ~special & np.take_along_axis(picked, begin, axis=1)      # a word's tokens share its draw
    labels = np.where(chosen, ids, IGNORE_INDEX)
    action = rng.choice(3, size=ids.shape, p=[0.8, 0.1, 0.1])
    action = np.take_along_axis(action, begin, axis=1)                 # [MASK], random, kept: per word
    pool = np.flatnonzero(~np.isin(np.arange(vocab_size), special_ids))   # the ordinary ids
    swap = chosen & (action == 1)
    ids[chosen & (action == 0)] = mask_id
    ids[swap] = rng.choice(pool, size=int(swap.sum()))
    return ids, labels
