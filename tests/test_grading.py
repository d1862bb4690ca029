"""The grading round trip of every assignment, from one declaration each.

For each assignment declared in course.toml, in a temporary copy of the course (see
harness/round_trip.py, GradingRoundTrip): generate_assignment reproduces the committed exercises/;
the solution autogrades to its declared full marks and the released exercise to zero; every
known-wrong submission (declared in its chapter's folder: tests/chapters/chNN_<name>/wrong_chNN.py
and wrong/, built in the test's temporary folder) gets exactly its partial score, cell by cell;
each autograde takes under a minute; the feedback shows scores and messages but no hidden-test
code; `nbgrader export` writes the totals; student-edited notebooks (tests/student_edits.py) keep
their scores (graded for one framework per chapter: `edited_framework`). The hostile and broken submissions are graded in one batch per assignment by
tests/test_grading_hostile.py.

Adding an assignment means: its chapter's entry in course.toml, its Wrong declarations in
tests/chapters/chNN_<name>/wrong_chNN.py with their code in wrong/<student>-<framework>.py
(CONTRIBUTING.md), and, where it needs them, named edits below. Each assignment's tests form one
class, and the Makefile runs `--dist loadscope`, which sends a class to one worker (its
class-scoped round trip is built once) and a notebook's cells or a module's functions to one
worker: the two workers grade different assignments side by side.
"""
import copy

import pytest

from course_tools import manifest
from harness.course import ASSIGNMENTS
from harness.feedback import visible_text
from harness.round_trip import GradingRoundTrip, StudentEditsRoundTrip

# Every assignment and its full marks (course.toml; the solution must get exactly this).
ASSIGNMENT_MARKS = manifest.assignment_marks()


def paste_copy_below(grade_id, extra=""):
    """JupyterLab's copy and paste: the copy keeps the nbgrader metadata and gets a new id."""
    def edit(notebook):
        index = next(i for i, cell in enumerate(notebook.cells)
                     if cell.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
        pasted = copy.deepcopy(notebook.cells[index])
        pasted.id = "pasted-copy"
        pasted.source += extra
        notebook.cells.insert(index + 1, pasted)
        return notebook
    return edit


# Named student edits (regression cases), graded with the random edited variants:
# {assignment: {"edited-<name>": (function(notebook) -> notebook, base kind)}}.
# The two cases of issue 11, which used to be graded as the blank release (0/16): a copy of the
# visible test cell pasted below it and edited into a check of the student's own, and a copy of an
# answer cell (JupyterLab keeps the nbgrader metadata, so two cells carry one grade_id).
ISSUE_11_EDITS = {
    "edited-issue11-test-copy": (paste_copy_below(
        "test_attention_visible", "\nprint('my check:', scaled_dot_product_attention(q, k, v)[1][0])"),
        "solution"),
    "edited-issue11-answer-copy": (paste_copy_below("scaled_dot_product_attention"), "solution"),
}
NAMED_EDITS = {"03-self-attention-pytorch": ISSUE_11_EDITS}


class _FullMarks:
    """The declared full marks."""

    full_marks: int

    def test_full_marks_are_as_declared(self, graded):
        assert sum(graded.course.max_scores(self.assignment).values()) == self.full_marks


class _DeclaredRoundTrip(_FullMarks, GradingRoundTrip):
    """GradingRoundTrip plus the declared full marks."""


class _EditedRoundTrip(_FullMarks, StudentEditsRoundTrip):
    """... plus the student-edited notebooks."""


class _NamedEditsRoundTrip(_EditedRoundTrip):
    """... plus the named edits, each of which must keep full marks and say what was repaired."""

    def test_named_edits_keep_full_marks_with_a_note(self, edited):
        for student in self.named_edits:
            scores = edited.course.scores(self.assignment, student)
            assert sum(scores.values()) == self.full_marks, f"{student}: {scores}"
            text = visible_text(edited.course.feedback_html(self.assignment, student))
            assert f"Score: {self.full_marks:.1f} / {self.full_marks:.1f}" in text, student
            assert "copied or split" in text, f"{student}: no repair note in the feedback"
            assert "could not be read" not in text


def edited_framework(chapter: manifest.Chapter) -> str:
    """The framework whose assignment of a chapter grades the student-edited notebooks: PyTorch
    for the odd chapters, Keras for the even ones (both kernels get edited notebooks, and each
    chapter's edits are graded once: its two assignments have the same cells)."""
    wanted = "pytorch" if chapter.number % 2 else "keras"
    return wanted if wanted in chapter.frameworks else chapter.frameworks[0]


EDITED = {f"{chapter.assignment}-{edited_framework(chapter)}" for chapter in manifest.chapters()}


def _round_trip_class(assignment: str, full_marks: int) -> type:
    """The test class TestGrading_<assignment> of one assignment."""
    name = "TestGrading_" + assignment.replace("-", "_")
    named = NAMED_EDITS.get(assignment, {})
    assert not named or assignment in EDITED, f"{assignment}: named edits, but no edited notebooks"
    base = (_NamedEditsRoundTrip if named else _EditedRoundTrip if assignment in EDITED
            else _DeclaredRoundTrip)
    return type(name, (base,), {
        "assignment": assignment,
        "full_marks": full_marks,
        "named_edits": named,
        "pytestmark": [pytest.mark.slow],
    })


for _assignment, _marks in ASSIGNMENT_MARKS.items():
    _cls = _round_trip_class(_assignment, _marks)
    globals()[_cls.__name__] = _cls


def test_every_assignment_is_declared():
    """A folder in solutions/ that course.toml does not declare would never be graded here."""
    assert sorted(ASSIGNMENT_MARKS) == ASSIGNMENTS
