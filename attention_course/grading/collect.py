"""Which assignment notebook is this file? One answer for `zip_collect` and for `autograde`.

Students hand in renamed notebooks: Colab downloads ``Copy of <a>.ipynb``, JupyterLab's
*Duplicate* makes ``<a>-Copy1.ipynb``, browsers add `` (1)``, Finder and Explorer add `` copy``
and `` - Copy``, Canvas adds ``-1`` to a resubmission and prefixes ``<student>_<ids>_``, other
tools change the case or the separators. Out of the box nbgrader skips every such file
("Skipping unknown notebook"), and the student gets nothing. Here:

* ``notebook_of(file_name, names)`` says which of an assignment's notebooks a file name is a
  renamed form of (or None: another assignment's, say the other framework's, or an unrelated
  name). ``RENAMED_PREFIXES`` and ``RENAMED_SUFFIXES`` are the one table of what counts.
* ``choose(paths, names)`` picks, in one student's folder, the file to grade as each notebook:
  the exact name, else a renamed form, else (whatever its name) the file whose name is
  closest. The others are not graded, and not touched.
* ``GradeRenamedNotebooks`` (``Autograde.pre_convert_hook`` in nbgrader_config.py) hands
  nbgrader the chosen file under the notebook's name; ``sanitize.ReadableNotebookExporter``
  reads the student's file (``resolve``), and the note at the top of the feedback and a
  ``WARNING`` name the file that was graded and the ones that were not.
* ``RenamedNotebookCollector`` (``ZipCollectApp.collector_plugin``) files an LMS download: a
  file is collected when its name, after a ``<student>_[<anything>_]`` prefix, is a renamed
  form of the assignment's notebook; the student is Canvas' numeric user id where the name
  has Canvas' form (``<name>_[LATE_]<user id>_<attachment id>_<file>``), else the first field. It keeps that name in submitted/ (only ``<a>`` and
  Canvas' ``<a>-1`` become ``<a>.ipynb``, as before), so that two files of one student never
  collide, and autograde picks one as above.
"""
from __future__ import annotations

import difflib
import glob
import os
import re

from nbgrader.coursedir import CourseDirectory
from nbgrader.plugins import FileNameCollectorPlugin

# What tools do to a notebook's name (matched case-insensitively, repeated, around the name).
RENAMED_PREFIXES = (r"copy\s+of\s+",)                      # Colab ("Copy of Copy of ..." too)
RENAMED_SUFFIXES = (r"-copy\d*",                           # JupyterLab's Duplicate: -Copy1
                    r"\s+-\s+copy",                        # Windows Explorer: " - Copy"
                    r"\s+copy(?:\s+\d+)?",                 # macOS Finder: " copy", " copy 2"
                    r"\s*\(\d+\)",                         # browsers, Explorer: " (1)"
                    r"-\d+")                               # Canvas' resubmission: -1
_SEPARATORS = r"[-_\s]+"          # "01_rnn bottleneck" for "01-rnn-bottleneck"
# Canvas' "-1" alone, or nothing: collected as "<a>.ipynb", as the course always did.
_UNCHANGED = re.compile(r"^(?P<name>.*?)(?:-\d+)?$")


def _renamed_form(name: str) -> re.Pattern:
    """The file-name stems that are `name` renamed by the tools above."""
    words = [re.escape(word) for word in re.split(_SEPARATORS, name) if word]
    prefixes, suffixes = "|".join(RENAMED_PREFIXES), "|".join(RENAMED_SUFFIXES)
    core = _SEPARATORS.join(words)
    return re.compile(rf"^(?:{prefixes})*{core}(?:{suffixes})*$", re.IGNORECASE)


def _stem(file_name: str) -> str:
    return os.path.splitext(os.path.basename(file_name))[0]


def _tails(stem: str) -> list[str]:
    """The stem, then what follows each "_" in it (longest first): an LMS prefixes
    `<student>_<ids>_` to the student's own file name."""
    return [stem] + [stem[match.end():] for match in re.finditer("_", stem)]


def matched_name(file_name: str, names: list[str]) -> tuple[str, str] | None:
    """(notebook, the part of the file's stem that names it) for the notebook of `names` that
    the file name is a renamed form of, after an optional LMS prefix; None for none of them."""
    for tail in _tails(_stem(file_name)):
        found = [name for name in names if _renamed_form(name).match(tail)]
        if found:   # "lab" and "lab-2" both match "lab-2": the exact name, else the longest
            return max(found, key=lambda name: (name == tail, len(name))), tail
    return None


def notebook_of(file_name: str, names: list[str]) -> str | None:
    """Which of `names` (an assignment's notebooks) the file `file_name` is, or None."""
    matched = matched_name(file_name, names)
    return matched[0] if matched else None


def _closeness(path: str, name: str) -> tuple:
    """Sort key of a (file, notebook) pair: the exact name, then a renamed form, then any name
    by similarity; the file name breaks ties."""
    stem = _stem(path)
    tier = 0 if stem == name else 1 if notebook_of(path, [name]) else 2
    similarity = difflib.SequenceMatcher(None, stem.lower(), name.lower()).ratio()
    return tier, -similarity, os.path.basename(path)


