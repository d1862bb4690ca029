"""The number-words task: words, pairs, splits, vocabularies and arrays."""
import numpy as np
import pytest
from num2words import num2words

from attention_course import data
from attention_course.data import BOS_ID, EOS_ID, PAD_ID, SPECIALS, UNK_ID

# ---------------------------------------------------------------- an independent parser
# Written here from scratch (not from data.py) to read sources back into digits.
_SMALL = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen "
    "fourteen fifteen sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * i for i, w in enumerate(
    "twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)}
_SCALES = {"thousand": 1_000, "million": 1_000_000}


def words_to_number(tokens):
    """The standard accumulator: "hundred" multiplies the running group,
    "thousand"/"million" close the group into the total."""
    total, group = 0, 0
    for token in tokens:
        if token in _SMALL:
            group += _SMALL[token]
        elif token in _TENS:
            group += _TENS[token]
        elif token == "hundred":
            group *= 100
        elif token in _SCALES:
            total += group * _SCALES[token]
            group = 0
        else:
            raise ValueError(f"unexpected token {token!r}")
    return total + group


def source_to_target(source):
    """"four hundred twelve thousand nine and seventy one" -> "412009_71"."""
    numbers = " ".join(source.split()).split(" and ")
    return "_".join(str(words_to_number(n.split())) for n in numbers)


def test_parser_reads_known_examples():
    # Guards the parser itself, so that the round-trip test below means something.
    assert words_to_number("four hundred twelve thousand nine".split()) == 412_009
    assert words_to_number("seventy one".split()) == 71
    assert words_to_number("one million one".split()) == 1_000_001
    assert words_to_number("zero".split()) == 0
    assert source_to_target("four hundred twelve thousand nine and seventy one") == "412009_71"


# ---------------------------------------------------------------- number_to_words
def american(n):
    """num2words' British English turned American: no "and", no commas, hyphens split."""
    words = num2words(n, lang="en").replace(",", " ").replace("-", " ").split()
    return [w for w in words if w != "and"]


EDGE_CASES = [0, 1, 10, 11, 19, 20, 21, 99, 100, 101, 110, 999, 1000, 1001, 1010, 10_000,
              100_000, 100_001, 101_000, 999_999, 10**6, 1_000_001, 1_001_000,
              10**7, 10**8, 100_000_100, 999_999_999]


@pytest.mark.parametrize("n", EDGE_CASES)
def test_number_to_words_edge_cases(n):
    assert data.number_to_words(n) == american(n)


def test_number_to_words_matches_num2words_on_random_numbers():
    rng = np.random.default_rng(123)
    digits = rng.integers(1, 10, size=3000)                 # every digit count, equally often
    numbers = [int(rng.integers(10 ** (d - 1), 10 ** d)) for d in digits]
    numbers += [int(x) for x in rng.integers(0, 10**9, size=1000)]  # uniform: mostly 9 digits
    for n in numbers:
        assert data.number_to_words(n) == american(n), n


def test_number_to_words_is_american():
    for n in [123, 45_678, 120_034_567]:
        tokens = data.number_to_words(n)
        assert "and" not in tokens
        assert not any("," in t or "-" in t for t in tokens)
    assert data.number_to_words(123) == ["one", "hundred", "twenty", "three"]


@pytest.mark.parametrize("n", [-1, 10**9])
def test_number_to_words_rejects_out_of_range(n):
    with pytest.raises(ValueError):
        data.number_to_words(n)


def test_source_and_target_of_numbers():
    assert data.numbers_to_source([412_009, 71]) == "four hundred twelve thousand nine and seventy one"
    assert data.numbers_to_target([412_009, 71]) == "412009_71"


def test_longest_source_has_44_tokens():
    # 777 777 777 is a longest number (14 tokens); three of them plus two "and"s.
    assert len(data.number_to_words(777_777_777)) == 14
    assert len(data.numbers_to_source([777_777_777] * 3).split()) == 44


# ---------------------------------------------------------------- pairs and splits
@pytest.fixture(scope="module")
def splits():
    return data.make_number_pairs(2000, 300, 300, seed=7)


