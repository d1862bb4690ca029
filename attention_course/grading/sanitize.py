"""Before a submission runs: grade what the student wrote, whatever their editor did to the file.

Students copy and paste cells (JupyterLab keeps a cell's nbgrader metadata, so two cells then
claim the same ``grade_id``), split and merge cells, move, insert and delete them, turn a code
cell into Markdown by a stray key press, and save from VS Code, Colab or older Jupyters (no cell
ids, other metadata, another kernel, a byte-order mark, Windows line endings). Out of the box,
nbgrader's reader fails on a repeated ``grade_id`` and such a notebook was graded as blank. Here
every readable notebook is graded by what the student wrote, by ONE rule (also in the README's
instructor guide and at the top of every assignment):

* **The given cells are put back as released.** Instructions, set-up and test cells run from
  the gradebook, once each, in their released order and place, whatever the student did to them
  (edited, re-typed, moved, deleted, metadata changed). A given cell that the student edited is
  also kept, as the student's version, as a cell of their own just above it.
* **Answer cells run in their own part, in the student's order.** A cell that carries an answer
  cell's metadata (recognised by ``grade_id``, else by its released cell id) runs in that
  answer's part, before the part's tests, as code. When several cells claim one ``grade_id``
  (copies, the halves of a split cell), all of them run there in the student's order; one
  keeps the metadata (a code cell first, then the one with the released cell id, then the first).
* **The student's own cells stay next to the cell they follow** (copies of given cells and
  cells with unknown nbgrader metadata count as the student's own, without that metadata).

Whatever was repaired is listed in a Markdown note at the top of the graded notebook (so, of the
feedback) and in one ``WARNING`` line of the log. Only a file that is not a notebook at all
(empty, not JSON, JSON without cells, an archive) is graded as the blank release, and then the
note and an ``ERROR`` line say exactly why.

In ``nbgrader_config.py``: ``ReadableNotebookExporter`` (``Autograde.exporter_class``) reads the
file (``read_submission``: encodings, nbformat versions, invalid cells; a notebook the student
renamed is read from their file, ``collect.resolve``), and ``RepairSubmission``
(in ``Autograde.sanitize_preprocessors``) applies the rule above (``repair``, a pure function that
the tests drive with random student edits) from the gradebook and the source notebook.
"""
from __future__ import annotations

import codecs
import copy
import dataclasses
import datetime
import json
import os
import re
from pathlib import Path

import nbformat
from nbconvert.exporters import NotebookExporter
from nbconvert.exporters.exporter import ResourcesDict
from nbformat.notebooknode import NotebookNode, from_dict
from nbgrader.api import Gradebook
from nbgrader.preprocessors import NbGraderPreprocessor

from . import collect

NOTE_ID = "autograder-note"
NOTES_KEY = "attention_course_format_notes"
_CELL_ID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_HIDDEN_BEGIN, _HIDDEN_END = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"


class NotANotebook(Exception):
    """The submitted file is not a Jupyter notebook at all; the message says why, for students."""


def new_cell(cell_type: str, source: str, metadata=None, cell_id=None) -> NotebookNode:
    """A cell of nbformat 4.5 (built directly: nbformat's constructors validate each cell, which
    is slow)."""
    cell = {"cell_type": cell_type, "id": cell_id, "metadata": metadata if metadata is not None else {},
            "source": source}
    if cell_type == "code":
        cell.update(execution_count=None, outputs=[])
    return from_dict(cell)


# ---------------------------------------------------------------- reading any editor's notebook
def _decode(raw: bytes, notes: list[str]) -> str:
    if raw.startswith(codecs.BOM_UTF8):
        notes.append("a UTF-8 byte-order mark was ignored")
    elif raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        notes.append("the file was UTF-16, not UTF-8")
        return raw.decode("utf-16")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        notes.append("the file was not UTF-8 (read as Windows-1252)")
        return raw.decode("cp1252", errors="replace")


