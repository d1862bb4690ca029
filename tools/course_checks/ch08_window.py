"""Chapter 8's part 5, the variation (issue 34): causal self-attention over a sliding window, with
a rolling key-value cache (Mistral's and Longformer's local attention, which the chapter does not
show). Framework-free: the cases, the NumPy reference and the checks; ch08_keras and ch08_pytorch
build the student's layer with known weights and call it (`make` below).

The convention the part states: position i attends to itself and to the `window` positions before
it, the keys j with i - window <= j <= i; the cache that a call returns keeps the keys and values
of the last `window` positions only (all of them while there are fewer), exactly what the next
position needs. A layer without the window (the chapter's CausalSelfAttention under the new name)
fails every check: each sequence is longer than its window plus one, and its cache grows."""
import numpy as np

from . import reference
from .ch08 import warnings_ignored

# Known weights in the student's layer against the NumPy reference with a banded causal mask;
# a window of 1 and a window as long as the sequence (plain causal attention) among them.
WINDOW_CASES = (                # (B, L, d_model, h, window, seed)
    (2, 9, 12, 3, 2, 111),
    (1, 7, 8, 1, 1, 112),
    (3, 8, 8, 4, 3, 113),
    (2, 5, 6, 2, 5, 114),
)
# The rolling cache: one layer (B = 2, 12 positions, d_model = 12, h = 3, window 4) fed in pieces.
ROLLING_SHAPE, ROLLING_HEADS, ROLLING_WINDOW, ROLLING_SEED = (2, 12, 12), 3, 4, 121
ROLLING_CASES = (               # (how, the number of new positions of each call)
    ("a prompt of 3, then one position at a time", (3,) + (1,) * 9),
    ("in chunks of 5, 2 and 5", (5, 2, 5)),
)
TOLERANCE = 1e-5


def band(length, cached, window):
    """(L, P + L) boolean, True = may attend: row i is the new input i, key P + i among the P cached
    and L new keys; it sees the keys P + i - window .. P + i."""
    at = np.arange(length)[:, None] + cached
    keys = np.arange(cached + length)[None, :]
    return (keys <= at) & (keys >= at - window)


def banded_attention(x, weights, num_heads, window):
    """The whole sequence x (B, L, d_model) through sliding-window attention, in float64, with
    `weights` {name: (W (d_model, d_model), b)} applied as x @ W + b: the output (B, L, d_model),
    the attention weights (B, h, L, L) and the keys and values of every position (B, h, L, d_k)."""
    x = np.asarray(x, dtype="float64")

    def project(name):
        matrix, bias = weights[name]
        return x @ matrix + bias

    q, k, v = (reference.split_heads(project(name), num_heads) for name in ("query", "key", "value"))
    attended, attention = reference.attention(q, k, v, band(x.shape[1], 0, window))
    matrix, bias = weights["output_projection"]
    return reference.merge_heads(attended) @ matrix + bias, attention, k, v


def assert_shapes(what, got, want, hint):
    """The shapes of (output, weights, keys, values) against the expected ones."""
    assert got == want, (
        f"{what}: expected an output {want[0]}, weights {want[1]} and a cache of keys and values "
        f"{want[2]} each; got {got}{hint}")


def assert_close(what, gap, hint):
    """A largest difference from the reference under TOLERANCE."""
    assert gap < TOLERANCE, f"{what}: differs from the reference by up to {gap:.3g}: {hint}"


