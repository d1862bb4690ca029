"""Chapter 7 (BERT): the checks that both frameworks share, NumPy only.

``mask_tokens`` is NumPy in both notebooks, so its four hidden tests live here whole. For the
embedding and classifier tests this module holds the inputs (the same arrays in both notebooks;
PyTorch wraps them with ``torch.from_numpy``) and the verdict on the formula test, which compares
NumPy arrays. Every check returns the (name, value) pairs that its cell observes, in order.
"""
import warnings

import numpy as np

IGNORE_INDEX = -100                      # the label of a position that is not chosen
MASK_ID = 4                              # the course's [MASK]
COURSE_SPECIALS = (0, 1, 2, 3, 4)        # the course's [PAD], [UNK], [CLS], [SEP], [MASK]

MASK_CASES = (                           # the statistics test: (mask_rate, split; None: not passed)
    (0.15, None),
    (0.3, (0.5, 0.2, 0.3)),
)

SPECIAL_TOKEN_CASES = (                  # (special ids, [MASK] id, vocabulary size, type of special_ids)
    ((0, 1, 2, 3, 4), 4, 30, list),                    # the course's ids
    ((0, 100, 101, 102, 103), 103, 300, np.array),     # MiniLM's [PAD], [UNK], [CLS], [SEP], [MASK]
)

FREEZE_CASES = (True, False)             # the gradient test: freeze_bert

# "The bank raised its interest rates." / "She sat on the river bank."; "The animal didn't cross the
# street" / "because it was too tired."; "the bank": MiniLM's ids, [CLS] a [SEP] b [SEP], padded to 20.
MINILM_PAIRS = (
    ([101, 1996, 2924, 2992, 2049, 3037, 6165, 1012, 102], [2016, 2938, 2006, 1996, 2314, 2924, 1012, 102]),
    ([101, 1996, 4111, 2134, 1005, 1056, 2892, 1996, 2395, 102], [2138, 2009, 2001, 2205, 5458, 1012, 102]),
    ([101, 1996, 2924, 102], []),
)
MINILM_LENGTH = 20


