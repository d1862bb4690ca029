"""Results that one chapter saves for a later chapter to compare against.

Chapter 1 saves its accuracy-by-length table; chapter 2 draws it next to the
attention model's, without training chapter 1's model again. The files live in
``book/results/`` and are committed with the notebooks that write them, so a
fresh copy of the course has them; re-running a chapter rewrites its file.

The test suite sets ``$COURSE_RESULTS_OUT`` to a temporary folder: re-executing
the chapters there writes their results into that folder, never over the
committed files, so a test run changes nothing in the repository, and a later
chapter always reads the committed results that its committed outputs were
drawn from (tests/test_results_consistency.py checks that they agree).
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

RESULTS_DIR = Path(__file__).resolve().parents[1] / "book" / "results"


def path(name: str) -> Path:
    """The committed results file: what load() reads."""
    return RESULTS_DIR / f"{name}.json"


def _output_path(name: str) -> Path:
    """Where save() writes: book/results/, or $COURSE_RESULTS_OUT when it is set."""
    return Path(os.environ.get("COURSE_RESULTS_OUT") or RESULTS_DIR) / f"{name}.json"


def save(name: str, value) -> Path:
    """Write ``value`` (JSON-serialisable) to book/results/<name>.json, atomically:
    a notebook reading the file while another one writes it sees the old or the new
    version, never half of one."""
    target = _output_path(name)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
    with os.fdopen(handle, "w") as file:
        json.dump(value, file, indent=1, sort_keys=True)
        file.write("\n")
    os.replace(temporary, target)
    return target


def load(name: str):
    """Read book/results/<name>.json (written by the chapter that produced it)."""
    if not path(name).exists():
        raise FileNotFoundError(f"{path(name)} is missing: run the chapter that writes "
                                f"{name!r} first")
    return json.loads(path(name).read_text())


def update(name: str, entries: dict) -> None:
    """Merge ``entries`` into book/results/<name>.json (a dict), keeping other keys:
    a chapter run with one framework's cells only keeps the other framework's rows.

    Returns nothing, so that a notebook cell ending with this call shows no output
    (a path would differ from one machine to the next and break the notebook tests)."""
    written = _output_path(name)
    source = written if written.exists() else path(name)
    current = json.loads(source.read_text()) if source.exists() else {}
    current.update(entries)
    save(name, current)
