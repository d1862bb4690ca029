"""Chapter 02's parts 5 (Luong's local-p attention, the variation) and 6 (predict, then measure,
the entropy of the attention weights), in NumPy float64: the hidden cases, the references and the
asserts that the PyTorch and the Keras checks share. Framework-free."""
import numpy as np

from . import ch02, reference
from .reference import one_number   # the number a student's function returned, as a float

# local_attention with reference parts 1-3 swapped in. Rows much shorter than S among them (a
# centre computed from the padded length S would put their window in the padding), a row of
# length 1, a window wider than every row (D = 6), and B = 1. The weights of W_p and v_p are drawn
# with a spread of 1.5, so that the predicted positions spread over each row.
LOCAL_CASES = (                 # (lengths of the rows, S, H, K, A, A_p, D, seed)
    ([2, 9, 1, 4], 9, 3, 4, 5, 3, 1, 71),
    ([5, 3, 12], 12, 4, 2, 3, 4, 2, 72),
    ([7], 7, 2, 3, 4, 2, 3, 73),
    ([3, 6, 2], 8, 5, 3, 2, 3, 6, 74),
)
LOCAL_SPREAD = 1.5

# predicted_entropy on hidden parameters: (n_real, S, delta). No constant matches them all, and
# neither does log S, log n_real alone, nor a formula that forgets the padding or the one sharper
# position.
ENTROPY_CASES = (
    (4, 6, 0.0), (1, 5, 3.0), (7, 12, 2.0), (10, 10, -1.5),
    (3, 8, 6.0), (2, 2, 0.7), (16, 20, 1.0),
)
# measured_entropy, given the reference masked_softmax: (n_real, S, delta).
ENTROPY_MEASUREMENT_CASES = ((5, 9, 0.0), (6, 6, 2.5), (1, 4, -2.0), (3, 7, 1.2))
ENTROPY_TOLERANCE = 1e-4        # float32 weights: the entropy is good to about 1e-6


# ---- part 5: Luong's local-p attention


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def local_p_attention(query, keys, mask, w_q, w_k, b, w_v, w_p, v_p, D):
    """Local-p attention in float64: query (B, H), keys (B, S, K), mask (B, S); additive scores with
    w_q (H, A), w_k (K, A), b (A,), w_v (A,); the aligned position from w_p (H, A_p), v_p (A_p,);
    D the window's half-width. Returns (context (B, K), weights (B, S), positions (B,))."""
    length = mask.sum(axis=-1)                                    # (B,) real tokens per row
    centre = (length - 1) * sigmoid(np.tanh(query @ w_p) @ v_p)   # (B,) in [0, length - 1]
    offset = np.arange(mask.shape[1])[None, :] - centre[:, None]  # (B, S): s - p_t
    inside = mask & (np.abs(offset) <= D)                         # real and in the window
    scores = ch02.additive_scores(query, keys, w_q, w_k, b, w_v)
    align = ch02.softmax_over_real_positions(scores, inside)
    weights = align * np.exp(-offset ** 2 / (2 * (D / 2) ** 2))   # no renormalisation
    return ch02.weighted_sum(weights, keys), weights, centre


def local_inputs(lengths, S, H, K, seed):
    """The rng (for the layers' weights, drawn next), query (B, H) and keys (B, S, K) in float32,
    and the padding mask (B, S) of a LOCAL_CASES case."""
    rng = np.random.default_rng(seed)
    query = rng.normal(size=(len(lengths), H)).astype("float32")
    keys = rng.normal(size=(len(lengths), S, K)).astype("float32")
    return rng, query, keys, ch02.padding_mask(lengths, S)


