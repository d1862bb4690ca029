"""The student-edited notebooks that the grading round trips autograde (issue 11).

The edits themselves (copies, splits, merges, moves, insertions, deletions, re-typed cells, other
editors' file formats) are drawn by tests/student_edits.py; here: the notebooks they start from
(solved, blank, and partially right: the assignment's first wrong submission) and the few edited
variants of each assignment that its round trip grades.
"""
from __future__ import annotations

import zlib

from .course import REPO
from .declarations import wrongs_for
from .submissions import RELEASE_BASE, grade_id_of, is_answer, student_notebook, wrong_submission


def released_cells_of(assignment: str):
    """The released cells of an assignment, as the autograder's repair step reads them."""
    from student_edits import released_from_source

    return released_from_source(REPO / "solutions" / assignment / f"{assignment}.ipynb")


def partial_student(assignment: str) -> str | None:
    """The partially right submission whose score the edits must keep: the first wrong one."""
    wrongs = wrongs_for(assignment)
    return wrongs[0].student if wrongs else None


def edit_bases(assignment: str) -> dict:
    """{kind: (student notebook, {answer grade_id: its code})} for the solved, blank and partially
    right notebooks that the student edits of tests/student_edits.py start from."""
    bases = {"solution": student_notebook(assignment),
             "blank": student_notebook(assignment, base=RELEASE_BASE)}
    if partial_student(assignment):            # (a new assignment may have no wrong submissions yet)
        bases["partial"] = wrong_submission(assignment, partial_student(assignment))
    return {kind: (nb, {grade_id_of(cell): cell.source for cell in nb.cells if is_answer(cell)})
            for kind, nb in bases.items()}


def _drawn_edit_sequences(assignment: str) -> list:
    """40 edit sequences (and file formats) drawn by hypothesis with a seed fixed per assignment."""
    from hypothesis import HealthCheck, Phase, given, seed, settings

    from student_edits import edit_sequences

    pool = []

    @seed(zlib.crc32(assignment.encode()))
    @settings(max_examples=40, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(edit_sequences(max_edits=14))
    def collect(drawn):
        pool.append(drawn)

    collect()
    return pool


def edited_variants(assignment: str) -> dict[str, tuple[bytes, str, str]]:
    """{student: (file, base kind, description)}: the solved, blank and partially right notebooks
    of the assignment, each after the same edit sequence and saved in the same drawn file format:
    the richest (most kinds of edits kept, then most edits, on the solved notebook) of 40
    sequences drawn by hypothesis with a seed fixed per assignment, so every run grades the same
    three notebooks."""
    from student_edits import apply_edits, describe, save_as

    pool = _drawn_edit_sequences(assignment)
    released = released_cells_of(assignment)
    bases = edit_bases(assignment)

    def richness(drawn):
        kept = apply_edits(bases["solution"][0], released, *drawn)[1]
        return len({edit[0] for edit in kept}), len(kept)

    edits, fmt = max(pool, key=richness)         # the first of the richest
    variants = {}
    for kind, (base, _) in bases.items():
        edited, kept = apply_edits(base, released, edits, fmt)
        variants[f"edited-{kind}"] = (save_as(edited, fmt), kind, describe(kept, fmt))
    return variants
