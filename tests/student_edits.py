"""Realistic student edits of an assignment notebook, for the autograder's robustness tests.

A *variant* is a student's notebook (solved, blank or partially right) after a sequence of
edits that change how the notebook is laid out but not what the student wrote, saved the way
some editor saves it. Edits (``EDITS``), in any answer, test, set-up, Markdown or own cell:

copy        a cell copied and pasted before or after itself (JupyterLab keeps the nbgrader
            metadata; the copy gets a new id, or the same one as a raw JSON copy would), a test's
            copy sometimes edited into a check of the student's own;
split       a cell split in two at a top-level statement (both halves keep the metadata);
merge       two adjacent cells of one type merged, JupyterLab style (the primary cell's type,
            metadata and id; sources joined by a blank line), when the first one is not a given
            cell (a failing test above would stop the code below it, as it would in Jupyter);
move        a cell moved anywhere;
insert      a cell of the student's own (code, Markdown or raw) inserted anywhere;
delete      a given cell or one of the student's own deleted (answers are what is graded);
retype      a cell turned into code, Markdown or raw;
metadata    a cell's nbgrader metadata removed, or its points, flags or grade_id edited, or its
            checksum dropped;
outputs     a code cell's outputs cleared or made huge (1.5 MB);

and, once per variant, the *format* (``FORMATS``): nbformat 4.5 or older minor versions without
cell ids, Jupyter / VS Code / Colab metadata, another kernel name or language (or none), JSON
indentation, sources as line lists or strings, trailing whitespace, CRLF line endings (of the file
and inside cells), a UTF-8 byte-order mark.

Edits that would really change what the student's code does are not generated: deleting,
splitting or removing the metadata of an answer cell in a way that leaves no trace of which part
it belongs to (an answer without metadata is recognised by its cell id only while the file keeps
cell ids), turning an answer cell that was split or copied into Markdown, or merging below a
given cell. ``apply_edits`` skips such an edit (it is then a no-op), so any drawn sequence is
valid and hypothesis can shrink freely.
"""
from __future__ import annotations

import ast
import copy
import json
from pathlib import Path

import nbformat
from hypothesis import strategies as st

from nbformat.notebooknode import from_dict

from attention_course.grading.sanitize import Released, new_cell

EDITS = ("copy", "split", "merge", "move", "insert", "delete", "retype", "metadata", "outputs")
FORMATS = dict(
    minor=(5, 4, 2, 0),
    editor=("jupyter", "vscode", "colab"),
    kernel=("keep", "other-python", "R", "none"),
    indent=(1, 2, None),
    lines=("list", "string"),
    trailing_spaces=(False, True),
    crlf_file=(False, True),
    crlf_cells=(False, True),
    bom=(False, True),
)
HUGE = "x" * 1_500_000       # a huge output (the sandbox caps a cell's output at 1 MB)
OWN_CELLS = (
    ("code", "# my scratch cell\nscratch = [41 + 1]\nprint('scratch', scratch)"),
    ("markdown", "My notes: *check the shapes first*."),
    ("raw", "TODO: ask about part 2"),
    ("code", "import math\nmy_check = math.sqrt(16)"),
)


def edit_sequences(max_edits: int = 10):
    """Hypothesis strategy: (edits, format). Each edit is (kind, a, b, flag); a and b pick cells
    and options modulo what the notebook has at that point."""
    edit = st.tuples(st.sampled_from(EDITS), st.integers(0, 10_000), st.integers(0, 10_000), st.booleans())
    fmt = st.fixed_dictionaries({key: st.sampled_from(values) for key, values in FORMATS.items()})
    return st.tuples(st.lists(edit, min_size=1, max_size=max_edits), fmt)