def local_case(case, additive_layers, position_layers):
    """query (B, H), keys (B, S, K), the mask (B, S) and the layers (W, U, v, W_p, v_p) of a
    LOCAL_CASES case, made by the framework's additive_layers(rng, H, K, A) and
    position_layers(rng, H, A_p) with weights drawn from the case's rng."""
    lengths, S, H, K, A, A_p, D, seed = case
    rng, query, keys, mask = local_inputs(lengths, S, H, K, seed)
    return query, keys, mask, (*additive_layers(rng, H, K, A), *position_layers(rng, H, A_p))


def describe(lengths, S, D):
    return f"local_attention with row lengths {list(lengths)}, S={S}, D={D}"


def local_verdict(result, to_array, expected, mask, aspect, lengths, S, D):
    """Check the aspect ("positions", "weights" or "context") of local_attention's result against
    expected = local_p_attention(...) (context, weights, positions); to_array turns one of the
    student's tensors into a NumPy array. Returns the (name, value) that the test observes."""
    what = describe(lengths, S, D)
    context, weights, centre = expected
    check_local_shapes(result, len(lengths), S, context.shape[1], what)
    got = [np.asarray(to_array(x), dtype="float64") for x in result]
    if aspect == "positions":
        check_positions(got[2], centre, what)
    elif aspect == "weights":
        check_local_weights(got[1], weights, mask, centre, D, what)
    else:
        check_local_context(got[0], context, what)
    return f"{what}: {aspect}", got[{"positions": 2, "weights": 1, "context": 0}[aspect]]


def check_local_shapes(result, B, S, K, what):
    """Assert that local_attention returned (context (B, K), weights (B, S), positions (B,))."""
    assert isinstance(result, tuple) and len(result) == 3, (
        f"{what}: local_attention should return (context, weights, positions)")
    shapes = [tuple(np.shape(x)) for x in result]
    assert shapes == [(B, K), (B, S), (B,)], (
        f"{what}: expected shapes {[(B, K), (B, S), (B,)]} for (context, weights, positions), "
        f"got {shapes}")


def check_positions(got, expected, what):
    """The aligned positions p_t (B,) against the reference, within 1e-4."""
    assert np.isfinite(got).all(), f"{what}: the positions p_t are not all finite"
    err = float(np.abs(got - expected).max())
    assert err < 1e-4, (
        f"{what}: the positions p_t differ from (L - 1) * sigmoid(v_p^T tanh(W_p s_{{t-1}})) by up "
        f"to {err:.3g}, L being each row's number of real tokens (not the padded length S): got "
        f"{np.round(got, 4).tolist()}, expected {np.round(expected, 4).tolist()}")


def check_local_weights(got, expected, mask, centre, D, what):
    """The weights (B, S): finite, exactly 0 on padding and outside the window, and the windowed
    softmax times the Gaussian (sigma = D / 2), not renormalised, within 1e-5."""
    assert np.isfinite(got).all(), (
        f"{what}: the weights are not all finite: a window with no real position in it gives a "
        "softmax of 0 / 0")
    outside = ~mask | (np.abs(np.arange(mask.shape[1])[None, :] - centre[:, None]) > D)
    leak = float(np.abs(got[outside]).max()) if outside.any() else 0.0
    assert leak == 0.0, (
        f"{what}: positions that are padding or outside the window [p_t - D, p_t + D] must get "
        f"weight exactly 0, got up to {leak:.3g}")
    err = float(np.abs(got - expected).max())
    assert err < 1e-5, (
        f"{what}: the weights differ from the softmax over the window's real positions times "
        f"exp(-(s - p_t)^2 / (2 sigma^2)), sigma = D / 2, by up to {err:.3g} (the product is not "
        "normalised again: a row sums to 1 at most)")


def check_local_context(got, expected, what):
    """The contexts (B, K) against sum_s a_t(s) h_s with the local weights, within 1e-5."""
    assert np.isfinite(got).all(), f"{what}: the context vectors are not all finite"
    err = float(np.abs(got - expected).max())
    assert err < 1e-5, (
        f"{what}: the context differs from sum_s a_t(s) h_s, with the local weights a_t (after the "
        f"Gaussian), by up to {err:.3g}")


