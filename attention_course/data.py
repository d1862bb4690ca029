"""Translation-like pairs generated offline: English number words -> digits.

The task used by chapters 1, 2 and 6. A *source* is one to three numbers
written as American English words and joined by "and"; the *target* is the
same numbers in digits, separated by "_"::

    source: "four hundred twelve thousand nine and seventy one"
    target: "412009_71"

The words come from ``num2words`` (British style, e.g. "one hundred and
twenty-three"), turned into American style: the "and" inside a number and the
commas are dropped and hyphens split "twenty-three" into two tokens.  Then
"and" only ever joins two numbers, and a source has at most 3 x 14 + 2 = 44
tokens.  Sources are drawn at random but are all distinct, and the train,
validation and test splits never share a source string.

Everything here is NumPy: both frameworks read the same arrays.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.metadata
import os
import tempfile
from pathlib import Path
from typing import Iterator, Sequence

import numpy as np
from num2words import num2words

PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"
SPECIALS = (PAD, BOS, EOS, UNK)
PAD_ID, BOS_ID, EOS_ID, UNK_ID = 0, 1, 2, 3

SCALES = ((10**6, "million"), (10**3, "thousand"), (1, ""))


# ---------------------------------------------------------------- words
def _american(words: str) -> list[str]:
    """num2words' British English -> American tokens ("and", "," and "-" gone)."""
    tokens = words.replace(",", " ").replace("-", " ").split()
    return [t for t in tokens if t != "and"]


@functools.lru_cache(maxsize=None)
def _words_below_1000(n: int) -> tuple[str, ...]:
    return tuple(_american(num2words(n, lang="en")))


def number_to_words(n: int) -> list[str]:
    """American English words for 0 <= n < 10**9, as a list of tokens.

    Built from num2words' words for each group of three digits (cached), which
    is ~50x faster than calling num2words on the whole number; a unit test
    checks that both give the same tokens.
    """
    if not 0 <= n < 10**9:
        raise ValueError(f"expected 0 <= n < 10**9, got {n}")
    if n == 0:
        return ["zero"]
    tokens: list[str] = []
    for scale, name in SCALES:
        group, n = divmod(n, scale)
        if group:
            tokens += _words_below_1000(group)
            if name:
                tokens.append(name)
    return tokens


def numbers_to_source(numbers: Sequence[int]) -> str:
    """[412009, 71] -> "four hundred twelve thousand nine and seventy one"."""
    return " and ".join(" ".join(number_to_words(n)) for n in numbers)


def numbers_to_target(numbers: Sequence[int]) -> str:
    """[412009, 71] -> "412009_71"."""
    return "_".join(str(n) for n in numbers)


# ---------------------------------------------------------------- sampling
def sample_numbers(rng: np.random.Generator, max_numbers: int = 3, max_digits: int = 9) -> list[int]:
    """1..max_numbers numbers, each with a digit count drawn uniformly from 1..max_digits."""
    count = int(rng.integers(1, max_numbers + 1))
    numbers = []
    for _ in range(count):
        digits = int(rng.integers(1, max_digits + 1))
        low = 10 ** (digits - 1)
        numbers.append(int(rng.integers(low, 10 * low)))
    return numbers


@dataclasses.dataclass(frozen=True)
class Pairs:
    """Parallel lists of source and target strings."""

    sources: list[str]
    targets: list[str]

    def __len__(self) -> int:
        return len(self.sources)

    def source_lengths(self) -> np.ndarray:
        return np.array([len(s.split()) for s in self.sources])


@dataclasses.dataclass(frozen=True)
class NumberSplits:
    train: Pairs
    valid: Pairs
    test: Pairs


def make_number_pairs(n_train: int = 200_000, n_valid: int = 20_000, n_test: int = 20_000,
                      seed: int = 0, max_numbers: int = 3, max_digits: int = 9) -> NumberSplits:
    """Distinct (source, target) pairs, split three ways with no shared source.

    Deterministic for a given seed (about 6 s for the default sizes).
    """
    rng = np.random.default_rng(seed)
    total = n_train + n_valid + n_test
    seen: dict[str, str] = {}
    while len(seen) < total:
        numbers = sample_numbers(rng, max_numbers, max_digits)
        source = numbers_to_source(numbers)
        if source not in seen:
            seen[source] = numbers_to_target(numbers)
    sources = list(seen)  # insertion order: deterministic
    order = rng.permutation(total)

    def take(idx: np.ndarray) -> Pairs:
        chosen = [sources[i] for i in idx]
        return Pairs(chosen, [seen[s] for s in chosen])

    return NumberSplits(
        train=take(order[:n_train]),
        valid=take(order[n_train:n_train + n_valid]),
        test=take(order[n_train + n_valid:]),
    )


