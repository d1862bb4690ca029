"""Issue 34, for every assignment: an answer that imports the course's version earns nothing.

The submission is generated from the manifest: each answer cell of the solution that defines a
name of the assignment's `asked` list (course.toml) becomes imports of the course's versions
(`from attention_course.<module> import <name>`), after the solution's code where the cell also
defines names that the package does not hold. Graded in the sandbox (attention_course/grading/
hide.py gives the kernel stand-ins for those names), every test cell of such a part scores 0,
and every other part keeps its marks. The chapters' wrong/ folders hold the evasions
(importlib, sys.modules, subclasses, exec of the source) for three assignments.
"""
import ast

import nbformat
import pytest

from course_tools import manifest
from harness.cells import ANSWER, DeclaredCell
from harness.course import COMMAND_TIMEOUT_S, Course
from harness.submissions import grade_id_of, is_answer, solution_answers, student_notebook

STUDENT = "course_importer_generated"


def asked_by_module(chapter: manifest.Chapter, framework: str) -> dict[str, list[str]]:
    """{module: [asked names]} of one framework's assignment."""
    found: dict[str, list[str]] = {}
    for dotted in chapter.asked.get(framework, ()):
        module, name = dotted.split(".")
        found.setdefault(module, []).append(name)
    return found


def defined_names(source: str) -> set[str]:
    """The top-level classes and functions that an answer's code defines."""
    return {node.name for node in ast.parse(source).body if hasattr(node, "name")}


def importer_cells(assignment: str, asked: dict[str, list[str]]) -> list[DeclaredCell]:
    """The answer cells that define asked names, as imports of the course's versions (after the
    solution's code where the cell also defines names that are not asked)."""
    cells = []
    for grade_id, source in solution_answers(assignment).items():
        defined = defined_names(source)
        imports = "\n".join(f"from attention_course.{module} import {name}"
                            for module, names in asked.items()
                            for name in names if name in defined)
        if imports:
            only_asked = defined <= {name for names in asked.values() for name in names}
            cells.append(DeclaredCell(ANSWER, grade_id,
                                      imports if only_asked else f"{source}\n\n{imports}"))
    return cells


def expected_scores(notebook, imported: set[str], maximum: dict) -> dict[str, float]:
    """0 for every test cell of a part (the test cells after an answer cell, up to the next)
    whose answer imports the course's versions; full marks for the others."""
    expected, part = {}, None
    for cell in notebook.cells:
        if is_answer(cell):
            part = grade_id_of(cell)
        elif grade_id_of(cell) in maximum:
            grade_id = grade_id_of(cell)
            expected[grade_id] = 0.0 if part in imported else maximum[grade_id]
    return expected


ASSIGNMENTS = [(chapter, framework, assignment) for chapter in manifest.chapters()
               for framework, assignment in zip(chapter.frameworks, chapter.assignments)]


@pytest.mark.slow
@pytest.mark.parametrize("chapter, framework, assignment", ASSIGNMENTS,
                         ids=[assignment for _, _, assignment in ASSIGNMENTS])
def test_importing_the_course_earns_nothing(tmp_path, chapter, framework, assignment):
    cells = importer_cells(assignment, asked_by_module(chapter, framework))
    assert cells, f"{assignment}: no answer cell defines an asked name"
    notebook = student_notebook(assignment, cells)
    built = tmp_path / "built" / f"{assignment}.ipynb"
    built.parent.mkdir()
    nbformat.write(notebook, built)
    course = Course.copy_of_repo(tmp_path / "course")
    course.release(assignment)
    course.submit(assignment, STUDENT, built)
    course.autograde_all(assignment, timeout=COMMAND_TIMEOUT_S + 120)
    maximum = course.max_scores(assignment)
    expected = expected_scores(notebook, {cell.grade_id for cell in cells}, maximum)
    scores = course.scores(assignment, STUDENT)
    print(f"\n{assignment}: {sum(scores.values()):.0f} / {sum(maximum.values()):.0f}")
    assert scores == expected
