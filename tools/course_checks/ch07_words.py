"""Chapter 7's part 3, the variation: whole-word masking for WordPiece (every "##" continuation
piece of a chosen word is chosen with it; the rate counts words), NumPy only, the same in both
frameworks. Each check returns the (name, value) pairs that its cell observes, in order."""
import functools
import warnings

import numpy as np

IGNORE_INDEX = -100
MASK_ID = 4
SPECIALS = (0, 1, 2, 3, 4)              # [PAD], [UNK], [CLS], [SEP], [MASK]
VOCAB = 40                              # ids 5 to 24 begin words, 25 to 39 are "##" pieces
PIECES = tuple(range(25, 40))
WORD_RATES = (0.2, 0.5)                 # the word test: one case per mask_rate


def masked_words(mask_whole_words, rows, rng, rate, specials=SPECIALS, pieces=PIECES, vocab=VOCAB):
    """The student's mask_whole_words on a copy of rows, warnings ignored: (inputs, labels)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        inputs, labels = mask_whole_words(rows.copy(), vocab, MASK_ID, list(specials), list(pieces),
                                          rng, mask_rate=rate)
    inputs, labels = np.asarray(inputs), np.asarray(labels)
    assert inputs.shape == rows.shape and labels.shape == rows.shape, (
        f"inputs and labels should have the shape of token_ids, {rows.shape}; got {inputs.shape} and "
        f"{labels.shape}")
    return inputs, labels


def word_rows(seed):
    """_word_rows(seed), a fresh copy: (3000, 32) int64."""
    return _word_rows(seed).copy()


@functools.lru_cache(maxsize=4)
def _word_rows(seed, count=3000, length=32):
    """count rows "[CLS] words [SEP] [PAD]...": words of one start and 0 to 3 pieces; one row in
    ten has a stray piece right after [CLS] (a word of its own), one in five a second segment
    "[SEP] words" that may also open with a stray piece. (count, length) int64."""
    draw = np.random.default_rng(seed)
    rows = np.zeros((count, length), dtype=np.int64)
    for row in range(count):
        tokens = [2]
        end = int(draw.integers(length // 2, length + 1))
        second = int(draw.integers(6, end - 4)) if draw.random() < 0.2 else None
        if draw.random() < 0.1:
            tokens.append(int(draw.choice(PIECES)))
        while len(tokens) < end - 1:
            if second is not None and len(tokens) >= second:
                tokens.append(3)
                second = None
                if draw.random() < 0.5:
                    tokens.append(int(draw.choice(PIECES)))
                continue
            tokens.append(int(draw.integers(5, 25)))
            tokens += [int(t) for t in draw.choice(PIECES, size=draw.choice([0, 0, 1, 1, 2, 3]))]
        tokens = tokens[:end - 1] + [3]
        rows[row, :len(tokens)] = tokens
    return rows


def word_numbers(rows, specials=SPECIALS, pieces=PIECES):
    """The word of every token, numbered over the whole array, and -1 for a special token: a word
    opens at an ordinary token that is not a piece, or at a piece that follows no ordinary token
    (at the start of a row, or after a special one)."""
    plain = ~np.isin(rows, specials)
    after_plain = np.zeros_like(plain)
    after_plain[:, 1:] = plain[:, :-1]
    opens = plain & ~(np.isin(rows, pieces) & after_plain)
    return np.where(plain, np.cumsum(opens.ravel()).reshape(rows.shape) - 1, -1), opens


def split_words(labels, words):
    """How many words have some of their tokens labelled and not all of them."""
    inside = words >= 0
    size = np.bincount(words[inside])
    marked = np.bincount(words[inside], weights=(labels[inside] != IGNORE_INDEX).astype(float),
                         minlength=len(size))
    return int(np.sum((marked > 0) & (marked < size)))


def whole_words(mask_whole_words, rate):
    """3000 rows of words with pieces (word_rows), mask_rate=rate: no special token chosen or
    changed; no word chosen in part; the share of the words chosen is rate, within 5 standard
    errors, and so is the share of the stray pieces (words of their own) chosen. 3 observations."""
    rows = word_rows(151)
    inputs, labels = masked_words(mask_whole_words, rows, np.random.default_rng(152), rate)
    special = np.isin(rows, SPECIALS)
    touched = int(np.sum((labels[special] != IGNORE_INDEX) | (inputs[special] != rows[special])))
    assert touched == 0, (
        f"{touched} special tokens were chosen or changed; a token whose id is in special_ids (padding "
        "included) is never chosen")
    words, opens = word_numbers(rows)
    split = split_words(labels, words)
    assert split == 0, (
        f"with mask_rate={rate}, {split} words were chosen in part: choose a word with all its \"##\" "
        "pieces, or none of it")
    chosen = labels[opens] != IGNORE_INDEX
    margin = 5 * np.sqrt(rate * (1 - rate) / chosen.size)
    assert abs(chosen.mean() - rate) < margin, (
        f"with mask_rate={rate}, {chosen.mean():.2%} of the words were chosen; expected {rate:.0%} within "
        f"{margin:.2%}: choose each word (a start and its pieces) independently with probability mask_rate")
    stray = opens & np.isin(rows, PIECES)
    share = float(np.mean(labels[stray] != IGNORE_INDEX))
    margin = 5 * np.sqrt(rate * (1 - rate) / stray.sum())
    assert abs(share - rate) < margin, (
        f"with mask_rate={rate}, {share:.1%} of the pieces that follow [CLS] or [SEP] were chosen; expected "
        f"{rate:.0%} within {margin:.1%}: a piece that follows no word is a word of its own")
    return [(f"special tokens untouched, mask_rate={rate}", touched),
            (f"words chosen in part, mask_rate={rate}", split),
            (f"shares of words and stray pieces, mask_rate={rate}", True)]


def whole_word_tokens(mask_whole_words):
    """mask_rate=0.5 on word_rows: the labels (the original id exactly where chosen); each chosen
    token split 80/10/10 on its own ([MASK], another ordinary id, unchanged; a random draw can be
    the token itself), within 5 standard errors; two pieces of one word both [MASK] 64% of the
    time (each token draws its own action); token_ids untouched; the same seed gives the same
    masks, another seed others. 4 observations."""
    rows = word_rows(161)
    kept = rows.copy()
    runs = [masked_words(mask_whole_words, rows, np.random.default_rng(seed), 0.5)
            for seed in (162, 162, 163)]
    assert np.array_equal(rows, kept), "mask_whole_words changed token_ids in place: build new arrays"
    assert all(np.array_equal(a, b) for a, b in zip(runs[0], runs[1])), (
        "two calls with np.random.default_rng(162) gave different masks: draw every random number from rng")
    assert not np.array_equal(runs[0][0], runs[2][0]), "two different seeds gave the same masks"
    inputs, labels = runs[0]
    hit = labels != IGNORE_INDEX
    odd = int(np.sum(hit & (labels != rows)) + np.sum(~hit & (inputs != rows)))
    assert odd == 0, (
        f"{odd} positions have a wrong label or changed without one: a chosen token's label is its "
        "original id, every other label IGNORE_INDEX, and only chosen tokens change")
    swapped = hit & (inputs != MASK_ID) & (inputs != rows)
    bad = int(np.isin(inputs[swapped], SPECIALS).sum())
    assert bad == 0, f"{bad} random replacements were special tokens; draw them from the ordinary ids only"
    same = 1 / (VOCAB - len(SPECIALS))                 # a random draw that is the token itself
    was, now = rows[hit], inputs[hit]
    for kind, seen, expected in (("[MASK]", now == MASK_ID, 0.8),
                                 ("another token", (now != MASK_ID) & (now != was), 0.1 * (1 - same)),
                                 ("unchanged", now == was, 0.1 + 0.1 * same)):
        margin = 5 * np.sqrt(expected * (1 - expected) / seen.size)
        assert abs(seen.mean() - expected) < margin, (
            f"{seen.mean():.2%} of the chosen tokens became {kind}; expected {expected:.1%} within "
            f"{margin:.2%} (the 80/10/10 rule, for every token of a chosen word)")
    words, _ = word_numbers(rows)
    pair = hit[:, 1:] & hit[:, :-1] & (words[:, 1:] == words[:, :-1])     # two tokens of one word
    both = float(np.mean((inputs[:, 1:] == MASK_ID)[pair] & (inputs[:, :-1] == MASK_ID)[pair]))
    margin = 5 * np.sqrt(0.64 * 0.36 / pair.sum())
    assert abs(both - 0.64) < margin, (
        f"two neighbouring tokens of a chosen word were both [MASK] {both:.1%} of the time; expected 64% "
        f"within {margin:.1%}: draw the 80/10/10 action of every token on its own, not once per word")
    return [("token_ids unchanged, seeded", True), ("labels where chosen", odd),
            ("split 80/10/10 per token", True), ("actions drawn per token", True)]


def visible_words(inputs, labels, split, share, words_share):
    """What the visible whole-word test checked (its own variables), as observations."""
    return [("whole-word shapes", (tuple(inputs.shape), tuple(labels.shape))),
            ("labels with mask_rate=1, first row", labels[0]),
            ("words chosen in part", int(split)),
            ("about 80% [MASK]", bool(0.75 < share < 0.85)),
            ("about half the words chosen", bool(0.4 < words_share < 0.6))]