def released_from_source(path: Path) -> list[Released]:
    """The released nbgrader cells of a source notebook (what the gradebook holds), in order."""
    cells = []
    for cell in nbformat.read(path, as_version=4).cells:
        info = cell.metadata.get("nbgrader")
        if info:
            meta = {k: info[k] for k in ("grade", "grade_id", "locked", "schema_version", "solution", "task")
                    if k in info}
            if info.get("grade"):
                meta["points"] = float(info["points"])
            cells.append(Released(info["grade_id"], cell.cell_type, bool(info.get("locked")), cell.source,
                                  meta, cell.get("id")))
    return cells


# ---------------------------------------------------------------- one notebook being edited
class Editing:
    """A notebook under edit, with the answers whose code each cell holds (``holds``). After each
    edit every cell that holds answer code must still run as that answer under the autograder's
    rule (``answer_is_safe``); an edit that breaks this is undone."""

    def __init__(self, nb, released: list[Released], keeps_ids: bool):
        self.nb = copy.deepcopy(nb)
        self.released = {r.grade_id: r for r in released}
        given = [r.grade_id for r in released if r.given]
        order = [r.grade_id for r in released]
        self.part = {g: sum(1 for x in given if order.index(x) < order.index(g)) for g in order}
        self.holds, self.risky = [], []   # answers whose code a cell holds; may its code raise?
        for cell in self.nb.cells:
            r = self.released.get(cell.metadata.get("nbgrader", {}).get("grade_id"))
            self.holds.append(frozenset([r.grade_id]) if r is not None and not r.given else frozenset())
            self.risky.append(r is not None and r.given)
        self.made = 0                  # cells made so far (for deterministic new ids)
        self.keeps_ids = keeps_ids     # does the saved file keep cell ids?

    # ------------------------------------------------------------ what the autograder will see
    def metadata_id(self, i):
        info = self.nb.cells[i].metadata.get("nbgrader")
        grade_id = info.get("grade_id") if isinstance(info, dict) else None
        return grade_id if grade_id in self.released else None

    def identity(self, i):
        """The released cell that cell i claims: by metadata, else by its cell id (only the
        first cell with an id counts, and only if the file keeps ids)."""
        if self.metadata_id(i):
            return self.metadata_id(i)
        cell_id = self.nb.cells[i].get("id")
        if not self.keeps_ids or any(c.get("id") == cell_id for c in self.nb.cells[:i]):
            return None
        return next((r.grade_id for r in self.released.values() if r.cell_id == cell_id), None)

    def answer_is_safe(self, i) -> bool:
        """Does cell i, if it holds answer code, run as an answer in a part no later than the part
        of each answer it holds, as code (or as the only claimant, then converted to code)?"""
        if not self.holds[i]:
            return True
        grade_id = self.identity(i)
        if grade_id is None or self.released[grade_id].given:
            return False
        if any(self.part[h] < self.part[grade_id] for h in self.holds[i]):
            return False
        claimants = [j for j in range(len(self.nb.cells)) if self.identity(j) == grade_id]
        return self.nb.cells[i].cell_type == "code" or claimants == [i]

    def new_id(self) -> str:
        self.made += 1
        return f"student-made-{self.made}"

    # ------------------------------------------------------------ the edits
    def copy(self, a, b, flag):
        i = a % len(self.nb.cells)
        cell = copy.deepcopy(self.nb.cells[i])
        cell.id = cell.id if b % 4 == 0 else self.new_id()          # a raw JSON copy keeps the id
        if not self.holds[i] and self.metadata_id(i) and cell.cell_type == "code" and b % 2:
            cell.source += "\nprint('my own check of the shapes')"  # a test's copy, made the student's own
        at = i if flag else i + 1
        self.nb.cells.insert(at, cell)
        self.holds.insert(at, self.holds[i])
        self.risky.insert(at, self.risky[i])

    def split(self, a, b, flag):
        i = a % len(self.nb.cells)
        cell = self.nb.cells[i]
        cuts = split_points(cell)
        if not cuts:
            return
        lines = cell.source.split("\n")
        cut = cuts[b % len(cuts)]
        first, second = copy.deepcopy(cell), copy.deepcopy(cell)
        first.source, second.source = "\n".join(lines[:cut]).rstrip("\n"), "\n".join(lines[cut:])
        (second if flag else first).id = self.new_id()                # one half keeps the id
        self.nb.cells[i:i + 1] = [first, second]
        self.holds[i:i + 1] = [self.holds[i], self.holds[i]]
        self.risky[i:i + 1] = [self.risky[i], self.risky[i]]

    def merge(self, a, b, flag):
        if len(self.nb.cells) < 2:
            return
        i = a % (len(self.nb.cells) - 1)
        top, bottom = self.nb.cells[i], self.nb.cells[i + 1]
        if top.cell_type != bottom.cell_type or self.risky[i]:
            return                      # not below a given cell (a failing test stops the code below)
        merged = copy.deepcopy(bottom if flag else top)
        merged.source = top.source.rstrip("\n") + "\n\n" + bottom.source
        self.nb.cells[i:i + 2] = [merged]
        self.holds[i:i + 2] = [self.holds[i] | self.holds[i + 1]]
        self.risky[i:i + 2] = [self.risky[i + 1]]

    def move(self, a, b, flag):
        i = a % len(self.nb.cells)
        cell, holds, risky = self.nb.cells.pop(i), self.holds.pop(i), self.risky.pop(i)
        at = b % (len(self.nb.cells) + 1)
        self.nb.cells.insert(at, cell)
        self.holds.insert(at, holds)
        self.risky.insert(at, risky)

    def insert(self, a, b, flag):
        cell_type, source = OWN_CELLS[b % len(OWN_CELLS)]
        cell = new_cell(cell_type, source, cell_id=self.new_id())
        at = a % (len(self.nb.cells) + 1)
        self.nb.cells.insert(at, cell)
        self.holds.insert(at, frozenset())
        self.risky.insert(at, False)

    def delete(self, a, b, flag):
        i = a % len(self.nb.cells)
        if not self.holds[i]:                        # never an answer: that is what is graded
            del self.nb.cells[i], self.holds[i], self.risky[i]

    def retype(self, a, b, flag):
        i = a % len(self.nb.cells)
        cell = self.nb.cells[i]
        types = [t for t in ("code", "markdown", "raw") if t != cell.cell_type]
        self.nb.cells[i] = retyped(cell, types[b % 2])

    def metadata(self, a, b, flag):
        i = a % len(self.nb.cells)
        info = self.nb.cells[i].metadata.get("nbgrader")
        if not isinstance(info, dict):
            return
        change = b % 6
        if change == 0:
            del self.nb.cells[i].metadata["nbgrader"]
        elif change == 1:
            info["points"] = 100
        elif change == 2:
            info["grade"] = not info.get("grade")
        elif change == 3:
            info.update(solution=not info.get("solution"), locked=not info.get("locked"))
        elif change == 4:
            info["grade_id"] = f"my_cell_{self.new_id()}"
        else:
            info.pop("checksum", None)

    def outputs(self, a, b, flag):
        code = [i for i, cell in enumerate(self.nb.cells) if cell.cell_type == "code"]
        if not code:
            return
        cell = self.nb.cells[code[a % len(code)]]
        if flag:
            cell.outputs = [from_dict({"output_type": "stream", "name": "stdout", "text": HUGE})]
            cell.execution_count = b % 100
        else:
            cell.outputs, cell.execution_count = [], None

    def apply(self, edits) -> list:
        """Apply the edits in order; returns those that were kept (the others were no-ops or undone)."""
        kept = []
        for edit in edits:
            kind, a, b, flag = edit
            if not self.nb.cells and kind != "insert":
                continue
            before = (copy.deepcopy(self.nb.cells), list(self.holds), list(self.risky), self.made)
            getattr(self, kind)(a, b, flag)
            if all(self.answer_is_safe(i) for i in range(len(self.nb.cells))):
                if self.nb.cells != before[0]:
                    kept.append(edit)
            else:
                self.nb.cells, self.holds, self.risky, self.made = before
        return kept


