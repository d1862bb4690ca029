"""Fail on code written twice: pylint's duplicate-code finder (``symilar``) over the course's
Python files and the code cells of its notebooks.

    python -m course_tools.duplicates          # exit 1 and list the copies, if there are any

What it reads: every ``.py`` file of the package, the tools, the checks and the tests, except the
modules that ``course_tools.export`` generates from chapter cells (they are copies by design, and
tests/test_export.py keeps them equal to their cells) and the declared wrong and hostile students'
answer cells (``tests/chapters/*/wrong/``, ``hostile/``: a solution's answers with one mistake
each, by design); the code cells of every chapter
(``book/NN_topic.ipynb``, not the one-framework copies in ``notebooks/``, which are generated) and
the hidden tests of every solution notebook (``solutions/``; the releases in ``exercises/`` are
generated). Each notebook's scanned code is written, in order, to one temporary ``.py`` file,
IPython's ``%`` and ``!`` lines commented out.

The threshold: 6 or more equal lines (pylint's ``min-similarity-lines`` default is 4; 6 is what a
pasted helper takes at the least, and short runs of equal lines, such as a framework's imports or
a shape assertion, are not copies worth a function), ignoring comments, docstrings and imports.
Where equal lines are right (two frameworks' cells that must read alike), make them differ in
substance or share them through a function: there is no list of exceptions.

Not scanned in solutions: the answer cells (a solution against the chapter it follows is the
assignment-integrity check's job, not a pasted helper) and the visible tests. A visible test is
released to students, who have no ``course_checks``: it must carry its own code, and the Keras and
PyTorch releases of a chapter are twins that state the same checks in the same words.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

from . import ROOT, export, split

MIN_LINES = 6
SYMILAR_OPTIONS = [f"--duplicates={MIN_LINES}", "--ignore-comments", "--ignore-docstrings",
                   "--ignore-imports"]
PYTHON_FOLDERS = ["attention_course", "tools", "tests"]
PYTHON_FILES = ["conftest.py", "nbgrader_config.py"]


def is_declared_submission(path: Path) -> bool:
    """A wrong or hostile student's cells (tests/chapters/chNN_<name>/wrong/ or hostile/): copies
    of the solution's answers with one mistake each, by design."""
    relative = path.relative_to(ROOT).parts
    return (relative[:2] == ("tests", "chapters") and len(relative) == 5
            and relative[3] in ("wrong", "hostile"))


def python_files() -> list[Path]:
    """The hand-written Python files (generated modules and declared submissions left out)."""
    generated = {ROOT / "attention_course" / f"{module}.py" for module in export.render()}
    files = [path for folder in PYTHON_FOLDERS for path in sorted((ROOT / folder).rglob("*.py"))]
    files += [ROOT / name for name in PYTHON_FILES]
    return [path for path in files if path not in generated and "__pycache__" not in path.parts
            and not is_declared_submission(path)]


def notebooks() -> list[Path]:
    """The notebooks written by hand: the chapters and the solutions."""
    return split.chapters(ROOT / "book") + sorted((ROOT / "solutions").glob("*/*.ipynb"))


HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", re.S)


def scanned_code(notebook: Path, cell) -> str:
    """What of a code cell is scanned: all of a chapter's cell; of a solution, the hidden tests."""
    if notebook.parent.parent.name != "solutions":
        return cell.source
    return "\n".join(HIDDEN.findall(cell.source))


def cells_as_python(notebook: Path) -> str:
    """A notebook's scanned code as one Python file (IPython's own lines commented out)."""
    cells = nbformat.read(notebook, as_version=4).cells
    parts = []
    for index, cell in enumerate(cells):
        if cell.cell_type == "code":
            source = re.sub(r"^(\s*)([%!])", r"\1# \2", scanned_code(notebook, cell), flags=re.M)
            # A line of code that no other cell has, so that a run of equal lines cannot span two
            # cells (the chapters' set-up cells start alike, by convention; a helper is in one cell).
            parts.append(f"cell_boundary({str(notebook)!r}, {index})\n{source}\n")
    return "\n".join(parts)


def report(files: list[Path], names: dict[str, str]) -> tuple[int, str]:
    """symilar's count of duplicated lines and its report, with the notebooks' names put back."""
    result = subprocess.run([sys.executable, "-m", "pylint.checkers.symilar", *SYMILAR_OPTIONS,
                             *map(str, files)], capture_output=True, text=True, check=False)
    text = result.stdout
    for temporary, name in names.items():
        text = text.replace(temporary, name)
    match = re.search(r"duplicates=(\d+)", text)
    if match is None:
        raise RuntimeError(f"symilar printed no total:\n{text}\n{result.stderr}")
    return int(match.group(1)), text.replace(str(ROOT) + "/", "")


def main(argv=None) -> int:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="course-duplicates-") as folder:
        names = {}
        files = python_files()
        for notebook in notebooks():
            relative = notebook.relative_to(ROOT)
            extracted = Path(folder) / (str(relative).replace("/", "__") + ".py")
            extracted.write_text(cells_as_python(notebook))
            names[str(extracted)] = f"{relative} (code cells)"
            files.append(extracted)
        duplicated, text = report(files, names)
    if duplicated:
        print(text)
        print(f"{duplicated} duplicated lines (runs of {MIN_LINES} or more): share them instead "
              "(a function in the package, the tools or course_checks)")
        return 1
    print(f"no code written twice ({len(files)} files, runs of {MIN_LINES} lines or more)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
