"""Before a submission runs: put the tests back as they were released, whatever the student did.

nbgrader's own sanitizing (``OverwriteCells``) restores the source of a locked cell that a
student edited, but it trusts the cell's nbgrader *metadata*: a test cell whose metadata was
deleted or edited (``"grade": false``, another ``grade_id``, ``"solution": true``) is no longer
recognised as that test, and its re-adding of deleted test cells fails on some deletions (a
KeyError when the cell before the deleted one is not a graded cell). nbgrader also gives up on a
notebook that is not valid JSON. So, in ``Autograde.sanitize_preprocessors``:

``GuardGradedCells`` (first)
    every cell's nbgrader metadata is rewritten from the gradebook by its ``grade_id`` (type,
    points, locked, all of it); metadata with an unknown or missing ``grade_id`` is dropped, so
    that cell is just student code, which is never graded;
``RestoreMissingCells`` (after ``OverwriteCells``)
    every locked or graded cell of the source notebook that is missing is put back, after the
    nearest cell that precedes it in the source, with its full source from the gradebook;
``ReadableNotebookExporter`` (``Autograde.exporter_class``)
    a submission that cannot be read or sanitized (broken JSON, not a notebook) is graded as the
    blank released notebook, with a note at the top saying why, instead of stopping nbgrader.
"""
from __future__ import annotations

import copy
from pathlib import Path

import nbformat
from nbconvert.exporters import NotebookExporter
from nbformat.notebooknode import NotebookNode
from nbgrader.api import Gradebook
from nbgrader.preprocessors import NbGraderPreprocessor

RESTORED = "# [autograder] This cell was missing or changed in the submission and was put back as released.\n"


def _source_info(resources):
    """(source cells in notebook order, {grade_id: max_score}, solution ids, task ids) from the gradebook."""
    info = resources["nbgrader"]
    with Gradebook(info["db_url"]) as gradebook:
        notebook = gradebook.find_notebook(info["notebook"], info["assignment"])
        sources = [(cell.name, cell.cell_type, cell.locked, cell.source, cell.checksum)
                   for cell in notebook.source_cells]
        points = {cell.name: float(cell.max_score) for cell in notebook.grade_cells}
        solutions = {cell.name for cell in notebook.solution_cells}
        tasks = {cell.name for cell in notebook.task_cells}
    return sources, points, solutions, tasks


def _metadata(grade_id, locked, points, solutions, tasks, checksum=None):
    meta = {"grade": grade_id in points, "grade_id": grade_id, "locked": bool(locked),
            "schema_version": 3, "solution": grade_id in solutions, "task": grade_id in tasks}
    if grade_id in points:
        meta["points"] = points[grade_id]
    if checksum:
        meta["checksum"] = checksum
    return meta


class GuardGradedCells(NbGraderPreprocessor):
    """Rewrite every cell's nbgrader metadata from the gradebook (see the module's docstring)."""

    def preprocess(self, nb, resources):
        sources, points, solutions, tasks = _source_info(resources)
        known = {name: locked for name, _, locked, _, _ in sources}
        for cell in nb.cells:
            metadata = cell.setdefault("metadata", NotebookNode())
            info = metadata.get("nbgrader")
            if info is None:
                continue
            grade_id = info.get("grade_id") if isinstance(info, dict) else None
            if isinstance(grade_id, str) and grade_id in known:
                metadata["nbgrader"] = NotebookNode(_metadata(grade_id, known[grade_id], points, solutions, tasks))
            else:
                self.log.warning("Dropping nbgrader metadata of a cell with an unknown grade_id %r", grade_id)
                del metadata["nbgrader"]
        return nb, resources


class RestoreMissingCells(NbGraderPreprocessor):
    """Put back every locked or graded source cell that the submission lacks."""

    def preprocess(self, nb, resources):
        sources, points, solutions, tasks = _source_info(resources)
        present = {cell.metadata["nbgrader"]["grade_id"]: cell for cell in nb.cells
                   if "nbgrader" in cell.get("metadata", {})}
        for position, (name, cell_type, locked, source, checksum) in enumerate(sources):
            if name in present or name in solutions or not (locked or name in points):
                continue
            self.log.warning("Cell %s is missing from the submission: putting it back", name)
            if cell_type == "code":
                cell = nbformat.v4.new_code_cell(RESTORED + source)
            else:
                cell = nbformat.v4.new_markdown_cell(source)
            cell.metadata["nbgrader"] = _metadata(name, locked, points, solutions, tasks, checksum)
            cell.metadata.update(deletable=False, editable=False)
            # After the nearest present cell that comes before it in the source notebook.
            index = 0
            for previous, *_ in reversed(sources[:position]):
                if previous in present:
                    index = nb.cells.index(present[previous]) + 1
                    break
            nb.cells.insert(index, cell)
            present[name] = cell
        return nb, resources


class ReadableNotebookExporter(NotebookExporter):
    """Grade an unreadable submission as the blank release, with a note, instead of failing."""

    def from_filename(self, filename, resources=None, **kw):
        try:
            return super().from_filename(filename, resources=copy.deepcopy(resources), **kw)
        except Exception as error:  # noqa: BLE001 (whatever the submission broke, the batch goes on)
            converter = self.parent
            if not getattr(converter, "_sanitizing", False) or not resources or "nbgrader" not in resources:
                raise
            info = resources["nbgrader"]
            converter.log.error(
                "The submission %s could not be read or sanitized (%s: %s); grading it as the blank "
                "release, with a note", filename, type(error).__name__, str(error)[:300])
            coursedir = converter.coursedir
            release = Path(coursedir.format_path(coursedir.release_directory, ".", info["assignment"])) / (
                info["notebook"] + ".ipynb")
            stand_in = nbformat.read(release, as_version=4)
            note = nbformat.v4.new_markdown_cell(
                "**Autograder:** your submitted file could not be read as a Jupyter notebook "
                f"({type(error).__name__}), so it was graded as the blank assignment. "
                "Ask your instructor to look at it.")
            stand_in.cells.insert(0, note)
            return self.from_notebook_node(stand_in, resources=resources, **kw)