def test_split_sizes(splits):
    assert (len(splits.train), len(splits.valid), len(splits.test)) == (2000, 300, 300)
    for part in (splits.train, splits.valid, splits.test):
        assert len(part.sources) == len(part.targets)


def test_sources_read_back_to_their_targets(splits):
    for part in (splits.train, splits.valid, splits.test):
        for source, target in zip(part.sources, part.targets):
            assert source_to_target(source) == target


def test_targets_are_digits_and_underscores(splits):
    for target in splits.train.targets:
        numbers = target.split("_")
        assert 1 <= len(numbers) <= 3
        assert all(n.isdigit() and len(n) <= 9 and (n == "0" or n[0] != "0") for n in numbers)


def test_sources_are_distinct_within_and_across_splits(splits):
    parts = (splits.train, splits.valid, splits.test)
    for part in parts:
        assert len(set(part.sources)) == len(part)
    train, valid, test = (set(p.sources) for p in parts)
    assert not train & valid
    assert not train & test
    assert not valid & test


def test_sources_are_at_most_44_tokens(splits):
    for part in (splits.train, splits.valid, splits.test):
        assert part.source_lengths().max() <= 44
        assert part.source_lengths().min() >= 1


def test_pairs_are_deterministic_for_a_seed(splits):
    again = data.make_number_pairs(2000, 300, 300, seed=7)
    assert again == splits
    other = data.make_number_pairs(2000, 300, 300, seed=8)
    assert other.train.sources != splits.train.sources
    assert other.test.sources != splits.test.sources


def test_sample_numbers_respects_limits():
    rng = np.random.default_rng(0)
    counts, digit_counts = set(), set()
    for _ in range(2000):
        numbers = data.sample_numbers(rng, max_numbers=3, max_digits=9)
        counts.add(len(numbers))
        digit_counts.update(len(str(n)) for n in numbers)
    assert counts == {1, 2, 3}
    assert digit_counts == set(range(1, 10))


# ---------------------------------------------------------------- vocabularies
@pytest.fixture(scope="module")
def vocabs(splits):
    return data.build_vocabs(splits.train)


def test_special_ids(vocabs):
    for vocab in vocabs:
        assert tuple(vocab.itos[:4]) == SPECIALS
        assert [vocab.stoi[t] for t in SPECIALS] == [PAD_ID, BOS_ID, EOS_ID, UNK_ID]
        assert len(set(vocab.itos)) == len(vocab)


def test_vocab_contents(vocabs):
    src_vocab, tgt_vocab = vocabs
    assert set(tgt_vocab.itos[4:]) == set("0123456789_")
    assert {"and", "hundred", "thousand", "million", "seventeen"} <= set(src_vocab.itos)
    assert not {"-", ","} & set("".join(src_vocab.itos[4:]))


def test_encode_decode_round_trip(splits, vocabs):
    src_vocab, tgt_vocab = vocabs
    for source, target in zip(splits.valid.sources, splits.valid.targets):
        tokens = data.source_tokens(source)
        assert src_vocab.decode(src_vocab.encode(tokens)) == tokens
        chars = data.target_tokens(target)
        assert "".join(tgt_vocab.decode(tgt_vocab.encode(chars))) == target


def test_unknown_tokens_and_stripping(vocabs):
    src_vocab, _ = vocabs
    assert src_vocab.encode(["not-a-word"]) == [UNK_ID]
    one = src_vocab.stoi["one"]
    ids = [BOS_ID, one, PAD_ID, one, EOS_ID, one, PAD_ID]
    assert src_vocab.decode(ids) == ["one", "one"]           # stops at <eos>, drops <pad>/<bos>
    assert src_vocab.decode(ids, strip=False) == [src_vocab.itos[i] for i in ids]


# ---------------------------------------------------------------- arrays
def test_pad_batch():
    out = data.pad_batch([[5, 6, 7], [8], []])
    assert out.shape == (3, 3) and out.dtype == np.int64
    np.testing.assert_array_equal(out, [[5, 6, 7], [8, PAD_ID, PAD_ID], [PAD_ID] * 3])
    assert data.pad_batch([[5], [6, 7]], length=4).shape == (2, 4)