# ---- part 6: predict, then measure, the entropy of the weights


def entropy(n_real, delta):
    """The entropy (nats) of the softmax of n_real scores, one of them delta above the other
    n_real - 1 (which are equal): Z = e^delta + n_real - 1, and
    H = -sum_i a_i log a_i = log Z - delta e^delta / Z. With delta = 0 it is log n_real. Padding
    has weight exactly 0 and adds 0 log 0 = 0: S does not enter."""
    z = np.exp(delta) + n_real - 1
    return float(np.log(z) - delta * np.exp(delta) / z)


def entropy_prediction(predict, n_real, S, delta):
    """predicted_entropy(n_real, S, delta) against entropy (absolute 1e-6), for a case of
    ENTROPY_CASES."""
    what = f"predicted_entropy(n_real={n_real}, S={S}, delta={delta})"
    predicted = one_number(reference.quietly(predict, n_real, S, delta), what)
    expected = entropy(n_real, delta)
    assert abs(predicted - expected) <= 1e-6, (
        f"{what} returned {predicted:.6g}, which is not the entropy of those weights: write the "
        "weights of the sharper position and of the others with Z = e^delta + n_real - 1, then "
        "-sum a log a; padded positions have weight 0 and add nothing")
    return what, predicted


def entropy_measurement(measure, recording, n_real, S, delta):
    """measured_entropy(masked_softmax, n_real, S, delta), given recording(calls), a reference
    masked_softmax that appends (scores shape, mask shape, real positions per row) to calls: it
    must use it on (1, S) scores and mask with n_real real positions, and measure the entropy within
    ENTROPY_TOLERANCE (deterministic: observed as is)."""
    calls = []
    what = f"measured_entropy(masked_softmax, n_real={n_real}, S={S}, delta={delta})"
    measured = one_number(reference.quietly(measure, recording(calls), n_real, S, delta), what)
    check_entropy_calls(calls, n_real, S, what)
    return what, check_entropy_measurement(measured, n_real, delta, what)


def check_entropy_calls(calls, n_real, S, what):
    """calls: the (scores shape, mask shape, real positions per row) of each call of the
    masked_softmax that the measurement was given: at least one, each (1, S) with n_real real."""
    assert calls, f"{what}: it never called the masked_softmax it was given; measure with it"
    wrong = [call for call in calls if call != ((1, S), (1, S), [n_real])]
    assert not wrong, (
        f"{what}: expected masked_softmax to get scores and a mask of shape (1, {S}) with "
        f"{n_real} real positions, got shapes {wrong[0][0]} and {wrong[0][1]} with "
        f"{wrong[0][2]} real")


def check_entropy_measurement(measured, n_real, delta, what):
    """The measured entropy against entropy(n_real, delta), within ENTROPY_TOLERANCE."""
    expected = entropy(n_real, delta)
    assert np.isfinite(measured), (
        f"{what}: measured {measured}: padded positions have weight exactly 0, and 0 log 0 "
        "must count as 0 (in floating point it is 0 * -inf = nan)")
    assert abs(measured - expected) <= ENTROPY_TOLERANCE, (
        f"{what}: measured {measured:.6g}, but the entropy of those weights is {expected:.6g}: "
        "check the scores (delta at one real position, 0 at the others), the mask, and "
        "-sum a log a over the positions")
    return measured


class SwappedParts:
    """Reference versions of earlier parts in the kernel's namespace (globals()) until restore(),
    so that a mistake in one part does not cost points in a later one."""

    def __init__(self, namespace, parts):
        self.namespace, self.parts = namespace, dict(parts)
        self.yours = {name: namespace.get(name) for name in self.parts}   # None where not written

    def install(self):
        self.namespace.update(self.parts)
        return self

    def restore(self):
        self.namespace.update(self.yours)
