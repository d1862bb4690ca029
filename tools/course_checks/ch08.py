"""Chapter 08 (GPT-2): the cases, the NumPy references and the framework-free checks that the
PyTorch and the Keras checks share. Framework-free: NumPy only (the framework modules pass in what
touches tensors)."""
import contextlib
import warnings

import numpy as np

from . import reference

# Part 1, causal self-attention with a key-value cache, over left-padded prompts.
# Known weights in the student's layer and in the library's attention, with the causal and the
# padding mask combined: B = 1, L = 1, h = 1 and h = d_model among them; a row of pads only.
LIBRARY_CASES = (               # (B, L, d_model, h, seed, the pads at the start of each row)
    (2, 6, 12, 3, 31, (2, 0)),
    (1, 4, 8, 1, 32, (0,)),
    (3, 5, 6, 6, 33, (0, 4, 1)),
    (2, 1, 8, 2, 34, (1, 0)),
)
GPT2_WEIGHTS_SEED, GPT2_IDS_SEED = 35, 36   # the library GPT-2's random weights; its tokens (3, 14)
# Changing the input at position 4 of 9 (B = 2, d_model = 12).
CAUSAL_CASES = (                # (h, seed)
    (1, 41),
    (4, 42),
)
# The key-value cache (B = 2, L = 10, d_model = 12, h = 3): the new positions of each call; row 0
# starts with 3 pads, row 1 with none.
CACHE_SEED, CACHE_PADS = 51, (3, 0)
CACHE_CASES = (                 # (how, the number of new positions of each call)
    ("one position at a time after a prompt of 4", (4, 1, 1, 1, 1, 1, 1)),
    ("in chunks of 3, 5 and 2", (3, 5, 2)),
)

# Part 2, the filters: one k or p for every row, or one per row (NumPy arrays (B,)).
TOP_K_CASES = (                 # ((B, V), k): logits drawn with seed 61 + the sum of k
    ((6, 50), 1),
    ((6, 50), 7),
    ((6, 50), 50),
    ((1, 7), 3),
    ((1, 7), 7),
    ((6, 50), (1, 7, 50, 3, 20, 2)),
    ((3, 7), (7, 1, 4)),
)
TOP_P_SEED, TOP_P_SHAPE = 71, (8, 40)
TOP_P_CASES = (                 # (scale of the logits: flat to peaked rows, p, after top-k)
    (0.5, 0.75, False),
    (2.0, 0.3, False),
    (2.0, 0.95, False),
    (4.0, 0.75, False),
    (1.0, 0.75, True),
    (3.0, 0.5, True),
    (1.0, (0.3, 0.5, 0.75, 0.9, 0.95, 0.2, 0.6, 0.99), False),
    (3.0, (0.99, 0.1, 0.5, 0.8, 0.3, 0.7, 0.9, 0.4), True),
)

# Part 3, sampling: one row of 8 logits, repeated, and the tokens seen before it (token 1 and
# token 7 twice: each is penalised once).
SAMPLING_ROW = (0.3, 2.0, -1.0, 1.0, -2.0, 1.6, 0.0, -0.5)
SAMPLING_SEEN = (1, 3, 7, 7, 1)
SAMPLING_DRAWS = 20_000
SAMPLING_CASES = (              # (temperature, top_k, top_p, repetition_penalty, seed)
    (1.0, None, None, 1.0, 81),
    (0.5, None, None, 1.0, 82),
    (2.0, 3, None, 1.0, 83),
    (0.5, None, 0.8, 1.0, 84),
    (1.3, 5, 0.6, 1.0, 85),
    (1.0, None, None, 1.5, 89),
    (0.7, 4, None, 2.0, 90),
    (1.2, None, 0.7, 1.3, 79),
)
COLDEST_SEED, SEEDED_RUNS = 86, (87, 87, 88)

# Part 4, generation: a small GPT-2 (vocabulary 60, max_len 40, 1 layer) continues prompts.
GENERATE_SEED, GENERATE_NEW_TOKENS = 91, 8    # the model's and the three random prompts' seed
GENERATE_CASES = (              # (the prompts: None = three random ones of 4 tokens, generate's settings)
    (None, (("temperature", 0),)),
    (None, (("temperature", 0.9), ("top_k", 10), ("seed", 5))),
    (((7,),), (("temperature", 0.7), ("top_k", 20), ("top_p", 0.8), ("seed", 7))),
    (None, (("temperature", 0), ("repetition_penalty", 3.0))),
    (None, (("temperature", 0.9), ("top_k", 10), ("seed", 5), ("repetition_penalty", 1.5), ("stop", 0),
            ("pad_id", 59))),
    (None, (("temperature", 1.0), ("repetition_penalty", 2.0), ("stop", 1))),
)   # ("stop", i): the framework's GENERATE_STOPS[i], its stop_id (and seed), since the models differ:
    # one that ends some rows and not others (8 tokens), one that ends every row, at different steps
