"""Chapter 7's part 2 (predict, then measure, how many inputs BERT's masking changes), NumPy only:
the hidden cases, the formula, the statistics of an honest measurement and the checks. The same
in both frameworks (the masking is NumPy in both notebooks)."""
import warnings

import numpy as np

from .reference import one_number   # the number a student's function returned, as a float

IGNORE_INDEX = -100

# predicted_changed_fraction on hidden parameters: (mask_rate, vocab_size, num_special). No constant
# matches them all, nor a formula that forgets that a random replacement can draw the token it
# replaces (0.9 mask_rate), that draws it from the whole vocabulary, or that counts the chosen tokens.
CHANGED_FRACTION_CASES = (
    (0.15, 30522, 5), (0.15, 7, 5), (0.5, 6, 4), (1.0, 12, 2), (0.3, 105, 5),
    (0.0, 40, 5), (0.4, 6, 5), (0.8, 3, 1),
)
# measured_changed_fraction, given the reference masking: (mask_rate, vocab_size, special ids,
# [MASK] id); the size of the sample.
MEASUREMENT_CASES = (
    (0.5, 7, (0, 1, 2, 3, 4), 4),                      # two ordinary ids: a replacement is often the same
    (0.15, 300, (0, 100, 101, 102, 103), 103),         # MiniLM's special ids, in a vocabulary of 300
)
MEASUREMENT_ROWS, MEASUREMENT_LENGTH = 2000, 40   # mask_rate * 40 is whole: the share chosen is mask_rate
MEASUREMENT_BAND = 5.0                  # standard errors either side of the expected fraction


def changed_fraction(mask_rate, vocab_size, num_special):
    """The probability that mask_tokens changes an ordinary token, in rows where mask_rate times
    the number of ordinary tokens is whole (so that a share mask_rate of them is chosen): it is chosen (mask_rate), then
    becomes [MASK] (0.8, a special id: always a change) or a random ordinary id (0.1), which is
    the token itself with probability 1 / (vocab_size - num_special)."""
    ordinary = vocab_size - num_special
    return mask_rate * (0.8 + 0.1 * (1 - 1 / ordinary))


def quietly(function, *args):
    """function(*args) with warnings ignored (a warning is no failure)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args)


def changed_fraction_prediction(predict, mask_rate, vocab_size, num_special):
    """predicted_changed_fraction(mask_rate, vocab_size, num_special) against changed_fraction
    (relative 1e-6), for a case of CHANGED_FRACTION_CASES. 1 observation."""
    what = (f"predicted_changed_fraction(mask_rate={mask_rate}, vocab_size={vocab_size}, "
            f"num_special={num_special})")
    predicted = one_number(quietly(predict, mask_rate, vocab_size, num_special), what)
    expected = changed_fraction(mask_rate, vocab_size, num_special)
    assert abs(predicted - expected) <= 1e-6 * expected + 1e-12, (
        f"{what} returned {predicted:.6g}, which is not the share of the ordinary tokens whose id "
        "changes: a token changes when it is chosen and becomes [MASK], or becomes a random "
        "ordinary id other than itself (how many ordinary ids are there to draw from?)")
    return what, predicted


def measurement_range(mask_rate, vocab_size, num_special, positions):
    """The accepted measurements: MEASUREMENT_BAND standard errors either side of the expected
    fraction q. A row of n ordinary tokens has exactly mask_rate * n chosen, and each chosen token
    changes independently of the others with probability c = q / mask_rate (whatever its id: the
    replacement is drawn uniformly from the ordinary ids), so the number changed is a binomial
    count over the chosen positions, of variance positions * mask_rate * c (1 - c), no more than
    positions * q (1 - q), the variance of a binomial count over all the positions that we take
    (a little wider than needed); with 80,000 positions it is close to normal, and an honest
    measurement falls outside with a probability under 1e-6, whatever the seed."""
    expected = changed_fraction(mask_rate, vocab_size, num_special)
    half_width = MEASUREMENT_BAND * np.sqrt(expected * (1 - expected) / positions)
    return float(expected - half_width), float(expected + half_width)


def masking_given(special_ids):
    """(masking, calls): part 1's masking (a fixed number per row) with mask_tokens' signature, as the student's measurement
    gets it, and the list of (shape, only ordinary ids) of the token_ids of every call."""
    calls = []

    def masking(token_ids, vocab_size, mask_id, special_ids_given, rng, mask_rate=0.15, split=(0.8, 0.1, 0.1)):
        ids = np.array(token_ids)
        calls.append((tuple(ids.shape), bool(not np.isin(ids, list(special_ids)).any())))
        pool = np.array([t for t in range(vocab_size) if t not in set(special_ids_given)])
        free = ~np.isin(ids, list(special_ids_given))
        order = np.argsort(np.where(free, rng.random(ids.shape), 2.0), axis=1)
        places = np.empty_like(order)
        np.put_along_axis(places, order, np.arange(ids.shape[1])[None, :].repeat(len(ids), 0), axis=1)
        wanted = np.array([round(mask_rate * int(n)) for n in free.sum(axis=1)])[:, None]
        picked = free & (places < wanted)
        roll = rng.random(ids.shape)
        swap = pool[rng.integers(0, len(pool), size=ids.shape)]
        result = ids.copy()
        result[picked & (roll < split[0])] = mask_id
        use_swap = picked & (roll >= split[0]) & (roll < split[0] + split[1])
        result[use_swap] = swap[use_swap]
        return result, np.where(picked, ids, IGNORE_INDEX)
    return masking, calls


def changed_fraction_measurement(measure, mask_rate, vocab_size, special_ids, mask_id):
    """measured_changed_fraction(mask, vocab_size, mask_id, special_ids, mask_rate, n_rows,
    length, rng), given the reference masking, for a case of MEASUREMENT_CASES: it must mask
    rows (n_rows, length) of ordinary ids with that function and return a number within
    measurement_range. Observed with that range (outside the kernel the range comes from the
    reference run). 1 observation."""
    masking, calls = masking_given(special_ids)
    what = (f"measured_changed_fraction with mask_rate={mask_rate}, a vocabulary of {vocab_size} "
            f"and special ids {list(special_ids)}")
    rows, length = MEASUREMENT_ROWS, MEASUREMENT_LENGTH
    result = quietly(measure, masking, vocab_size, mask_id, list(special_ids), mask_rate, rows, length,
                     np.random.default_rng(141))
    measured = one_number(result, what)
    assert calls, f"{what}: it never called the masking it was given; measure with that function"
    wrong = [call for call in calls if call != ((rows, length), True)]
    assert not wrong, (
        f"{what}: expected the masking to get token_ids of shape {(rows, length)}, ordinary ids only; "
        f"got shape {wrong[0][0]}" + ("" if wrong[0][1] else " with special ids among them"))
    low, high = measurement_range(mask_rate, vocab_size, len(special_ids), rows * length)
    assert low <= measured <= high, (
        f"{what}: measured {measured:.4g}, more than {MEASUREMENT_BAND:g} standard errors from what "
        "the share of changed tokens must be: compare the inputs the masking returns with the ids "
        "you gave it, position by position (a chosen token that stayed is not a change)")
    return what, measured, (low, high)


def visible_measure(predictions, measured, calls):
    """What the visible test of part 2 checked (its own variables), as observations."""
    return [("predictions one number each", [int(np.ndim(p)) for p in predictions]),
            ("predictions at mask_rate 0 and with one ordinary id", [float(p) for p in predictions[1:]]),
            ("stand-in measurement", float(measured)),
            ("stand-in calls", list(calls))]
