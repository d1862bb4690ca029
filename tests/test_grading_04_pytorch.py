"""Grading round trip of assignment 4 (multi-head attention), PyTorch (see grading_utils.GradingRoundTrip).

In a temporary copy of the course: generate_assignment reproduces the committed exercises/; the
solution autogrades to full marks and the released exercise to zero; every known-wrong submission
(tests/submissions/, expectations and reasons in grading_utils.WRONG) gets exactly its partial
score, cell by cell; each autograde takes under a minute; the feedback shows scores and messages
but no hidden-test code; `nbgrader export` writes the totals. The Keras twin is
test_grading_04_keras.py (one file per assignment, so that `pytest -n 2 --dist loadfile` spreads
them over the workers).
"""
import pytest

from grading_utils import GradingRoundTrip

pytestmark = pytest.mark.slow


class TestGrading04Pytorch(GradingRoundTrip):
    assignment = "04-multi-head-attention-pytorch"
