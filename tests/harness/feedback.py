"""What a feedback page shows, and what it must never show: the hidden tests' code."""
from __future__ import annotations

import html
import re
from pathlib import Path

import nbformat

from .course import CHECKS, REPO


def hidden_test_lines(notebook_path: Path) -> list[str]:
    """Distinctive lines of the hidden tests of a source notebook, in its hidden regions and in the
    modules of course_checks that they import: code lines (not bare message strings or comments)
    that are long enough not to occur by chance, and absent from the release and from the course
    package that students have (an import line that a check shares with a chapter's module, say,
    which a student who pastes the chapter's code shows in the feedback)."""
    notebook = nbformat.read(notebook_path, as_version=4)
    hidden, visible, inside = [], set(), False
    for cell in notebook.cells:
        for line in cell.source.split("\n"):
            if "BEGIN HIDDEN TESTS" in line:
                inside = True
            elif "END HIDDEN TESTS" in line:
                inside = False
            (hidden.append if inside else visible.add)(line.strip())
    for module in sorted(set(re.findall(r"from course_checks import (\w+)", "\n".join(hidden)))):
        hidden += [line.strip() for line in (CHECKS / f"{module}.py").read_text().split("\n")]
    public = {line.strip() for path in (REPO / "attention_course").rglob("*.py")
              for line in path.read_text(encoding="utf-8").split("\n")}
    return [line for line in hidden
            if len(line) >= 30 and line not in visible and line not in public
            and not line.startswith(("#", '"', "'", 'f"', "f'"))]


def visible_text(page: str) -> str:
    """What a reader of an HTML page sees: tags removed (syntax highlighting splits code into
    many spans), entities decoded."""
    page = re.sub(r"<(script|style)\b.*?</\1>", "", page, flags=re.S | re.I)
    return html.unescape(re.sub(r"<[^>]+>", "", page))
