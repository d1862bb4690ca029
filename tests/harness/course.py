"""A copy of the course in a temporary folder, and the real `nbgrader` command line run there.

Every grading test works on a *copy* of the course files (nbgrader_config.py, solutions/,
exercises/) and runs nbgrader with that folder as the current directory, so the repository's own
gradebook.db, submitted/, autograded/ and feedback/ are never touched. `Course` wraps one such
copy: `release()` runs generate_assignment, `submit()` puts a notebook where `nbgrader autograde`
looks for it, `autograde_each()` grades every submitted student in one run (each timed from
nbgrader's log), `autograde_parallel()` with the course's parallel command, `scores()` reads the per-cell scores from the gradebook, `feedback()` /
`export()` run the last two steps.

Autograding goes through the course's sandbox (attention_course/grading/, wired in by
nbgrader_config.py), so these tests need bubblewrap (`apt-get install bubblewrap`).
"""
from __future__ import annotations

import csv
import dataclasses
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat

REPO = Path(__file__).resolve().parents[2]
CHECKS = REPO / "tools" / "course_checks"
COURSE_FILES = ("nbgrader_config.py", "course.toml", "solutions", "exercises")
# Every assignment of the course: the folders of solutions/ that hold their notebook.
ASSIGNMENTS = sorted(p.name for p in (REPO / "solutions").iterdir() if (p / f"{p.name}.ipynb").is_file())
# A whole nbgrader command (kernel start-up included) may take this long before we call it hung;
# the per-cell limit of a student's runaway cell is ExecutePreprocessor.timeout in nbgrader_config.py.
COMMAND_TIMEOUT_S = 300


def kernel_env() -> dict[str, str]:
    """Environment for nbgrader and the kernels it starts: quiet TensorFlow, one thread each
    (two test workers share two cores), this venv's Python first on PATH."""
    env = dict(os.environ)
    env.update(
        COURSE_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
        TF_CPP_MIN_LOG_LEVEL="3", TF_ENABLE_ONEDNN_OPTS="0", KERAS_BACKEND="tensorflow",
        MPLBACKEND="Agg", PYDEVD_DISABLE_FILE_VALIDATION="1", PYTHONHASHSEED="0",
    )
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return env


