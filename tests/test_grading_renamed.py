"""A renamed notebook is graded (issue 34): real `nbgrader zip_collect` and `autograde`.

In a copy of the course (harness/course.py), for one cheap assignment: an LMS download with
Colab's `Copy of <a>.ipynb` and JupyterLab's `<a>-Copy1.ipynb` under Canvas prefixes, and the
other framework's `<other> (1).ipynb`, goes through zip_collect; two more students put their
files straight in submitted/ (an unrelated name; two notebooks, the assignment's renamed and a
scratch one). One autograde batch must give each the solution's marks (full marks), with the
note in the feedback and a WARNING naming the student's file, and leave every file in place.
The names themselves (which file is which notebook) are tested in tests/test_collect.py.
"""
import shutil
import zipfile
from types import SimpleNamespace

import pytest

from harness.course import COMMAND_TIMEOUT_S, REPO, Course
from harness.feedback import visible_text

ASSIGNMENT = "03-self-attention-pytorch"           # the cheapest notebook to grade
OTHER_FRAMEWORK = "03-self-attention-keras"
SOLUTION = REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
BLANK = REPO / "exercises" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
# What an LMS download holds: file name -> the student it is collected for (None: skipped).
# (Canvas' names: the student is the numeric user id, not the name part.)
DOWNLOAD = {f"colab_111111_222222_Copy of {ASSIGNMENT}.ipynb": "111111",
            f"duplicated_LATE_333333_444444_{ASSIGNMENT}-Copy1.ipynb": "333333",
            f"otherframework_555555_666666_{OTHER_FRAMEWORK} (1).ipynb": None}
# Files put straight in submitted/<student>/<a>/: student -> {file name: notebook}.
SUBMITTED = {"unrelated": {"homework 3.ipynb": SOLUTION},
             "several": {f"{ASSIGNMENT} (1).ipynb": SOLUTION, "scratch.ipynb": BLANK}}
# student -> the file graded, and the ones that are not.
GRADED = {"111111": (f"Copy of {ASSIGNMENT}.ipynb", []),
          "333333": (f"{ASSIGNMENT}-Copy1.ipynb", []),
          "unrelated": ("homework 3.ipynb", []),
          "several": (f"{ASSIGNMENT} (1).ipynb", ["scratch.ipynb"])}

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """zip_collect the download, add the direct submissions, autograde all in one batch,
    feedback."""
    course = Course.copy_of_repo(tmp_path_factory.mktemp("renamed"))
    course.release(ASSIGNMENT)
    archive = course.root / "downloaded" / ASSIGNMENT / "archive"
    archive.mkdir(parents=True)
    with zipfile.ZipFile(archive / "submissions.zip", "w") as bundle:
        for name in DOWNLOAD:
            bundle.write(SOLUTION, name)
    course.nbgrader("zip_collect", ASSIGNMENT)
    collected = sorted(p.relative_to(course.root / "submitted").as_posix()
                       for p in (course.root / "submitted").rglob("*.ipynb"))
    for student, files in SUBMITTED.items():
        folder = course.root / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        for name, notebook in files.items():
            shutil.copy(notebook, folder / name)
    # Not checked here: each test below says what went wrong (a student not graded fails it).
    result = course.nbgrader("autograde", ASSIGNMENT, "--force", check=False,
                             timeout=COMMAND_TIMEOUT_S + 60 * len(GRADED))
    course.nbgrader("generate_feedback", ASSIGNMENT, "--force", check=False)
    return SimpleNamespace(course=course, collected=collected, returncode=result.returncode,
                           log=result.stdout + result.stderr)


def test_autograde_grades_every_student(graded):
    assert graded.returncode == 0, graded.log[-3000:]


def test_zip_collect_keeps_renamed_notebooks_and_skips_the_other_framework(graded):
    assert graded.collected == sorted(f"{student}/{ASSIGNMENT}/{GRADED[student][0]}"
                                      for student in DOWNLOAD.values() if student)


@pytest.mark.parametrize("student", GRADED)
def test_a_renamed_notebook_gets_the_solutions_marks(graded, student):
    maximum = graded.course.max_scores(ASSIGNMENT)
    assert sum(maximum.values()) > 0
    folder = graded.course.root / "autograded" / student / ASSIGNMENT
    assert (folder / f"{ASSIGNMENT}.ipynb").is_file(), f"{student} was not graded"
    assert graded.course.scores(ASSIGNMENT, student) == maximum