def masked(mask_tokens, *args, **kwargs):
    """The student's mask_tokens(*args, **kwargs), warnings ignored: (inputs, labels) as arrays."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        return tuple(np.asarray(part) for part in mask_tokens(*args, **kwargs))


# ----------------------------------------------------------------------------- masking
def quota(ordinary, rate):
    """How many tokens each row must have chosen: round(rate * n), n the row's ordinary tokens
    (Python's round, a half to the even number, as np.rint). ordinary: (B, L) bool. (B,) ints."""
    return np.array([round(rate * int(n)) for n in ordinary.sum(axis=1)])


def quota_verdict(labels, ordinary, rate, what):
    """Assert that every row has exactly quota(ordinary, rate) labels, all on ordinary tokens.
    Returns the verdict (True)."""
    counts = ((labels != IGNORE_INDEX) & ordinary).sum(axis=1)
    want = quota(ordinary, rate)
    off = np.flatnonzero(counts != want)
    assert off.size == 0, (
        f"{what}: {off.size} of {len(want)} rows do not have exactly round(mask_rate * n) chosen tokens "
        f"(n: the row's ordinary tokens); row {off[0]} has {counts[off[0]]} instead of {want[off[0]]}: "
        "choose a fixed number per row, not each token on its own draw")
    return True


def padded_rows():
    """2000 rows of 10 to 40 tokens: [CLS], ordinary ids 5 to 999, [SEP], then [PAD]. (2000, 40)"""
    draw = np.random.default_rng(71)
    rows = draw.integers(5, 1000, size=(2000, 40))
    lengths = draw.integers(10, 41, size=2000)
    rows[np.arange(40)[None, :] >= lengths[:, None]] = 0          # [PAD] after each row's end
    rows[:, 0] = 2                                                  # [CLS]
    rows[np.arange(2000), lengths - 1] = 3                          # [SEP]
    return rows


def masking_statistics(mask_tokens, rate, split):
    """Every row has exactly round(rate * n) tokens chosen, and the chosen ones split into [MASK],
    another token and unchanged with the probabilities of `split` (None: the default, not passed),
    each within 5 standard deviations of a binomial draw. 4 observations."""
    rows = padded_rows()                                            # (2000, 40)
    plain = rows >= 5
    extra = {} if split is None else {"split": split}
    inputs, labels = masked(mask_tokens, rows.copy(), 1000, MASK_ID, list(COURSE_SPECIALS),
                            np.random.default_rng(72), mask_rate=rate, **extra)
    shown = (0.8, 0.1, 0.1) if split is None else split
    what = f"mask_rate={rate}, split={shown}"
    observations = [(f"chosen per row, {what}", quota_verdict(labels, plain, rate, what))]
    hit = (labels != IGNORE_INDEX) & plain
    count = int(hit.sum())
    was, now = rows[hit], inputs[hit]
    to_mask, to_random, to_keep = shown
    itself = 1 / 995                                                # a random draw of the token itself
    for kind, seen, expected in (("[MASK]", now == MASK_ID, to_mask),
                                 ("another token", (now != MASK_ID) & (now != was), to_random * (1 - itself)),
                                 ("unchanged", now == was, to_keep + to_random * itself)):
        margin = 5 * np.sqrt(expected * (1 - expected) / count)
        assert abs(seen.mean() - expected) < margin, (
            f"with {what}, {seen.mean():.2%} of the chosen tokens became {kind}; expected "
            f"{expected:.1%} within {margin:.2%} (split: [MASK], a random token, unchanged)")
        observations.append((f"share {kind}, {what}", True))
    return observations


def masking_special_tokens(mask_tokens, special_ids, mask_id, vocab_size, special_ids_type):
    """Rows with special tokens inside the text too, mask_rate=0.5: no special token is chosen or
    changed, no random replacement is a special token, and every row has round(0.5 * n) chosen, n
    its ordinary tokens (the special ones do not count). 3 observations."""
    specials = list(special_ids)
    draw = np.random.default_rng(81)
    plain_ids = np.array([i for i in range(vocab_size) if i not in specials])
    rows = draw.choice(plain_ids, size=(3000, 24))
    spots = draw.random(rows.shape) < 0.2
    rows[spots] = draw.choice(specials, size=int(spots.sum()))
    inputs, labels = masked(mask_tokens, rows.copy(), vocab_size, mask_id, special_ids_type(specials),
                            np.random.default_rng(82), mask_rate=0.5)
    is_special = np.isin(rows, specials)
    touched = int(np.sum((labels[is_special] != IGNORE_INDEX) | (inputs[is_special] != rows[is_special])))
    assert touched == 0, (
        f"special ids {specials}: {touched} special tokens were chosen or changed; a token whose id is in "
        "special_ids (padding included) is never chosen")
    swapped = (labels != IGNORE_INDEX) & (inputs != mask_id) & (inputs != rows)
    bad = int(np.isin(inputs[swapped], specials).sum())
    assert bad == 0, (
        f"special ids {specials}: {bad} random replacements were special tokens; draw them from the "
        "ordinary ids only (range(vocab_size) without special_ids)")
    counted = quota_verdict(labels, ~is_special, 0.5,
                            f"special ids {specials}, mask_rate=0.5 (n counts the ordinary tokens only)")
    return [(f"special tokens chosen, {specials}", touched), (f"special replacements, {specials}", bad),
            (f"chosen per row among the ordinary tokens, {specials}", counted)]


def masking_labels(mask_tokens):
    """1000 padded rows, mask_rate=0.4: integer arrays of the input's shape; each label is the
    original id or IGNORE_INDEX; every changed position has one; every row has exactly
    round(0.4 * n) labels. 4 observations."""
    draw = np.random.default_rng(91)
    rows = draw.integers(5, 60, size=(1000, 16))
    rows[np.arange(16)[None, :] >= draw.integers(4, 17, size=1000)[:, None]] = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        inputs, labels = mask_tokens(rows.copy(), 60, MASK_ID, list(COURSE_SPECIALS),
                                     np.random.default_rng(92), mask_rate=0.4)
    inputs, labels = np.asarray(inputs), np.asarray(labels)
    kinds_ok = bool(np.issubdtype(inputs.dtype, np.integer) and np.issubdtype(labels.dtype, np.integer))
    assert inputs.shape == rows.shape and labels.shape == rows.shape and kinds_ok, (
        f"inputs and labels should be integer arrays of shape (B, L) = {rows.shape}; got {inputs.dtype} "
        f"{inputs.shape} and {labels.dtype} {labels.shape}")
    odd = int(np.sum((labels != IGNORE_INDEX) & (labels != rows)))
    assert odd == 0, (
        f"{odd} labels are neither the original token id nor IGNORE_INDEX (-100): label a chosen position "
        "with the token it had before masking, every other one with IGNORE_INDEX")
    unlabelled = int(np.sum((inputs != rows) & (labels == IGNORE_INDEX)))
    assert unlabelled == 0, (
        f"{unlabelled} positions were changed ([MASK] or a random token) but have no label: every chosen "
        "position gets its original id as its label")
    exact = quota_verdict(labels, rows >= 5, 0.4, "mask_rate=0.4, padded rows")
    return [("labels: shapes and integer kinds", (tuple(inputs.shape), tuple(labels.shape), kinds_ok)),
            ("labels neither original nor -100", odd),
            ("changed positions without a label", unlabelled),
            ("labelled per row: round(0.4 n)", exact)]


DRAWS_SPLIT = (0.5, 0.5, 0.0)            # the draws test: half the chosen tokens replaced at random


def masking_draws(mask_tokens):
    """Seeds 96, 96, 97 on int32 rows (4000, 30) of ordinary ids, mask_rate=0.5 and
    split=DRAWS_SPLIT: token_ids untouched, the same seed gives the same masks and another seed
    others; every position of a row is chosen half the time (within 5 standard deviations: the
    positions are drawn uniformly, not the first ones); the random replacements spread evenly
    over the 25 ordinary ids. 3 observations."""
    rows = np.random.default_rng(95).integers(5, 30, size=(4000, 30)).astype(np.int32)
    kept = rows.copy()
    runs = [masked(mask_tokens, rows, 30, MASK_ID, list(COURSE_SPECIALS), np.random.default_rng(seed),
                   mask_rate=0.5, split=DRAWS_SPLIT) for seed in (96, 96, 97)]
    assert np.array_equal(rows, kept), (
        "mask_tokens changed token_ids in place: build new arrays (np.where does)")
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1]), (
        "two calls with np.random.default_rng(96) gave different masks: draw every random number from rng "
        "(not from np.random or random)")
    assert not np.array_equal(runs[0][0], runs[2][0]), "two different seeds gave the same masks"
    now, marks = runs[0]
    per_position = np.mean(marks != IGNORE_INDEX, axis=0)                    # (30,)
    margin = 5 * np.sqrt(0.25 / len(rows))
    uniform = bool(np.all(np.abs(per_position - 0.5) < margin))
    assert uniform, (
        "with mask_rate=0.5 every position of a row of 30 ordinary tokens should be chosen half the time "
        f"(within {margin:.1%}); the shares by position were {np.round(per_position, 2).tolist()}: choose "
        "the k positions of a row uniformly at random")
    swapped = (marks != IGNORE_INDEX) & (now != MASK_ID) & (now != rows)
    tally = np.bincount(now[swapped].astype(np.int64), minlength=30)[5:30]   # one count per ordinary id
    fair = swapped.sum() / 25
    even = bool(np.all((tally > 0.5 * fair) & (tally < 1.5 * fair)))
    assert even, (
        f"the random replacements should be spread evenly over the ordinary ids 5 to 29 (about {fair:.0f} "
        f"each); they were {tally.tolist()}")
    return [("token_ids unchanged, seeded", True), ("positions chosen uniformly", uniform),
            ("replacements spread evenly", even)]