def window_against_reference(make, B, L, d_model, h, window, seed):
    """The student's layer with known weights (make(what, d_model, h, window, seed) -> (call, the
    weights as {name: (W, b)}), call(x, cache) -> NumPy (output, weights, k, v) and the cache to
    pass on) on a whole sequence against banded_attention; the observation."""
    what = f"B={B}, L={L}, d_model={d_model}, h={h}, window={window}"
    call, weights = make(what, d_model, h, window, seed)
    x = np.random.default_rng(seed + 100).normal(size=(B, L, d_model)).astype("float32")
    out, attention, k, v, _ = call(x, None)
    want_out, want_attention, want_k, _ = banded_attention(x, weights, h, window)
    kept = min(L, window)
    assert_shapes(what, (out.shape, attention.shape, k.shape, v.shape),
                  ((B, L, d_model), (B, h, L, L), (B, h, kept, d_model // h), (B, h, kept, d_model // h)),
                  ": the cache keeps the last window positions only")
    assert_close(f"{what}, the attention weights", float(np.abs(attention - want_attention).max()),
                 "position i attends to the positions i - window .. i only (itself and the window "
                 "positions before it)")
    assert_close(f"{what}, the output", float(np.abs(out - want_out).max()),
                 "the weights are right: merge the heads, then apply the output projection")
    assert_close(f"{what}, the cache", float(np.abs(k - want_k[:, :, L - kept:]).max()),
                 "the cache holds the keys of the last window positions, oldest first")
    return f"sliding window = the banded reference, {what}", [out, attention]


def rolling_pieces(pieces, how):
    """(start, end, cached, what) of each call when the sequence is fed `pieces` positions at a
    time, each call with the cache of the one before: `cached` positions come with it."""
    start = 0
    for size in pieces:
        end, cached = start + size, min(start, ROLLING_WINDOW)
        yield start, end, cached, f"{how}: positions {start} to {end - 1} after a cache of {cached}"
        start = end


def rolling_cache(make):
    """One layer (ROLLING_SHAPE, window ROLLING_WINDOW) fed each case of ROLLING_CASES piece by
    piece with the cache it returns: every call's outputs and weights equal those rows (and the
    columns of its keys) of banded_attention on the whole sequence, and the cache it returns holds
    the keys and values of the last `window` positions, never more; the observations."""
    B, L, d_model = ROLLING_SHAPE
    h, window = ROLLING_HEADS, ROLLING_WINDOW
    call, weights = make("the rolling cache", d_model, h, window, ROLLING_SEED)
    x = np.random.default_rng(ROLLING_SEED).normal(size=ROLLING_SHAPE).astype("float32")
    want_out, want_attention, want_k, want_v = banded_attention(x, weights, h, window)
    observations = []
    for how, pieces in ROLLING_CASES:
        cache = None
        for start, end, cached, what in rolling_pieces(pieces, how):
            out, attention, k, v, cache = call(x[:, start:end], cache)
            kept, size = min(end, window), end - start
            assert_shapes(what, (out.shape, attention.shape, k.shape, v.shape),
                          ((B, size, d_model), (B, h, size, cached + size), (B, h, kept, d_model // h),
                           (B, h, kept, d_model // h)),
                          ": weights over the cached and the new keys (B, h, L, P + L), and a cache of "
                          "the last window positions, never more")
            gap = max(float(np.abs(out - want_out[:, start:end]).max()),
                      float(np.abs(attention - want_attention[:, :, start:end, start - cached:end]).max()))
            assert_close(what, gap, "the new input i, key P + i among the keys, sees the keys P + i - window .. "
                         "P + i: the cache holds the last positions before the new ones, not position 0")
            gap = max(float(np.abs(k - want_k[:, :, end - kept:end]).max()),
                      float(np.abs(v - want_v[:, :, end - kept:end]).max()))
            assert_close(f"{what}, the cache returned", gap,
                         "keep the keys and values of the last window positions, oldest first")
        observations.append((f"rolling cache, {how}", [out, attention, k, v]))
    return observations


def checks_for(window_maker):
    """The cells' two checks for a framework whose window_maker(layer_class) gives the `make` above:
    window_against_reference(layer_class, *case) and rolling_cache(layer_class), warnings ignored
    (a warning is no failure)."""
    def against_reference(layer_class, *case):
        with warnings_ignored():
            return window_against_reference(window_maker(layer_class), *case)

    def rolling(layer_class):
        with warnings_ignored():
            return rolling_cache(window_maker(layer_class))
    return against_reference, rolling
