"""Chapter 3's part 6 (predict, then measure, the variance of the attention scores), in NumPy:
the hidden cases, the formula, the statistics of an honest measurement and the checks. ch03
re-exports it, so the cells and the framework modules call it as ch03's."""
import numpy as np

from . import reference
from .reference import one_number

# predicted_score_variance on hidden parameters: (d_k, sigma, scaled). No constant matches them
# all, and no formula that drops sigma, squares sigma once, or divides by d_k the wrong way.
SCORE_VARIANCE_CASES = (
    (20, 1.7, False), (20, 1.7, True), (1, 0.5, False), (3, 1.0, True),
    (64, 1.0, False), (512, 0.3, True), (7, 2.5, False), (48, 3.0, True),
)
# measured_score_variance: (which attention it is given, d_k, sigma); the sizes of the sample.
SCORE_MEASUREMENT_CASES = (("scaled", 32, 1.5), ("without the scaling", 12, 0.8))
MEASUREMENT_QUERIES, MEASUREMENT_KEYS = 2000, 16
MEASUREMENT_BAND = 5.0                  # standard errors either side of the expected value


# ---- part 6: predict, then measure, the variance of the scores


def score_variance(d_k, sigma, scaled):
    """The variance of q·k (scaled False) or of q·k / sqrt(d_k) (scaled True) for q and k with
    independent N(0, sigma^2) entries: d_k terms q_m k_m of variance sigma^4 each."""
    return sigma ** 4 if scaled else d_k * sigma ** 4


def score_variance_prediction(predict, d_k, sigma, scaled):
    """predicted_score_variance(d_k, sigma, scaled) against score_variance (relative 1e-6), for
    a case of SCORE_VARIANCE_CASES."""
    what = f"predicted_score_variance(d_k={d_k}, sigma={sigma}, scaled={scaled})"
    predicted = one_number(reference.quietly(predict, d_k, sigma, scaled), what)
    score = "q·k / sqrt(d_k)" if scaled else "q·k"
    expected = score_variance(d_k, sigma, scaled)
    assert abs(predicted - expected) <= 1e-6 * expected, (
        f"{what} returned {predicted:.6g}, which is not the variance of {score}: work out "
        "the variance of one term q_m k_m, then of the sum of d_k of them (a variance, the "
        "square of a spread)" + (", then what dividing by sqrt(d_k) does to it" if scaled
                                 else ""))
    return what, predicted


def measurement_standard_error(d_k, sigma, scaled, n_queries=MEASUREMENT_QUERIES,
                               n_keys=MEASUREMENT_KEYS):
    """The standard error of measured_score_variance's estimate: the mean over n_queries of
    the variance (ddof=1) of n_keys scores that share one query. Given the query, the scores
    are independent N(0, c), c = V |q|^2 / (d_k sigma^2) with V the expected variance
    (score_variance), and |q|^2 / sigma^2 is chi-squared with d_k degrees of freedom:
    Var(c) = 2 V^2 / d_k and E[c^2] = V^2 (1 + 2 / d_k). A sample variance of n_keys normal
    draws has variance 2 c^2 / (n_keys - 1). So one query's estimate has variance
    V^2 (2 / d_k + 2 (1 + 2 / d_k) / (n_keys - 1)), and the mean over the queries 1 / n_queries
    of it (400 repeats of the measurement cases agree with this within their own noise)."""
    expected = score_variance(d_k, sigma, scaled)
    per_query = 2 / d_k + 2 * (1 + 2 / d_k) / (n_keys - 1)
    return expected * np.sqrt(per_query / n_queries)


def measurement_range(d_k, sigma, scaled):
    """The accepted measurements: MEASUREMENT_BAND standard errors either side of the expected
    variance. The mean of 2000 queries' estimates is close to normal, so an honest measurement
    falls outside with a probability under 1e-6, whatever the seed or the processor."""
    expected = score_variance(d_k, sigma, scaled)
    half_width = MEASUREMENT_BAND * measurement_standard_error(d_k, sigma, scaled)
    return float(expected - half_width), float(expected + half_width)


def attention_given(reference_attention, d_k, scaled):
    """(attention, calls): the reference attention (q, k, v, mask=None) as the student's
    measurement gets it, with q multiplied by sqrt(d_k) where scaled is False (its scores are
    then q·k), and the list of the (q shape, k shape) of every call."""
    calls = []
    factor = 1.0 if scaled else float(np.sqrt(d_k))

    def attention(q, k, v, mask=None):
        calls.append((tuple(q.shape), tuple(k.shape)))
        return reference_attention(q * factor, k, v, mask)
    return attention, calls


def score_variance_measurement(measure, reference_attention, which, d_k, sigma):
    """measured_score_variance(attention, d_k, sigma, n_queries, n_keys), given the reference
    attention (scaled) or the same without the division by sqrt(d_k), for a case of
    SCORE_MEASUREMENT_CASES: it must call that attention on q (n_queries, 1, d_k) and k
    (n_queries, n_keys, d_k), and return a number within measurement_range. Observed with that
    range (outside the kernel the range comes from the reference run)."""
    scaled = which == "scaled"
    attention, calls = attention_given(reference_attention, d_k, scaled)
    what = f"measured_score_variance with d_k={d_k}, sigma={sigma} and attention {which}"
    n_queries, n_keys = MEASUREMENT_QUERIES, MEASUREMENT_KEYS
    result = reference.quietly(measure, attention, d_k, sigma, n_queries, n_keys)
    measured = one_number(result, what)
    assert calls, (
        f"{what}: it never called the attention it was given; measure with that function")
    shapes = ((n_queries, 1, d_k), (n_queries, n_keys, d_k))                 # q, k
    wrong = [call for call in calls if call != shapes]
    assert not wrong, (
        f"{what}: expected the attention to get q of shape {shapes[0]} and k of shape "
        f"{shapes[1]}, got {wrong[0][0]} and {wrong[0][1]}")
    low, high = measurement_range(d_k, sigma, scaled)
    assert low <= measured <= high, (
        f"{what}: measured {measured:.4g}, more than {MEASUREMENT_BAND:g} standard errors "
        "from what the scores' variance must be: check the inputs' spread, and that you "
        "measure the variance of each query's log-weights over the keys, averaged over the "
        "queries")
    return what, measured, (low, high)