# ---------------------------------------------------------------- vocabularies
class Vocab:
    """Token <-> id mapping; ids 0..3 are <pad>, <bos>, <eos>, <unk>."""

    def __init__(self, tokens: Sequence[str]):
        extra = sorted(set(tokens) - set(SPECIALS))
        self.itos: list[str] = list(SPECIALS) + extra
        self.stoi: dict[str, int] = {t: i for i, t in enumerate(self.itos)}

    def __len__(self) -> int:
        return len(self.itos)

    def __repr__(self) -> str:
        return f"Vocab({len(self)} tokens: {' '.join(self.itos[:12])}{' ...' if len(self) > 12 else ''})"

    def encode(self, tokens: Sequence[str]) -> list[int]:
        return [self.stoi.get(t, UNK_ID) for t in tokens]

    def decode(self, ids: Sequence[int], strip: bool = True) -> list[str]:
        """Ids -> tokens; with strip, stop at <eos> and drop <pad>/<bos>."""
        tokens = []
        for i in ids:
            i = int(i)
            if strip and i == EOS_ID:
                break
            if strip and i in (PAD_ID, BOS_ID):
                continue
            tokens.append(self.itos[i])
        return tokens


def source_tokens(source: str) -> list[str]:
    """Sources are word-level."""
    return source.split()


def target_tokens(target: str) -> list[str]:
    """Targets are character-level: "412_7" -> ["4", "1", "2", "_", "7"]."""
    return list(target)


def build_vocabs(pairs: Pairs) -> tuple[Vocab, Vocab]:
    src = {t for s in pairs.sources for t in source_tokens(s)}
    tgt = {t for s in pairs.targets for t in target_tokens(s)}
    return Vocab(src), Vocab(tgt)


# ---------------------------------------------------------------- arrays
def pad_batch(sequences: Sequence[Sequence[int]], length: int | None = None) -> np.ndarray:
    """Right-pad lists of ids with PAD_ID into an int64 array (batch, length)."""
    length = length or max(len(s) for s in sequences)
    out = np.full((len(sequences), length), PAD_ID, dtype=np.int64)
    for row, seq in enumerate(sequences):
        out[row, :len(seq)] = seq[:length]
    return out


@dataclasses.dataclass(frozen=True)
class Arrays:
    """Model-ready arrays for one split.

    src      (N, S)  source ids, right-padded
    tgt_in   (N, T)  <bos> y1 ... yn        (decoder input, teacher forcing)
    tgt_out  (N, T)  y1 ... yn <eos>        (what the decoder must predict)
    """

    src: np.ndarray
    tgt_in: np.ndarray
    tgt_out: np.ndarray

    def __len__(self) -> int:
        return len(self.src)

    @property
    def src_lengths(self) -> np.ndarray:
        return (self.src != PAD_ID).sum(axis=1)


def to_arrays(pairs: Pairs, src_vocab: Vocab, tgt_vocab: Vocab,
              src_len: int | None = None, tgt_len: int | None = None) -> Arrays:
    src = [src_vocab.encode(source_tokens(s)) for s in pairs.sources]
    tgt = [tgt_vocab.encode(target_tokens(t)) for t in pairs.targets]
    tgt_len = tgt_len or (max(len(t) for t in tgt) + 1)
    return Arrays(
        src=pad_batch(src, src_len),
        tgt_in=pad_batch([[BOS_ID] + t for t in tgt], tgt_len),
        tgt_out=pad_batch([t + [EOS_ID] for t in tgt], tgt_len),
    )


def batches(arrays: Arrays, batch_size: int, shuffle: bool = False,
            seed: int = 0) -> Iterator[Arrays]:
    """Yield Arrays of at most batch_size rows (NumPy; wrap in torch.as_tensor as needed)."""
    index = np.arange(len(arrays))
    if shuffle:
        np.random.default_rng(seed).shuffle(index)
    for start in range(0, len(index), batch_size):
        rows = index[start:start + batch_size]
        yield Arrays(arrays.src[rows], arrays.tgt_in[rows], arrays.tgt_out[rows])


