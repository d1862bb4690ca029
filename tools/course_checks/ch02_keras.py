"""Checks of chapter 02 (Bahdanau attention), Keras: additive_scores, masked_softmax,
context_vector, additive_attention and decoder_step, each against a NumPy reference in float64.
Each check returns the (name, value) that its test cell observes."""
import warnings

import numpy as np
from keras import layers, ops

from . import ch02, ch02_local
from .keras_reference import to_numpy
from .reference import quietly, refused


# The cases, the same as the PyTorch notebook's (see ch02).
ADDITIVE_SCORES_CASES = ch02.ADDITIVE_SCORES_CASES           # (B, S, H, K, A, seed)
MASKED_SOFTMAX_CASES = ch02.MASKED_SOFTMAX_CASES             # (lengths of the rows, S, seed)
CONTEXT_VECTOR_CASES = ch02.CONTEXT_VECTOR_CASES             # (lengths of the rows, S, K, seed)
ADDITIVE_ATTENTION_CASES = ch02.ADDITIVE_ATTENTION_CASES     # (B, S, H, K, A, seed)
DECODER_STEP_CASES = ch02.DECODER_STEP_CASES                 # (B, S, V, E, K, H, seed)
large_scores_cases = ch02.large_scores_cases                 # () -> mask (5, 5), {what: scores (5, 5)}


def set_random_weights(layer, rng, scale):
    """Replace every weight of a built layer by normal(0, scale) numbers drawn from rng."""
    layer.set_weights([rng.normal(0.0, scale, size=w.shape).astype("float32") for w in layer.get_weights()])


def additive_layers(rng, H, K, A):
    """W (H -> A, no bias), U (K -> A) and v (A -> 1, no bias), built, with weights drawn from rng."""
    W, U, v = layers.Dense(A, use_bias=False), layers.Dense(A), layers.Dense(1, use_bias=False)
    for layer, width in [(W, H), (U, K), (v, A)]:
        layer.build((None, width))
        set_random_weights(layer, rng, 0.7)
    return W, U, v


def float64_weights(W, U, v):
    """The weights of W, U and v as float64 arrays: w_q (H, A), w_k (K, A), b (A,), w_v (A, 1)."""
    (w_q,), (w_k, b), (w_v,) = ([w.astype("float64") for w in layer.get_weights()] for layer in (W, U, v))
    return w_q, w_k, b, w_v


def additive_scores_against_formula(additive_scores, B, S, H, K, A, seed):
    """additive_scores with fixed weights against v^T tanh(W s + U h_i + b), in float64."""
    rng = np.random.default_rng(seed)
    W, U, v = additive_layers(rng, H, K, A)
    query = rng.normal(size=(B, H)).astype("float32")
    keys = rng.normal(size=(B, S, K)).astype("float32")
    w_q, w_k, b, w_v = float64_weights(W, U, v)
    expected = ch02.additive_scores(query, keys, w_q, w_k, b, w_v[:, 0])     # (B, S), in float64
    got = ops.convert_to_numpy(additive_scores(query, keys, W, U, v))
    assert got.shape == (B, S), (
        f"with B={B}, S={S} expected scores of shape (B, S) = {(B, S)}, got {got.shape}")
    ch02.assert_scores_match(got, expected, B, S, H, K, A)
    return f"additive_scores B={B} S={S} H={H} K={K} A={A}", got


def library_softmax_refused():
    """While inside: keras.layers.Softmax, whose call with a mask is the whole of part 2, raises the
    student's failure message."""
    return refused([(layers.Softmax, "call")],
                   "masked_softmax called keras.layers.Softmax, which does with its mask what part 2 "
                   "asks you to write: use keras.ops")


