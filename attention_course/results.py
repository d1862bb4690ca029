"""Results that one chapter saves for a later chapter to compare against.

Chapter 1 saves its accuracy-by-length table; chapter 2 draws it next to the
attention model's, without training chapter 1's model again. A later chapter reads
the committed file in ``book/results/``, the one its committed outputs were drawn
from, so a fresh copy of the course has them. The course's wheel ships the same files as
package data (``attention_course/committed_results/``, mapped from ``book/results/`` in
pyproject.toml), so a notebook also runs after ``pip install`` without the repository.

Where ``save()`` writes:

* by default (a student running a chapter), into a folder of the user's cache,
  ``local_results_dir()``, never over a tracked file, so that the student's next
  ``git pull`` (or nbgitpuller's) has nothing to merge;
* with ``$COURSE_RECORD_RESULTS=1`` (a maintainer re-executing a chapter to commit
  it), into ``book/results/``;
* with ``$COURSE_RESULTS_OUT`` set (the test suite: a temporary folder), there.
"""
from __future__ import annotations

import json
import os
import tempfile
from importlib.resources import files
from pathlib import Path


def _committed_dir() -> Path:
    """book/results/ in a copy of the repository (where maintainers record), else the copy
    installed with the package."""
    in_repository = Path(__file__).resolve().parents[1] / "book" / "results"
    if in_repository.is_dir():
        return in_repository
    return Path(str(files("attention_course") / "committed_results"))


RESULTS_DIR = _committed_dir()
RECORD = "COURSE_RECORD_RESULTS"


def local_results_dir() -> Path:
    """The user's own results folder (e.g. ~/.cache/attention-course/results on Linux,
    ~/Library/Caches/attention-course/results on macOS, %LOCALAPPDATA% on Windows)."""
    import platformdirs

    return platformdirs.user_cache_path("attention-course") / "results"


def path(name: str) -> Path:
    """The committed results file: what load() reads."""
    return RESULTS_DIR / f"{name}.json"


def _output_path(name: str) -> Path:
    """Where save() writes: $COURSE_RESULTS_OUT when it is set, book/results/ when a maintainer
    records ($COURSE_RECORD_RESULTS=1), else the user's own folder."""
    if os.environ.get("COURSE_RESULTS_OUT"):
        return Path(os.environ["COURSE_RESULTS_OUT"]) / f"{name}.json"
    if os.environ.get(RECORD, "").lower() in ("1", "true", "yes"):
        return RESULTS_DIR / f"{name}.json"
    return local_results_dir() / f"{name}.json"


def save(name: str, value) -> Path:
    """Write ``value`` (JSON-serialisable) to <name>.json where _output_path says, atomically:
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
    """Merge ``entries`` into the written <name>.json (a dict; from the committed file the first
    time), keeping other keys:
    a chapter run with one framework's cells only keeps the other framework's rows.

    Returns nothing, so that a notebook cell ending with this call shows no output
    (a path would differ from one machine to the next and break the notebook tests)."""
    written = _output_path(name)
    source = written if written.exists() else path(name)
    current = json.loads(source.read_text()) if source.exists() else {}
    current.update(entries)
    save(name, current)
