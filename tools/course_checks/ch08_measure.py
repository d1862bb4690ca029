"""Chapter 8's part 5 (predict, then measure, the size of the key-value cache), framework-free:
the hidden cases, the formula and the checks; ch08_keras and ch08_pytorch build the models."""
import numpy as np

from . import reference
from .reference import one_number   # the number a student's function returned, as a float
from .ch08 import Recorder, warnings_ignored

# Part 5, predict, then measure, the size of the key-value cache.
# predicted_cache_entries at hidden sizes: (num_layers, d_model, L, B). No constant matches
# them all, and no formula without the factor 2 (keys and values), num_layers, L or B.
CACHE_SIZE_CASES = (
    (1, 16, 5, 2), (12, 768, 1024, 1), (3, 8, 1, 4), (2, 12, 7, 3), (6, 64, 33, 5),
    (4, 20, 2, 1),
)
# measured_cache_entries on a small course GPT-2 (vocabulary 30, max_len 16), prompts (B, L);
# window: the model keeps only the keys and values of its last `window` positions (None: all).
CACHE_MEASUREMENT_CASES = (     # (num_layers, d_model, num_heads, B, L, window, seed)
    (2, 16, 4, 3, 7, None, 101),
    (1, 12, 3, 1, 1, None, 102),
    (3, 8, 2, 2, 5, None, 103),
    (2, 8, 2, 2, 9, 4, 104),
)
CACHE_VOCABULARY, CACHE_MAX_LEN = 30, 16


# ---------------------------------------------------------------- part 5
def cache_entries(num_layers, d_model, length, batch, window=None):
    """The numbers a GPT-2's cache holds after prompts (batch, length): a key and a value of
    d_model numbers (h heads of d_k) per position kept, per layer, per sequence."""
    kept = length if window is None else min(length, window)
    return 2 * num_layers * batch * kept * d_model


def cache_size_prediction(predict, num_layers, d_model, length, batch):
    """predicted_cache_entries(num_layers, d_model, L, B) against cache_entries (relative
    1e-6), for a case of CACHE_SIZE_CASES; the observation."""
    what = (f"predicted_cache_entries(num_layers={num_layers}, d_model={d_model}, L={length}, "
            f"B={batch})")
    predicted = one_number(reference.quietly(predict, num_layers, d_model, length, batch),
                           what)
    expected = cache_entries(num_layers, d_model, length, batch)
    assert abs(predicted - expected) <= 1e-6 * expected, (
        f"{what} returned {predicted:.10g}, which is not the number of numbers in the cache: "
        "count what one layer keeps for one position of one sequence (its key and its value, "
        "every head), then multiply by the positions, the sequences and the layers")
    return what, predicted


class WindowedCache:
    """The model, keeping only the keys and values of its last `window` positions (the cache it
    returns is cut to them): a measurement must count what the model returns."""

    def __init__(self, model, window):
        self._model, self._window = model, window

    def __call__(self, token_ids, cache=None, *args, **kwargs):
        logits, new_cache = self._model(token_ids, cache, *args, **kwargs)
        last = self._window
        return logits, [(k[:, :, -last:], v[:, :, -last:]) for k, v in new_cache]

    def __getattr__(self, name):
        return getattr(self._model, name)


def cache_size_measurement(measure, build_model, shape_of, case):
    """measured_cache_entries(model, prompt_ids) on a course GPT-2 built by build_model(
    num_layers, d_model, num_heads, seed) (cut to a window where the case says so) and random
    prompts (B, L), for a case of CACHE_MEASUREMENT_CASES: it must run the model on the prompts
    and return exactly the number of numbers in the cache it returns; the observation."""
    num_layers, d_model, num_heads, batch, length, window, seed = case
    model = build_model(num_layers, d_model, num_heads, seed)
    if window is not None:
        model = WindowedCache(model, window)
    record = Recorder(model, shape_of)
    prompt = np.random.default_rng(seed).integers(0, CACHE_VOCABULARY, size=(batch, length))
    kept = "" if window is None else f", keeping its last {window} positions"
    what = (f"measured_cache_entries on a GPT-2 with num_layers={num_layers}, "
            f"d_model={d_model}, num_heads={num_heads}{kept}, prompts (B, L) = "
            f"{(batch, length)}")
    with warnings_ignored():
        measured = one_number(measure(record, prompt.copy()), what)
    assert ((batch, length), False) in record.calls, (
        f"{what}: the model never ran on the prompts (B, L) without a cache (its calls: "
        f"{record.calls}): measure the cache that model(prompt_ids) returns")
    expected = cache_entries(num_layers, d_model, length, batch, window)
    assert measured == expected, (
        f"{what}: measured {measured:.10g}, but the cache the model returned holds {expected} "
        "numbers: add up the sizes of the keys and of the values of every layer")
    return what, measured