def endless_batches(arrays: Arrays, batch_size: int, seed: int = 0) -> Iterator[Arrays]:
    """Shuffled batches forever, reshuffled every epoch (deterministic for a seed)."""
    epoch = 0
    while True:
        yield from batches(arrays, batch_size, shuffle=True, seed=seed + epoch)
        epoch += 1


@dataclasses.dataclass(frozen=True)
class NumberTask:
    """Everything a chapter needs: the splits, the two vocabularies, the arrays."""

    splits: NumberSplits
    src_vocab: Vocab
    tgt_vocab: Vocab
    train: Arrays
    valid: Arrays
    test: Arrays


SPLITS = ("train", "valid", "test")
ARRAY_FIELDS = ("src", "tgt_in", "tgt_out")


@functools.lru_cache(maxsize=4)
def number_task(n_train: int = 200_000, n_valid: int = 20_000, n_test: int = 20_000,
                seed: int = 0) -> NumberTask:
    """The number-words task with its vocabularies and padded arrays.

    Cached per process, and on disk (see ``_cache_file``): generating the default
    240,000 pairs takes about 8 s, reading them back about half a second.
    """
    cache = _cache_file(n_train, n_valid, n_test, seed)
    task = _read_task(cache)
    if task is None:
        task = _make_number_task(n_train, n_valid, n_test, seed)
        _write_task(task, cache)
    return task


def _make_number_task(n_train: int, n_valid: int, n_test: int, seed: int) -> NumberTask:
    splits = make_number_pairs(n_train, n_valid, n_test, seed=seed)
    src_vocab, tgt_vocab = build_vocabs(splits.train)
    src_len = max(max(p.source_lengths()) for p in (splits.train, splits.valid, splits.test))
    tgt_len = max(len(t) for p in (splits.train, splits.valid, splits.test) for t in p.targets) + 1
    arrays = {name: to_arrays(getattr(splits, name), src_vocab, tgt_vocab, src_len, tgt_len)
              for name in SPLITS}
    return NumberTask(splits, src_vocab, tgt_vocab, **arrays)


# ---------------------------------------------------------------- the disk cache
def _cache_file(*arguments: int) -> Path | None:
    """Where the task made with these arguments is kept, or None when caching is off.

    The folder is $COURSE_CACHE_DIR (empty: no disk cache), else ~/.cache/attention-course.
    The name holds the arguments and a hash of this file's source and the versions of
    NumPy and num2words, so that a change to any of them makes a new file instead of
    reading a stale one (``_write_task`` then deletes the stale one).
    """
    folder = os.environ.get("COURSE_CACHE_DIR", str(Path.home() / ".cache" / "attention-course"))
    if not folder:
        return None
    version = hashlib.sha256(Path(__file__).read_bytes())
    version.update(f"{np.__version__} {importlib.metadata.version('num2words')}".encode())
    name = "-".join(map(str, arguments))                   # e.g. 200000-20000-20000-0
    return Path(folder) / f"number_task-{name}-{version.hexdigest()[:16]}.npz"


def _read_task(path: Path | None) -> NumberTask | None:
    """The cached task, or None when there is none (or it cannot be read)."""
    if path is None or not path.exists():
        return None
    try:
        with np.load(path) as stored:
            def lines(name):
                return stored[name].tobytes().decode().split("\n")

            pairs = {name: Pairs(lines(f"{name}_sources"), lines(f"{name}_targets"))
                     for name in SPLITS}
            arrays = {name: Arrays(*(stored[f"{name}_{field}"].astype(np.int64)
                                     for field in ARRAY_FIELDS))
                      for name in SPLITS}
            src_vocab = Vocab(lines("src_vocab")[len(SPECIALS):])
            tgt_vocab = Vocab(lines("tgt_vocab")[len(SPECIALS):])
    except (OSError, ValueError, KeyError, UnicodeDecodeError):
        return None
    return NumberTask(NumberSplits(**pairs), src_vocab, tgt_vocab, **arrays)