# ----------------------------------------------------------------------------- embeddings
def minilm_batch(dtype):
    """MINILM_PAIRS as MiniLM's token ids and segment ids, padded with 0: two (3, 20) arrays."""
    ids = np.zeros((len(MINILM_PAIRS), MINILM_LENGTH), dtype=dtype)
    segments = np.zeros((len(MINILM_PAIRS), MINILM_LENGTH), dtype=dtype)
    for row, (first, second) in enumerate(MINILM_PAIRS):
        ids[row, :len(first) + len(second)] = first + second
        segments[row, len(first):len(first) + len(second)] = 1
    return ids, segments


def minilm_verdict(got, want, got_plain, want_plain, max_gap, library, eps_argument):
    """Assert that the student's layer with MiniLM's weights matches the library's embeddings
    (3, 20, 384) within 1e-5, with segment ids (got, want) and without (got_plain, want_plain).
    max_gap(a, b): the largest absolute difference as a float, computed in the framework;
    library: "transformers" or "keras-hub"; eps_argument: the layer norm's argument as the
    framework names it. 2 observations."""
    owner = f"{library}'" if library.endswith("s") else f"{library}'s"    # transformers', keras-hub's
    gap = max_gap(got, want)
    assert gap < 1e-5, (
        f"with all-MiniLM-L6-v2's weights, your layer differs from {owner} BERT embeddings by up to "
        f"{gap:.3g} on two sentence pairs: check the three tables (segments and positions 0 to L - 1 "
        f"included), the order of layer norm and dropout, and the layer norm's {eps_argument} (norm_eps)")
    gap_plain = max_gap(got_plain, want_plain)
    assert gap_plain < 1e-5, (
        f"with segment_ids=None, your layer differs from {owner} BERT embeddings by up to {gap_plain:.3g}: "
        "every token is then in segment 0")
    return [(f"MiniLM embeddings = {library}", bool(gap < 1e-5)),
            (f"MiniLM embeddings = {library}, one segment", bool(gap_plain < 1e-5))]