CALLS_SEED = 95                 # the two prompts' (2, 5) seed (and the PyTorch model's); 8 new tokens




@contextlib.contextmanager
def warnings_ignored():
    """Warnings ignored while the block runs: a warning is no failure (nbgrader would score a cell 0
    for anything on stderr)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@contextlib.contextmanager
def references_in(namespace, references):
    """The kernel's names in `references` bound to the reference versions there (parts graded on
    their own) while the block runs; the kernel's own values back afterwards, whatever happens."""
    yours = {name: namespace.get(name) for name in references}
    namespace.update(references)
    try:
        yield
    finally:
        namespace.update(yours)


class GradedCell:
    """What the hidden regions of a visible test cell open and close: the reference versions of
    some of the kernel's names swapped in, and warnings ignored, until restore()."""

    def __init__(self, namespace, references):
        self.namespace = namespace
        self.yours = {name: namespace.get(name) for name in references}
        namespace.update(references)
        self.quiet = warnings.catch_warnings()
        self.quiet.__enter__()
        warnings.simplefilter("ignore")

    def restore(self):
        """Warnings as they were, and the kernel's own values of the names."""
        self.quiet.__exit__(None, None, None)
        self.namespace.update(self.yours)


# ---------------------------------------------------------------- part 1
def causal_verdict(h, before, after, later):
    """The verdict on causality from the largest change of the outputs at positions 0 to 3
    (`before`), the smallest largest change at positions 4 to 8 (`after`) and the largest weight
    on a later position (`later`): the observation."""
    assert later == 0, (
        f"h={h}: some weights on later positions are not 0 (up to {later:.3g}): position i may attend to "
        "the positions j <= i only")
    assert before < 1e-6, (
        f"h={h}: changing the input at position 4 changed the outputs at positions 0 to 3 (by up to "
        f"{before:.3g}): an earlier position must not see a later one")
    assert after > 1e-4, (
        f"h={h}: changing the input at position 4 left some of the outputs at positions 4 to 8 unchanged: "
        "position i should see every position j <= i, itself included")
    return f"causal, h={h}", [before < 1e-6, after > 1e-4, later]


# ---------------------------------------------------------------- part 1, padding
def left_padded(pads, total):
    """The padding mask of left-padded rows: (B, total) bool, True for the real tokens, with
    `pads[b]` pads at the start of row b."""
    return np.arange(total)[None, :] >= np.asarray(pads)[:, None]


def allowed_keys(real, length):
    """What the reference lets attend: (B, L, P + L) bool for the L new positions P .. P + L - 1
    among the P + L keys of which `real` (B, P + L) marks the tokens: the key j is allowed for the
    position P + i when j <= P + i and j is a real token or the position itself."""
    keys = real.shape[1]
    at = np.arange(length)[:, None] + (keys - length)           # where each new position stands
    to = np.arange(keys)[None, :]
    return (to <= at)[None] & (real[:, None, :] | (to == at)[None])


def padding_verdict(what, got_weights, real):
    """The weights of one call on a left-padded batch without a cache: no weight on a pad from a
    real token, and a pad's own row all on itself."""
    wanted = allowed_keys(real, real.shape[1])[:, None]         # (B, 1, L, L)
    stray = float(np.abs(np.where(wanted, 0.0, got_weights)).max())
    assert stray == 0, (
        f"{what}: some weights on keys that may not be attended to are not 0 (up to {stray:.3g}): a "
        "position attends to the real tokens up to itself, never to a pad, and a pad to itself only")


# ---------------------------------------------------------------- part 2
def per_row(value, rows):
    """k or p for each of `rows` rows: a NumPy array (B,) (one value given for every row, or one per
    row)."""
    return np.broadcast_to(np.asarray(value), (rows,))


def shown(value):
    """How the feedback shows k or p: a number, or the list of one per row."""
    return value if np.ndim(value) == 0 else list(value)


def as_given(value):
    """k or p as the tests pass it: a Python number, or a NumPy array (B,)."""
    return value if np.ndim(value) == 0 else np.array(value)