def _write_task(task: NumberTask, path: Path | None) -> None:
    """Keep the task on disk; silently skipped where the folder cannot be written."""
    if path is None:
        return

    def text(lines):
        return np.frombuffer("\n".join(lines).encode(), dtype=np.uint8)

    largest_id = max(len(task.src_vocab), len(task.tgt_vocab)) - 1
    id_type = np.min_scalar_type(largest_id)    # uint8 for the default task: 1 byte an id
    stored = {"src_vocab": text(task.src_vocab.itos), "tgt_vocab": text(task.tgt_vocab.itos)}
    for name in SPLITS:
        pairs, arrays = getattr(task.splits, name), getattr(task, name)
        stored[f"{name}_sources"] = text(pairs.sources)
        stored[f"{name}_targets"] = text(pairs.targets)
        for field in ARRAY_FIELDS:
            stored[f"{name}_{field}"] = getattr(arrays, field).astype(id_type)
    partial = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".npz", delete=False) as file:
            partial = Path(file.name)
            np.savez(file, **stored)
        os.replace(partial, path)           # atomic: two processes may write at once
        stale_versions = path.name.rsplit("-", 1)[0] + "-*.npz"
        for stale in set(path.parent.glob(stale_versions)) - {path}:
            stale.unlink(missing_ok=True)   # same arguments, older code or libraries
    except OSError:
        if partial is not None:
            partial.unlink(missing_ok=True)


def bucketed_batches(arrays: Arrays, batch_size: int, seed: int = 0,
                     bucket_width: int = 8, min_share: float = 0.01) -> Iterator[Arrays]:
    """Shuffled batches forever, each from one bucket of similar source lengths.

    Rows are grouped by source length into buckets of ``bucket_width`` tokens
    (1-8, 9-16, ...). Every batch comes from one bucket and is cut to that
    bucket's widths (its longest source, its longest target), so a model
    computes little padding: on the number task the batches are about 2.5 times
    narrower than the full (44, 30) arrays. Each bucket has fixed widths, so a
    compiled step sees only a handful of shapes. A bucket that holds fewer than
    ``batch_size`` rows or less than ``min_share`` of them (sources of 41-44
    tokens: 103 of 200,000) joins the bucket below it: its rows are still
    trained on, without a shape of their own that would come up twice in a
    thousand steps (a Keras step that must know its shapes is compiled for
    every new one, several seconds each).

    The loss of a batch is a mean over its target tokens, so a batch of short
    rows would weigh as much as a batch of long ones; to give every target token
    the weight it has with random batches, each batch's bucket is drawn with
    probability proportional to the target tokens the bucket holds (long
    sources come up more often than short ones). Within a bucket the rows are
    reshuffled every time the bucket has been gone through. Every batch has
    exactly ``batch_size`` rows. Deterministic for a seed; NumPy only.
    """
    src_lengths = arrays.src_lengths
    tgt_lengths = (arrays.tgt_out != PAD_ID).sum(axis=1)
    bucket_of = (src_lengths - 1) // bucket_width
    too_few = max(batch_size, min_share * len(src_lengths))
    groups = []                                  # row indices, shortest sources first
    for bucket in np.unique(bucket_of):
        rows = np.flatnonzero(bucket_of == bucket)
        if groups and len(groups[-1]) < too_few:     # the bucket below is too small: join it
            rows = np.concatenate([groups.pop(), rows])
        groups.append(rows)
    if len(groups) > 1 and len(groups[-1]) < too_few:  # the longest is too small: join below
        last = groups.pop()
        groups[-1] = np.concatenate([groups[-1], last])
    if len(groups[0]) < batch_size:
        raise ValueError(f"fewer than {batch_size} rows: use a smaller batch_size")
    buckets = [(rows, int(src_lengths[rows].max()), int(tgt_lengths[rows].max()))
               for rows in groups]                 # (rows, source width, target width)
    tokens = np.array([tgt_lengths[rows].sum() for rows, _, _ in buckets], dtype=float)
    rng = np.random.default_rng(seed)
    order = [rng.permutation(rows) for rows, _, _ in buckets]
    position = [0] * len(buckets)
    while True:
        b = rng.choice(len(buckets), p=tokens / tokens.sum())
        if position[b] + batch_size > len(order[b]):       # gone through: reshuffle
            order[b], position[b] = rng.permutation(buckets[b][0]), 0
        rows = order[b][position[b]:position[b] + batch_size]
        position[b] += batch_size
        _, src_width, tgt_width = buckets[b]
        yield Arrays(arrays.src[rows, :src_width], arrays.tgt_in[rows, :tgt_width],
                     arrays.tgt_out[rows, :tgt_width])