def test_to_arrays_shapes_and_shift(splits, vocabs):
    src_vocab, tgt_vocab = vocabs
    arrays = data.to_arrays(splits.valid, src_vocab, tgt_vocab)
    n = len(splits.valid)
    longest_source = splits.valid.source_lengths().max()
    longest_target = max(len(t) for t in splits.valid.targets)
    assert arrays.src.shape == (n, longest_source)
    assert arrays.tgt_in.shape == arrays.tgt_out.shape == (n, longest_target + 1)
    np.testing.assert_array_equal(arrays.src_lengths, splits.valid.source_lengths())

    # tgt_in = <bos> y1..yn, tgt_out = y1..yn <eos>: tgt_in is tgt_out shifted right
    # by one, with <bos> in front and the <eos> dropped (it becomes padding).
    assert (arrays.tgt_in[:, 0] == BOS_ID).all()
    shifted = np.where(arrays.tgt_out[:, :-1] == EOS_ID, PAD_ID, arrays.tgt_out[:, :-1])
    np.testing.assert_array_equal(arrays.tgt_in[:, 1:], shifted)
    assert ((arrays.tgt_out == EOS_ID).sum(axis=1) == 1).all()
    assert not (arrays.tgt_in == EOS_ID).any()
    for row, target in zip(arrays.tgt_out, splits.valid.targets):
        assert "".join(tgt_vocab.decode(row)) == target
    for row, source in zip(arrays.src, splits.valid.sources):
        assert " ".join(src_vocab.decode(row)) == source


def test_to_arrays_fixed_lengths(splits, vocabs):
    arrays = data.to_arrays(splits.test, *vocabs, src_len=44, tgt_len=30)
    assert arrays.src.shape == (300, 44)
    assert arrays.tgt_in.shape == arrays.tgt_out.shape == (300, 30)


def _numbered_arrays(n):
    """Arrays whose row i holds the number i everywhere, to follow rows through batches."""
    rows = np.arange(n)[:, None]
    return data.Arrays(np.repeat(rows, 3, axis=1), np.repeat(rows, 2, axis=1),
                       np.repeat(rows, 2, axis=1) + 1000)


def test_batches_cover_every_row_once_in_order():
    arrays = _numbered_arrays(23)
    chunks = list(data.batches(arrays, batch_size=5))
    assert [len(c) for c in chunks] == [5, 5, 5, 5, 3]
    np.testing.assert_array_equal(np.concatenate([c.src for c in chunks]), arrays.src)
    for c in chunks:  # the three arrays stay aligned
        np.testing.assert_array_equal(c.tgt_in[:, 0], c.src[:, 0])
        np.testing.assert_array_equal(c.tgt_out[:, 0], c.src[:, 0] + 1000)


def test_batches_shuffle_deterministically():
    arrays = _numbered_arrays(50)

    def order(seed):
        return np.concatenate([c.src[:, 0] for c in data.batches(arrays, 8, shuffle=True, seed=seed)])

    first = order(1)
    np.testing.assert_array_equal(np.sort(first), np.arange(50))   # every row exactly once
    assert not (first == np.arange(50)).all()                        # actually shuffled
    np.testing.assert_array_equal(order(1), first)                   # same seed, same order
    assert not (order(2) == first).all()                             # other seed, other order
    for c in data.batches(arrays, 8, shuffle=True, seed=1):
        np.testing.assert_array_equal(c.tgt_out[:, 0], c.src[:, 0] + 1000)


def test_endless_batches_reshuffle_every_epoch():
    arrays = _numbered_arrays(20)
    stream = data.endless_batches(arrays, batch_size=5, seed=3)
    epochs = [np.concatenate([next(stream).src[:, 0] for _ in range(4)]) for _ in range(3)]
    for epoch in epochs:
        np.testing.assert_array_equal(np.sort(epoch), np.arange(20))   # each row once per epoch
    assert not (epochs[0] == epochs[1]).all() and not (epochs[1] == epochs[2]).all()
    again = data.endless_batches(arrays, batch_size=5, seed=3)
    np.testing.assert_array_equal(np.concatenate([next(again).src[:, 0] for _ in range(4)]), epochs[0])


