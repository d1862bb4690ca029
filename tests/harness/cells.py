"""Declared cells: what a known-wrong or hostile student wrote, as code in a file.

A declaration file (tests/chapters/chNN_<name>/wrong/<student>-<framework>.py, or
.../hostile/<student>.py) is in jupytext's percent format: a header line before each cell,

    # %% <grade_id>                      that answer cell, with the source below it (in full)
    # %% <grade_id> [blank]              that answer cell left as released (no source below)
    # %% [new cell after <grade_id>]     a code cell of the student's own after that cell

and the source of each cell between its header and the next one. Only the answer cells that
differ from the solution are declared; every other answer cell is the solution's answer (or the
release's, on a blank base). One blank line separates a cell from the next header; a source is
kept exactly (a trailing newline shows as a second blank line), so `write_cells(read_cells(text))`
gives back `text`.
"""
from __future__ import annotations

import dataclasses
import re
from pathlib import Path

ANSWER, BLANK_ANSWER, NEW_CELL = "answer", "blank", "new cell"
HEADER = re.compile(r"^# %% (?:\[new cell after (?P<anchor>\S+)\]|(?P<grade_id>\S+)(?P<blank> \[blank\])?)$")


@dataclasses.dataclass(frozen=True)
class DeclaredCell:
    """One cell of a declaration: `kind` is ANSWER, BLANK_ANSWER or NEW_CELL; `grade_id` names the
    answer cell (or, for a new cell, the cell it follows)."""

    kind: str
    grade_id: str
    source: str = ""

    def header(self) -> str:
        """The cell's header line."""
        if self.kind == NEW_CELL:
            return f"# %% [new cell after {self.grade_id}]"
        return f"# %% {self.grade_id}" + (" [blank]" if self.kind == BLANK_ANSWER else "")


def _cell_from(header: str, body: str, where: str) -> DeclaredCell:
    """A DeclaredCell from its header line and the text below it (separator removed)."""
    match = HEADER.match(header)
    if not match:
        raise ValueError(f"{where}: not a cell header: {header!r}")
    source = body[:-1] if body.endswith("\n") else body        # the newline ending its last line
    if match["anchor"]:
        return DeclaredCell(NEW_CELL, match["anchor"], source)
    if match["blank"]:
        if source:
            raise ValueError(f"{where}: {match['grade_id']} is declared [blank] but has a source")
        return DeclaredCell(BLANK_ANSWER, match["grade_id"])
    return DeclaredCell(ANSWER, match["grade_id"], source)


def parse_cells(text: str, where: str = "declaration") -> list[DeclaredCell]:
    """The cells of a declaration's text, in order."""
    if not text.startswith("# %% "):
        raise ValueError(f"{where}: must start with a cell header (# %% ...)")
    parts = re.split(r"^(# %% .*)\n", text, flags=re.MULTILINE)[1:]     # header, body, header, ...
    cells = []
    for index in range(0, len(parts), 2):
        body = parts[index + 1]
        if index + 2 < len(parts):                              # not the last: one blank line follows
            if not body.endswith("\n"):
                raise ValueError(f"{where}: no blank line before the header after {parts[index]!r}")
            body = body[:-1]
        cells.append(_cell_from(parts[index], body, where))
    return cells


def read_cells(path: Path) -> list[DeclaredCell]:
    """The cells declared in a file."""
    return parse_cells(path.read_text(encoding="utf-8"), where=str(path))


def write_cells(cells: list[DeclaredCell]) -> str:
    """The text of a declaration file (the inverse of parse_cells)."""
    chunks = [cell.header() + "\n" + (cell.source + "\n" if cell.source else "") for cell in cells]
    text = "\n".join(chunks)
    if parse_cells(text) != list(cells):                       # a source line that reads as a header
        raise ValueError(f"cells that a declaration file cannot hold: {[c.grade_id for c in cells]}")
    return text
