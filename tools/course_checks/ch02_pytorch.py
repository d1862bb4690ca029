"""Checks of chapter 02 (Bahdanau attention), PyTorch: additive_scores, masked_softmax,
context_vector, additive_attention and decoder_step, each against a NumPy reference in float64.
Each check returns the (name, value) that its test cell observes."""
import numpy as np
import torch
from torch import nn

from . import ch02, ch02_local
from .reference import quietly


# The cases, the same as the Keras notebook's (see ch02).
ADDITIVE_SCORES_CASES = ch02.ADDITIVE_SCORES_CASES           # (B, S, H, K, A, seed)
MASKED_SOFTMAX_CASES = ch02.MASKED_SOFTMAX_CASES             # (lengths of the rows, S, seed)
CONTEXT_VECTOR_CASES = ch02.CONTEXT_VECTOR_CASES             # (lengths of the rows, S, K, seed)
ADDITIVE_ATTENTION_CASES = ch02.ADDITIVE_ATTENTION_CASES     # (B, S, H, K, A, seed)
DECODER_STEP_CASES = ch02.DECODER_STEP_CASES                 # (B, S, V, E, K, H, seed)
large_scores_cases = ch02.large_scores_cases                 # () -> mask (5, 5), {what: scores (5, 5)}


def additive_layers(rng, H, K, A):
    """W (H -> A, no bias), U (K -> A) and v (A -> 1, no bias), with weights drawn from rng."""
    W, U, v = nn.Linear(H, A, bias=False), nn.Linear(K, A), nn.Linear(A, 1, bias=False)
    with torch.no_grad():
        for p in [W.weight, U.weight, U.bias, v.weight]:
            p.copy_(torch.from_numpy(rng.normal(0.0, 0.7, size=tuple(p.shape)).astype("float32")))
    return W, U, v


def float64_weights(W, U, v):
    """The weights of W, U and v as float64 arrays: w_q (A, H), w_k (A, K), b (A,), w_v (1, A)."""
    return (p.detach().numpy().astype("float64") for p in [W.weight, U.weight, U.bias, v.weight])


def additive_scores_against_formula(additive_scores, B, S, H, K, A, seed):
    """additive_scores with fixed weights against v^T tanh(W s + U h_i + b), in float64."""
    rng = np.random.default_rng(seed)
    W, U, v = additive_layers(rng, H, K, A)
    query = rng.normal(size=(B, H)).astype("float32")
    keys = rng.normal(size=(B, S, K)).astype("float32")
    w_q, w_k, b, w_v = float64_weights(W, U, v)
    expected = ch02.additive_scores(query, keys, w_q.T, w_k.T, b, w_v[0])     # (B, S), in float64
    with torch.no_grad():
        got = additive_scores(torch.from_numpy(query), torch.from_numpy(keys), W, U, v)
    assert isinstance(got, torch.Tensor) and tuple(got.shape) == (B, S), (
        f"with B={B}, S={S} expected scores of shape (B, S) = {(B, S)}, "
        f"got {tuple(getattr(got, 'shape', ()))}")
    ch02.assert_scores_match(got.numpy(), expected, B, S, H, K, A)
    return f"additive_scores B={B} S={S} H={H} K={K} A={A}", got


def masked_softmax_against_reference(masked_softmax, lengths, S, seed):
    """masked_softmax on random scores of padded rows (rows with no real position among them)
    against the softmax over the real positions."""
    scores, mask = ch02.masked_softmax_inputs(lengths, S, seed)     # (B, S) float32, (B, S) bool
    # a warning is no failure (a library may warn about a single position)
    got = quietly(masked_softmax, torch.from_numpy(scores), torch.from_numpy(mask))
    assert isinstance(got, torch.Tensor) and tuple(got.shape) == mask.shape, (
        f"with lengths {lengths} and S={S} expected weights of shape (B, S) = {mask.shape}, "
        f"got {tuple(getattr(got, 'shape', ()))}")
    ch02.check_weights(got.detach().numpy(), mask,
                       ch02.softmax_over_real_positions(scores.astype("float64"), mask),
                       f"with lengths {lengths} and S={S}")
    return f"masked_softmax lengths={lengths} S={S}", got


def masked_softmax_on_large_scores(masked_softmax, name, scores, mask):
    """masked_softmax on one case of large_scores_cases(): scores (B, S) float64, mask (B, S)."""
    scores = scores.astype("float32")
    got = masked_softmax(torch.from_numpy(scores), torch.from_numpy(mask))
    assert isinstance(got, torch.Tensor) and tuple(got.shape) == mask.shape, (
        f"with {name}: expected weights of shape (B, S) = {mask.shape}, "
        f"got {tuple(getattr(got, 'shape', ()))}")
    ch02.check_weights(got.detach().numpy(), mask,
                       ch02.softmax_over_real_positions(scores.astype("float64"), mask), f"with {name}")
    return f"masked_softmax with {name}", got