def _parse(raw: bytes, notes: list[str]) -> dict:
    if not raw.strip():
        raise NotANotebook("the file is empty")
    if raw.startswith(b"PK\x03\x04"):
        raise NotANotebook("it is a ZIP archive, not a notebook (unzip it and hand in the .ipynb file)")
    try:
        data = json.loads(_decode(raw, notes))
    except json.JSONDecodeError as error:
        raise NotANotebook(f"it is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg}); "
                           "was it saved completely, and by Jupyter?") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells", data.get("worksheets")), list):
        raise NotANotebook("it is JSON, but not a notebook (it has no list of cells)")
    return data


def _source(value) -> str:
    if isinstance(value, list):
        return "".join(str(part) for part in value)
    return value if isinstance(value, str) else ("" if value is None else str(value))


def _clean_cell(raw, notes: list[str]) -> NotebookNode | None:
    """One valid nbformat 4.5 cell (without outputs) from whatever an editor wrote, or None."""
    if not isinstance(raw, dict):
        notes.append("an entry of the cell list that was not a cell was dropped")
        return None
    source = _source(raw.get("source"))
    if "\r" in source:
        source = source.replace("\r\n", "\n").replace("\r", "\n")
        notes.append("Windows line endings were converted")
    metadata = raw.get("metadata") if isinstance(raw.get("metadata"), dict) else {}
    cell_type = raw.get("cell_type")
    if cell_type not in ("code", "markdown", "raw"):
        notes.append(f"a cell of unknown type {str(cell_type)[:20]!r} was read as Markdown")
        cell_type = "markdown"
    cell = new_cell(cell_type, source, copy.deepcopy(metadata), raw.get("id"))
    if cell_type != "code" and isinstance(raw.get("attachments"), dict):
        cell.attachments = from_dict(copy.deepcopy(raw["attachments"]))
    return cell


def _unique_ids(cells, notes: list[str] | None = None) -> None:
    """Give every cell a valid id, unique in the notebook; invalid or repeated ones get new
    ones (deterministic: from the cell's position), the first of a repeated id keeps it."""
    seen = set()
    fixed = 0
    for index, cell in enumerate(cells):
        cell_id = cell.get("id")
        if not isinstance(cell_id, str) or not _CELL_ID.match(cell_id) or cell_id in seen:
            fixed += cell_id is not None
            cell_id = f"cell-{index}"
            while cell_id in seen:
                cell_id += "-x"
            cell.id = cell_id
        seen.add(cell_id)
    if fixed and notes is not None:
        notes.append(f"{fixed} repeated or invalid cell id(s) were replaced")


# Cell metadata keys that nbformat's schema types (the rest is free-form).
_TYPED_KEYS = {"tags": lambda v: isinstance(v, list) and all(isinstance(t, str) for t in v),
               "collapsed": lambda v: isinstance(v, bool), "scrolled": lambda v: v in (True, False, "auto"),
               "name": lambda v: isinstance(v, str), "jupyter": lambda v: isinstance(v, dict),
               "execution": lambda v: isinstance(v, dict)}


def _valid_metadata(cells, metadata: dict, notes: list[str]) -> dict:
    """Drop metadata entries of the wrong type (nbformat's schema would reject the notebook)."""
    dropped = 0
    for cell in cells:
        for key, ok in _TYPED_KEYS.items():
            if key in cell.metadata and not ok(cell.metadata[key]):
                del cell.metadata[key]
                dropped += 1
    for key, required in (("kernelspec", ("name", "display_name")), ("language_info", ("name",))):
        value = metadata.get(key)
        if value is not None and not (isinstance(value, dict) and all(isinstance(value.get(k), str) for k in required)):
            del metadata[key]
            dropped += 1
    if dropped:
        notes.append(f"{dropped} metadata entries of the wrong type were dropped")
    return metadata


