"""Framework-free references, in float64, that several chapters' checks share."""
import contextlib
import warnings
from unittest import mock

import numpy as np


def attention(Q, K, V, mask=None):
    """softmax(Q K^T / sqrt(d_k)) V over the last two axes, in float64; mask: True = may attend.
    Returns (output, weights)."""
    Q, K, V = (np.asarray(x, dtype="float64") for x in (Q, K, V))
    logits = Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1])
    if mask is not None:
        logits = np.where(np.asarray(mask, dtype=bool), logits, -np.inf)
    alpha = np.exp(logits - logits.max(axis=-1, keepdims=True))
    alpha = alpha / alpha.sum(axis=-1, keepdims=True)
    return alpha @ V, alpha


def split_heads(x, num_heads):
    """(B, L, d) -> (B, h, L, d / h)."""
    b, length, d = x.shape
    return np.swapaxes(np.reshape(x, (b, length, num_heads, d // num_heads)), 1, 2)


def merge_heads(x):
    """(B, h, L, d_head) -> (B, L, h * d_head)."""
    b, h, length, d = x.shape
    return np.reshape(np.swapaxes(x, 1, 2), (b, length, h * d))


def random_mask(rng, shape):
    """A random boolean mask of `shape` in which every query (row) may attend to at least one key."""
    rows = rng.random((int(np.prod(shape[:-1])), shape[-1])) < 0.6
    rows[np.arange(len(rows)), rng.integers(0, shape[-1], size=len(rows))] = True
    return rows.reshape(shape)


def quietly(function, *args, **kwargs):
    """Call the student's function with warnings silenced: a warning is no failure (nbgrader would
    score a cell 0 for anything on stderr); what counts is the result."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


@contextlib.contextmanager
def refused(targets, message):
    """While inside: calling any (owner, attribute name) of `targets` raises AssertionError(message),
    the student's feedback (a part that asks for the computation refuses the library's own); the
    attributes are put back on the way out."""
    def refuse(*args, **kwargs):
        raise AssertionError(message)
    with contextlib.ExitStack() as patches:
        for owner, name in targets:
            patches.enter_context(mock.patch.object(owner, name, refuse))
        yield


def one_number(result, what):
    """The number that a student's function returned (a Python number, a 0-d or one-element
    array or tensor), as a float; the feedback names the call `what`."""
    try:
        array = np.asarray(result, dtype="float64")
    except (TypeError, ValueError):
        array = np.zeros(0)
    assert array.size == 1, f"{what} should return one number, got {type(result).__name__}"
    return float(array.ravel()[0])