def choose(paths: list[str], names: list[str]) -> tuple[dict[str, str], list[str]]:
    """({notebook: the file graded as it}, [files graded as nothing]) for one student's folder:
    each notebook takes the closest file still free (an exact name first, then a renamed form,
    then the most similar name)."""
    pairs = sorted(((name, path) for name in names for path in paths),
                   key=lambda pair: _closeness(pair[1], pair[0]))
    chosen: dict[str, str] = {}
    for name, path in pairs:
        if name not in chosen and path not in chosen.values():
            chosen[name] = path
    return chosen, sorted(path for path in paths if path not in chosen.values())


def release_names(coursedir: CourseDirectory, assignment: str) -> list[str]:
    """The assignment's notebooks (their names without .ipynb), from its release folder."""
    folder = coursedir.format_path(coursedir.release_directory, ".", assignment)
    return sorted(_stem(path) for path in folder_notebooks(folder))


def folder_notebooks(folder: str) -> list[str]:
    """The notebooks in a folder (as nbgrader lists them: *.ipynb, no subfolders)."""
    return sorted(glob.glob(os.path.join(glob.escape(folder), "*.ipynb")))


def resolve(path: str, names: list[str]) -> tuple[str, list[str]]:
    """(the file to read when nbgrader grades `path`, notes for the student): the student's own
    file when `path` is the notebook's name given by GradeRenamedNotebooks."""
    folder, name = os.path.dirname(path), _stem(path)
    chosen, others = choose(folder_notebooks(folder), sorted({*names, name}))
    source = chosen.get(name, path)
    notes = []
    if source != path:
        notes.append(f"your notebook `{os.path.basename(source)}` was graded as "
                     f"`{name}.ipynb` (the assignment's notebook has that name)")
    if others:
        listed = ", ".join(f"`{os.path.basename(other)}`" for other in others)
        notes.append(f"other notebooks in your submission were not graded: {listed}")
    return source, notes


class GradeRenamedNotebooks:
    """``Autograde.pre_convert_hook``: nbgrader grades only files named like the assignment's
    notebooks. In the list of one student's notebooks that nbgrader is about to grade, this
    puts each notebook's own name in place of the file chosen for it (``choose``); the exporter
    then reads the student's file (``sanitize.ReadableNotebookExporter``, ``resolve``)."""

    def __init__(self, config=None):
        self.config = config

    def __call__(self, assignment=None, student=None, notebooks=None):
        if not notebooks:
            return
        folder = os.path.dirname(notebooks[0])
        # nbgrader runs the hook in the course's root, the default root of a CourseDirectory.
        names = release_names(CourseDirectory(config=self.config), os.path.basename(folder))
        if not names:       # not released here: nbgrader's own messages say so
            return
        chosen, _ = choose(list(notebooks), names)
        # nbgrader grades the list it passed (its own attribute): changed in place, on purpose.
        notebooks[:] = [os.path.join(folder, name + ".ipynb") for name in sorted(chosen)]


# Canvas' download name: <name>_[LATE_]<user id>_<attachment id>_<the student's file>. The student
# is the numeric user id (names collide in a large class, and the id maps back to Canvas:
# course_tools/canvas.py imports the roster under the same ids and exports grades by them).
CANVAS_NAME = re.compile(r"^[^_]+_(?:LATE_)?(?P<user>\d+)_\d+_(?P<rest>.+)$")


def student_and_rest(stem: str) -> tuple[str, str]:
    """(student id, the rest of the name) of a downloaded file's stem: Canvas' numeric user id
    where the name has Canvas' form, else the first field (another LMS's `<student>_<file>`)."""
    canvas = CANVAS_NAME.match(stem)
    if canvas:
        return canvas["user"], canvas["rest"]
    student, _, rest = stem.partition("_")
    return student, rest


class RenamedNotebookCollector(FileNameCollectorPlugin):
    """``ZipCollectApp.collector_plugin``: collects `<student>_[<anything>_]<a renamed form of
    the assignment's notebook>.ipynb` (``matched_name``) and skips every other file (nbgrader
    warns: "Skipped submission with no match information provided")."""

    def collect(self, submitted_file: str):
        if os.path.splitext(submitted_file)[1] not in self.valid_ext:
            return None
        student, rest = student_and_rest(_stem(submitted_file))
        coursedir = self.parent.coursedir
        names = release_names(coursedir, coursedir.assignment_id)
        matched = matched_name(rest, names) if rest else None
        if not matched:
            self.log.info("Not a notebook of %s by its name: %s", coursedir.assignment_id,
                          os.path.basename(submitted_file))
            return None
        name, tail = matched
        unchanged = _UNCHANGED.match(tail).group("name") == name
        canvas = CANVAS_NAME.match(_stem(submitted_file))
        if canvas:
            self._label_new_student(student, _stem(submitted_file).split("_")[0])
        return {"student_id": student, "file_id": (name if unchanged else tail) + ".ipynb"}

    def _label_new_student(self, user_id: str, name: str) -> None:
        """A student the roster did not list (course_tools.canvas roster) is added under the
        user id, with the download's name part (Canvas' "lastfirst") as the last name, so the
        Formgrader shows who it is; a listed student keeps the roster's names."""
        from nbgrader.api import Gradebook, MissingEntry

        with Gradebook(self.parent.coursedir.db_url) as gradebook:
            try:
                gradebook.find_student(user_id)
            except MissingEntry:
                gradebook.add_student(user_id, last_name=name, lms_user_id=user_id)
