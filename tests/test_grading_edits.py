"""Student-edited notebooks are graded by what the student wrote (issue 11).

Two levels, both driven by the list of assignments in solutions/ and by the random edits of
tests/student_edits.py (copies, splits, merges, moves, insertions, deletions, re-typed cells,
edited metadata, outputs, and other editors' file formats):

* here, without a kernel, many edit sequences per assignment (hypothesis, derandomized) go
  through the autograder's reading and repair step (attention_course/grading/sanitize.py), and
  the result must be a valid notebook in which every given cell appears once, as released, in
  the released order, and every piece of every answer comes before that answer's tests;
* in each assignment's grading round trip (harness/round_trip.py, tests/test_grading.py),
  a few variants with many edits each (solved, blank and partially right) are autograded in one
  `nbgrader autograde` batch, and must get exactly the scores of the unedited notebooks, with a
  note in their feedback.

Also: files that are not notebooks get the blank release with the reason, and zip_collect files
edited notebooks byte for byte.
"""
import ast
import copy
import json

import nbformat
import pytest
from hypothesis import HealthCheck, given, seed, settings
from nbgrader.nbgraderformat import MetadataValidator

from attention_course.grading.sanitize import NotANotebook, parse_submission, repair
from harness.course import ASSIGNMENTS
from harness.edits import edit_bases, released_cells_of
from student_edits import FORMATS, apply_edits, describe, edit_sequences, save_as

EXAMPLES = 30      # edit sequences per assignment, each applied to 3 notebooks (about 2 s per assignment)