@pytest.mark.parametrize("student", GRADED)
def test_the_feedback_and_the_log_name_the_files(graded, student):
    name, others = GRADED[student]
    page = graded.course.root / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html"
    assert page.is_file(), f"{student} has no feedback"
    text = visible_text(page.read_text())
    note = f"your notebook {name} was graded as {ASSIGNMENT}.ipynb"
    assert "Autograder:" in text and note in text, f"{student}: no note naming {name!r}"
    for other in others:
        assert f"were not graded: {other}" in text, f"{student}: no note naming {other!r}"
    warning = f"Submission of {student} ({ASSIGNMENT}): graded {name}"
    assert f"[AutogradeApp | WARNING] {warning}" in graded.log.replace("\n", " "), (
        f"{student}: no WARNING naming {name!r}")


@pytest.mark.parametrize("student", GRADED)
def test_the_students_files_stay_where_they_were(graded, student):
    name, others = GRADED[student]
    folder = graded.course.root / "submitted" / student / ASSIGNMENT
    assert sorted(p.name for p in folder.glob("*.ipynb")) == sorted([name, *others])


# ------------------------------------------------------------ the Canvas round trip
# Canvas' gradebook export for the class: the two students of the download, one who submitted
# nothing, and Canvas' Test Student. The chapter's Canvas assignment is named by its stem.
CHAPTER = ASSIGNMENT.removesuffix("-pytorch")
CANVAS_EXPORT = f"""Student,ID,SIS User ID,SIS Login ID,Section,{CHAPTER} (5003),Current Score
    Points Possible,,,,,16.00,(read only)
"Colab, Cora",111111,S-1,cora,Section A,,
"Duplicate, Dan",333333,S-3,dan,Section A,,
"Absent, Ada",777777,S-7,ada,Section B,,
"Student, Test",999999,,,Section A,,
"""


def canvas(graded, *args):
    """Run `python -m course_tools.canvas ARGS` in the course copy, as an instructor does."""
    import subprocess
    import sys

    from harness.course import kernel_env

    database = f"sqlite:///{graded.course.root / 'gradebook.db'}"
    result = subprocess.run([sys.executable, "-m", "course_tools.canvas", "--db", database, *args],
                            cwd=graded.course.root, env=kernel_env(), capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_canvas_roster_grades_and_feedback_round_trip(graded, tmp_path):
    """The roster in under Canvas' ids (names from Canvas, a student without a submission
    too), grades out in Canvas' import format, feedback zipped under the names Canvas'
    re-upload attaches to each student's submission."""
    import csv
    import zipfile as zipped

    from nbgrader.api import Gradebook

    export = tmp_path / "canvas-export.csv"
    export.write_text(CANVAS_EXPORT, encoding="utf-8")
    assert "1 students added, 2 updated" in canvas(graded, "roster", str(export))
    with Gradebook(f"sqlite:///{graded.course.root / 'gradebook.db'}") as gradebook:
        cora = gradebook.find_student("111111")
        assert (cora.first_name, cora.last_name, cora.lms_user_id) == ("Cora", "Colab", "111111")

    imported = tmp_path / "canvas-import.csv"
    canvas(graded, "grades", str(export), "-o", str(imported))
    rows = list(csv.reader(imported.open(encoding="utf-8")))
    full = f"{sum(graded.course.max_scores(ASSIGNMENT).values()):g}"
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", f"{CHAPTER} (5003)"]
    assert rows[1] == ["    Points Possible", "", "", "", "", "16"]
    assert {row[1]: row[5] for row in rows[2:]} == {"111111": full, "333333": full, "777777": "0"}

    bundle = tmp_path / "feedback.zip"
    canvas(graded, "feedback", ASSIGNMENT, "-o", str(bundle))
    with zipped.ZipFile(bundle) as archive:
        assert sorted(archive.namelist()) == [
            f"colab_111111_222222_{ASSIGNMENT}-feedback.html",
            f"duplicated_333333_444444_{ASSIGNMENT}-feedback.html"]
        page = archive.read(f"colab_111111_222222_{ASSIGNMENT}-feedback.html").decode()
    assert page == (graded.course.root / "feedback" / "111111" / ASSIGNMENT
                    / f"{ASSIGNMENT}.html").read_text()
