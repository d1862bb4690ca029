# %% changed_fraction
def predicted_changed_fraction(mask_rate, vocab_size, num_special):
    """The expected share of the ordinary tokens whose id mask_tokens changes (80/10/10 rule), for a
    vocabulary of vocab_size ids of which num_special are special ([MASK] among them). A number."""
    draws_itself = 1 / (vocab_size - num_special)        # a random ordinary id equal to the token
    return mask_rate * (0.8 + 0.1 * (1 - draws_itself))  # [MASK] always changes it, "unchanged" never


def measured_changed_fraction(mask, vocab_size, mask_id, special_ids, mask_rate, n_rows, length, rng):
    """The share of the positions whose id mask(...) changes, measured once on token_ids
    (n_rows, length) of ordinary ids drawn uniformly with rng. A number."""
    ordinary = np.setdiff1d(np.arange(vocab_size), special_ids)
    token_ids = rng.choice(ordinary, size=(n_rows, length))            # (n_rows, length)
    _, labels = mask(token_ids, vocab_size, mask_id, special_ids, rng, mask_rate)
    return float(np.mean(np.asarray(labels) != IGNORE_INDEX))        # the chosen positions
