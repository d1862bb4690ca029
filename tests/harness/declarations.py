"""The known-wrong and hostile submissions: how they are declared, and where.

Each chapter's test material lives in tests/chapters/chNN_<name>/ (number and name from
course.toml):

    wrong_chNN.py                   WRONG: the chapter's Wrong declarations (who, what they must
                                    score, why, what their feedback must say)
    wrong/<student>-<framework>.py  that student's answer cells that differ from the solution,
                                    in full (the format is in harness/cells.py)
    hostile_chNN.py                 HOSTILE: the chapter's Hostile declarations, if it has any
    hostile/<student>.py            the cells a hostile student writes (the same for each of its
                                    frameworks), where it writes any

A Wrong is graded in every assignment of its chapter that has a wrong/<student>-<framework>.py;
a Hostile in the chapter's assignments of the frameworks it names. `wrong_submissions()` and
`hostile_submissions()` load every chapter's declarations, in course order; the notebooks are
built from them by harness/submissions.py, in the tests' temporary folders (nothing is committed).
"""
from __future__ import annotations

import dataclasses
import functools
import importlib.util
import typing
from pathlib import Path

from course_tools import manifest

from .cells import DeclaredCell, read_cells
from .course import REPO

CHAPTERS = REPO / "tests" / "chapters"
ZERO = "zero"       # as the scores of a Hostile: every test cell 0


def framework_of(assignment: str) -> str:
    """'keras' or 'pytorch': the last part of an assignment's name."""
    framework = assignment.rsplit("-", 1)[-1]
    if framework not in manifest.FRAMEWORKS:
        raise ValueError(f"{assignment}: not a <stem>-keras or <stem>-pytorch assignment")
    return framework


@dataclasses.dataclass(frozen=True)
class Wrong:
    """A known-wrong submission (or a right one with a quirk that must not cost points), and what
    it must score.

    scores:  {test cell grade_id: points} for the cells that do not get full marks (every other
             test cell must get full marks);
    why:     why exactly those cells, in words;
    message: what the student's feedback must show (the failure message of the test that fails
             first), or {framework: message} where the frameworks' messages differ;
    alone:   graded in a notebook of its own, not in a batch (wrong_batches): for a mistake that
             changes what other parts' tests see (a name redefined, a global state changed).

    Its code is in its chapter's wrong/<student>-<framework>.py files; the loader fills in
    `folder` (the chapter's) and `assignments` (those with such a file).
    """

    student: str
    scores: dict
    why: str
    message: typing.Any = ""
    alone: bool = False
    folder: Path | None = None
    assignments: tuple = ()

    def message_for(self, assignment: str) -> str:
        """The message that this assignment's feedback must show."""
        if isinstance(self.message, dict):
            return self.message[framework_of(assignment)]
        return self.message

    def cells_file(self, assignment: str) -> Path:
        """The file of the student's answer cells in one assignment."""
        return self.folder / "wrong" / f"{self.student}-{framework_of(assignment)}.py"

    def cells(self, assignment: str) -> list[DeclaredCell]:
        """The answer cells that differ from the solution, in full."""
        return read_cells(self.cells_file(assignment))


@dataclasses.dataclass(frozen=True)
class Hostile:
    """A hostile or broken submission, and what it must score.

    frameworks: the frameworks whose assignment of the chapter it is graded in;
    scores:     {test cell grade_id: points} for the cells that do not get full marks, or ZERO;
    why:        the attack, and why exactly that score;
    base:       "solution" (the solution's answers) or "release" (the answers as released), under
                the cells of its hostile/<student>.py, if it has one;
    build:      for what cells cannot say (deleted or tampered cells, a broken file): a function
                (assignment) -> the notebook, or the raw bytes handed in; then base and cells are
                not used.

    The loader fills in `folder` (the chapter's) and `assignments`.
    """

    student: str
    frameworks: tuple
    scores: typing.Any
    why: str
    base: str = "solution"
    build: typing.Callable | None = None
    folder: Path | None = None
    assignments: tuple = ()

    def cells_file(self) -> Path:
        """The file of the cells this student writes (it may have none)."""
        return self.folder / "hostile" / f"{self.student}.py"

    def cells(self) -> list[DeclaredCell]:
        """The cells this student writes: its answers and cells of its own."""
        return read_cells(self.cells_file()) if self.cells_file().is_file() else []


def chapter_folder(chapter: manifest.Chapter) -> Path:
    """tests/chapters/chNN_<name>: the chapter's test material."""
    return CHAPTERS / f"ch{chapter.number:02d}_{chapter.name}"


