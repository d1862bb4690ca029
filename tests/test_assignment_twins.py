"""The Keras and PyTorch versions of an assignment ask the same thing for the same points.

A student's grade must not depend on the framework chosen: both solutions have the same answer
cells and the same graded cells with the same points, in the same order, and the same part
headings (their titles and points). The round trips grade each framework's own notebook; this
test is what lets them draw the student-edited variants (harness/edits.py) of one framework per
chapter: the repair step sees the same cells in both.
"""
import re

import nbformat
import pytest

from course_tools import manifest
from harness.course import REPO

PART = re.compile(r"^## Part (\d+)\b.*\((\d+) points?\)", re.MULTILINE)
TWINNED = [chapter for chapter in manifest.chapters() if len(chapter.assignments) == 2]


def structure(assignment: str) -> dict[str, list]:
    notebook = nbformat.read(REPO / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    graded, answers, parts = [], [], []
    for cell in notebook.cells:
        info = cell.metadata.get("nbgrader", {})
        if info.get("grade"):
            graded.append((info["grade_id"], info.get("points")))
        if info.get("solution"):
            answers.append(info["grade_id"])
        if cell.cell_type == "markdown":
            parts += PART.findall(cell.source)
    return {"graded cells and points": graded, "answer cells": answers, "parts and points": parts}


@pytest.mark.parametrize("chapter", TWINNED, ids=[chapter.assignment for chapter in TWINNED])
def test_both_frameworks_have_the_same_parts_and_points(chapter):
    keras, pytorch = (structure(name) for name in chapter.assignments)
    for what in keras:
        assert keras[what] == pytorch[what], f"{chapter.assignment}: the {what} differ"
    assert keras["parts and points"], f"{chapter.assignment}: no '## Part N: ... (P points)' heading"
    assert sum(int(points) for _, points in keras["parts and points"]) == chapter.marks