def top_k_logits(rows, k):
    """Random logits `rows` = (B, V), float32, for top_k_filter with k."""
    return (np.random.default_rng(61 + int(np.sum(k))).normal(size=rows) * 2).astype("float32")


def kept_the_k_largest(what, got, logits, k):
    """Assert that the filtered logits `got` (NumPy (B, V)) keep exactly the k largest of each row
    of `logits` (k a number or one per row), unchanged, and -inf elsewhere; returns which ones they
    keep."""
    finite = np.isfinite(got)
    want = np.argsort(np.argsort(-logits, axis=-1), axis=-1) < per_row(k, len(logits))[:, None]
    assert np.array_equal(finite, want), (
        f"{what}: kept {finite.sum(-1).tolist()} logits per row, not the {want.sum(-1).tolist()} largest: "
        "row b keeps its k largest, k[b] when k gives one per row")
    assert np.array_equal(got[want], logits[want]) and np.all(got[~want] == -np.inf), (
        f"{what}: the kept logits should be unchanged and the others -inf")
    return finite


def top_p_logits(scale, after_top_k):
    """Random logits (8, 40), float32, times `scale`; after top-k: -inf outside each row's 10
    largest, as top_k_filter(logits, 10) leaves them."""
    logits = (np.random.default_rng(TOP_P_SEED).normal(size=TOP_P_SHAPE) * scale).astype("float32")
    if after_top_k:
        tenth = np.sort(logits, axis=-1)[:, -10:-9]
        logits = np.where(logits < tenth, -np.inf, logits).astype("float32")
    return logits


def top_p_label(scale, mass, after_top_k):
    """How the feedback names a top-p case."""
    after = " after top-k" if after_top_k else ""
    return f"top_p_filter with p={shown(mass)} on rows of logits times {scale}" + after


def nucleus(row_logits, mass):
    """Which tokens the smallest set of most probable ones that reaches `mass` holds (NumPy)."""
    finite = np.isfinite(row_logits)
    weights = np.where(finite, np.exp(row_logits - row_logits[finite].max()), 0.0)
    weights = weights / weights.sum()
    ranked = np.argsort(-weights, kind="stable")
    count = int(np.searchsorted(np.cumsum(weights[ranked]), mass) + 1)
    chosen = np.zeros(row_logits.shape, dtype=bool)
    chosen[ranked[:count]] = True
    return chosen


def kept_the_nucleus(what, got, logits, mass):
    """Assert that the filtered logits `got` (NumPy (B, V)) keep exactly each row's smallest set of
    most probable tokens that reaches `mass` (one for every row or one per row), unchanged; returns
    which ones they keep."""
    masses = per_row(mass, len(logits))
    want = np.stack([nucleus(row, row_mass) for row, row_mass in zip(logits.astype("float64"), masses)])
    finite = np.isfinite(got)
    assert np.array_equal(finite, want), (
        f"{what}: kept {finite.sum(-1).tolist()} tokens per row, the smallest sets that reach p hold "
        f"{want.sum(-1).tolist()}: keep each token while the more probable ones hold less than p (p[b] "
        "for row b when p gives one per row)")
    assert np.array_equal(got[want], logits[want]), f"{what}: the kept logits should be unchanged"
    return finite


# ---------------------------------------------------------------- part 3
def penalised(scores, seen, penalty):
    """CTRL's repetition penalty on NumPy scores (B, V), in float64: each token that row b has seen
    (seen[b], counted once) divided by `penalty` where positive, multiplied where not."""
    scores = np.array(scores, dtype="float64")
    if seen is None or penalty == 1.0:
        return scores
    for row, ids in zip(scores, np.asarray(seen)):
        repeated = np.unique(ids)
        row[repeated] = np.where(row[repeated] > 0, row[repeated] / penalty, row[repeated] * penalty)
    return scores


def draw_probabilities(row, temperature, top_k, top_p, penalty=1.0, seen=None):
    """The probabilities to draw from, in NumPy float64: the penalty, the temperature, then top-k,
    then top-p."""
    scaled = penalised(row[None], None if seen is None else [seen], penalty)[0] / temperature
    if top_k is not None:
        scaled = np.where(scaled < np.sort(scaled)[-top_k], -np.inf, scaled)
    chance = np.exp(scaled - scaled.max())
    chance = chance / chance.sum()
    if top_p is not None:
        ranked = np.argsort(-chance)
        before = np.cumsum(chance[ranked]) - chance[ranked]
        chance[ranked[before >= top_p]] = 0.0
        chance = chance / chance.sum()
    return chance


