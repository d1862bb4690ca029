# %% changed_fraction
def predicted_changed_fraction(mask_rate, vocab_size, num_special):
    """The expected share of the ordinary tokens whose id mask_tokens changes (80/10/10 rule), for a
    vocabulary of vocab_size ids of which num_special are special ([MASK] among them). A number."""
    return 0.135                                         # 15% chosen, 90% of them changed


def measured_changed_fraction(mask, vocab_size, mask_id, special_ids, mask_rate, n_rows, length, rng):
    """The share of the positions whose id mask(...) changes, measured once on token_ids
    (n_rows, length) of ordinary ids drawn uniformly with rng. A number."""
    ordinary = np.setdiff1d(np.arange(vocab_size), special_ids)
    token_ids = rng.choice(ordinary, size=(n_rows, length))            # (n_rows, length)
    inputs, _ = mask(token_ids, vocab_size, mask_id, special_ids, rng, mask_rate)
    return float(np.mean(np.asarray(inputs) != token_ids))