def embedding_formula_case():
    """Random tables (vocabulary 12, 3 segment types, 9 positions; d_model 6), layer-norm scale
    and shift, token and segment ids (4, 9), and LN(tokens[x_p] + segments[s_p] + positions[p])
    in float32 NumPy (eps 1e-12). Returns (tables, scale, shift, ids, segments, expected)."""
    draw = np.random.default_rng(61)
    tables = {name: draw.normal(size=(rows, 6)).astype("float32")
              for name, rows in (("tokens", 12), ("segments", 3), ("positions", 9))}
    scale = (draw.normal(size=6) * 0.5 + 1).astype("float32")
    shift = (draw.normal(size=6) * 0.5).astype("float32")
    ids, segments = draw.integers(0, 12, size=(4, 9)), draw.integers(0, 3, size=(4, 9))
    total = tables["tokens"][ids] + tables["segments"][segments] + tables["positions"][None, :9]
    centred = total - total.mean(-1, keepdims=True)
    expected = centred / np.sqrt((centred ** 2).mean(-1, keepdims=True) + 1e-12) * scale + shift
    return tables, scale, shift, ids, segments, expected


def embedding_formula_verdict(got, expected, in_segment_zero, in_segment_one, eps_argument):
    """Assert that `got` (4, 9, 6) matches the formula within 1e-5, and that one token repeated
    ((1, 4, 6) in segment 0 and in segment 1) changes with its segment and its position.
    eps_argument: the layer norm's argument as the framework names it. 2 observations."""
    gap = float(np.abs(got - expected).max())
    assert gap < 1e-5, (
        "with random tables, your layer differs from LN(tokens[x_p] + segments[s_p] + positions[p]) by up "
        f"to {gap:.3g}: add the three embeddings, the positions 0 to L - 1, then the layer norm "
        f"({eps_argument}=norm_eps)")
    assert np.abs(in_segment_zero - in_segment_one).max() > 1e-3, (
        "the segment ids should change the output: add the segment embedding")
    assert np.abs(in_segment_zero[0, 0] - in_segment_zero[0, 1]).max() > 1e-3, (
        "the same token at two positions should get two different vectors: add each position's embedding")
    return [("embeddings formula", bool(gap < 1e-5)), ("segments and positions matter", True)]


ALBERT_SIZES = dict(vocab_size=12, d_model=6, max_len=9, type_vocab_size=3, embed_dim=4)


def albert_formula_case():
    """ALBERT's factorised embedding with random weights: tables of width d_e = 4 (vocabulary 12,
    3 segment types, 9 positions), layer-norm scale and shift (4,), a projection kernel (d_e, d_model)
    = (4, 6) and bias (6,), token and segment ids (4, 9), and
    LN(tokens[x_p] + segments[s_p] + positions[p]) @ kernel + bias in float32 NumPy (eps 1e-12).
    Returns (tables, scale, shift, kernel, bias, ids, segments, expected)."""
    draw = np.random.default_rng(62)
    tables = {name: draw.normal(size=(rows, 4)).astype("float32")
              for name, rows in (("tokens", 12), ("segments", 3), ("positions", 9))}
    scale = (draw.normal(size=4) * 0.5 + 1).astype("float32")
    shift = (draw.normal(size=4) * 0.5).astype("float32")
    kernel = draw.normal(size=(4, 6)).astype("float32")
    bias = draw.normal(size=6).astype("float32")
    ids, segments = draw.integers(0, 12, size=(4, 9)), draw.integers(0, 3, size=(4, 9))
    total = tables["tokens"][ids] + tables["segments"][segments] + tables["positions"][None, :9]
    centred = total - total.mean(-1, keepdims=True)
    normed = centred / np.sqrt((centred ** 2).mean(-1, keepdims=True) + 1e-12) * scale + shift
    return tables, scale, shift, kernel, bias, ids, segments, normed @ kernel + bias