def draws_within_five_sigma(sample_next, as_tensor, row, case):
    """SAMPLING_DRAWS draws of sample_next from `row` repeated (each row having seen SAMPLING_SEEN):
    every token's count within 5 standard deviations of its expected count; the observation."""
    temperature, top_k, top_p, penalty, seed = case
    n = SAMPLING_DRAWS
    what = f"temperature={temperature}, top_k={top_k}, top_p={top_p}, repetition_penalty={penalty}"
    seen = np.tile(np.array(SAMPLING_SEEN), (n, 1))
    draws = sample_next(as_tensor(np.tile(row, (n, 1))), np.random.default_rng(seed), temperature=temperature,
                        top_k=top_k, top_p=top_p, repetition_penalty=penalty, seen=seen)
    assert isinstance(draws, np.ndarray) and draws.shape == (n,), (
        f"{what}: expected a NumPy array of {n} tokens, got {type(draws).__name__} "
        f"{getattr(draws, 'shape', '')}")
    chance = draw_probabilities(row, temperature, top_k, top_p, penalty, SAMPLING_SEEN)
    counts = np.bincount(draws.astype(np.int64), minlength=8)[:8]
    sigma = np.sqrt(n * chance * (1 - chance))
    fine = bool(np.all(np.abs(counts - n * chance) < 5 * sigma + 1) and len(np.bincount(draws)) <= 8)
    assert fine, (
        f"{what}, the tokens {list(SAMPLING_SEEN)} seen: {n:,} draws gave the counts {counts.tolist()}; "
        f"expected about {np.round(n * chance).astype(int).tolist()} (within 5 standard deviations): the "
        "penalty on each token seen (once), then divide by the temperature, then top-k, then top-p on what "
        "is left, and draw from the softmax")
    return f"draws within 5 sigma, {what}", fine


def sampling_draws(sample_next, as_tensor):
    """sample_next's draws for every case of SAMPLING_CASES, greedy after a penalty, at temperature
    0.001, and with the same seed twice and another; as_tensor: NumPy logits -> the framework's
    tensor. The observations."""
    row = np.array(SAMPLING_ROW, dtype="float32")
    observations = []
    with warnings_ignored():
        for case in SAMPLING_CASES:
            observations.append(draws_within_five_sigma(sample_next, as_tensor, row, case))
        greedy = sample_next(as_tensor(np.tile(row, (3, 1))), np.random.default_rng(COLDEST_SEED),
                             temperature=0, repetition_penalty=1.5, seen=np.tile(np.array(SAMPLING_SEEN), (3, 1)))
        assert np.array_equal(np.asarray(greedy), [5, 5, 5]), (
            f"greedy (temperature=0) with repetition_penalty=1.5 after the tokens {list(SAMPLING_SEEN)}: "
            f"token 1's logit 2.0 becomes 1.33, below token 5's 1.6, so 5 is the most probable; got "
            f"{np.asarray(greedy).tolist()}: the penalty comes before the greedy choice too")
        observations.append(("greedy after the penalty", True))
        coldest = sample_next(as_tensor(np.tile(row, (1000, 1))), np.random.default_rng(COLDEST_SEED),
                              temperature=1e-3)
        assert np.all(np.asarray(coldest) == 1), (
            "with temperature=0.001 every draw should be the most probable token (1): the distribution is "
            "almost all on it")
        observations.append(("temperature 0.001 gives the most probable token", True))
        rows = as_tensor(np.tile(row, (2000, 1)))
        runs = [np.asarray(sample_next(rows, np.random.default_rng(seed), temperature=0.9))
                for seed in SEEDED_RUNS]
    assert np.array_equal(runs[0], runs[1]) and not np.array_equal(runs[0], runs[2]), (
        "the same seed should give the same tokens and another seed other tokens: take every random number "
        "from rng")
    observations.append(("seeded draws", True))
    return observations


def reference_sample_next(to_numpy):
    """A reference sample_next(logits, rng, temperature, top_k, top_p, repetition_penalty, seen) for
    the tests of part 4, in NumPy float64 (to_numpy: the framework's tensor -> NumPy)."""
    def draw_tokens(logits, rng, temperature=1.0, top_k=None, top_p=None, repetition_penalty=1.0,
                    seen=None):
        scores = penalised(to_numpy(logits), seen, repetition_penalty)
        if temperature == 0:
            return scores.argmax(axis=-1)
        chances = np.stack([draw_probabilities(row, temperature, top_k, top_p) for row in scores])
        running = chances.cumsum(axis=-1)
        threshold = rng.random((len(chances), 1)) * running[:, -1:]
        return (running <= threshold).sum(axis=-1)
    return draw_tokens


