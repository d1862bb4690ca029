"""The dates task (chapter 2's non-monotonic alignment) and the saved chapter results."""
import datetime as dt
import json

import numpy as np
import pytest

from attention_course import dates, results
from attention_course.data import PAD_ID


@pytest.fixture(scope="module")
def small():
    return dates.make_date_pairs(600, 100, 100, seed=3)


def test_examples_are_tokenised_as_documented():
    date = dt.date(2024, 3, 21)
    assert dates.date_to_source(date, "en_GB", "full") == "thursday , 2 1 march 2 0 2 4"
    assert dates.date_to_source(date, "en_US", "long") == "march 2 1 , 2 0 2 4"
    assert dates.date_to_source(date, "de_DE", "medium") == "2 1 . 0 3 . 2 0 2 4"
    assert dates.date_to_source(date, "fr_FR", "full") == "jeudi 2 1 mars 2 0 2 4"
    assert dates.date_to_target(date) == "2024-03-21"


def test_every_target_is_the_iso_date_of_its_source(small):
    for source, target in zip(small.train.sources, small.train.targets):
        year, month, day = map(int, target.split("-"))
        date = dt.date(year, month, day)
        assert dates.FIRST_DAY <= date <= dates.LAST_DAY
        assert source in {dates.date_to_source(date, locale, style)
                          for locale, style in dates.FORMATS}


def test_splits_are_deterministic_and_disjoint(small):
    again = dates.make_date_pairs(600, 100, 100, seed=3)
    assert again.train.sources == small.train.sources
    assert again.test.targets == small.test.targets
    sets = [set(split.sources) for split in (small.train, small.valid, small.test)]
    assert sum(len(s) for s in sets) == len(set.union(*sets)) == 800
    assert dates.make_date_pairs(600, 100, 100, seed=4).train.sources != small.train.sources


def test_every_format_and_both_centuries_occur(small):
    sources = small.train.sources
    assert any(s.startswith("thursday") or s.startswith("monday") for s in sources)
    assert any("." in s.split() for s in sources)            # German formats
    assert any(s.split()[0] in {"lundi", "mardi", "jeudi"} for s in sources)
    years = {t[:2] for t in small.train.targets}
    assert years == {"19", "20"}


def test_date_task_arrays():
    task = dates.date_task(2000, 200, 200)
    assert task.train.src.shape[0] == 2000
    assert (task.train.src[:, 0] != PAD_ID).all()
    decoded = "".join(task.tgt_vocab.decode(task.test.tgt_out[0]))
    assert decoded == task.splits.test.targets[0]


def test_a_readers_run_writes_outside_the_tracked_files(tmp_path, monkeypatch):
    committed, cache = tmp_path / "committed", tmp_path / "cache"
    committed.mkdir()
    (committed / "demo.json").write_text('{"Keras": [1], "PyTorch": [2]}\n')
    monkeypatch.setattr(results, "RESULTS_DIR", committed)
    monkeypatch.setattr(results, "local_results_dir", lambda: cache)
    monkeypatch.delenv("COURSE_RESULTS_OUT", raising=False)     # as in a reader's notebook
    monkeypatch.delenv(results.RECORD, raising=False)
    results.update("demo", {"PyTorch": [3]})
    assert json.loads((cache / "demo.json").read_text()) == {"Keras": [1], "PyTorch": [3]}
    assert (committed / "demo.json").read_text() == '{"Keras": [1], "PyTorch": [2]}\n'
    assert results.load("demo") == {"Keras": [1], "PyTorch": [2]}


def test_the_users_results_folder_is_outside_the_repository():
    folder = results.local_results_dir().resolve()
    assert not folder.is_relative_to(results.RESULTS_DIR.parents[1].resolve()), folder


def test_a_maintainer_records_results_into_the_book(tmp_path, monkeypatch):
    monkeypatch.setattr(results, "RESULTS_DIR", tmp_path)
    monkeypatch.delenv("COURSE_RESULTS_OUT", raising=False)
    monkeypatch.setenv(results.RECORD, "1")
    results.update("demo", {"Keras": [1, 2]})
    results.update("demo", {"PyTorch": [3]})                 # keeps Keras' entry
    assert results.load("demo") == {"Keras": [1, 2], "PyTorch": [3]}
    assert json.loads((tmp_path / "demo.json").read_text()) == results.load("demo")
    assert not list(tmp_path.glob("*.tmp"))                  # the temporary file is gone
    with pytest.raises(FileNotFoundError, match="run the chapter"):
        results.load("missing")


def test_under_the_test_suite_results_go_elsewhere_and_committed_files_stay(tmp_path,
                                                                           monkeypatch):
    committed, elsewhere = tmp_path / "committed", tmp_path / "elsewhere"
    committed.mkdir()
    (committed / "demo.json").write_text('{"Keras": [1], "PyTorch": [2]}\n')
    monkeypatch.setattr(results, "RESULTS_DIR", committed)
    monkeypatch.setenv("COURSE_RESULTS_OUT", str(elsewhere))
    results.update("demo", {"PyTorch": [3]})
    assert json.loads((elsewhere / "demo.json").read_text()) == {"Keras": [1], "PyTorch": [3]}
    results.update("demo", {"Keras": [4]})                   # merges with what it wrote
    assert json.loads((elsewhere / "demo.json").read_text()) == {"Keras": [4], "PyTorch": [3]}
    assert results.load("demo") == {"Keras": [1], "PyTorch": [2]}   # the committed file
    assert (committed / "demo.json").read_text() == '{"Keras": [1], "PyTorch": [2]}\n'


def test_chapter_1_results_file_is_complete():
    saved = results.load("01_rnn_bottleneck")
    assert set(saved) == {"Keras", "PyTorch"}
    for rows in saved.values():
        assert [row["bin"] for row in rows] == ["1-6", "7-12", "13-18", "19-24", "25-30",
                                                "31-44"]
        assert sum(row["n"] for row in rows) == 20_000
        assert all(0 <= row["accuracy"] <= 1 for row in rows)
        accuracy = np.array([row["accuracy"] for row in rows])
        assert accuracy[0] > 0.9 > 0.25 > accuracy[-1]      # the bottleneck, as chapter 1 says