def context_vector_against_weighted_sum(context_vector, lengths, S, K, seed):
    """context_vector against the weighted sum of the keys, padded keys far from the real ones."""
    weights, keys, expected = ch02.context_vector_inputs(lengths, S, K, seed)   # (B, S), (B, S, K), (B, K)
    B = len(lengths)
    with torch.no_grad():
        got = context_vector(torch.from_numpy(weights), torch.from_numpy(keys))
    assert isinstance(got, torch.Tensor) and tuple(got.shape) == (B, K), (
        f"with B={B}, S={S}, K={K} expected contexts of shape (B, K) = {(B, K)}, "
        f"got {tuple(getattr(got, 'shape', ()))}")
    ch02.assert_contexts_match(got.numpy(), expected, B, S, K)
    return f"context_vector lengths={lengths} S={S} K={K}", got


def reference_scores(query, keys, W, U, v):
    """additive_scores in float64, returned as float32: query (B, H), keys (B, S, K) -> (B, S)."""
    w_q, w_k, b, w_v = float64_weights(W, U, v)
    q, k = query.detach().numpy().astype("float64"), keys.detach().numpy().astype("float64")
    return torch.from_numpy(ch02.additive_scores(q, k, w_q.T, w_k.T, b, w_v[0]).astype("float32"))


def reference_masked_softmax(scores, mask):
    """masked_softmax in float64, returned as float32: scores (B, S), mask (B, S) -> (B, S)."""
    real = mask.numpy()
    weights = ch02.softmax_over_real_positions(scores.detach().numpy().astype("float64"), real)
    return torch.from_numpy(weights.astype("float32"))


def reference_context_vector(weights, keys):
    """context_vector in float64, returned as float32: weights (B, S), keys (B, S, K) -> (B, K)."""
    w, k = weights.detach().numpy().astype("float64"), keys.detach().numpy().astype("float64")
    return torch.from_numpy(ch02.weighted_sum(w, k).astype("float32"))


REFERENCE_PARTS = dict(additive_scores=reference_scores, masked_softmax=reference_masked_softmax,
                       context_vector=reference_context_vector)


def additive_attention_with_reference_parts(additive_attention, namespace, B, S, H, K, A, seed):
    """additive_attention with the reference parts swapped into the kernel's namespace (globals()),
    so that a mistake in one part does not cost this point too; restored afterwards."""
    rng = np.random.default_rng(seed)
    W, U, v = additive_layers(rng, H, K, A)
    query = torch.from_numpy(rng.normal(size=(B, H)).astype("float32"))
    keys = torch.from_numpy(rng.normal(size=(B, S, K)).astype("float32"))
    mask = torch.from_numpy(ch02.random_padding_mask(rng, B, S))
    expected_weights = reference_masked_softmax(reference_scores(query, keys, W, U, v), mask)
    expected_context = reference_context_vector(expected_weights, keys)
    yours = {name: namespace.get(name) for name in REFERENCE_PARTS}     # None where not written
    namespace.update(REFERENCE_PARTS)
    try:
        with torch.no_grad():
            # a warning is no failure (a library may warn about a single position)
            result = quietly(additive_attention, query, keys, mask, W, U, v)
    finally:
        namespace.update(yours)
    assert isinstance(result, tuple) and len(result) == 2, (
        "additive_attention should return (context, weights)")
    context, weights = result
    assert tuple(context.shape) == (B, K) and tuple(weights.shape) == (B, S), (
        f"with B={B}, S={S}, K={K} expected a context of shape {(B, K)} and weights of shape {(B, S)}, "
        f"got {tuple(context.shape)} and {tuple(weights.shape)}")
    ch02.assert_attention_weights_match((weights - expected_weights).abs().max().item(), B, S)
    ch02.assert_attention_context_matches((context - expected_context).abs().max().item(), B, S)
    return f"additive_attention B={B} S={S}", [context, weights]


class ReferenceAttention(ch02.FixedAdditiveAttention):
    """attention(query, keys, mask) for decoder_step: additive attention with fixed weights,
    computed in NumPy float64, returning float32 tensors (context (B, K), weights (B, S))."""

    def __call__(self, query, keys, mask):
        q, k = query.detach().numpy().astype("float64"), keys.detach().numpy().astype("float64")
        context, weights = self.attend(q, k, mask.numpy())
        return torch.from_numpy(context.astype("float32")), torch.from_numpy(weights.astype("float32"))


def reference_decoder_step(prev_tokens, state, keys, mask, embedding, attention, cell, combine, out):
    """One reference step in Luong et al.'s order: the GRU on the embedding, attend with s_t, then
    logits of the attentional vector tanh(W_c [c_t; s_t])."""
    s_t = cell(embedding(prev_tokens), state)
    c_t, alpha_t = attention(s_t, keys, mask)
    return out(torch.tanh(combine(torch.cat((c_t, s_t), 1)))), s_t, alpha_t


