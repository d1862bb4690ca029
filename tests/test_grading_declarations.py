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
from harness.declarations import (CHAPTERS, ZERO, hostile_submissions, touched_cells, wrong_batches,
                                  wrongs_for)
from harness.submissions import batch_submission, hostile_content, wrong_submission

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


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_each_wrong_student_is_in_one_batch_of_unrelated_mistakes(assignment):
    """A batch's notebook has every member's cells, and no two members share a cell they write
    or a test cell they lose points in: each lost point is one member's."""
    batches = wrong_batches(assignment)
    assert sorted(w.student for b in batches for w in b.wrongs) == sorted(
        w.student for w in wrongs_for(assignment))
    for batch in batches:
        for number, wrong in enumerate(batch.wrongs):
            for other in batch.wrongs[number + 1:]:
                assert not touched_cells(wrong, assignment) & touched_cells(other, assignment)
                assert not set(wrong.scores) & set(other.scores)
        notebook = batch_submission(assignment, batch)
        sources = {cell.source for cell in notebook.cells}
        for wrong in batch.wrongs:
            assert {cell.source for cell in wrong.cells(assignment) if cell.source} <= sources