# ---------------------------------------------------------------- the default task
def test_default_number_task():
    task = data.number_task()  # about 7 s: 240,000 pairs
    assert (len(task.train), len(task.valid), len(task.test)) == (200_000, 20_000, 20_000)
    assert task.train.src.shape[1] == task.valid.src.shape[1] == task.test.src.shape[1] <= 44
    assert task.train.tgt_in.shape[1] <= 3 * 9 + 2 + 1
    for arrays in (task.train, task.valid, task.test):
        assert (arrays.src_lengths >= 1).all()
        # every source and target token of valid/test is known to the train vocabularies
        assert not (arrays.src == UNK_ID).any()
        assert not (arrays.tgt_out == UNK_ID).any()
    train = set(task.splits.train.sources)
    assert not train & set(task.splits.valid.sources)
    assert not train & set(task.splits.test.sources)
    assert data.number_task() is task                                # cached


# ---------------------------------------------------------------- the disk cache
SMALL = dict(n_train=300, n_valid=30, n_test=30, seed=4)


def _same_task(a, b):
    assert a.src_vocab.itos == b.src_vocab.itos and a.tgt_vocab.itos == b.tgt_vocab.itos
    for name in data.SPLITS:
        assert getattr(a.splits, name) == getattr(b.splits, name)
        for field in data.ARRAY_FIELDS:
            fresh, cached = getattr(getattr(a, name), field), getattr(getattr(b, name), field)
            assert cached.dtype == fresh.dtype == np.int64
            np.testing.assert_array_equal(cached, fresh)


def test_number_task_is_read_back_from_disk_unchanged(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_CACHE_DIR", str(tmp_path))
    generated = data.number_task.__wrapped__(**SMALL)        # no per-process cache
    assert len(list(tmp_path.glob("number_task-*.npz"))) == 1

    def must_not_generate(*args):
        raise AssertionError("the task should have come from the disk cache")

    monkeypatch.setattr(data, "_make_number_task", must_not_generate)
    _same_task(generated, data.number_task.__wrapped__(**SMALL))


def test_number_task_cache_key_and_broken_files(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_CACHE_DIR", str(tmp_path))
    path = data._cache_file(*SMALL.values())
    assert path != data._cache_file(300, 30, 30, 5)                  # another seed, another file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"half a file")                                 # e.g. a full disk
    older = path.with_name("number_task-300-30-30-4-0123456789abcdef.npz")
    other = path.with_name("number_task-300-30-30-5-0123456789abcdef.npz")
    older.write_bytes(b"made by an older data.py")
    other.write_bytes(b"another seed")
    task = data.number_task.__wrapped__(**SMALL)                     # generated again
    _same_task(task, data._make_number_task(*SMALL.values()))
    _same_task(task, data._read_task(path))                          # and the file replaced
    assert not older.exists() and other.exists()     # the stale version gone, not the other task


def test_number_task_without_disk_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))                        # where the default would go
    monkeypatch.delenv("COURSE_CACHE_DIR", raising=False)
    assert data._cache_file(*SMALL.values()).is_relative_to(tmp_path / ".cache")
    monkeypatch.setenv("COURSE_CACHE_DIR", "")
    assert data._cache_file(*SMALL.values()) is None
    data.number_task.__wrapped__(**SMALL)
    assert not list(tmp_path.iterdir())


def test_number_task_where_the_cache_cannot_be_written(tmp_path, monkeypatch):
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("")
    monkeypatch.setenv("COURSE_CACHE_DIR", str(not_a_folder / "cache"))
    _same_task(data.number_task.__wrapped__(**SMALL), data._make_number_task(*SMALL.values()))
    assert list(tmp_path.iterdir()) == [not_a_folder]