# ---------------------------------------------------------------- part 4
def generate_cases(stops):
    """(prompts (B, P), generate's settings) for each case of GENERATE_CASES, with the framework's
    stops ({"stop_id": ..., and "seed" where given})."""
    three = np.random.default_rng(GENERATE_SEED).integers(0, 60, size=(3, 4))
    cases = []
    for prompt, settings in GENERATE_CASES:
        settings = dict(settings)
        if "stop" in settings:
            settings.update(stops[settings.pop("stop")])
        cases.append((three if prompt is None else np.array(prompt), settings))
    return cases


def first_difference(tokens, other_tokens):
    """The first position (B, P) at which two sequences of tokens differ in some row."""
    return int(np.argmax(np.any(tokens != np.asarray(other_tokens), axis=0)))


def reference_tokens(last_logits, draw_tokens, prompt, count, temperature=1.0, top_k=None, top_p=None,
                     seed=0, repetition_penalty=1.0, stop_id=None, pad_id=0):
    """The reference: the whole sequence through the model at every step (last_logits: tokens
    (B, T) -> the last position's logits), one draw_tokens per step for every row; a row that has
    drawn stop_id gets pad_id from then on, and it stops when every row has."""
    rng = np.random.default_rng(seed)
    sequence = np.array(prompt)
    done = np.zeros(len(sequence), dtype=bool)
    for _ in range(count):
        chosen = np.asarray(draw_tokens(last_logits(sequence), rng, temperature, top_k, top_p,
                                        repetition_penalty, sequence))
        if stop_id is not None:
            chosen = np.where(done, pad_id, chosen)
            done = done | (chosen == stop_id)
        sequence = np.concatenate([sequence, np.reshape(chosen, (-1, 1))], axis=1)
        if done.all():
            break
    return sequence


def generated_tokens(generate, model, reference, stops):
    """generate's tokens on the model for every case of GENERATE_CASES (with the framework's
    `stops`), with and without the cache, against reference(prompt, count, **settings); the
    observations."""
    observations = []
    for prompt, settings in generate_cases(stops):
        what = f"{prompt.shape[0]} prompts of {prompt.shape[1]} tokens, " + ", ".join(
            f"{key}={value}" for key, value in settings.items())
        want = reference(prompt, GENERATE_NEW_TOKENS, **settings)
        assert "stop_id" not in settings or (want[:, prompt.shape[1]:] == settings["stop_id"]).any(), (
            f"{what}: the reference never draws stop_id here, so this case tests no stop (for the "
            "course's maintainers: the test model changed; choose another stop_id or seed)")
        with_cache = generate(model, prompt.copy(), GENERATE_NEW_TOKENS, use_cache=True, **settings)
        without_cache = generate(model, prompt.copy(), GENERATE_NEW_TOKENS, use_cache=False, **settings)
        assert isinstance(with_cache, np.ndarray) and with_cache.shape == want.shape, (
            f"{what}: expected a NumPy array {want.shape}, got {type(with_cache).__name__} "
            f"{getattr(with_cache, 'shape', '')}" + (
                ": stop as soon as every row has drawn stop_id" if "stop_id" in settings else ""))
        assert np.array_equal(with_cache, without_cache), (
            f"{what}: the tokens with the cache differ from those without it (first at step "
            f"{first_difference(with_cache, without_cache) - prompt.shape[1]}): with the cache, pass only "
            "the new tokens (B, 1) and the cache of the previous call")
        assert np.array_equal(with_cache, want), (
            f"{what}: your tokens differ from the reference's with the same seed: rng = "
            "np.random.default_rng(seed), then one sample_next(logits of the last position, rng, "
            "temperature, top_k, top_p, repetition_penalty, the tokens so far) per step for every row; a "
            "row that has drawn stop_id gets pad_id after it")
        observations.append((f"generated, {what}", [with_cache, without_cache]))
    return observations