def _norm(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").split("\n")).strip("\n")


def statements(source: str) -> list[str]:
    """The top-level statements of a cell, as text (normalized)."""
    lines = source.split("\n")
    tree = ast.parse(source)
    starts = [min([n.lineno] + [d.lineno for d in getattr(n, "decorator_list", [])]) - 1 for n in tree.body]
    ends = starts[1:] + [len(lines)]
    return [_norm("\n".join(lines[a:b])) for a, b in zip(starts, ends)]


def check_repaired(nb, released, answers):
    """The repaired notebook is what the rule promises (see the module's docstring)."""
    nbformat.validate(nb)
    MetadataValidator().validate_nb(nb)                 # nbgrader's own check: unique grade ids etc.
    graded = [(i, cell.metadata["nbgrader"]["grade_id"]) for i, cell in enumerate(nb.cells)
              if "nbgrader" in cell.metadata]
    ids = [g for _, g in graded]
    assert len(ids) == len(set(ids)), f"a grade_id twice: {ids}"
    given = [r for r in released if r.given]
    position = dict((g, i) for i, g in graded)
    assert [g for g in ids if g in {r.grade_id for r in given}] == [r.grade_id for r in given], (
        "the given cells are not all there, once each, in the released order")
    for r in given:
        cell = nb.cells[position[r.grade_id]]
        assert cell.cell_type == r.cell_type and cell.source == r.source, f"{r.grade_id} is not as released"
    order = [r.grade_id for r in released]
    for grade_id, source in answers.items():
        assert nb.cells[position[grade_id]].cell_type == "code", f"answer {grade_id} is not a code cell"
        # Every statement of the answer is in code that runs before the first given cell after it.
        after = [r.grade_id for r in given if order.index(r.grade_id) > order.index(grade_id)]
        end = position[after[0]] if after else len(nb.cells)
        before = "\n".join(_norm(c.source) for c in nb.cells[:end] if c.cell_type == "code")
        missing = [s for s in statements(source) if s and s not in before]
        assert not missing, f"answer {grade_id}: code not run before its tests: {missing[0][:80]!r}"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_repair_keeps_every_answer_before_its_tests_and_restores_the_given_cells(assignment):
    released = released_cells_of(assignment)
    bases = edit_bases(assignment)

    @seed(11)
    @settings(max_examples=EXAMPLES, derandomize=False, database=None, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(edit_sequences())
    def check(drawn):
        edits, fmt = drawn
        for kind, (base, answers) in bases.items():
            edited, kept = apply_edits(base, released, edits, fmt)
            nb, notes = parse_submission(save_as(edited, fmt))
            repaired, repairs = repair(nb, released)
            try:
                check_repaired(repaired, released, answers)
            except AssertionError as error:
                raise AssertionError(f"{assignment} ({kind}) {describe(kept, fmt)}: {error}") from None

    check()


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_an_unedited_notebook_needs_no_repair(assignment):
    released = released_cells_of(assignment)
    plain = {key: values[0] for key, values in FORMATS.items()}
    for kind, (base, _) in edit_bases(assignment).items():
        nb, notes = parse_submission(save_as(base, plain))
        repaired, repairs = repair(nb, released)
        assert notes == [] and repairs == [], (kind, notes, repairs)
        assert [c.source for c in repaired.cells if "nbgrader" not in c.metadata or
                c.metadata["nbgrader"]["solution"]] == [c.source for c in base.cells if
                                                        c.metadata.get("nbgrader", {}).get("solution")]


@pytest.mark.parametrize("raw, why", [
    (b"", "empty"),
    (b"   \n", "empty"),
    (b'{"cells": [', "not valid JSON"),
    (b"def f():\n    return 1\n", "not valid JSON"),
    (b"PK\x03\x04rest-of-a-zip", "ZIP archive"),
    (b"[1, 2, 3]", "not a notebook"),
    (b'{"metadata": {}}', "not a notebook"),
])
def test_only_files_that_are_not_notebooks_are_refused_with_the_reason(raw, why):
    with pytest.raises(NotANotebook, match=why):
        parse_submission(raw)


def test_odd_but_readable_files_are_notebooks():
    """Minimal JSON with cells, a cell list with junk, unknown cell types, UTF-16, Windows-1252."""
    nb, notes = parse_submission(b'{"cells": [{"cell_type": "code", "source": ["x = 1\\r\\n", "y = 2"]}, 3, '
                                 b'{"cell_type": "heading", "source": "Title", "level": 1}]}')
    assert [c.cell_type for c in nb.cells] == ["code", "markdown"] and nb.cells[0].source == "x = 1\ny = 2"
    assert any("not a cell" in n for n in notes) and any("line endings" in n for n in notes)
    text = json.dumps({"cells": [{"cell_type": "markdown", "metadata": {}, "source": "caf\u00e9"}],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    assert parse_submission(text.encode("utf-16"))[0].cells[0].source == "caf\u00e9"
    assert parse_submission(text.encode("cp1252"))[0].cells[0].source == "caf\u00e9"   # \u00e9 escaped in JSON
    assert parse_submission(text.replace("\\u00e9", "\u00e9").encode("cp1252"))[0].cells[0].source == "caf\u00e9"


def test_the_structure_check_fails_on_a_wrong_repair():
    """check_repaired is not vacuous: an answer after its tests, or an edited test, fails it."""
    assignment = ASSIGNMENTS[0]
    released = released_cells_of(assignment)
    base, answers = edit_bases(assignment)["solution"]
    plain = {key: values[0] for key, values in FORMATS.items()}
    repaired, _ = repair(parse_submission(save_as(base, plain))[0], released)
    check_repaired(repaired, released, answers)
    answer = next(i for i, c in enumerate(repaired.cells) if c.metadata.get("nbgrader", {}).get("solution"))
    late = copy.deepcopy(repaired)
    late.cells.insert(answer + 2, late.cells.pop(answer))
    with pytest.raises(AssertionError, match="not run before its tests"):
        check_repaired(late, released, answers)
    edited = copy.deepcopy(repaired)
    test = next(c for c in edited.cells if c.metadata.get("nbgrader", {}).get("grade"))
    test.source = "pass"
    with pytest.raises(AssertionError, match="not as released"):
        check_repaired(edited, released, answers)