def masked_softmax_against_reference(masked_softmax, lengths, S, seed):
    """masked_softmax on random scores of padded rows (rows with no real position among them)
    against the softmax over the real positions, keras.layers.Softmax refused while it runs."""
    scores, mask = ch02.masked_softmax_inputs(lengths, S, seed)     # (B, S) float32, (B, S) bool
    with warnings.catch_warnings(), library_softmax_refused():
        warnings.simplefilter("ignore")   # a warning is no failure (a library may warn about one position)
        got = ops.convert_to_numpy(masked_softmax(scores, mask))
    assert got.shape == mask.shape, (
        f"with lengths {lengths} and S={S} expected weights of shape (B, S) = {mask.shape}, got {got.shape}")
    ch02.check_weights(got, mask, ch02.softmax_over_real_positions(scores.astype("float64"), mask),
                       f"with lengths {lengths} and S={S}")
    return f"masked_softmax lengths={lengths} S={S}", got


def masked_softmax_on_large_scores(masked_softmax, name, scores, mask):
    """masked_softmax on one case of large_scores_cases(): scores (B, S) float64, mask (B, S)."""
    scores = scores.astype("float32")
    with library_softmax_refused():
        got = ops.convert_to_numpy(masked_softmax(scores, mask))
    assert got.shape == mask.shape, (
        f"with {name}: expected weights of shape (B, S) = {mask.shape}, got {got.shape}")
    ch02.check_weights(got, mask, ch02.softmax_over_real_positions(scores.astype("float64"), mask),
                       f"with {name}")
    return f"masked_softmax with {name}", got


def context_vector_against_weighted_sum(context_vector, lengths, S, K, seed):
    """context_vector against the weighted sum of the keys, padded keys far from the real ones."""
    weights, keys, expected = ch02.context_vector_inputs(lengths, S, K, seed)   # (B, S), (B, S, K), (B, K)
    B = len(lengths)
    got = ops.convert_to_numpy(context_vector(weights, keys))
    assert got.shape == (B, K), (
        f"with B={B}, S={S}, K={K} expected contexts of shape (B, K) = {(B, K)}, got {got.shape}")
    ch02.assert_contexts_match(got, expected, B, S, K)
    return f"context_vector lengths={lengths} S={S} K={K}", got


def reference_scores(query, keys, W, U, v):
    """additive_scores in float64, returned as a float32 tensor: query (B, H), keys (B, S, K) -> (B, S)."""
    w_q, w_k, b, w_v = float64_weights(W, U, v)
    q, k = to_numpy(query).astype("float64"), to_numpy(keys).astype("float64")
    return ops.convert_to_tensor(ch02.additive_scores(q, k, w_q, w_k, b, w_v[:, 0]).astype("float32"))


def reference_masked_softmax(scores, mask):
    """masked_softmax in float64, returned as a float32 tensor: scores (B, S), mask (B, S) -> (B, S)."""
    real = to_numpy(mask)
    weights = ch02.softmax_over_real_positions(to_numpy(scores).astype("float64"), real)
    return ops.convert_to_tensor(weights.astype("float32"))


def reference_context_vector(weights, keys):
    """context_vector in float64, returned as a float32 tensor: weights (B, S), keys (B, S, K) -> (B, K)."""
    w, k = to_numpy(weights).astype("float64"), to_numpy(keys).astype("float64")
    return ops.convert_to_tensor(ch02.weighted_sum(w, k).astype("float32"))


REFERENCE_PARTS = dict(additive_scores=reference_scores, masked_softmax=reference_masked_softmax,
                       context_vector=reference_context_vector)