def albert_shapes(tokens, norm, projected):
    """Assert, before weights are copied, that the layer built with ALBERT_SIZES has a token table
    (12, 4), a layer norm over d_e = 4 and a projection."""
    assert tokens == (12, 4) and norm == (4,) and projected, (
        "with embed_dim=4 and d_model=6 the tables should be d_e = 4 wide, the layer norm over those 4 "
        f"numbers (before the projection) and projection a layer from 4 to 6; got a token table {tokens}, "
        f"a layer norm over {norm} and {'a' if projected else 'no'} projection")


def albert_parameters(vocab_size, d_model, max_len, type_vocab_size, embed_dim):
    """The parameters of the factorised embedding: three tables of width E, the layer norm's scale
    and shift (E each), the projection's weight (E x d_model) and bias (d_model)."""
    return (embed_dim * (vocab_size + type_vocab_size + max_len) + 2 * embed_dim
            + embed_dim * d_model + d_model)


ALBERT_COUNT_CASES = (                  # (vocab_size, d_model, max_len, type_vocab_size, embed_dim)
    (30000, 768, 512, 2, 128),          # ALBERT-base's sizes: d_e = 128 where BERT-base has 768
    (50, 16, 20, 3, 16),                # d_e = d_model: still a projection
)


def albert_verdict(got, expected, counts, library):
    """Assert that `got` (4, 9, 6) matches `expected`, the library's ALBERT embeddings (`library`
    names it) with albert_formula_case's weights, within 1e-5, and that every case of
    ALBERT_COUNT_CASES has albert_parameters parameters (counts: the student's, in order).
    2 observations."""
    assert got.shape == expected.shape, (
        f"with embed_dim=4 and d_model=6 the output should have shape (B, L, d_model) = {expected.shape}, "
        f"got {got.shape}: project the E-wide vectors to d_model")
    gap = float(np.abs(got - expected).max())
    assert gap < 1e-5, (
        f"with embed_dim=4 and the same weights, your layer differs from {library} (its embeddings and "
        f"their projection) by up to {gap:.3g}: projection(LN(tokens[x_p] + segments[s_p] + positions[p])), "
        "the three tables and the layer norm d_e wide, dropout after the norm, the projection to d_model last")
    want = [albert_parameters(*case) for case in ALBERT_COUNT_CASES]
    assert counts == want, (
        f"for the sizes (vocab_size, d_model, max_len, type_vocab_size, embed_dim) {list(ALBERT_COUNT_CASES)} "
        f"your layer has {counts} parameters; ALBERT's factorised embedding has {want} (tables, layer norm "
        "and projection)")
    return [(f"ALBERT embeddings = {library}", bool(gap < 1e-5)), ("ALBERT parameter counts", counts)]


def embedding_dropout_ids():
    """Token ids 0 to 49, (4, 16), for the embedding dropout test."""
    return np.random.default_rng(41).integers(0, 50, size=(4, 16))


