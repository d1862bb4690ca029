"""The declared wrong and hostile submissions are well formed (fast: no kernel, no nbgrader).

Their files (tests/chapters/chNN_<name>/wrong/ and hostile/) read back exactly as written, every
declared submission builds (each declared answer names an answer cell and differs from the
solution, each new cell follows a cell that exists), and every expected score names a graded cell.
The round trips of tests/test_grading.py and tests/test_grading_hostile.py grade them.
"""
import nbformat
import pytest

from harness.cells import read_cells, write_cells
from harness.course import ASSIGNMENTS, REPO
from harness.declarations import CHAPTERS, ZERO, hostile_submissions, wrongs_for
from harness.submissions import hostile_content, wrong_submission

DECLARED_FILES = sorted(CHAPTERS.glob("*/wrong/*.py")) + sorted(CHAPTERS.glob("*/hostile/*.py"))


def graded_cells(assignment: str) -> set[str]:
    """The grade_ids of an assignment's graded cells."""
    notebook = nbformat.read(REPO / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    return {cell.metadata["nbgrader"]["grade_id"] for cell in notebook.cells
            if cell.metadata.get("nbgrader", {}).get("grade")}


def test_declaration_files_read_back_exactly():
    assert DECLARED_FILES, "no declared submissions found"
    changed = [path.relative_to(CHAPTERS).as_posix() for path in DECLARED_FILES
               if write_cells(read_cells(path)) != path.read_text(encoding="utf-8")]
    assert not changed, f"not in the declaration format (harness/cells.py): {changed}"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_declared_submissions_build_and_name_graded_cells(assignment):
    graded = graded_cells(assignment)
    for wrong in wrongs_for(assignment):
        wrong_submission(assignment, wrong.student)
        assert set(wrong.scores) <= graded, f"{wrong.student}: unknown cells {set(wrong.scores) - graded}"
    for hostile in (h for h in hostile_submissions() if assignment in h.assignments):
        assert hostile_content(assignment, hostile)
        if hostile.scores != ZERO:
            assert set(hostile.scores) <= graded, f"{hostile.student}: unknown cells"
