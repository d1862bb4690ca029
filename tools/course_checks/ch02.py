"""Chapter 02 (Bahdanau attention): the cases and the NumPy references (float64) that the PyTorch
and the Keras checks share. Framework-free: NumPy only."""
import numpy as np

# additive_scores against the formula with fixed weights: B = S, B = 1 and S = 1 among them.
ADDITIVE_SCORES_CASES = (       # (B, S, H, K, A, seed)
    (4, 4, 3, 5, 6, 11),
    (1, 7, 2, 3, 4, 12),
    (3, 1, 5, 2, 3, 13),
    (5, 6, 4, 8, 7, 14),
)
# masked_softmax for other batch sizes and lengths (1 included), rows with no real position (length
# 0: their weights must all be 0) among them, and a batch with no real position at all.
MASKED_SOFTMAX_CASES = (        # (lengths of the rows, S, seed)
    ([6, 3, 0, 1, 5], 6, 21),
    ([1], 1, 22),
    ([2, 1, 2], 2, 23),
    ([4, 0, 7], 9, 24),
    ([0, 0], 3, 25),
)
# context_vector against the weighted sum: B = S, B = 1 and S = 1 among them.
CONTEXT_VECTOR_CASES = (        # (lengths of the rows, S, K, seed)
    ([4, 2, 4, 1], 4, 3, 41),
    ([1], 1, 5, 42),
    ([6, 3, 5], 6, 2, 43),
)
# additive_attention with reference parts swapped in.
ADDITIVE_ATTENTION_CASES = (    # (B, S, H, K, A, seed)
    (3, 5, 2, 4, 6, 51),
    (1, 1, 3, 2, 2, 52),
)
# decoder_step (Luong et al.'s order) against a reference step: B = 1 and S = 1 among them, an
# embedding as wide as the context (E = K), and a context as wide as the state (K = H).
DECODER_STEP_CASES = (          # (B, S, V, E, K, H, seed)
    (3, 5, 9, 2, 6, 4, 61),
    (1, 1, 4, 3, 2, 5, 62),
    (4, 4, 6, 4, 4, 3, 63),
    (2, 3, 5, 2, 3, 3, 64),
)
LARGE_SCORES_SEED = 31
LARGE_SCORES_LENGTHS, LARGE_SCORES_S = (3, 1, 5, 0, 2), 5      # row 3: no real position


def padding_mask(lengths, S):
    """(B, S) boolean mask, True on the first lengths[b] positions of row b (the real ones)."""
    return np.arange(S)[None, :] < np.array(lengths)[:, None]


def random_padding_mask(rng, B, S):
    """(B, S) padding mask whose rows have random lengths from 1 to S."""
    return np.arange(S)[None, :] < rng.integers(1, S + 1, size=B)[:, None]


def additive_scores(query, keys, w_q, w_k, b, w_v):
    """v^T tanh(W s + U h_i + b) in float64: query (B, H), keys (B, S, K), w_q (H, A), w_k (K, A),
    b (A,), w_v (A,) -> scores (B, S)."""
    return np.tanh((query @ w_q)[:, None, :] + keys @ w_k + b) @ w_v


def softmax_over_real_positions(scores, mask):
    """Softmax of scores (B, S) over the positions where mask is True; exactly 0 elsewhere, and a
    row with no real position all 0 (keras.layers.Softmax's convention with a mask)."""
    some = mask.any(axis=-1, keepdims=True)
    shifted = np.where(mask, scores, -np.inf)
    shifted = shifted - np.where(some, shifted.max(axis=-1, keepdims=True), 0.0)
    weights = np.exp(shifted)                                   # 0 wherever mask is False
    return weights / np.where(some, weights.sum(axis=-1, keepdims=True), 1.0)


def weighted_sum(weights, keys):
    """Each row's context: weights (B, S), keys (B, S, K) -> (B, K)."""
    return np.einsum("bs,bsk->bk", weights, keys)


class FixedAdditiveAttention:
    """Additive attention with fixed random weights, in NumPy float64 (the reference attention
    that decoder_step is given)."""

    def __init__(self, rng, H, K, A):
        self.w_q, self.w_k = rng.normal(0.0, 0.7, size=(H, A)), rng.normal(0.0, 0.7, size=(K, A))
        self.b, self.w_v = rng.normal(0.0, 0.7, size=A), rng.normal(0.0, 0.7, size=A)

    def attend(self, query, keys, mask):
        """query (B, H), keys (B, S, K) in float64, mask (B, S) -> (context (B, K), weights (B, S))."""
        scores = additive_scores(query, keys, self.w_q, self.w_k, self.b, self.w_v)
        weights = softmax_over_real_positions(scores, mask)
        return weighted_sum(weights, keys), weights


def masked_softmax_inputs(lengths, S, seed):
    """Scores (B, S) float32 and the padding mask of a masked_softmax case."""
    rng = np.random.default_rng(seed)
    mask = padding_mask(lengths, S)
    scores = rng.normal(0.0, 2.0, size=mask.shape).astype("float32")
    return scores, mask


