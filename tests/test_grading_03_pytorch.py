"""Grading round trip of assignment 3 (self-attention), PyTorch (see grading_utils.GradingRoundTrip).

In a temporary copy of the course: generate_assignment reproduces the committed exercises/; the
solution autogrades to full marks and the released exercise to zero; every known-wrong submission
(tests/submissions/, expectations and reasons in grading_utils.WRONG) gets exactly its partial
score, cell by cell; each autograde takes under a minute; the feedback shows scores and messages
but no hidden-test code; `nbgrader export` writes the totals; student-edited notebooks keep their
scores. The Keras twin is test_grading_03_keras.py (one file per assignment, so that
`pytest -n 2 --dist loadfile` spreads them over the workers).

Also the two cases of issue 11, which used to be graded as the blank release (0/16): a copy of
the visible test cell pasted below it and edited into a check of the student's own, and a copy of
an answer cell (JupyterLab keeps the nbgrader metadata, so two cells carry one grade_id).
"""
import copy

import pytest

from grading_utils import GradingRoundTrip, visible_text

pytestmark = pytest.mark.slow


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


class TestGrading03Pytorch(GradingRoundTrip):
    assignment = "03-self-attention-pytorch"
    named_edits = {
        "edited-issue11-test-copy": (paste_copy_below(
            "test_attention_visible", "\nprint('my check:', scaled_dot_product_attention(q, k, v)[1][0])"),
            "solution"),
        "edited-issue11-answer-copy": (paste_copy_below("scaled_dot_product_attention"), "solution"),
    }

    def test_issue_11_a_copied_cell_still_gets_full_marks_with_a_note(self, edited):
        for student in self.named_edits:
            scores = edited.course.scores(self.assignment, student)
            assert sum(scores.values()) == 16.0, f"{student}: {scores}"
            text = visible_text(edited.course.feedback_html(self.assignment, student))
            assert "Score: 16.0 / 16.0" in text and "copied or split" in text, student
            assert "could not be read" not in text