def normalize(data: dict, notes: list[str]) -> NotebookNode:
    """A valid nbformat 4.5 notebook without outputs from a parsed notebook of any version."""
    version = (data.get("nbformat"), data.get("nbformat_minor"))
    if "worksheets" in data or data.get("nbformat") == 3:
        try:
            data = nbformat.v4.upgrade(from_dict(data), from_version=3, from_minor=data.get("nbformat_minor", 0))
        except Exception as error:  # noqa: BLE001
            raise NotANotebook(f"it is an nbformat 3 notebook that could not be converted ({error})") from None
    cells = [cell for cell in (_clean_cell(raw, notes) for raw in data.get("cells", [])) if cell is not None]
    if version != (4, 5):
        notes.append(f"the notebook format {version[0]}.{version[1]} was read as 4.5")
    _unique_ids(cells, notes if version == (4, 5) else None)
    metadata = from_dict(copy.deepcopy(data.get("metadata") if isinstance(data.get("metadata"), dict) else {}))
    nb = from_dict({"cells": [], "metadata": _valid_metadata(cells, metadata, notes),
                    "nbformat": 4, "nbformat_minor": 5})
    nb.cells = cells
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError:           # something no editor writes: keep only what grading needs
        notes.append("metadata that nbformat rejects was dropped")
        nb.metadata = from_dict({"kernelspec": {"name": "python3", "display_name": "Python 3"}})
        for cell in cells:
            cell.metadata = from_dict({k: v for k, v in cell.metadata.items() if k == "nbgrader"})
            cell.pop("attachments", None)
        nbformat.validate(nb)
    return nb


def parse_submission(raw: bytes) -> tuple[NotebookNode, list[str]]:
    """(notebook, what was repaired in the file's format); NotANotebook if it is none."""
    notes: list[str] = []
    nb = normalize(_parse(raw, notes), notes)
    return nb, sorted(set(notes), key=notes.index)


def read_submission(path) -> tuple[NotebookNode, list[str]]:
    return parse_submission(Path(path).read_bytes())


# ---------------------------------------------------------------- the rule
@dataclasses.dataclass
class Released:
    """One released nbgrader cell, as the gradebook (and the source notebook's cell id) has it."""

    grade_id: str
    cell_type: str
    locked: bool
    source: str                 # as in the gradebook: with the hidden tests
    nbgrader: dict              # the metadata it must carry
    cell_id: str | None = None  # in the source notebook (= in the release)
    extra: dict = dataclasses.field(default_factory=dict)   # its other metadata there (tags, ...)

    @property
    def given(self) -> bool:
        return self.locked

    @property
    def released_source(self) -> str:
        """What students received: without the hidden-test region."""
        kept, hidden = [], False
        for line in self.source.split("\n"):
            if _HIDDEN_BEGIN in line:
                hidden = True
            elif _HIDDEN_END in line:
                hidden = False
            elif not hidden:
                kept.append(line)
        return "\n".join(kept)


def _same_text(a: str, b: str) -> bool:
    def norm(text):
        return "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").split("\n")).strip("\n")
    return norm(a) == norm(b)


def _claims(nb, released: dict[str, Released], notes: list[str]) -> list[str | None]:
    """The grade_id each cell claims (by its nbgrader metadata, else by its released cell id),
    or None; strips every cell's nbgrader metadata (the originals get theirs back)."""
    by_cell_id = {r.cell_id: r.grade_id for r in released.values() if r.cell_id}
    claims, unknown = [], 0
    for cell in nb.cells:
        info = cell.metadata.pop("nbgrader", None)
        grade_id = info.get("grade_id") if isinstance(info, dict) else None
        if not (isinstance(grade_id, str) and grade_id in released):
            unknown += info is not None and bool(info)
            grade_id = by_cell_id.get(cell.get("id"))
            if grade_id is not None:
                notes.append(f"`{grade_id}` was recognised by its cell id (its nbgrader metadata was missing or changed)")
        claims.append(grade_id)
    if unknown:
        notes.append(f"{unknown} cell(s) with nbgrader metadata of no cell of this assignment run as your own cells")
    return claims


