"""The files of measurements made outside the notebooks (attention_course/measured.py)."""
import json
from pathlib import Path

import pytest

from attention_course import measured, results

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted((ROOT / "book" / "results" / "measured").glob("*.json"))


@pytest.fixture
def results_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(results, "RESULTS_DIR", tmp_path)
    return tmp_path


def test_record_adds_runs_and_replaces_the_same_processor_seed_and_arm(results_dir):
    measured.record("demo", "measurements/demo.py", "a demo", [
        {"seed": 0, "arm": "a", "loss": 1.0}, {"seed": 1, "arm": "a", "loss": 2.0}])
    measured.record("demo", "measurements/demo.py", "a demo", [{"seed": 1, "arm": "a", "loss": 3.0}])
    recorded = measured.load("demo")["runs"]
    assert sorted(run["loss"] for run in recorded) == [1.0, 3.0]
    assert all(run["processor"] == measured.processor() and run["commit"] for run in recorded)
    span = measured.span("demo", "loss", arm="a")
    assert (span.low, span.high, span.count, span.seeds) == (1.0, 3.0, 2, (0, 1))


def test_check_fails_outside_the_range_and_its_margin(results_dir):
    measured.record("demo", "measurements/demo.py", "a demo",
                    [{"seed": 0, "loss": 1.0}, {"seed": 1, "loss": 1.2}])
    span = measured.span("demo", "loss")
    span.check(1.25, margin=0.05)
    with pytest.raises(AssertionError, match="outside 0.95 to 1.25"):
        span.check(1.3, margin=0.05)
    with pytest.raises(LookupError):
        measured.span("demo", "loss", arm="missing")


@pytest.mark.parametrize("file", FILES, ids=[f.stem for f in FILES])
def test_each_file_names_its_script_and_every_run_where_it_ran(file):
    content = json.loads(file.read_text(encoding="utf-8"))
    script = ROOT / content["script"]
    assert script.is_file() and script.stem == file.stem, content["script"]
    assert content["about"] and content["runs"]
    for run in content["runs"]:
        for key in ("processor", "seed", "commit", "date"):
            assert run.get(key) not in (None, ""), (file.name, key, run)