def _declared(chapter: manifest.Chapter, kind: str) -> list:
    """The list WRONG or HOSTILE of a chapter's wrong_chNN.py or hostile_chNN.py ([] if none)."""
    stem = f"{kind}_ch{chapter.number:02d}"
    path = chapter_folder(chapter) / f"{stem}.py"
    if not path.is_file():
        return []
    spec = importlib.util.spec_from_file_location(stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return list(getattr(module, kind.upper()))


def _chapter_wrongs(chapter: manifest.Chapter) -> list[Wrong]:
    """A chapter's Wrong declarations, each with its folder and assignments."""
    folder = chapter_folder(chapter)
    found = []
    for wrong in _declared(chapter, "wrong"):
        located = dataclasses.replace(wrong, folder=folder)
        assignments = tuple(a for a in chapter.assignments if located.cells_file(a).is_file())
        if not assignments:
            raise ValueError(f"{wrong.student}: no wrong/{wrong.student}-<framework>.py in {folder}")
        found.append(dataclasses.replace(located, assignments=assignments))
    files = {path.name for path in (folder / "wrong").glob("*.py")}
    declared = {w.cells_file(a).name for w in found for a in w.assignments}
    if files - declared:
        raise ValueError(f"{folder}/wrong: files of no declared student: {sorted(files - declared)}")
    return found


def _chapter_hostiles(chapter: manifest.Chapter) -> list[Hostile]:
    """A chapter's Hostile declarations, each with its folder and assignments."""
    folder = chapter_folder(chapter)
    return [dataclasses.replace(hostile, folder=folder, assignments=tuple(
        a for a in chapter.assignments if framework_of(a) in hostile.frameworks))
        for hostile in _declared(chapter, "hostile")]


def _unique(declarations: list) -> list:
    """The declarations, after checking that no student name is declared twice."""
    names = [declaration.student for declaration in declarations]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"students declared twice: {twice}")
    return declarations


@functools.cache
def wrong_submissions() -> tuple[Wrong, ...]:
    """Every chapter's Wrong declarations, in course order."""
    return tuple(_unique([w for chapter in manifest.chapters() for w in _chapter_wrongs(chapter)]))


@functools.cache
def hostile_submissions() -> tuple[Hostile, ...]:
    """Every chapter's Hostile declarations, in course order."""
    return tuple(_unique([h for chapter in manifest.chapters() for h in _chapter_hostiles(chapter)]))


def wrongs_for(assignment: str) -> list[Wrong]:
    """The wrong submissions of one assignment, in declaration order."""
    return [wrong for wrong in wrong_submissions() if assignment in wrong.assignments]


def wrong_named(student: str) -> Wrong:
    """The Wrong declaration of a student."""
    return next(wrong for wrong in wrong_submissions() if wrong.student == student)


@dataclasses.dataclass(frozen=True)
class WrongBatch:
    """Known-wrong students graded as one notebook (one kernel instead of several): their
    mistakes are in different answer cells and cost points in different test cells, so each test
    cell that loses points is one member's, and the exact score of every cell still checks each
    member's declaration. The student's name joins the members' names."""

    wrongs: tuple

    @property
    def student(self) -> str:
        return "+".join(wrong.student for wrong in self.wrongs)

    @property
    def scores(self) -> dict:
        """{test cell: points} of the cells that do not get full marks: the members' together."""
        return {name: score for wrong in self.wrongs for name, score in wrong.scores.items()}


def touched_cells(wrong: Wrong, assignment: str) -> set[str]:
    """The grade_ids of the cells a wrong student writes (answers, or the cell a new cell follows)."""
    return {cell.grade_id for cell in wrong.cells(assignment)}


def wrong_batches(assignment: str) -> list[WrongBatch]:
    """An assignment's wrong students in batches, in declaration order: each joins the first batch
    none of whose members writes one of its cells or loses points in one of its test cells (a
    Wrong declared `alone` has a batch of its own)."""
    batches: list[list[Wrong]] = []
    for wrong in wrongs_for(assignment):
        cells, scores = touched_cells(wrong, assignment), set(wrong.scores)
        for batch in batches:
            if not wrong.alone and not batch[0].alone and all(not (cells & touched_cells(member, assignment) or scores & set(member.scores))
                   for member in batch):
                batch.append(wrong)
                break
        else:
            batches.append([wrong])
    return [WrongBatch(tuple(batch)) for batch in batches]


def batch_of(assignment: str, student: str) -> WrongBatch:
    """The batch in which a wrong student is graded."""
    return next(batch for batch in wrong_batches(assignment)
                if student in (wrong.student for wrong in batch.wrongs))