def decoder_step_against_reference(decoder_step, B, S, V, E, K, H, seed):
    """decoder_step with fixed weights and a reference attention, against a reference step."""
    rng = np.random.default_rng(seed)
    embedding, cell = nn.Embedding(V, E), nn.GRUCell(E, H)
    combine, out = nn.Linear(K + H, H, bias=False), nn.Linear(H, V)
    with torch.no_grad():
        for p in [*embedding.parameters(), *cell.parameters(), *combine.parameters(), *out.parameters()]:
            p.copy_(torch.from_numpy(rng.normal(0.0, 0.5, size=tuple(p.shape)).astype("float32")))
    attention = ReferenceAttention(rng, H, K, A=4)
    keys = torch.from_numpy(rng.normal(size=(B, S, K)).astype("float32"))
    mask = torch.from_numpy(ch02.random_padding_mask(rng, B, S))
    prev = torch.from_numpy(rng.integers(0, V, size=B))
    state = torch.from_numpy(rng.normal(size=(B, H)).astype("float32"))
    step_layers = (embedding, attention, cell, combine, out)
    with torch.no_grad():
        ref_logits, ref_state, ref_weights = reference_decoder_step(prev, state, keys, mask, *step_layers)
        result = decoder_step(prev, state, keys, mask, *step_layers)
    assert isinstance(result, tuple) and len(result) == 3, (
        "decoder_step should return (logits, new state, weights)")
    logits, new_state, weights = result
    assert (tuple(logits.shape) == (B, V) and tuple(new_state.shape) == (B, H)
            and tuple(weights.shape) == (B, S)), (
        f"with B={B}, S={S}, V={V}, H={H} expected shapes {(B, V)}, {(B, H)} and {(B, S)}, got "
        f"{tuple(logits.shape)}, {tuple(new_state.shape)} and {tuple(weights.shape)}")
    ch02.assert_step_weights_match((weights - ref_weights).abs().max().item())
    ch02.assert_step_state_matches((new_state - ref_state).abs().max().item(), B, E, K)
    ch02.assert_step_logits_match((logits - ref_logits).abs().max().item(), B, H, K)
    return f"decoder_step B={B} S={S} V={V}", [logits, new_state, weights]


# ---- part 5: local-p attention; part 6: predict, then measure, the entropy (see ch02_local)
from .ch02_local import (ENTROPY_CASES, ENTROPY_MEASUREMENT_CASES, LOCAL_CASES,  # noqa: E402
                         entropy_prediction)


def reference_parts(namespace):
    """For a test cell of part 5: the reference (float64) additive_scores, masked_softmax and
    context_vector, returning torch tensors, in globals() until the result's restore()."""
    return ch02_local.SwappedParts(namespace, REFERENCE_PARTS).install()


def position_layers(rng, H, A_p):
    """W_p (H -> A_p, no bias) and v_p (A_p -> 1, no bias), with weights drawn from rng."""
    W_p, v_p = nn.Linear(H, A_p, bias=False), nn.Linear(A_p, 1, bias=False)
    with torch.no_grad():
        for p in [W_p.weight, v_p.weight]:
            p.copy_(torch.from_numpy(rng.normal(0.0, ch02_local.LOCAL_SPREAD, size=tuple(p.shape))
                                     .astype("float32")))
    return W_p, v_p


def local_attention_against_reference(local_attention, namespace, aspect, *case):
    """local_attention (with torch tensors and nn.Linear layers), the reference parts 1-3 swapped in,
    against local-p attention in float64, for a case of LOCAL_CASES; `aspect` ("positions",
    "weights" or "context") is what is checked and observed."""
    lengths, S, D = case[0], case[1], case[6]
    query, keys, mask, (W, U, v, W_p, v_p) = ch02_local.local_case(case, additive_layers,
                                                                   position_layers)
    w_q, w_k, b, w_v = float64_weights(W, U, v)                     # (A, H), (A, K), (A,), (1, A)
    w_p, v_p64 = (p.detach().numpy().astype("float64") for p in [W_p.weight, v_p.weight])
    expected = ch02_local.local_p_attention(
        query.astype("float64"), keys.astype("float64"), mask, w_q.T, w_k.T, b, w_v[0], w_p.T,
        v_p64[0], D)
    swapped = reference_parts(namespace)
    try:
        with torch.no_grad():
            result = quietly(local_attention, torch.from_numpy(query), torch.from_numpy(keys),
                             torch.from_numpy(mask), W, U, v, W_p, v_p, D)
    finally:
        swapped.restore()
    return ch02_local.local_verdict(result, lambda x: torch.as_tensor(x).detach().double().numpy(),
                                    expected, mask, aspect, lengths, S, D)


def recording_masked_softmax(calls):
    """The reference masked_softmax, appending (scores shape, mask shape, real per row) to calls."""
    def masked_softmax(scores, mask):
        scores, mask = torch.as_tensor(scores), torch.as_tensor(mask).bool()
        calls.append((tuple(scores.shape), tuple(mask.shape),
                      mask.sum(dim=-1).tolist() if mask.dim() == 2 else None))
        return reference_masked_softmax(scores.float(), mask)
    return masked_softmax


def entropy_measurement(measure, n_real, S, delta):
    """measured_entropy with the reference masked_softmax (ch02_local.entropy_measurement)."""
    return ch02_local.entropy_measurement(measure, recording_masked_softmax, n_real, S, delta)