def _originals(nb, claims, released) -> dict[str, int]:
    """{grade_id: index of the cell that keeps it}: a cell of the released type first, then the
    one with the released cell id, then the first."""
    groups: dict[str, list[int]] = {}
    for index, grade_id in enumerate(claims):
        if grade_id is not None:
            groups.setdefault(grade_id, []).append(index)
    return {grade_id: min(indices, key=lambda i: (nb.cells[i].cell_type != released[grade_id].cell_type,
                                                   nb.cells[i].get("id") != released[grade_id].cell_id, i))
            for grade_id, indices in groups.items()}


def _restored(r: Released) -> NotebookNode:
    return new_cell(r.cell_type if r.cell_type in ("code", "markdown") else "raw", r.source,
                    {**copy.deepcopy(r.extra), "deletable": False, "editable": False,
                     "nbgrader": copy.deepcopy(r.nbgrader)}, r.cell_id or r.grade_id)


def _retyped(cell, cell_type: str) -> NotebookNode:
    return new_cell(cell_type, cell.source, cell.metadata, cell.id)


def _moved(order: list[int]) -> set[int]:
    """The ranks not in a longest increasing subsequence of `order` (the ones that moved)."""
    best: list[list[int]] = []
    for rank in order:
        candidates = [seq for seq in best if seq[-1] < rank]
        best.append((max(candidates, key=len) if candidates else []) + [rank])
    keep = set(max(best, key=len)) if best else set()
    return set(order) - keep


def repair(nb: NotebookNode, cells: list[Released]) -> tuple[NotebookNode, list[str]]:
    """Apply the module's rule to a normalized submission; `cells`: the released nbgrader cells in
    their released order. Returns the notebook to grade and the list of repairs (empty when the
    notebook has the released structure)."""
    released = {r.grade_id: r for r in cells}
    rank = {r.grade_id: i for i, r in enumerate(cells)}
    notes: list[str] = []
    claims = _claims(nb, released, notes)
    originals = _originals(nb, claims, released)
    given = [r.grade_id for r in cells if r.given]
    # The part of each answer: the number of given cells before it in the release.
    part = {r.grade_id: sum(1 for g in given if rank[g] < rank[r.grade_id]) for r in cells}

    placed = []          # (part, tier, position, cell); given cells are the parts' boundaries
    anchor = 0           # the part that a cell of the student's own joins: that of the cell before it
    copies, edited, retyped = {}, [], []       # copies: {grade_id: number of cells claiming it}
    for index, (cell, grade_id) in enumerate(zip(nb.cells, claims)):
        r = released.get(grade_id)
        if r is not None and not r.given:                    # answer cells: their own part
            anchor = part[grade_id]
            if originals[grade_id] == index:
                if cell.cell_type != r.cell_type:
                    retyped.append(grade_id)
                    cell = _retyped(cell, r.cell_type)
                cell.metadata["nbgrader"] = from_dict(copy.deepcopy(r.nbgrader))
            else:
                copies[grade_id] = copies.get(grade_id, 1) + 1
            placed.append((anchor, 0, index, cell))
        elif r is not None and originals[grade_id] == index:  # a given cell: put back as released
            anchor = part[grade_id] + 1
            unchanged = _same_text(cell.source, r.released_source) or _same_text(cell.source, r.source)
            if not unchanged or cell.cell_type != r.cell_type:
                edited.append(grade_id)
                placed.append((part[grade_id], 1, index, cell))   # the student's version, just above
        else:                                                 # the student's own (and copies of given cells)
            if r is not None:
                copies[grade_id] = copies.get(grade_id, 1) + 1
            placed.append((anchor, 0, index, cell))

    nb.cells = _layout(placed, given, released)
    _unique_ids(nb.cells)
    moved = _moved([rank[g] for g in sorted(originals, key=originals.get)])
    changes = dict(copies=copies, retyped=retyped, moved=[cells[i].grade_id for i in sorted(moved)],
                   edited=edited, missing=[g for g in given if g not in originals],
                   lost=[r.grade_id for r in cells if not r.given and r.grade_id not in originals])
    return nb, notes + _describe(changes, released)


