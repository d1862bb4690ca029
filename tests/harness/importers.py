"""Issue 34, for every assignment: an answer that imports the course's version, or pastes the
chapter's code where the variation part asks for something else, earns nothing.

The submission is generated from the manifest: each answer cell of the solution that defines a
name of the assignment's `asked` list (course.toml) becomes imports of the course's versions
(`from attention_course.<module> import <name>`), after the solution's code where the cell also
defines names that the package does not hold; the variation part's answer cells become the
chapter's nearest components, pasted under the asked names (harness/copiers.py). Graded in the
sandbox (attention_course/grading/hide.py gives the kernel stand-ins for the asked names), every
test cell of those parts scores 0, and every other part keeps its marks. Every round trip
(round_trip.py) grades it with its other students; the chapters' wrong/ folders hold the
evasions (importlib, sys.modules, subclasses, exec of the source) for three assignments.
"""
import ast

from course_tools import manifest

from . import copiers
from .cells import ANSWER, DeclaredCell
from .submissions import grade_id_of, is_answer, solution_answers, student_notebook

STUDENT = "course_copier_generated"


def chapter_and_framework(assignment: str) -> tuple[manifest.Chapter, str]:
    """The manifest's chapter that holds an assignment, and the assignment's framework."""
    for chapter in manifest.chapters():
        for framework, name in zip(chapter.frameworks, chapter.assignments):
            if name == assignment:
                return chapter, framework
    raise KeyError(assignment)



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
    whose answer imports the course's versions or pastes the chapter's; full marks for the
    others."""
    expected, part = {}, None
    for cell in notebook.cells:
        if is_answer(cell):
            part = grade_id_of(cell)
        elif grade_id_of(cell) in maximum:
            grade_id = grade_id_of(cell)
            expected[grade_id] = 0.0 if part in imported else maximum[grade_id]
    return expected


def importer_submission(assignment: str):
    """(notebook, the grade ids of the answers it imports or pastes): the generated student's
    notebook."""
    chapter, framework = chapter_and_framework(assignment)
    cells = importer_cells(assignment, asked_by_module(chapter, framework))
    assert cells, f"{assignment}: no answer cell defines an asked name"
    assert chapter.variation, f"{assignment}: course.toml declares no variation part"
    pasted = copiers.copier_cells(chapter, framework, assignment)
    clash = {cell.grade_id for cell in cells} & {cell.grade_id for cell in pasted}
    assert not clash, f"{assignment}: the variation's cells ask for names the package holds: {clash}"
    cells += pasted
    return student_notebook(assignment, cells), {cell.grade_id for cell in cells}