# ----------------------------------------------------------------------------- classifier
def classifier_batch():
    """6 rows of lengths 12, 10, 7, 5, 9, 3 ([CLS] first, ids 5 to 39, [PAD] after), the second
    half of each row in segment 1 (padding in 0): token ids and segment ids, int64 (6, 12)."""
    draw = np.random.default_rng(111)
    ids = draw.integers(5, 40, size=(6, 12))
    ids[:, 0] = 2
    lengths = np.array([12, 10, 7, 5, 9, 3])
    ids[np.arange(12)[None, :] >= lengths[:, None]] = 0
    segments = (np.arange(12)[None, :] >= (lengths // 2)[:, None]).astype("int64") * (ids != 0)
    return ids, segments


def classifier_logits_verdict(got, want, got_plain, want_plain, max_gap):
    """Assert that the student's logits (6, 5) with pooling="cls" (the default) are
    classifier(pooled), with segment ids and mask
    (got, want) and without (got_plain, want_plain), within 1e-5. max_gap(a, b): the largest
    absolute difference as a float, computed in the framework. 2 observations."""
    gap = max_gap(got, want)
    assert tuple(got.shape) == (6, 5) and gap < 1e-5, (
        "the logits should be classifier(dropout(pooled)), pooled = bert(token_ids, segment_ids, "
        "attention_mask)[1] (the pooled [CLS] output; not the [CLS] vector itself, nor an average), with "
        f"the segment ids and the attention mask passed on to bert; they differ by up to {gap:.3g}")
    gap_plain = max_gap(got_plain, want_plain)
    assert gap_plain < 1e-5, (
        "without segment_ids and attention_mask the logits should be classifier(pooled) of "
        f"bert(token_ids); they differ by up to {gap_plain:.3g}")
    return [("logits from the pooled output", bool(gap < 1e-5)),
            ("logits from the pooled output, defaults", bool(gap_plain < 1e-5))]


def classifier_mean_verdict(got, want, got_plain, want_plain, max_gap):
    """Assert that the student's logits (6, 5) with pooling="mean" are classifier(mean of the real
    tokens' final vectors), with the mask (got, want), and of every token's without it (got_plain,
    want_plain), within 1e-5. 2 observations."""
    gap = max_gap(got, want)
    assert tuple(got.shape) == (6, 5) and gap < 1e-5, (
        "with pooling=\"mean\" the logits should be classifier(dropout(mean)), the mean of the final "
        "vectors bert(...)[0] over the real tokens (attention_mask true; padding left out); they differ "
        f"by up to {gap:.3g}")
    gap_plain = max_gap(got_plain, want_plain)
    assert gap_plain < 1e-5, (
        "with pooling=\"mean\" and no attention_mask every token is real: the logits should be "
        f"classifier of the mean of all the final vectors; they differ by up to {gap_plain:.3g}")
    return [("logits from the mean of the real tokens", bool(gap < 1e-5)),
            ("logits from the mean, no mask", bool(gap_plain < 1e-5))]


def classifier_max_verdict(got, want, got_plain, want_plain, max_gap):
    """Assert that the student's logits (6, 5) with pooling="max" are classifier(the largest value
    of each feature over the real tokens' final vectors), with the mask (got, want), and over every
    token without it (got_plain, want_plain), within 1e-5. 2 observations."""
    gap = max_gap(got, want)
    assert tuple(got.shape) == (6, 5) and gap < 1e-5, (
        "with pooling=\"max\" the logits should be classifier(dropout(max)), the largest value of each "
        "feature of bert(...)[0] over the real tokens (attention_mask true; padding never counts); they "
        f"differ by up to {gap:.3g}")
    gap_plain = max_gap(got_plain, want_plain)
    assert gap_plain < 1e-5, (
        "with pooling=\"max\" and no attention_mask every token is real: the logits should be classifier "
        f"of the largest value of each feature over all the final vectors; they differ by up to {gap_plain:.3g}")
    return [("logits from the max over the real tokens", bool(gap < 1e-5)),
            ("logits from the max, no mask", bool(gap_plain < 1e-5))]


def gradient_batch():
    """8 rows of 10 tokens ([CLS] first, ids 5 to 39) and their classes 0 to 2: (8, 10), (8,)."""
    draw = np.random.default_rng(121)
    ids = draw.integers(5, 40, size=(8, 10))
    ids[:, 0] = 2
    return ids, draw.integers(0, 3, size=8)


def classifier_dropout_ids():
    """Token ids 5 to 39, (16, 8), for the classifier dropout test."""
    return np.random.default_rng(131).integers(5, 40, size=(16, 8))


def visible_masking(inputs, labels, ordinary, share, token_ids, before, per_row, kept_all):
    """What the visible masking test checked (its own variables), as observations (name, value)."""
    return [("masking shapes", (tuple(inputs.shape), tuple(labels.shape))),
            ("chosen per row with mask_rate=0.25", per_row.tolist()[:8]),
            ("split=(0, 0, 1) keeps every token", kept_all),
            ("labels with mask_rate=1, first rows", labels[:3]),
            ("special tokens unchanged", inputs[~ordinary][:24]),
            ("about 80% [MASK]", bool(0.75 < share < 0.85)),
            ("token_ids unchanged", bool(np.array_equal(token_ids, before)))]
