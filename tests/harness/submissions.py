"""Students' notebooks, built from the release, the solution's answers and declared cells.

A student's notebook is the released exercise (exercises/<assignment>/) with its answer cells
filled in: by the solution's answers (solutions/<assignment>/, without nbgrader's
`### BEGIN/END SOLUTION` lines, as a student would write them), or left as released on a
"release" base; then the student's declared cells (harness/cells.py) replace answers, blank
them, or add cells of the student's own. The known-wrong submissions (`wrong_submission`), the
hostile ones (`hostile_content`) and the honest students of the hostile batch
(`honest_notebook`) are all built this way, in the tests' temporary folders.
"""
from __future__ import annotations

import copy

import nbformat

from .cells import ANSWER, BLANK_ANSWER, NEW_CELL, DeclaredCell
from .course import REPO
from .declarations import Hostile, WrongBatch, wrong_named

SOLUTION_BASE, RELEASE_BASE = "solution", "release"


def student_code(solution_source: str) -> str:
    """A solution cell as a student would write it: without nbgrader's solution markers."""
    return "\n".join(line for line in solution_source.split("\n")
                     if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line)


def grade_id_of(cell) -> str | None:
    """A cell's nbgrader grade_id (None for a cell nbgrader does not know)."""
    return cell.metadata.get("nbgrader", {}).get("grade_id")


def is_answer(cell) -> bool:
    """Whether a cell is an answer cell (nbgrader's `solution` flag)."""
    return bool(cell.metadata.get("nbgrader", {}).get("solution"))


def cell_named(notebook, grade_id: str):
    """The cell of a notebook with that grade_id."""
    return next(cell for cell in notebook.cells if grade_id_of(cell) == grade_id)


def released(assignment: str) -> nbformat.NotebookNode:
    """The released exercise, as committed (exercises/)."""
    return nbformat.read(REPO / "exercises" / assignment / f"{assignment}.ipynb", as_version=4)


def solution_answers(assignment: str) -> dict[str, str]:
    """{grade_id: the solution's answer, as a student would write it}."""
    solution = nbformat.read(REPO / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    return {grade_id_of(cell): student_code(cell.source) for cell in solution.cells if is_answer(cell)}


def _check_declared(assignment: str, notebook, cells: list[DeclaredCell]) -> None:
    """Every declared answer names an answer cell, every new cell follows a cell that exists."""
    answers = {grade_id_of(cell) for cell in notebook.cells if is_answer(cell)}
    named = {grade_id_of(cell) for cell in notebook.cells} - {None}
    for cell in cells:
        if cell.kind in (ANSWER, BLANK_ANSWER) and cell.grade_id not in answers:
            raise ValueError(f"{assignment}: {cell.grade_id} is not an answer cell")
        if cell.kind == NEW_CELL and cell.grade_id not in named:
            raise ValueError(f"{assignment}: no cell {cell.grade_id} for a new cell to follow")


def student_notebook(assignment: str, cells: list[DeclaredCell] = (),
                     base: str = SOLUTION_BASE) -> nbformat.NotebookNode:
    """The released exercise with the base's answers and the declared cells. New cells get fixed
    ids (student-cell-1, -2, ... in notebook order), so that rebuilding gives the same file."""
    notebook = copy.deepcopy(released(assignment))
    _check_declared(assignment, notebook, cells)
    answers = solution_answers(assignment) if base == SOLUTION_BASE else {}
    answers.update({cell.grade_id: cell.source for cell in cells if cell.kind == ANSWER})
    blank = {cell.grade_id for cell in cells if cell.kind == BLANK_ANSWER}
    built, extra = [], 0
    for cell in notebook.cells:
        grade_id = grade_id_of(cell)
        if is_answer(cell) and grade_id in answers and grade_id not in blank:
            cell.source = answers[grade_id]
        built.append(cell)
        for new in (c for c in cells if c.kind == NEW_CELL and c.grade_id == grade_id):
            extra += 1
            added = nbformat.v4.new_code_cell(new.source)
            added.id = f"student-cell-{extra}"
            built.append(added)
    notebook.cells = built
    return notebook


def wrong_cells(assignment: str, student: str) -> list[DeclaredCell]:
    """A known-wrong student's declared cells, after checking that none is the solution's."""
    cells = wrong_named(student).cells(assignment)
    solution = solution_answers(assignment)
    same = [c.grade_id for c in cells if c.kind == ANSWER and c.source == solution.get(c.grade_id)]
    if same:
        raise ValueError(f"{student}, {assignment}: declared like the solution (stale?): {same}")
    return cells


def wrong_submission(assignment: str, student: str) -> nbformat.NotebookNode:
    """A known-wrong student's notebook: the solution's answers, except its declared cells."""
    return student_notebook(assignment, wrong_cells(assignment, student))


def batch_submission(assignment: str, batch: WrongBatch) -> nbformat.NotebookNode:
    """The one notebook of a batch of wrong students: every member's declared cells."""
    return student_notebook(assignment, [cell for wrong in batch.wrongs
                                         for cell in wrong_cells(assignment, wrong.student)])


def hostile_content(assignment: str, hostile: Hostile) -> bytes:
    """The file a hostile student hands in, built from its declaration (never committed)."""
    if hostile.build is not None:
        built = hostile.build(assignment)
    else:
        built = student_notebook(assignment, hostile.cells(), hostile.base)
    return built if isinstance(built, bytes) else nbformat.writes(built).encode() + b"\n"


def honest_notebook(assignment: str, kind: str) -> nbformat.NotebookNode:
    """An honest student of the hostile batch: the solution, the release, or a Wrong's notebook."""
    if kind == SOLUTION_BASE:
        return student_notebook(assignment)
    if kind == RELEASE_BASE:
        return student_notebook(assignment, base=RELEASE_BASE)
    return wrong_submission(assignment, kind)