def split_points(cell) -> list[int]:
    """Line numbers where a cell can be split into two cells that are each still valid: between
    top-level statements of code (that parses), between lines of Markdown or raw text."""
    lines = cell.source.split("\n")
    if cell.cell_type != "code":
        return list(range(1, len(lines)))
    try:
        tree = ast.parse(cell.source)
    except SyntaxError:
        return []
    starts = []
    for node in tree.body[1:]:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        starts.append(first - 1)
    return starts


def retyped(cell, cell_type):
    return new_cell(cell_type, cell.source, copy.deepcopy(cell.metadata), cell.id)


def apply_edits(nb, released: list[Released], edits, fmt):
    """(the edited notebook, the edits that changed it)."""
    editing = Editing(nb, released, keeps_ids=fmt["minor"] >= 5)
    kept = editing.apply(edits)
    return editing.nb, kept


# ---------------------------------------------------------------- saving as some editor does
def save_as(nb, fmt) -> bytes:
    """The notebook's file as an editor with these habits would write it."""
    data = json.loads(json.dumps(nb))       # (not nbformat.writes: it would repair repeated ids)
    data["nbformat_minor"] = fmt["minor"]
    for index, cell in enumerate(data["cells"]):
        if fmt["minor"] < 5:
            cell.pop("id", None)
        if fmt["editor"] == "vscode":
            cell["metadata"]["vscode"] = {"languageId": "python" if cell["cell_type"] == "code" else "markdown"}
        elif fmt["editor"] == "colab":
            cell["metadata"]["id"] = f"colab{index:04d}"
            if cell["cell_type"] == "code":
                cell["metadata"]["colab"] = {"base_uri": "https://localhost:8080/", "height": 35}
                cell["metadata"]["outputId"] = f"out{index:04d}"
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        if fmt["trailing_spaces"]:
            source = "\n".join(line + "  " for line in source.split("\n"))
        if fmt["crlf_cells"]:
            source = source.replace("\n", "\r\n")
        cell["source"] = source.splitlines(keepends=True) if fmt["lines"] == "list" else source
    metadata = data["metadata"]
    if fmt["editor"] == "vscode":
        metadata["vscode"] = {"interpreter": {"hash": "0" * 64}}
    elif fmt["editor"] == "colab":
        metadata["colab"] = {"provenance": [], "name": "assignment.ipynb"}
        metadata["accelerator"] = "GPU"
    if fmt["kernel"] == "other-python":
        metadata["kernelspec"] = {"name": "conda-env-course-py", "display_name": "Python [conda env:course]",
                                  "language": "python"}
    elif fmt["kernel"] == "R":
        metadata["kernelspec"] = {"name": "ir", "display_name": "R", "language": "R"}
        metadata["language_info"] = {"name": "R"}
    elif fmt["kernel"] == "none":
        metadata.pop("kernelspec", None)
    text = json.dumps(data, indent=fmt["indent"], ensure_ascii=False, sort_keys=True)
    if fmt["trailing_spaces"]:
        text = "\n".join(line + " " for line in text.split("\n")) + "\n\n"
    if fmt["crlf_file"]:
        text = text.replace("\n", "\r\n")
    raw = text.encode("utf-8")
    return (b"\xef\xbb\xbf" + raw) if fmt["bom"] else raw


def variant(nb, released, edits, fmt) -> bytes:
    return save_as(apply_edits(nb, released, edits, fmt)[0], fmt)


def describe(edits, fmt) -> str:
    changed = {k: v for k, v in fmt.items() if v != FORMATS[k][0]}
    return f"edits={list(edits)!r} format={changed!r}"
