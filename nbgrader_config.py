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

Autograding runs each submission in a sandbox with limits (``attention_course/grading/``, the
settings below): it needs Linux and Debian's ``bubblewrap`` (``apt-get install bubblewrap``).

Regenerate a release with ``nbgrader generate_assignment <assignment> --force``: without --force
nbgrader skips an existing exercises/<assignment> (and still exits 0). The output is byte for byte
reproducible (nbgrader 0.9.6 writes no timestamps; checksums are hashes of the cells): keep the
source notebooks in nbformat 4.5 with cell ids, as Jupyter saves them, or nbformat would make up
random ids. tests/test_grading_*.py check this.
"""
from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata, ClearOutput, DeduplicateIds,
                                    GetGrades, IgnorePattern, LimitOutput, OverwriteCells,
                                    OverwriteKernelspec, SaveAutoGrades)

from attention_course.grading.collect import GradeRenamedNotebooks, RenamedNotebookCollector
from attention_course.grading.execute import SandboxedExecute
from attention_course.grading.feedback import HideHiddenTestsInFeedback
from attention_course.grading.sanitize import ReadableNotebookExporter, RepairSubmission

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

c.CourseDirectory.course_id = "attention-transformers"
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "exercises"
# Everything in an assignment folder except notebooks and these is copied to the release as is.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", ".DS_Store"]

# ---------------------------------------------------------------- autograding untrusted notebooks
# Student code runs during `nbgrader autograde`. The course's grading package
# (attention_course/grading/, threat model in the README's instructor guide) makes nbgrader:
#  1. sanitize: read the file however an editor saved it (ReadableNotebookExporter), then grade what
#     the student wrote by one rule (RepairSubmission; the rule is in sanitize.py and the README):
#     the given cells (instructions, set-up, tests) run as released, in their released places;
#     answer cells, and their copies and halves, run in their own part; the student's own cells
#     stay next to the cell they follow. What was repaired is noted at the top of the feedback and
#     in a WARNING; only a file that is not a notebook is graded as the blank release (ERROR, note).
#     nbgrader's DeduplicateIds and OverwriteCells stay as a second line (they find nothing to do);
#  2. run it in a sandboxed kernel (bubblewrap: no network, no course files; prlimit limits; a
#     throw-away user id) with time and output budgets, where a hang, a crash or a flood fails
#     the cell concerned and the batch goes on (SandboxedExecute);
#  3. confirm every test cell's verdict outside the kernel against the reference solution's
#     observations (verify.py), so that patching assert/allclose or the kernel cannot earn marks.
c.Autograde.sanitize_preprocessors = [ClearOutput, RepairSubmission, DeduplicateIds, OverwriteKernelspec,
                                      OverwriteCells, CheckCellMetadata]
c.Autograde.autograde_preprocessors = [SandboxedExecute, IgnorePattern, ClearMetadataPreprocessor, LimitOutput,
                                       SaveAutoGrades, AssignLatePenalties, CheckCellMetadata]
c.Autograde.exporter_class = ReadableNotebookExporter
c.OverwriteCells.add_missing_cells = False   # RepairSubmission does it
# A notebook that the student renamed (Colab's "Copy of <a>", "<a>-Copy1", "<a> (1)", another case,
# any name) is graded as the assignment's notebook, with a note and a WARNING; of several, the one
# whose name is closest (attention_course/grading/collect.py). The others stay where they are.
c.Autograde.pre_convert_hook = GradeRenamedNotebooks(c)

# Limits of one submission (the course's own cells take well under a second each; a whole
# notebook 10-20 s). Over a limit, the cell concerned fails with a message saying which limit.
c.Execute.timeout = 60                           # s per cell (then interrupted)
c.SandboxedExecute.notebook_timeout = 300        # s for all cells of a notebook
c.SandboxedExecute.max_output_bytes = 1_000_000  # output per cell
c.SandboxKernelManager.memory_mb = 6144          # address space (PyTorch + TensorFlow reserve ~2 GB)
c.SandboxKernelManager.processes = 512           # processes + threads
c.SandboxKernelManager.file_size_mb = 64         # largest file written
c.SandboxKernelManager.tmpfs_mb = 256            # each of /tmp, $HOME, the working folder, /dev/shm
c.SandboxKernelManager.cpu_s = 900               # CPU seconds per process
c.SandboxKernelManager.wall_s = 400              # the kernel's whole life (backstop)
# A graded kernel is thrown away with its sandbox: stop it at once instead of asking it to shut
# down and waiting (0.3-0.4 s of each submission's grading).
c.SandboxedExecute.shutdown_kernel = "immediate"

c.GenerateFeedback.preprocessors = [GetGrades, CSSHTMLHeaderPreprocessor, HideHiddenTestsInFeedback]

# `nbgrader zip_collect <assignment>` (submissions downloaded from an LMS): put the download,
# zipped or not, in downloaded/<assignment>/archive/. A file is collected when its name is
# <student_id>_[<anything>_]<the assignment's notebook, or a renamed form of it>.ipynb, as Canvas
# names them (smithjane_123456_789012_01-rnn-bottleneck-pytorch.ipynb, or ..._LATE_...; "-1" for a
# resubmission; "Copy of 01-rnn-bottleneck-pytorch (1).ipynb" as the student's part). The renamed
# forms are those that autograde grades (collect.py, one table for both). A file named like the
# notebook, or with Canvas' "-1", is copied to submitted/<student_id>/<assignment>/<assignment>.ipynb;
# a renamed one keeps its name there (autograde grades it, or the closest of several, with a note):
# so nbgrader's own check of the names is off (strict), the collector decides. A notebook of another
# assignment (the other framework's, say), or of an unrelated name, is skipped with a warning.
c.ZipCollectApp.collector_plugin = RenamedNotebookCollector
c.ZipCollectApp.strict = False
