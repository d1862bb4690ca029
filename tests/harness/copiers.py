"""Issue 34, item 1: a student who copies the chapter does not pass the variation part.

Each assignment has a variation part (course.toml's `[chapters.variation]`): it asks for what the
chapter does not show. Its `copies` table names, for every name the part asks for, the chapter's
nearest exported component (`module.name`), which is what a student who copies the chapter would
paste. `pasted_cell` builds that paste from the package's source, generated as the chapter's
`#| export` cells wrote it: the component, the module-level definitions it uses (recursively) and
the imports they need, inside a function so that nothing but the asked name reaches the
notebook's globals (the parts before and after keep the student's own code), then bound to the
asked name. The generated student of every round trip (harness/importers.py) answers the
variation this way and must score 0 on every test cell of that part.
"""
from __future__ import annotations

import ast
import inspect
import textwrap
from importlib import import_module

from course_tools import manifest

from .cells import ANSWER, DeclaredCell
from .submissions import solution_answers

PASTER = "_pasted_from_the_chapter"


def _bound_names(node: ast.stmt) -> set[str]:
    """The module-level names a statement binds."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {name.id for target in targets for name in ast.walk(target)
                if isinstance(name, ast.Name)}
    return set()


def _used_names(node: ast.AST) -> set[str]:
    return {name.id for name in ast.walk(node) if isinstance(name, ast.Name)}


def component_code(dotted: str) -> str:
    """The source of `module.name` with what it needs from its module, in the module's order:
    the definitions it uses (recursively) and the imports of the names they use."""
    module_name, name = dotted.split(".")
    source = inspect.getsource(import_module(f"attention_course.{module_name}"))
    body = ast.parse(source).body
    binders = {bound: node for node in body for bound in _bound_names(node)}
    if name not in binders:
        raise KeyError(f"attention_course.{module_name} defines no {name}")
    needed, todo = set(), [binders[name]]
    while todo:
        node = todo.pop()
        if id(node) in needed:
            continue
        needed.add(id(node))
        todo += [binders[used] for used in _used_names(node) if used in binders]
    return "\n\n".join(ast.get_source_segment(source, node) for node in body if id(node) in needed)


def pasted_cell(copies: dict[str, str]) -> str:
    """The code of a variation's answer cell as a copier writes it: each asked name is the
    chapter's component `copies[name]`, pasted."""
    pastes = []
    for index, (asked, dotted) in enumerate(copies.items()):
        paster = f"{PASTER}_{index}"
        component = dotted.split(".")[1]
        pastes.append(f"def {paster}():\n"
                      f"    # pasted from the chapter: attention_course.{dotted} and what it uses\n"
                      + textwrap.indent(component_code(dotted), "    ") + "\n\n"
                      f"    return {component}\n\n\n"
                      f"{asked} = {paster}()")
    return "\n\n\n".join(pastes)


def defined_names(source: str) -> set[str]:
    return {name for node in ast.parse(source).body for name in _bound_names(node)}


def copier_cells(chapter: manifest.Chapter, framework: str, assignment: str) -> list[DeclaredCell]:
    """The variation's answer cells as a copier writes them: the names listed in `copies` pasted
    from the chapter, any other definition of the cell kept as the solution has it."""
    copies = chapter.variation["copies"][framework]
    answers = solution_answers(assignment)
    cells = []
    for grade_id in chapter.variation["cells"]:
        source = answers[grade_id]
        here = {name: dotted for name, dotted in copies.items() if name in defined_names(source)}
        assert here, f"{assignment}: the variation cell {grade_id} defines none of {sorted(copies)}"
        kept = [ast.get_source_segment(source, node) for node in ast.parse(source).body
                if not _bound_names(node) & set(here)]
        cells.append(DeclaredCell(ANSWER, grade_id, "\n\n\n".join(kept + [pasted_cell(here)])))
    return cells