def _layout(placed, given: list[str], released: dict[str, Released]) -> list:
    """The cells in order: each part's cells (in the student's order), then the given cell that
    closes it, as released."""
    out = []
    ordered = sorted(placed, key=lambda item: item[:3])
    for boundary in range(len(given) + 1):
        out += [cell for part, _, _, cell in ordered if part == boundary]
        if boundary < len(given):
            out.append(_restored(released[given[boundary]]))
    return out


def _describe(changes: dict, released: dict[str, Released]) -> list[str]:
    """What was repaired, in words for the student."""
    def names(grade_ids):
        return ", ".join(f"`{g}`" for g in grade_ids)

    notes = []
    answer_copies = {g: n for g, n in changes["copies"].items() if not released[g].given}
    given_copies = {g: n for g, n in changes["copies"].items() if released[g].given}
    if answer_copies:
        notes.append("copied or split answer cells run together in their part: "
                     + ", ".join(f"`{g}` ({n} cells)" for g, n in answer_copies.items()))
    if given_copies:
        notes.append("copies of given cells (copied or split) run as your own cells: "
                     + ", ".join(f"`{g}` ({n} cells)" for g, n in given_copies.items()))
    if changes["retyped"]:
        notes.append(f"answer cell(s) {names(changes['retyped'])} had another cell type: run as released (code)")
    if changes["moved"]:
        notes.append(f"cells moved back to their released order: {names(changes['moved'])}")
    if changes["edited"]:
        notes.append("given cells restored as released (your version is kept just above each): "
                     + names(changes["edited"]))
    if changes["missing"]:
        notes.append(f"deleted given cells put back: {names(changes['missing'])}")
    if changes["lost"]:
        notes.append(f"no cell was recognised as answer cell {names(changes['lost'])} (deleted, or its "
                     "metadata and cell id both lost): only your own cells run there")
    return notes


def note_cell(notes: list[str]) -> NotebookNode:
    return new_cell("markdown", "**Autograder:** before grading, your notebook was repaired as the note "
                    "*How your notebook is graded* at the top of the assignment says. What was done:\n\n"
                    + "\n".join(f"* {n}" for n in notes), cell_id=NOTE_ID)


# ---------------------------------------------------------------- in nbgrader
def _course_directory(node):
    while node is not None:
        if hasattr(node, "coursedir"):
            return node.coursedir
        node = getattr(node, "parent", None)
    return None


def released_kernel(resources) -> str | None:
    info = resources["nbgrader"]
    with Gradebook(info["db_url"]) as gradebook:
        kernelspec = gradebook.find_notebook(info["notebook"], info["assignment"]).kernelspec
    try:
        return json.loads(kernelspec).get("name") if kernelspec else None
    except (ValueError, AttributeError):
        return None


def released_cells(resources, coursedir=None) -> list[Released]:
    """The released nbgrader cells of the notebook being graded, in the source notebook's order
    (cells that only the gradebook knows go last), from the gradebook."""
    info = resources["nbgrader"]
    with Gradebook(info["db_url"]) as gradebook:
        notebook = gradebook.find_notebook(info["notebook"], info["assignment"])
        points = {cell.name: float(cell.max_score) for cell in notebook.grade_cells}
        solutions = {cell.name for cell in notebook.solution_cells}
        tasks = {cell.name for cell in notebook.task_cells}
        found = {}
        for cell in notebook.source_cells:
            meta = {"grade": cell.name in points, "grade_id": cell.name, "locked": bool(cell.locked),
                    "schema_version": 3, "solution": cell.name in solutions, "task": cell.name in tasks}
            if cell.name in points:
                meta["points"] = points[cell.name]
            if cell.locked:
                meta["checksum"] = cell.checksum
            found[cell.name] = Released(cell.name, cell.cell_type, bool(cell.locked), cell.source, meta)
    order = []
    if coursedir is not None:
        source = Path(coursedir.format_path(coursedir.source_directory, ".", info["assignment"])) / (
            info["notebook"] + ".ipynb")
        if source.exists():
            for cell in nbformat.read(source, as_version=4).cells:
                grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
                if grade_id in found and grade_id not in order:
                    found[grade_id].cell_id = cell.get("id")
                    found[grade_id].extra = {k: v for k, v in cell.metadata.items()
                                             if k not in ("nbgrader", "deletable", "editable")}
                    order.append(grade_id)
    order += [name for name in found if name not in order]
    return [found[name] for name in order]


