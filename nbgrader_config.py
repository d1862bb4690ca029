"""nbgrader configuration of the course. nbgrader reads it from the current directory only:
run every nbgrader command from the repo root (the README's instructor guide lists them).

    solutions/<assignment>/<assignment>.ipynb    source notebooks (solutions + hidden tests)
    exercises/<assignment>/<assignment>.ipynb    release notebooks, generated and committed
    submitted/<student>/<assignment>/...         collected work        } instructor-side state,
    autograded/ feedback/ gradebook.db           grading results       } kept out of git

Assignment names such as ``01-rnn-bottleneck-pytorch`` are accepted as they are (nbgrader only
forbids "+"); ``generate_assignment`` adds a missing assignment to the gradebook itself
(``GenerateAssignment.create_assignment`` is on by default), and ``autograde`` adds missing
students (``Autograde.create_student``), so no ``nbgrader db ... add`` is needed.

Regenerate a release with ``nbgrader generate_assignment <assignment> --force``: without --force
nbgrader skips an existing exercises/<assignment> (and still exits 0). The output is byte for byte
reproducible (nbgrader 0.9.6 writes no timestamps; checksums are hashes of the cells): keep the
source notebooks in nbformat 4.5 with cell ids, as Jupyter saves them, or nbformat would make up
random ids. tests/test_grading_*.py check this.
"""
import re

from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import GetGrades, NbGraderPreprocessor

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

c.CourseDirectory.course_id = "attention-transformers"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "exercises"
# Everything in an assignment folder except notebooks and these is copied to the release as is.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", ".DS_Store"]

# Autograding runs each notebook in a fresh `python3` kernel. A cell that runs longer than this
# (a student's infinite loop, say) is interrupted and counts as failed; the course's own cells
# take well under a second each. (nbgrader's Execute preprocessor inherits this setting.)
c.ExecutePreprocessor.timeout = 60
# A test cell that a student deleted is put back (from the gradebook) and run, instead of
# silently scoring nothing.
c.OverwriteCells.add_missing_cells = True


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_FRAME = re.compile(r"^\s*(?:Cell In\s*\[(\d+)\]|File <ipython-input-(\d+)-|<ipython-input-(\d+)-)")


class HideHiddenTestsInFeedback(NbGraderPreprocessor):
    """Keep the hidden tests out of the feedback that students get back.

    nbgrader's feedback is rendered from the autograded notebooks, which hold the hidden tests
    (autograde restores them from the gradebook), and out of the box it shows them twice: in the
    test cells' source, and in the traceback of a failing test, which quotes the failing line and
    its neighbours. This removes every ``### BEGIN HIDDEN TESTS`` ... ``### END HIDDEN TESTS``
    region from the test cells' source, and drops every traceback frame that quotes a test cell
    (frames are labelled ``Cell In[n]`` with that cell's execution count). The error's name and
    message, which the tests write for students, and the frames in the student's own code stay.
    """

    begin = "BEGIN HIDDEN TESTS"
    end = "END HIDDEN TESTS"

    def preprocess(self, nb, resources):
        tests = [cell for cell in nb.cells if self._is_test(cell)]
        counts = {int(cell.execution_count) for cell in tests if cell.get("execution_count") is not None}
        for cell in tests:
            cell.source = self._without_hidden_region(cell.source)
        for cell in nb.cells:
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output.traceback = [frame for frame in output.get("traceback", [])
                                        if self._cell_quoted(frame) not in counts]
        return nb, resources

    @staticmethod
    def _is_test(cell):
        info = cell.metadata.get("nbgrader", {})
        return cell.cell_type == "code" and info.get("grade") and not info.get("solution")

    def _without_hidden_region(self, source):
        kept, hidden = [], False
        for line in source.split("\n"):
            if self.begin in line:
                hidden = True
            elif self.end in line:
                hidden = False
            elif not hidden:
                kept.append(line)
        return "\n".join(kept).rstrip("\n")

    @staticmethod
    def _cell_quoted(frame):
        """The execution count of the cell that a traceback frame quotes, or None."""
        match = _FRAME.match(_ANSI.sub("", frame))
        return int(next(group for group in match.groups() if group)) if match else None


c.GenerateFeedback.preprocessors = [GetGrades, CSSHTMLHeaderPreprocessor, HideHiddenTestsInFeedback]

# `nbgrader zip_collect <assignment>` (submissions downloaded from an LMS): put the download,
# zipped or not, in downloaded/<assignment>/archive/. A file is collected when its name is
# <student_id>_<anything>_<assignment>[-<n>].ipynb, as Canvas names them
# (smithjane_123456_789012_01-rnn-bottleneck-pytorch.ipynb, or ..._LATE_...; "-1" for a
# resubmission); it is copied to submitted/<student_id>/<assignment>/<assignment>.ipynb.
# The regexp is matched against the whole path of each extracted file. Notebooks of another
# assignment (the other framework's, say) are skipped with a warning (strict).
c.FileNameCollectorPlugin.named_regexp = (
    r".*[/\\](?P<student_id>[^_/\\]+)_(?:[^/\\]*_)?(?P<file_id>\d\d(?:-[a-z0-9]*[a-z][a-z0-9]*)+)(?:-\d+)?\.ipynb$")
c.ZipCollectApp.strict = True