def large_scores_cases():
    """The mask (5, 5) and {what: scores (5, 5), float64} of the large-scores test: padded positions
    far above the real ones, and real scores in the hundreds (positive or negative); row 3 has no
    real position."""
    rng = np.random.default_rng(LARGE_SCORES_SEED)
    mask = padding_mask(list(LARGE_SCORES_LENGTHS), LARGE_SCORES_S)
    noise = rng.normal(size=mask.shape)
    cases = {
        "padded scores of 1e4 and real ones near 0": np.where(mask, noise, 1e4),
        "real scores near +300": np.where(mask, 300 + 20 * noise, noise),
        "real scores near -300": np.where(mask, -300 + 20 * noise, 0.0),
        "real scores spread over hundreds and padded ones near 1e4":
            np.where(mask, 100 * noise, 1e4 + 100 * noise),
    }
    return mask, cases


EMPTY_ROW = ("a row with no real position gets weights all 0: not NaN (the 0/0 of a softmax over "
             "nothing, which -inf gives), nor even weights over its padding (which -1e9 gives)")


def check_weights(got, mask, expected, what):
    """Assert that the weights got (B, S) are finite, exactly 0 on padding, sum to 1 in each row with
    a real position (a row without one: all 0), and match the reference expected within 1e-5;
    `what` names the case in the messages."""
    some = mask.any(axis=-1)
    for row in np.flatnonzero(~some):
        assert np.isfinite(got[row]).all() and not np.abs(got[row]).any(), (
            f"{what}: row {row} has no real position, so its weights must all be 0, got "
            f"{np.round(got[row], 4).tolist()}: {EMPTY_ROW}")
    assert np.isfinite(got).all(), (
        f"{what}: masked_softmax returned NaN or inf; no step may overflow, or divide 0 by 0")
    on_padding = float(np.abs(got[~mask]).max()) if (~mask).any() else 0.0
    assert on_padding == 0.0, (
        f"{what}: the weights of padded positions must be exactly 0, got up to {on_padding:.3g}: "
        "padding must get no attention at all, not just a little")
    sums = got[some].sum(axis=-1)
    if sums.size:
        assert np.abs(sums - 1).max() < 1e-5, (
            f"{what}: each row with a real position must sum to 1 over the source positions, got "
            f"sums from {sums.min():.4g} to {sums.max():.4g}")
    err = float(np.abs(got - expected).max())
    assert err < 1e-5, (
        f"{what}: the weights of the real positions differ from a softmax over them by up to {err:.3g}")


def context_vector_inputs(lengths, S, K, seed):
    """Weights (B, S) and keys (B, S, K) in float32, padded keys at 50, and the expected contexts
    (B, K) in float64, of a context_vector case."""
    rng = np.random.default_rng(seed)
    B = len(lengths)
    mask = padding_mask(lengths, S)
    weights = np.where(mask, rng.uniform(0.1, 1.0, size=mask.shape), 0.0)
    weights = (weights / weights.sum(axis=-1, keepdims=True)).astype("float32")
    keys = np.where(mask[..., None], rng.normal(size=(B, S, K)), 50.0).astype("float32")
    expected = weighted_sum(weights.astype("float64"), keys.astype("float64"))
    return weights, keys, expected


def assert_contexts_match(got, expected, B, S, K):
    """Assert that the contexts got (B, K) match the weighted sum within 1e-5."""
    err = float(np.abs(got - expected).max())
    assert err < 1e-5, (
        f"context_vector differs from the weighted sum of the keys by up to {err:.3g} "
        f"(B={B}, S={S}, K={K}): each row's context combines that row's keys with that row's weights")


def assert_scores_match(got, expected, B, S, H, K, A):
    """Assert that the scores got (B, S) match the formula within 1e-5."""
    err = float(np.abs(got - expected).max())
    assert err < 1e-5, (
        f"additive_scores differs from v^T tanh(W s + U h_i + b) with the same weights by up to {err:.3g} "
        f"(B={B}, S={S}, H={H}, K={K}, A={A}): check which layer gets the query and which the keys, "
        "and that each row's query meets the keys of that row only")



def assert_attention_weights_match(err, B, S):
    """Assert that additive_attention's weights differ from the reference parts' by less than 1e-5."""
    assert err < 1e-5, (
        f"the weights differ from masked_softmax of additive_scores by up to {err:.3g} (B={B}, S={S})")


def assert_attention_context_matches(err, B, S):
    """Assert that additive_attention's context differs from the reference parts' by less than 1e-5."""
    assert err < 1e-5, (
        f"the context differs from context_vector of the weights by up to {err:.3g} (B={B}, S={S})")


def assert_step_weights_match(err):
    """Assert that decoder_step's weights differ from the reference attention's by less than 1e-5."""
    assert err < 1e-5, (
        f"the weights differ from what attention returns for the new state by up to {err:.3g}: in "
        "Luong et al.'s order the GRU moves first and attention is asked with s_t, not s_{t-1}; "
        "return its weights")


def assert_step_state_matches(err, B, E, K):
    """Assert that decoder_step's new state differs from the reference step's by less than 1e-5."""
    assert err < 1e-5, (
        f"the new state differs from the reference by up to {err:.3g} (B={B}, E={E}, K={K}): "
        "the GRU cell reads embedding(prev_tokens) alone, and the previous state")


def assert_step_logits_match(err, B, H, K):
    """Assert that decoder_step's logits differ from the reference step's by less than 1e-5."""
    assert err < 1e-5, (
        f"the logits differ from the reference by up to {err:.3g} (B={B}, H={H}, K={K}): they are "
        "out(tanh(W_c [c_t; s_t])), the context first, then the new state")