class RepairSubmission(NbGraderPreprocessor):
    """The module's rule, first of ``Autograde.sanitize_preprocessors`` (after ClearOutput)."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        nb, notes = repair(nb, released_cells(resources, _course_directory(self)))
        notes = list(resources.get(NOTES_KEY, [])) + notes
        kernel, wanted = nb.metadata.get("kernelspec", {}), released_kernel(resources)
        if wanted and isinstance(kernel, dict) and kernel.get("name") not in (None, wanted):
            notes.append(f"the notebook's kernel `{str(kernel.get('name'))[:40]}` was replaced by the "
                         "assignment's Python kernel")
        if notes:
            nb.cells.insert(0, note_cell(notes))
            self.log.warning("Repaired the submission of %s (%s): %s", info.get("student"), info["notebook"],
                             "; ".join(notes))
        return nb, resources


class ReadableNotebookExporter(NotebookExporter):
    """Reads a submission however an editor saved it (``read_submission``); a file that is not a
    notebook at all is graded as the blank release, with a note and an ERROR saying why."""

    def from_filename(self, filename, resources=None, **kw):
        converter = self.parent
        if not (getattr(converter, "_sanitizing", False) and resources and "nbgrader" in resources):
            return super().from_filename(filename, resources=resources, **kw)
        resources = copy.deepcopy(resources)
        if not isinstance(resources.get("metadata"), dict):
            resources["metadata"] = ResourcesDict()
        source, rename_notes = self._student_file(filename, resources["nbgrader"])
        path, basename = os.path.split(filename)
        resources["metadata"].update(name=os.path.splitext(basename)[0], path=path, modified_date=(
            datetime.datetime.fromtimestamp(os.path.getmtime(source), tz=datetime.timezone.utc)
            .strftime("%B %-d, %Y")))
        try:
            nb, notes = read_submission(source)
        except NotANotebook as error:
            return self._blank(source, str(error), resources, **kw)
        resources[NOTES_KEY] = rename_notes + notes
        return self.from_notebook_node(nb, resources=resources, **kw)

    def _student_file(self, filename, info) -> tuple[str, list[str]]:
        """(the file to read, notes): the student's renamed notebook when nbgrader grades it
        under the notebook's name (collect.GradeRenamedNotebooks), with a WARNING naming it."""
        converter = self.parent
        source, notes = collect.resolve(filename, collect.release_names(converter.coursedir,
                                                                        info["assignment"]))
        if notes:
            converter.log.warning("Submission of %s (%s): graded %s; %s", info.get("student"),
                                  info["notebook"], os.path.basename(source), "; ".join(notes))
        return source, notes

    def _blank(self, filename, why, resources, **kw):
        converter = self.parent
        info = resources["nbgrader"]
        converter.log.error("The submission %s is not a notebook: %s. Grading it as the blank release, "
                            "with a note", filename, why)
        coursedir = converter.coursedir
        release = Path(coursedir.format_path(coursedir.release_directory, ".", info["assignment"])) / (
            info["notebook"] + ".ipynb")
        stand_in = nbformat.read(release, as_version=4)
        stand_in.cells.insert(0, new_cell(
            "markdown", f"**Autograder:** your submitted file could not be read as a Jupyter notebook: {why}. "
            "So it was graded as the blank assignment. Ask your instructor to look at it.", cell_id=NOTE_ID))
        return self.from_notebook_node(stand_in, resources=resources, **kw)