def additive_attention_with_reference_parts(additive_attention, namespace, B, S, H, K, A, seed):
    """additive_attention with the reference parts swapped into the kernel's namespace (globals()),
    so that a mistake in one part does not cost this point too; restored afterwards."""
    rng = np.random.default_rng(seed)
    W, U, v = additive_layers(rng, H, K, A)
    query = rng.normal(size=(B, H)).astype("float32")
    keys = rng.normal(size=(B, S, K)).astype("float32")
    mask = ch02.random_padding_mask(rng, B, S)
    expected_scores = reference_scores(query, keys, W, U, v)                     # (B, S), float32
    expected_weights = ops.convert_to_numpy(reference_masked_softmax(expected_scores, mask))
    expected_context = ops.convert_to_numpy(reference_context_vector(expected_weights, keys))
    yours = {name: namespace.get(name) for name in REFERENCE_PARTS}     # None where not written
    namespace.update(REFERENCE_PARTS)
    try:
        # a warning is no failure (a library may warn about a single position)
        result = quietly(additive_attention, query, keys, mask, W, U, v)
    finally:
        namespace.update(yours)
    assert isinstance(result, tuple) and len(result) == 2, (
        "additive_attention should return (context, weights)")
    context, weights = (ops.convert_to_numpy(x) for x in result)
    assert context.shape == (B, K) and weights.shape == (B, S), (
        f"with B={B}, S={S}, K={K} expected a context of shape {(B, K)} and weights of shape {(B, S)}, "
        f"got {context.shape} and {weights.shape}")
    ch02.assert_attention_weights_match(float(np.abs(weights - expected_weights).max()), B, S)
    ch02.assert_attention_context_matches(float(np.abs(context - expected_context).max()), B, S)
    return f"additive_attention B={B} S={S}", [context, weights]


class ReferenceAttention(ch02.FixedAdditiveAttention):
    """attention(query, keys, mask) for decoder_step: additive attention with fixed weights,
    computed in NumPy float64, returning float32 tensors (context (B, K), weights (B, S))."""

    def __call__(self, query, keys, mask):
        q, k = to_numpy(query).astype("float64"), to_numpy(keys).astype("float64")
        context, weights = self.attend(q, k, to_numpy(mask))
        return (ops.convert_to_tensor(context.astype("float32")),
                ops.convert_to_tensor(weights.astype("float32")))


def reference_decoder_step(prev_tokens, state, keys, mask, embedding, attention, cell, combine, out):
    """One reference step in Luong et al.'s order: the GRU on the embedding, attend with s_t, then
    logits of the attentional vector tanh(W_c [c_t; s_t])."""
    s_t = cell(embedding(prev_tokens), state)[0]
    c_t, alpha_t = attention(s_t, keys, mask)
    return out(ops.tanh(combine(ops.concatenate((c_t, s_t), 1)))), s_t, alpha_t


def decoder_layers(rng, V, E, K, H):
    """The embedding (V -> E), the GRU cell (E -> H), W_c (K + H -> H, no bias) and the output layer
    (H -> V), built, with weights drawn from rng."""
    embedding, cell = layers.Embedding(V, E), layers.GRUCell(H)
    combine, out = layers.Dense(H, use_bias=False), layers.Dense(V)
    embedding.build()
    cell.build((None, E))
    combine.build((None, K + H))
    out.build((None, H))
    for layer in (embedding, cell, combine, out):
        set_random_weights(layer, rng, 0.5)
    return embedding, cell, combine, out


