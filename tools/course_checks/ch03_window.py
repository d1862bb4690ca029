"""Chapter 3, part 5 (the variation): a sliding-window causal mask, as in Mistral 7B.

``sliding_window_mask(length, window)`` is True at [i, j] for i - window <= j <= i: position i sees
itself and the window positions before it, and nothing ahead (window 0: only itself). This is the
convention of Mistral's reference code and of assignment 8's SlidingWindowAttention
(``ch08_window``), so that ``window`` means the same in both assignments. The chapter builds only
the causal mask (every earlier position); its ``causal_mask(length)``, pasted under this name,
cannot even take the window. The checks here are framework-free: ``ch03_pytorch`` and ``ch03_keras`` hand them the
student's function, a converter to NumPy (which also checks the dtype) and the framework's logical
and. A check returns what its cell observes: a ``(name, value)`` pair.
"""
import numpy as np

from . import reference
from .ch03 import real_positions, reference_self_attention

# sliding_window_mask against the dense reference: (length, window); window 0 (only itself, also for
# length 1), window 1, and windows of length - 1 (just reaching the start: the causal mask) and longer
# among them. A mask that counts the query's own position in the window (i - window < j <= i) fails
# every case with window <= length - 1 (with window 0 its rows are empty).
WINDOW_CASES = ((1, 0), (6, 0), (6, 1), (6, 3), (9, 4), (7, 6), (5, 9), (2, 1), (8, 5))
# The reach through attention: (length, window, layers stacked, seed); window 0 reaches nothing further.
WINDOW_PROPERTY_CASES = ((8, 3, 1, 91), (9, 2, 2, 92), (8, 1, 3, 93), (6, 0, 2, 94), (5, 6, 1, 95))


def banded(length, window):
    """(length, length) bool: query i may attend to the keys j with i - window <= j <= i."""
    offset = np.arange(length)[:, None] - np.arange(length)[None, :]           # i - j
    return (offset >= 0) & (offset <= window)


def student_mask(sliding_window_mask, as_array, length, window):
    """The student's sliding_window_mask(length, window) as a NumPy bool array (length, length)."""
    got = as_array(reference.quietly(sliding_window_mask, length, window),
                   f"sliding_window_mask({length}, {window})")
    assert got.shape == (length, length), (
        f"expected sliding_window_mask({length}, {window}) of shape {(length, length)}, got {got.shape}")
    return got


def window_mask_against_reference(sliding_window_mask, as_array, logical_and, length, window):
    """sliding_window_mask(length, window) equal to `banded`, and combined (logical_and) with a
    padding mask of two sequences (2, 1, length) into (2, length, length)."""
    got = student_mask(sliding_window_mask, as_array, length, window)
    expected = banded(length, window)
    wrong = np.argwhere(got != expected)
    if len(wrong):
        i, j = (int(n) for n in wrong[0])
        raise AssertionError(
            f"sliding_window_mask({length}, {window})[{i}, {j}] is {bool(got[i, j])}: with window={window}, "
            f"position i may attend to itself and the {window} position{'s' * (window != 1)} before it "
            f"(i - {window} to i) only (fewer at the start), never ahead")
    real = real_positions([length, max(1, length - 2)], length)[:, None, :]   # (2, 1, length)
    combined = logical_and(real, sliding_window_mask(length, window))
    assert combined.shape == (2, length, length) and np.array_equal(combined, real & expected), (
        f"combined with a padding mask of shape (2, 1, {length}), sliding_window_mask({length}, {window}) "
        f"should give shape (2, {length}, {length}) and block what either mask blocks")
    return f"sliding_window_mask({length}, {window})", [got, combined]


def stacked_layers(rng, n_layers, d_model, d_k):
    """The float64 parameters of n_layers self-attention layers, {name: (W, b)} each (x @ W + b)."""
    sizes = {"query": (d_model, d_k), "key": (d_model, d_k), "value": (d_model, d_k),
             "output_projection": (d_k, d_model)}
    return [{name: (rng.normal(0.0, 0.5, size=shape), rng.normal(0.0, 0.5, size=shape[1]))
             for name, shape in sizes.items()} for _ in range(n_layers)]


def through_layers(x, stack, mask):
    """x (B, L, d_model) through the stacked reference layers (with a residual connection each)."""
    for params in stack:
        x = x + reference_self_attention(x, params, mask)[0]
    return x


def window_property(sliding_window_mask, as_array, length, window, n_layers, seed):
    """Through n_layers stacked self-attention layers (float64 reference) masked with the student's
    sliding_window_mask(length, window), changing the input at position p must change exactly the
    outputs at p to p + n_layers * window (unchanged: within 1e-9; changed: by over 1e-4): each layer
    carries information window positions further."""
    mask = student_mask(sliding_window_mask, as_array, length, window)
    rng = np.random.default_rng(seed)
    d_model, d_k, B = 4, 3, 2
    stack = stacked_layers(rng, n_layers, d_model, d_k)
    x = rng.normal(size=(B, length, d_model))
    base = through_layers(x, stack, mask)
    what = f"sliding_window_mask({length}, {window}) in {n_layers} stacked layer{'s' * (n_layers > 1)}"
    reached = []
    for p in range(length):
        moved = x.copy()
        moved[:, p] += 3.0 * rng.normal(size=(B, d_model))
        change = np.abs(through_layers(moved, stack, mask) - base).max(axis=(0, 2))   # (length,)
        assert np.all((change < 1e-9) | (change > 1e-4)), (
            f"with {what}: changing the input at position {p} changed some outputs by a tiny amount "
            f"({change.min():.3g} to {change.max():.3g}): blocked positions must get weight exactly 0")
        reached.append([int(i) for i in np.flatnonzero(change > 1e-4)])
        expected = list(range(p, min(length, p + n_layers * window + 1)))
        assert reached[-1] == expected, (
            f"with {what}: changing the input at position {p} changed the outputs at positions "
            f"{reached[-1]}, where it should change exactly {expected}: in one layer position i sees "
            "positions i - window to i, so each layer carries information window positions "
            "further, and never backwards")
    return f"reach through {what}", reached
