"""Metrics on arrays of token ids."""
import math

import numpy as np

from attention_course.data import EOS_ID, PAD_ID
from attention_course.evaluation import (LENGTH_BINS, accuracy_by_length, exact_match,
                                         format_table, trim_after_eos)

E, P = EOS_ID, PAD_ID


def test_trim_after_eos():
    ids = np.array([[5, 6, E, 7, P],
                    [5, P, 6, P, P],     # no <eos>: padding dropped, everything else kept
                    [E, 5, 6, 7, 8]])
    assert trim_after_eos(ids) == [[5, 6], [5, 6], []]
    assert all(isinstance(i, int) for row in trim_after_eos(ids) for i in row)


def test_exact_match():
    target = np.array([[5, 6, E, P],
                       [5, 6, E, P],
                       [5, 6, E, P],
                       [5, 6, E, P],
                       [7, E, P, P]])
    predicted = np.array([[5, 6, E, 9],   # junk after <eos> does not count
                          [5, 6, 9, E],   # one token too many
                          [5, 7, E, P],   # a wrong token
                          [5, 6, 6, 6],   # never stops
                          [7, E, E, E]])
    np.testing.assert_array_equal(exact_match(predicted, target), [True, False, False, False, True])
    assert exact_match(predicted, target).dtype == bool


def test_length_bins_cover_1_to_44_without_gaps():
    assert LENGTH_BINS[0][0] == 1 and LENGTH_BINS[-1][1] == 44
    for (_, high), (low, _) in zip(LENGTH_BINS, LENGTH_BINS[1:]):
        assert low == high + 1


def test_accuracy_by_length():
    lengths = np.array([1, 6, 7, 12, 44, 3])
    correct = np.array([True, False, True, True, False, True])
    rows = accuracy_by_length(lengths, correct)
    assert [r["bin"] for r in rows] == [f"{lo}-{hi}" for lo, hi in LENGTH_BINS]
    by_bin = {r["bin"]: r for r in rows}
    assert by_bin["1-6"]["n"] == 3 and math.isclose(by_bin["1-6"]["accuracy"], 2 / 3)
    assert by_bin["7-12"]["n"] == 2 and by_bin["7-12"]["accuracy"] == 1.0
    assert by_bin["31-44"]["n"] == 1 and by_bin["31-44"]["accuracy"] == 0.0
    assert by_bin["13-18"]["n"] == 0 and math.isnan(by_bin["13-18"]["accuracy"])
    assert sum(r["n"] for r in rows) == len(lengths)


def test_accuracy_by_length_custom_bins():
    rows = accuracy_by_length([1, 2, 3, 4], [1, 0, 0, 0], bins=((1, 2), (3, 4)))
    assert [(r["low"], r["high"], r["n"], r["accuracy"]) for r in rows] == [(1, 2, 2, 0.5), (3, 4, 2, 0.0)]


def test_format_table():
    a = accuracy_by_length([1, 2, 20], [1, 0, 1])
    b = accuracy_by_length([1, 2, 20], [1, 1, 1])
    lines = format_table({"GRU": a, "attention": b}).splitlines()
    assert lines[0] == "| source tokens | n | GRU | attention |"
    assert len(lines) == 2 + len(LENGTH_BINS)
    assert lines[2] == "| 1-6 | 2 | 50.0% | 100.0% |"
    assert lines[5] == "| 19-24 | 1 | 100.0% | 100.0% |"
    assert all(line.count("|") == 5 for line in lines)