def decoder_step_against_reference(decoder_step, B, S, V, E, K, H, seed):
    """decoder_step with fixed weights and a reference attention, against a reference step."""
    rng = np.random.default_rng(seed)
    embedding, cell, combine, out = decoder_layers(rng, V, E, K, H)
    attention = ReferenceAttention(rng, H, K, A=4)
    keys = rng.normal(size=(B, S, K)).astype("float32")
    mask = ch02.random_padding_mask(rng, B, S)
    prev = rng.integers(0, V, size=B)
    state = rng.normal(size=(B, H)).astype("float32")
    ref_logits, ref_state, ref_weights = (ops.convert_to_numpy(x) for x in reference_decoder_step(
        prev, state, keys, mask, embedding, attention, cell, combine, out))
    result = decoder_step(prev, state, keys, mask, embedding, attention, cell, combine, out)
    assert isinstance(result, tuple) and len(result) == 3, (
        "decoder_step should return (logits, new state, weights)")
    logits, new_state, weights = (ops.convert_to_numpy(x) for x in result)
    assert logits.shape == (B, V) and new_state.shape == (B, H) and weights.shape == (B, S), (
        f"with B={B}, S={S}, V={V}, H={H} expected shapes {(B, V)}, {(B, H)} and {(B, S)}, got "
        f"{logits.shape}, {new_state.shape} and {weights.shape}")
    ch02.assert_step_weights_match(float(np.abs(weights - ref_weights).max()))
    ch02.assert_step_state_matches(float(np.abs(new_state - ref_state).max()), B, E, K)
    ch02.assert_step_logits_match(float(np.abs(logits - ref_logits).max()), B, H, K)
    return f"decoder_step B={B} S={S} V={V}", [logits, new_state, weights]


# ---- part 5: local-p attention; part 6: predict, then measure, the entropy (see ch02_local)
from .ch02_local import (ENTROPY_CASES, ENTROPY_MEASUREMENT_CASES, LOCAL_CASES,  # noqa: E402
                         entropy_prediction)


def reference_parts(namespace):
    """For a test cell of part 5: the reference (float64) additive_scores, masked_softmax and
    context_vector, returning Keras tensors, in globals() until the result's restore()."""
    return ch02_local.SwappedParts(namespace, REFERENCE_PARTS).install()


def position_layers(rng, H, A_p):
    """W_p (H -> A_p, no bias) and v_p (A_p -> 1, no bias), built, with weights drawn from rng."""
    W_p, v_p = layers.Dense(A_p, use_bias=False), layers.Dense(1, use_bias=False)
    for layer, width in [(W_p, H), (v_p, A_p)]:
        layer.build((None, width))
        set_random_weights(layer, rng, ch02_local.LOCAL_SPREAD)
    return W_p, v_p


def local_attention_against_reference(local_attention, namespace, aspect, *case):
    """local_attention (with NumPy inputs and built Dense layers), the reference parts 1-3 swapped
    in, against local-p attention in float64, for a case of LOCAL_CASES; `aspect` ("positions",
    "weights" or "context") is what is checked and observed."""
    lengths, S, D = case[0], case[1], case[6]
    query, keys, mask, (W, U, v, W_p, v_p) = ch02_local.local_case(case, additive_layers,
                                                                   position_layers)
    w_q, w_k, b, w_v = float64_weights(W, U, v)                     # (H, A), (K, A), (A,), (A, 1)
    (w_p,), (v_p64,) = ([w.astype("float64") for w in layer.get_weights()] for layer in (W_p, v_p))
    expected = ch02_local.local_p_attention(
        query.astype("float64"), keys.astype("float64"), mask, w_q, w_k, b, w_v[:, 0], w_p,
        v_p64[:, 0], D)
    swapped = reference_parts(namespace)
    try:
        result = quietly(local_attention, query, keys, mask, W, U, v, W_p, v_p, D)
    finally:
        swapped.restore()
    return ch02_local.local_verdict(result, ops.convert_to_numpy, expected, mask, aspect, lengths,
                                    S, D)


def recording_masked_softmax(calls):
    """The reference masked_softmax, appending (scores shape, mask shape, real per row) to calls."""
    def masked_softmax(scores, mask):
        real = to_numpy(mask).astype(bool)
        calls.append((to_numpy(scores).shape, real.shape,
                      real.sum(axis=-1).tolist() if real.ndim == 2 else None))
        return reference_masked_softmax(ops.cast(scores, "float32"), real)
    return masked_softmax


def entropy_measurement(measure, n_real, S, delta):
    """measured_entropy with the reference masked_softmax (ch02_local.entropy_measurement)."""
    return ch02_local.entropy_measurement(measure, recording_masked_softmax, n_real, S, delta)