class Recorder:
    """The model, recording the shape of the tokens of every call (shape_of: tokens -> a tuple of
    ints) and whether a cache came with them."""

    def __init__(self, model, shape_of):
        self._model, self._shape_of, self.calls = model, shape_of, []

    def __call__(self, token_ids, cache=None, *args, **kwargs):
        self.calls.append((self._shape_of(token_ids), cache is not None))
        return self._model(token_ids, cache, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._model, name)


def recorded_calls(generate, model, shape_of, reference, stop):
    """The calls of the model by generate on 2 prompts of 5 tokens, at most 8 new tokens, without
    a stop_id and with the framework's `stop` ({"stop_id", "seed"}: it ends both rows before 8):
    {(stop_id, use_cache): list of (shape of the tokens, with a cache)}, and the number of new
    tokens that the reference generates for each."""
    prompt = np.random.default_rng(CALLS_SEED).integers(0, 60, size=(2, 5))
    record = Recorder(model, shape_of)
    calls, new_tokens = {}, {}
    for stopping in (None, stop["stop_id"]):
        settings = dict(temperature=0.8, top_k=20, seed=stop["seed"], repetition_penalty=1.5, stop_id=stopping)
        new_tokens[stopping] = reference(prompt, 8, **settings).shape[1] - 5
        assert stopping is None or new_tokens[stopping] < 8, (
            f"stop_id={stopping}: the reference does not stop both rows before 8 tokens, so this case "
            "tests no early end (for the course's maintainers: the test model changed; choose "
            "another stop_id or seed)")
        for use_cache in (True, False):
            record.calls.clear()
            generate(record, prompt, 8, use_cache=use_cache, **settings)
            calls[stopping, use_cache] = list(record.calls)
    return calls, new_tokens


def calls_verdict(calls, new_tokens):
    """With the cache: the prompts once, then only the new tokens with the cache; without it: the
    whole sequence so far every time, never a cache; in both, a call for each new token but the last
    (whose logits nobody uses), and none after every row has stopped. The observations."""
    observations = []
    for stop_id, count in new_tokens.items():
        what = f"stop_id={stop_id} ({count} new tokens)"
        cached_calls, full_calls = calls[stop_id, True], calls[stop_id, False]
        cached_right = cached_calls == [((2, 5), False)] + [((2, 1), True)] * (count - 1)
        assert cached_right, (
            f"{what}: with use_cache=True the model should get the prompts once, (2, 5) without a cache, "
            f"then only the new tokens, (2, 1) with the cache, {count - 1} times (no call after the last "
            f"token); it got (shape, with a cache): {cached_calls[:5]}" + (" ..." if len(cached_calls) > 5 else ""))
        full_right = full_calls == [((2, 5 + i), False) for i in range(count)]
        assert full_right, (
            f"{what}: with use_cache=False the model should get the whole sequence so far every time, (2, 5), "
            f"(2, 6), ..., (2, {5 + count - 1}), without a cache, and no call after the last token; it got "
            f"(shape, with a cache): {full_calls[:5]}" + (" ..." if len(full_calls) > 5 else ""))
        observations += [(f"model calls with the cache, {what}", cached_right),
                         (f"model calls without the cache, {what}", full_right)]
    return observations


def cache_pieces(pieces, how):
    """(start, end, what) of each call when a sequence is fed `pieces` new positions at a time."""
    start = 0
    for size in pieces:
        end = start + size
        yield start, end, f"{how}: positions {start} to {end - 1} with a cache of {start}"
        start = end


def assert_cache_shapes(what, shapes, start, end):
    """One call with a cache of `start` positions on positions start..end-1: the shapes of the
    output, the weights and the returned keys and values."""
    size = end - start
    expected = ((2, size, 12), (2, 3, size, end), (2, 3, end, 4), (2, 3, end, 4))
    assert shapes == expected, (
        f"{what}: expected an output {expected[0]}, weights (B, h, L, P + L) = {expected[1]} and keys "
        f"and values (B, h, P + L, d_k) = {expected[2]}; got {shapes}")


def assert_cache_gaps(what, output_gap, cache_gap):
    """One call with a cache against one call on all positions: outputs and weights, then the cache."""
    assert output_gap < 1e-5, (
        f"{what}: the outputs and weights differ from those of one call on all 10 positions by up to "
        f"{output_gap:.3g}: the new position P + i (row i of the mask) may attend to the cached positions "
        "and to the new ones up to itself, the keys 0 .. P + i")
    assert cache_gap < 1e-5, (
        f"{what}: the returned cache differs from the keys and values of those positions by up to "
        f"{cache_gap:.3g}: return the cached ones first, then the new ones")
