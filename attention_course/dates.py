"""A second translation-like task, made offline: dates in words -> ISO 8601.

Chapter 2 uses it to show an alignment that is *not* monotonic. The source is
a date as ``babel`` writes it in one of several locales and formats; the
target is the same date in ISO order, year first::

    source: "thursday , 2 1 march 2 0 2 4"      (en_GB, full)
    target: "2024-03-21"

Numbers in the source are split into digits, words are lowercased and
punctuation becomes tokens of its own, so the decoder has to *copy* the year's
digits from the end of the source to the start of its output, and the day's
digits from the start of the source to the end of its output. The weekday that
some formats add carries no information the target needs.

Dates are drawn uniformly from 1900-01-01 to 2099-12-31 with a uniformly drawn
format; the splits never share a source string.
"""
from __future__ import annotations

import datetime as dt
import functools
import re

import numpy as np
from babel.dates import format_date

from .data import NumberSplits, NumberTask, Pairs, build_vocabs, to_arrays

# (locale, babel format): English, German and French, with and without the weekday.
FORMATS: tuple[tuple[str, str], ...] = (
    ("en_US", "long"),    # March 21, 2024
    ("en_US", "full"),    # Thursday, March 21, 2024
    ("en_GB", "long"),    # 21 March 2024
    ("en_GB", "full"),    # Thursday, 21 March 2024
    ("de_DE", "long"),    # 21. März 2024
    ("de_DE", "full"),    # Donnerstag, 21. März 2024
    ("de_DE", "medium"),  # 21.03.2024
    ("fr_FR", "long"),    # 21 mars 2024
    ("fr_FR", "full"),    # jeudi 21 mars 2024
)
FIRST_DAY = dt.date(1900, 1, 1)
LAST_DAY = dt.date(2099, 12, 31)


def date_to_source(date: dt.date, locale: str, style: str) -> str:
    """The date as babel writes it, tokenised: words lowercased, digits and punctuation split."""
    text = format_date(date, format=style, locale=locale).lower()
    tokens = re.findall(r"\d|[^\W\d_]+|[^\w\s]", text)
    return " ".join(tokens)


def date_to_target(date: dt.date) -> str:
    return date.isoformat()            # "2024-03-21"


def make_date_pairs(n_train: int = 20_000, n_valid: int = 2_000, n_test: int = 2_000,
                    seed: int = 0) -> NumberSplits:
    """Distinct (source, target) pairs, split three ways with no shared source."""
    rng = np.random.default_rng(seed)
    total = n_train + n_valid + n_test
    span = (LAST_DAY - FIRST_DAY).days + 1
    seen: dict[str, str] = {}
    while len(seen) < total:
        date = FIRST_DAY + dt.timedelta(days=int(rng.integers(span)))
        locale, style = FORMATS[rng.integers(len(FORMATS))]
        source = date_to_source(date, locale, style)
        seen.setdefault(source, date_to_target(date))
    sources = list(seen)
    order = rng.permutation(total)

    def take(idx: np.ndarray) -> Pairs:
        chosen = [sources[i] for i in idx]
        return Pairs(chosen, [seen[s] for s in chosen])

    return NumberSplits(train=take(order[:n_train]),
                        valid=take(order[n_train:n_train + n_valid]),
                        test=take(order[n_train + n_valid:]))


@functools.lru_cache(maxsize=2)
def date_task(n_train: int = 20_000, n_valid: int = 2_000, n_test: int = 2_000,
              seed: int = 0) -> NumberTask:
    """The dates task with its vocabularies and padded arrays (cached per process)."""
    splits = make_date_pairs(n_train, n_valid, n_test, seed=seed)
    src_vocab, tgt_vocab = build_vocabs(splits.train)
    every = (splits.train, splits.valid, splits.test)
    src_len = max(max(p.source_lengths()) for p in every)
    tgt_len = max(len(t) for p in every for t in p.targets) + 1
    arrays = {name: to_arrays(getattr(splits, name), src_vocab, tgt_vocab, src_len, tgt_len)
              for name in ("train", "valid", "test")}
    return NumberTask(splits, src_vocab, tgt_vocab, **arrays)