@dataclasses.dataclass
class Course:
    """One copy of the course, in `root`, and the nbgrader steps run in it."""

    root: Path

    @classmethod
    def copy_of_repo(cls, dest: Path, config: str = "") -> "Course":
        """A copy of the course in `dest`; `config` (nbgrader_config.py lines) is appended to its
        configuration (the hostile batch uses smaller limits, say)."""
        dest.mkdir(parents=True, exist_ok=True)
        for name in COURSE_FILES:
            source = REPO / name
            if source.is_dir():
                shutil.copytree(source, dest / name, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
            else:
                shutil.copy2(source, dest / name)
        if config:
            with open(dest / "nbgrader_config.py", "a") as handle:
                handle.write("\n# ---- test settings\n" + config)
        return cls(dest)

    def nbgrader(self, *args: str, timeout: float = COMMAND_TIMEOUT_S,
                 check: bool = True) -> subprocess.CompletedProcess:
        """Run `nbgrader ARGS` in the course copy; with `check`, fail with its log if it fails."""
        result = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=self.root, env=kernel_env(),
                                capture_output=True, text=True, timeout=timeout)
        if check and result.returncode != 0:
            raise AssertionError(f"nbgrader {' '.join(args)} failed ({result.returncode}):\n"
                                 f"{result.stdout[-3000:]}\n{result.stderr[-6000:]}")
        return result

    def release(self, assignment: str) -> None:
        """Run generate_assignment: the release is written to the copy's exercises/."""
        # --force: exercises/<assignment> exists (it is committed); without --force nbgrader skips it.
        self.nbgrader("generate_assignment", assignment, "--force")

    def submit(self, assignment: str, student: str, notebook: Path) -> None:
        """Hand in `notebook` as `student`'s submission (where autograde looks for it)."""
        folder = self.root / "submitted" / student / assignment
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(notebook, folder / f"{assignment}.ipynb")

    def autograde_all(self, assignment: str, timeout: float) -> float:
        """Autograde every submitted student in one nbgrader run; returns the wall time (s)."""
        start = time.perf_counter()
        self.nbgrader("autograde", assignment, "--force", timeout=timeout)
        return time.perf_counter() - start

    def autograde_parallel(self, assignment: str, timeout: float, workers: int = 2) -> float:
        """Grade every submitted student with the course's parallel command
        (attention_course/grading/batch.py, `workers` sandboxed kernels at once); returns the
        wall time (s)."""
        start = time.perf_counter()
        result = subprocess.run([sys.executable, "-m", "attention_course.grading.batch", assignment,
                                 "--workers", str(workers), "--force"], cwd=self.root,
                                env=kernel_env(), capture_output=True, text=True, timeout=timeout)
        if result.returncode != 0:
            raise AssertionError(f"the batch failed ({result.returncode}):\n{result.stdout[-4000:]}\n"
                                 f"{result.stderr[-4000:]}")
        return time.perf_counter() - start

    def autograded_notebook(self, assignment: str, student: str) -> nbformat.NotebookNode:
        """A student's notebook as autograded (with its outputs)."""
        path = self.root / "autograded" / student / assignment / f"{assignment}.ipynb"
        return nbformat.read(path, as_version=4)

    def autograde_each(self, assignment: str, timeout: float) -> dict[str, float]:
        """Autograde every submitted student in one nbgrader run, as an instructor does, and
        return {student: seconds} read from the time stamps of nbgrader's log: from the line
        that starts a student to the line that starts the next one (the last student ends
        with the run). The first student's time includes the one run of the reference
        solution that the sandbox's out-of-kernel check makes per nbgrader command."""
        start = time.perf_counter()
        result = self.nbgrader("autograde", assignment, "--force",
                               "--Application.log_format=%(created).3f %(message)s",
                               timeout=timeout)
        end_stamp = time.time()
        starts = [(float(stamp), student) for stamp, student in re.findall(
            r"^(\d+\.\d+) Creating/updating student with ID '([^']+)'",
            result.stdout + result.stderr, flags=re.MULTILINE)]
        assert starts, f"no student in nbgrader's log:\n{result.stderr[-3000:]}"
        stamps = [stamp for stamp, _ in starts[1:]] + [end_stamp]
        seconds = {student: stamp - begun for (begun, student), stamp in zip(starts, stamps)}
        seconds["(whole batch)"] = time.perf_counter() - start
        return seconds

    def scores(self, assignment: str, student: str) -> dict[str, float]:
        """{grade_id: score} of every graded cell, from the gradebook."""
        from nbgrader.api import Gradebook

        with Gradebook(f"sqlite:///{self.root / 'gradebook.db'}") as gradebook:
            notebook = gradebook.find_submission_notebook(assignment, assignment, student)
            return {grade.name: float(grade.score) for grade in notebook.grades}

    def max_scores(self, assignment: str) -> dict[str, float]:
        """{grade_id: points} of every graded cell of the assignment, from the gradebook."""
        from nbgrader.api import Gradebook

        with Gradebook(f"sqlite:///{self.root / 'gradebook.db'}") as gradebook:
            notebook = gradebook.find_notebook(assignment, assignment)
            return {cell.name: float(cell.max_score) for cell in notebook.grade_cells}

    def feedback(self, assignment: str) -> None:
        """Write every graded student's feedback page."""
        self.nbgrader("generate_feedback", assignment, "--force")

    def feedback_html(self, assignment: str, student: str) -> str:
        """A student's feedback page (HTML)."""
        return (self.root / "feedback" / student / assignment / f"{assignment}.html").read_text()

    def export(self) -> list[dict[str, str]]:
        """Run `nbgrader export` and return the rows of grades.csv."""
        self.nbgrader("export")
        with open(self.root / "grades.csv", newline="") as handle:
            return list(csv.DictReader(handle))
