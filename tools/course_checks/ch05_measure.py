"""Chapter 5's part 6 (predict, then measure, how far apart two sinusoidal encodings are), in
NumPy: the hidden cases, the formula, the tables the measurement is given, and the checks.

The chapter shows PE(p) . PE(p + k) = sum_i cos(k omega_i); the part asks for the squared distance
|PE(p + k) - PE(p)|^2 = |PE(p)|^2 + |PE(p + k)|^2 - 2 PE(p) . PE(p + k) = sum_i 2 (1 - cos(k omega_i))
(each pair has norm 1), for an even d_model, which depends on k and d_model and not on p.
"""
import numpy as np

from . import ch05, reference
from .reference import one_number   # the number a student's function returned, as a float

# predicted_encoding_distance on hidden (k, d_model), d_model even: k = 0 (the distance is 0, the
# dot product is d_model / 2), one pair, long offsets, wide tables. No constant matches them all,
# nor the chapter's dot product, nor d_model - sum cos, nor a sum over d_model frequencies.
DISTANCE_CASES = ((0, 24), (1, 2), (3, 64), (10, 16), (100, 512), (7, 6), (250, 128), (40, 2))
# measured_encoding_distance: (which table it is given, k, d_model, positions). On a learned
# (random) table the distance depends on p: a measurement that computes the formula fails there.
SINUSOIDAL, LEARNED = "the sinusoidal table", "a learned table"
MEASUREMENT_CASES = ((SINUSOIDAL, 5, 32, (0, 17, 400)), (LEARNED, 3, 8, (0, 1, 9, 30)),
                     (SINUSOIDAL, 64, 6, (3, 1000)), (LEARNED, 1, 4, (5,)))
LEARNED_ROWS, LEARNED_SEED = 64, 71        # the learned table: (64, d_model), N(0, 1)


def encoding_distance(k, d_model):
    """|PE(p + k) - PE(p)|^2 for an even d_model: sum over the pairs of 2 (1 - cos(k omega_i)),
    written as 4 sin^2(k omega_i / 2) (no cancellation for small k)."""
    omega = np.power(10000.0, -np.arange(0, d_model, 2) / d_model)       # (d_model / 2,)
    return float(np.sum(4 * np.sin(k * omega / 2) ** 2))


def distance_prediction(predicted_encoding_distance, k, d_model):
    """predicted_encoding_distance(k, d_model) (a number, in either framework) against
    encoding_distance, within 1e-4 relative (float32 arithmetic passes). Returns the observation."""
    what = f"predicted_encoding_distance(k={k}, d_model={d_model})"
    predicted = one_number(reference.quietly(predicted_encoding_distance, k, d_model), what)
    expected = encoding_distance(k, d_model)
    assert abs(predicted - expected) <= 1e-4 * max(1.0, expected), (
        f"{what} returned {predicted:.6g}, which is not |PE(p + k) - PE(p)|^2: expand the square "
        "into two norms and the chapter's dot product PE(p) . PE(p + k), and work out the norm of "
        "one pair (sin, cos) first")
    return what, predicted


def table(which, n_pos, d_model):
    """The float32 table (n_pos, d_model) that the measurement is given: the sinusoids, or the
    first n_pos rows of a fixed random (learned) table."""
    if which == SINUSOIDAL:
        return ch05.sinusoidal_table(n_pos, d_model).astype("float32")
    assert n_pos <= LEARNED_ROWS, (
        f"the learned table given to measured_encoding_distance has {LEARNED_ROWS} rows; asked for "
        f"{n_pos}: a table of max(positions) + k + 1 rows is enough")
    rows = np.random.default_rng(LEARNED_SEED).normal(size=(LEARNED_ROWS, d_model))
    return rows[:n_pos].astype("float32")


def recording_encoding(which, to_tensor):
    """(encoding, calls): the table function that the measurement is given, encoding(n_pos, width)
    -> to_tensor(table(which, n_pos, width)), and the list of the (n_pos, width) it was called with."""
    calls = []

    def encoding(n_pos, width):
        calls.append((int(n_pos), int(width)))
        return to_tensor(table(which, int(n_pos), int(width)))
    return encoding, calls


def distances(rows, k, positions):
    """|rows[p + k] - rows[p]|^2 for each p of positions, in float64."""
    rows = np.asarray(rows, dtype=np.float64)
    return np.array([np.sum((rows[p + k] - rows[p]) ** 2) for p in positions])


def assert_measurement(result, calls, which, k, d_model, positions):
    """measured_encoding_distance's result (as given), and the (n_pos, d_model) of every call of the
    table function it was given: it asked for tables d_model wide, and returned one number per
    position, |T[p + k] - T[p]|^2, within 1e-4 relative. Returns the observation (the numbers)."""
    what = (f"measured_encoding_distance(encoding, k={k}, d_model={d_model}, "
            f"positions={list(positions)}), given {which}")
    assert calls, f"{what}: it never called the encoding it was given; measure that table"
    assert all(width == d_model for _, width in calls), (
        f"{what}: it asked the encoding for tables of widths {[w for _, w in calls]}, not {d_model}")
    try:
        measured = np.asarray(result, dtype=np.float64)
    except (TypeError, ValueError, RuntimeError):
        measured = np.zeros(0)
    assert measured.shape == (len(positions),), (
        f"{what} should return one number per position, {len(positions)} in all, got "
        f"{type(result).__name__} of shape {measured.shape}")
    rows = table(which, max(n for n, _ in calls), d_model)
    expected = distances(rows, k, positions)
    error = np.abs(measured - expected).max()
    assert error <= 1e-4 * max(1.0, np.abs(expected).max()), (
        f"{what} returned {np.round(measured, 4).tolist()}, not the squared distances "
        f"|T[p + k] - T[p]|^2 of that table's rows ({np.round(expected, 4).tolist()}): measure "
        "the table you are given, row p + k against row p, for each position p")
    return what, measured.tolist()
