"""Helpers for the grading round trip (tests/test_grading_*.py).

Every test works on a *copy* of the course files (nbgrader_config.py, solutions/, exercises/) in a
temporary folder and runs the real `nbgrader` command line there, with that folder as the current
directory, so the repo's own gradebook.db, submitted/, autograded/ and feedback/ are never touched.

A `Course` wraps one such copy: `release()` runs generate_assignment, `submit()` puts a notebook
where `nbgrader autograde` looks for it, `autograde()` grades one student (timed), `scores()` reads
the per-cell scores from the gradebook, `feedback()` / `export()` run the last two steps.

The wrong submissions under tests/submissions/ are generated from the solution notebooks by the
mutations in `WRONG` (run `python tests/grading_utils.py` to rewrite them after changing an
assignment): each one is a student's notebook, i.e. the released exercise with the answer cells
filled in and one deliberate mistake (or gap) each.
"""
from __future__ import annotations

import copy
import csv
import dataclasses
import html as _html
import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[1]
SUBMISSIONS = Path(__file__).resolve().parent / "submissions"
COURSE_FILES = ("nbgrader_config.py", "solutions", "exercises")
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
    root: Path

    @classmethod
    def copy_of_repo(cls, dest: Path) -> "Course":
        dest.mkdir(parents=True, exist_ok=True)
        for name in COURSE_FILES:
            source = REPO / name
            if source.is_dir():
                shutil.copytree(source, dest / name, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
            else:
                shutil.copy2(source, dest / name)
        return cls(dest)

    def nbgrader(self, *args: str, timeout: float = COMMAND_TIMEOUT_S) -> subprocess.CompletedProcess:
        """Run `nbgrader ARGS` in the course copy; fail with its log if it fails."""
        result = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=self.root, env=kernel_env(),
                                capture_output=True, text=True, timeout=timeout)
        if result.returncode != 0:
            raise AssertionError(f"nbgrader {' '.join(args)} failed ({result.returncode}):\n"
                                 f"{result.stdout[-3000:]}\n{result.stderr[-6000:]}")
        return result

    def release(self, assignment: str) -> None:
        # --force: exercises/<assignment> exists (it is committed); without --force nbgrader skips it.
        self.nbgrader("generate_assignment", assignment, "--force")

    def submit(self, assignment: str, student: str, notebook: Path) -> None:
        folder = self.root / "submitted" / student / assignment
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(notebook, folder / f"{assignment}.ipynb")

    def autograde(self, assignment: str, student: str) -> float:
        """Autograde one student's submission; returns the wall time in seconds."""
        start = time.perf_counter()
        self.nbgrader("autograde", assignment, "--student", student, "--force")
        return time.perf_counter() - start

    def scores(self, assignment: str, student: str) -> dict[str, float]:
        """{grade_id: score} of every graded cell, from the gradebook."""
        from nbgrader.api import Gradebook

        with Gradebook(f"sqlite:///{self.root / 'gradebook.db'}") as gradebook:
            notebook = gradebook.find_submission_notebook(assignment, assignment, student)
            return {grade.name: float(grade.score) for grade in notebook.grades}

    def max_scores(self, assignment: str) -> dict[str, float]:
        from nbgrader.api import Gradebook

        with Gradebook(f"sqlite:///{self.root / 'gradebook.db'}") as gradebook:
            notebook = gradebook.find_notebook(assignment, assignment)
            return {cell.name: float(cell.max_score) for cell in notebook.grade_cells}

    def feedback(self, assignment: str) -> None:
        self.nbgrader("generate_feedback", assignment, "--force")

    def feedback_html(self, assignment: str, student: str) -> str:
        return (self.root / "feedback" / student / assignment / f"{assignment}.html").read_text()

    def export(self) -> list[dict[str, str]]:
        self.nbgrader("export")
        with open(self.root / "grades.csv", newline="") as handle:
            return list(csv.DictReader(handle))


# ---------------------------------------------------------------- wrong submissions
BLANK = "blank"   # as a mutation: leave that answer cell as released (raise NotImplementedError())


@dataclasses.dataclass(frozen=True)
class Wrong:
    """A known-wrong submission: how it is made from the solution, and what it must score.

    mutations: {assignment: {answer cell grade_id: [(old, new), ...] or BLANK}}, applied to the
               solution's answer cells (every (old) must occur exactly once);
    scores:    {test cell grade_id: points} for the cells that do not get full marks (every other
               test cell must get full marks);
    why:       why exactly those cells, in words.
    """

    student: str
    mutations: dict
    scores: dict
    why: str


WRONG = [
    Wrong("wrong_gate_order",
          {"01-rnn-bottleneck-pytorch": {"gru_step": [
              ("i_r, i_z, i_n = (x @", "i_z, i_r, i_n = (x @"),          # Keras' order on PyTorch's layout
              ("h_r, h_z, h_n = (h @", "h_z, h_r, h_n = (h @")]},
           "01-rnn-bottleneck-keras": {"gru_step": [
              ("i_z, i_r, i_n = ops.split(ops.matmul(x,", "i_r, i_z, i_n = ops.split(ops.matmul(x,"),  # PyTorch's
              ("h_z, h_r, h_n = ops.split(ops.matmul(h,", "h_r, h_z, h_n = ops.split(ops.matmul(h,")]}},
          {"test_gru_step_hidden": 0},
          "Swapping r and z is invisible with all-zero weights (both gates are 1/2, so the visible "
          "known case h' = h/2 still holds: 1 point), but with random weights it no longer matches "
          "the library cell (hidden: 0 of 3). No other part uses gru_step."),
    Wrong("library_gru_cell",
          {"01-rnn-bottleneck-pytorch": {"gru_step": [
              ("    i_r, i_z, i_n = (x @ weight_ih.T + bias_ih).chunk(3, dim=-1)",
               "    cell = nn.GRUCell(x.shape[1], h.shape[1])      # the library cell, with the given weights\n"
               "    with torch.no_grad():\n"
               "        for mine, given in zip(cell.parameters(), (weight_ih, weight_hh, bias_ih, bias_hh)):\n"
               "            mine.copy_(given)\n"
               "    return cell(x, h)\n"
               "    i_r, i_z, i_n = (x @ weight_ih.T + bias_ih).chunk(3, dim=-1)")]},
           "01-rnn-bottleneck-keras": {"gru_step": [
              ("    i_z, i_r, i_n = ops.split(ops.matmul(x, kernel)",
               "    cell = layers.GRUCell(ops.shape(h)[-1])    # the library cell, with the given weights\n"
               "    cell.build((None, ops.shape(x)[-1]))\n"
               "    cell.set_weights([ops.convert_to_numpy(w) for w in (kernel, recurrent_kernel, bias)])\n"
               "    return cell(x, h)[0]\n"
               "    i_z, i_r, i_n = ops.split(ops.matmul(x, kernel)")]}},
          {"test_gru_step_hidden": 0},
          "Calling the library cell with the given weights gets the values right (visible: 1 point), "
          "but part 1 asks for the formulas: the hidden test makes the library GRU refuse to run "
          "(0 of 3)."),
    Wrong("padding_ignored",
          {"01-rnn-bottleneck-pytorch": {"encoder_summary": [
              ("packed = pack_padded_sequence(embedding(src), lengths, batch_first=True, enforce_sorted=False)",
               "packed = embedding(src)                        # the padded batch as it is")]},
           "01-rnn-bottleneck-keras": {"encoder_summary": [
              ("rnn(embedding(src), mask=mask)", "rnn(embedding(src))")]}},
          {"test_encoder_summary_hidden": 0},
          "Running the GRU over the padded batch is right for a row without padding, which is all "
          "the visible test checks in values (1 point); the padded rows and the appended-padding "
          "check fail (hidden: 0 of 3)."),
    Wrong("free_running",
          {"01-rnn-bottleneck-pytorch": {"decoder": [
              ("    for t in range(tgt_in.shape[1]):\n"
               "        step_logits, state = decoder_step(tgt_in[:, t], context, state, embedding, cell, out)\n",
               "    prev = tgt_in[:, 0]\n"
               "    for t in range(tgt_in.shape[1]):\n"
               "        step_logits, state = decoder_step(prev, context, state, embedding, cell, out)\n"
               "        prev = step_logits.argmax(dim=-1)           # feeds back its own prediction\n")]},
           "01-rnn-bottleneck-keras": {"decoder": [
              ("    for t in range(tgt_in.shape[1]):\n"
               "        step_logits, state = decoder_step(tgt_in[:, t], context, state, embedding, cell, out)\n",
               "    prev = tgt_in[:, 0]\n"
               "    for t in range(tgt_in.shape[1]):\n"
               "        step_logits, state = decoder_step(prev, context, state, embedding, cell, out)\n"
               "        prev = ops.argmax(step_logits, axis=-1)     # feeds back its own prediction\n")]}},
          {"test_teacher_forcing_hidden": 0},
          "Feeding back its own predictions instead of the gold tokens: the shapes and step 0 (which "
          "reads <bos> either way) are right, so the visible test passes, and decoder_step itself is "
          "right (2 points); only the teacher-forcing test fails (0 of 1)."),
    Wrong("greedy_off_by_one",
          {"01-rnn-bottleneck-pytorch": {"greedy_decode": [
              ("        logits, state = step(token, state)\n"
               "        token = logits.argmax(dim=-1)\n"
               "        ids[:, t] = torch.where(done, torch.full_like(token, PAD_ID), token)\n",
               "        logits, state = step(token, state)\n"
               "        ids[:, t] = torch.where(done, torch.full_like(token, PAD_ID), token)  # the token fed in\n"
               "        token = logits.argmax(dim=-1)\n")]},
           "01-rnn-bottleneck-keras": {"greedy_decode": [
              ("        logits, state = step(token, state)\n"
               "        token = ops.convert_to_numpy(ops.argmax(logits, axis=-1)).astype(\"int32\")\n"
               "        ids[:, t] = np.where(done, PAD_ID, token)\n",
               "        logits, state = step(token, state)\n"
               "        ids[:, t] = np.where(done, PAD_ID, token)  # the token fed in\n"
               "        token = ops.convert_to_numpy(ops.argmax(logits, axis=-1)).astype(\"int32\")\n")]}},
          {"test_greedy_decode_visible": 0, "test_greedy_decode_hidden": 0},
          "Writing the token fed in (starting with <bos>) instead of the one predicted shifts every "
          "row by one step: the visible script already shows it (0 of 1), and so do the hidden "
          "ones (0 of 3)."),
    Wrong("greedy_never_stops",
          {"01-rnn-bottleneck-pytorch": {"greedy_decode": [
              ("        ids[:, t] = torch.where(done, torch.full_like(token, PAD_ID), token)\n",
               "        ids[:, t] = token\n"),
              ("        if bool(done.all()):\n            break\n", "")]},
           "01-rnn-bottleneck-keras": {"greedy_decode": [
              ("        ids[:, t] = np.where(done, PAD_ID, token)\n", "        ids[:, t] = token\n"),
              ("        if done.all():\n            break\n", "")]}},
          {"test_greedy_decode_hidden": 0},
          "Ignoring <eos> is invisible when every row ends exactly at max_len, as in the visible "
          "script (1 point); the hidden scripts keep talking after <eos> and end early (0 of 3)."),
    Wrong("parts_1_2_only",
          {"01-rnn-bottleneck-pytorch": {"decoder": BLANK, "greedy_decode": BLANK},
           "01-rnn-bottleneck-keras": {"decoder": BLANK, "greedy_decode": BLANK}},
          {"test_decoder_visible": 0, "test_decoder_step_hidden": 0, "test_teacher_forcing_hidden": 0,
           "test_greedy_decode_visible": 0, "test_greedy_decode_hidden": 0},
          "Parts 3 and 4 left as released: their four test cells score 0, and parts 1 and 2 keep "
          "their 8 points (the parts are graded independently)."),
]


def _student_code(solution_source: str) -> str:
    """A solution cell as a student would write it: without nbgrader's solution markers."""
    return "\n".join(line for line in solution_source.split("\n")
                     if "### BEGIN SOLUTION" not in line and "### END SOLUTION" not in line)


def make_submission(assignment: str, student: str) -> nbformat.NotebookNode:
    """The released exercise with the solution's answers, mutated as the student's Wrong entry says."""
    release = nbformat.read(REPO / "exercises" / assignment / f"{assignment}.ipynb", as_version=4)
    solution = nbformat.read(REPO / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    answers = {cell.metadata["nbgrader"]["grade_id"]: cell.source for cell in solution.cells
               if cell.metadata.get("nbgrader", {}).get("solution")}
    mutations = next(wrong for wrong in WRONG if wrong.student == student).mutations[assignment]
    notebook = copy.deepcopy(release)
    for cell in notebook.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if not cell.metadata.get("nbgrader", {}).get("solution"):
            continue
        change = mutations.get(grade_id, [])
        if change == BLANK:
            continue
        source = answers[grade_id]
        for old, new in change:
            if source.count(old) != 1:
                raise ValueError(f"{assignment}/{student}: {old!r} occurs {source.count(old)} times in {grade_id}")
            source = source.replace(old, new)
        cell.source = _student_code(source)
    return notebook


def submission_path(assignment: str, student: str) -> Path:
    return SUBMISSIONS / assignment / student / f"{assignment}.ipynb"


def write_submissions() -> None:
    for wrong in WRONG:
        for assignment in wrong.mutations:
            path = submission_path(assignment, wrong.student)
            path.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(make_submission(assignment, wrong.student), path)
            print("wrote", path.relative_to(REPO))


if __name__ == "__main__":
    write_submissions()


# ---------------------------------------------------------------- the round trip, per assignment
SOLUTION, BLANK_STUDENT = "solution", "blank"
AUTOGRADE_LIMIT_S = 60   # per notebook; the solutions take about 10-20 s on a 2-core machine


def hidden_test_lines(notebook_path: Path) -> list[str]:
    """Distinctive lines of the hidden tests of a source notebook: code lines (not bare message
    strings or comments) that are long enough not to occur by chance, and absent from the release."""
    notebook = nbformat.read(notebook_path, as_version=4)
    hidden, visible, inside = [], set(), False
    for cell in notebook.cells:
        for line in cell.source.split("\n"):
            if "BEGIN HIDDEN TESTS" in line:
                inside = True
            elif "END HIDDEN TESTS" in line:
                inside = False
            (hidden.append if inside else visible.add)(line.strip())
    return [line for line in hidden
            if len(line) >= 30 and line not in visible and not line.startswith(("#", '"', "'", 'f"', "f'"))]


def visible_text(page: str) -> str:
    """What a reader of an HTML page sees: tags removed (syntax highlighting splits code into
    many spans), entities decoded."""
    page = re.sub(r"<(script|style)\b.*?</\1>", "", page, flags=re.S | re.I)
    return _html.unescape(re.sub(r"<[^>]+>", "", page))


class GradingRoundTrip:
    """The grading round trip for one assignment. Subclass it as `Test...` and set `assignment`:
    the subclass's tests share one graded copy of the course (the class-scoped `graded` fixture).

    To add a submission (a hostile one, say), add a Wrong entry to WRONG (or submit it in
    `graded`) with the scores it must get.
    """

    assignment: str

    @classmethod
    def source_notebook(cls) -> Path:
        return REPO / "solutions" / cls.assignment / f"{cls.assignment}.ipynb"

    @classmethod
    def release_notebook(cls) -> Path:
        return REPO / "exercises" / cls.assignment / f"{cls.assignment}.ipynb"

    @classmethod
    def submissions(cls) -> dict[str, Path]:
        """student -> notebook: the solution, the unmodified exercise, the known-wrong ones."""
        found = {SOLUTION: cls.source_notebook(), BLANK_STUDENT: cls.release_notebook()}
        for wrong in WRONG:
            if cls.assignment in wrong.mutations:
                found[wrong.student] = submission_path(cls.assignment, wrong.student)
        return found

    @pytest.fixture(scope="class")
    @classmethod
    def graded(cls, tmp_path_factory):
        """Release, submit every known submission, autograde each (timed), feedback, export."""
        course = Course.copy_of_repo(tmp_path_factory.mktemp(cls.assignment))
        course.release(cls.assignment)
        seconds = {}
        for student, notebook in cls.submissions().items():
            course.submit(cls.assignment, student, notebook)
            seconds[student] = course.autograde(cls.assignment, student)
        print(f"\nautograde seconds, {cls.assignment}: " + ", ".join(f"{s} {t:.1f}" for s, t in seconds.items()))
        course.feedback(cls.assignment)
        grades = course.export()
        return SimpleNamespace(course=course, seconds=seconds, grades=grades)

    # ------------------------------------------------------------ (a) release
    def test_release_reproduces_committed_exercises(self, graded):
        fresh = graded.course.root / "exercises" / self.assignment
        committed = REPO / "exercises" / self.assignment
        names = sorted(p.relative_to(fresh).as_posix() for p in fresh.rglob("*") if p.is_file())
        assert names == sorted(p.relative_to(committed).as_posix() for p in committed.rglob("*") if p.is_file())
        for name in names:
            assert (fresh / name).read_bytes() == (committed / name).read_bytes(), (
                f"exercises/{self.assignment}/{name} is not what generate_assignment makes from solutions/: "
                f"run `nbgrader generate_assignment {self.assignment} --force` from the repo root and commit it")

    # ------------------------------------------------------------ (b), (c), (d) scores
    def test_solution_gets_full_marks(self, graded):
        maximum = graded.course.max_scores(self.assignment)
        assert sum(maximum.values()) > 0
        assert graded.course.scores(self.assignment, SOLUTION) == maximum

    def test_blank_exercise_gets_zero(self, graded):
        scores = graded.course.scores(self.assignment, BLANK_STUDENT)
        assert scores == {name: 0.0 for name in graded.course.max_scores(self.assignment)}

    @pytest.mark.parametrize("wrong", WRONG, ids=[w.student for w in WRONG])
    def test_wrong_submission_gets_its_partial_score(self, graded, wrong):
        maximum = graded.course.max_scores(self.assignment)
        assert set(wrong.scores) <= set(maximum), f"unknown cells in the expectation: {set(wrong.scores) - set(maximum)}"
        expected = {**maximum, **{name: float(score) for name, score in wrong.scores.items()}}
        assert graded.course.scores(self.assignment, wrong.student) == expected, wrong.why

    def test_each_autograde_takes_under_a_minute(self, graded):
        slow = {student: round(t, 1) for student, t in graded.seconds.items() if t > AUTOGRADE_LIMIT_S}
        assert not slow, f"autograde took longer than {AUTOGRADE_LIMIT_S} s per notebook: {slow}"

    # ------------------------------------------------------------ (e) feedback
    def test_feedback_shows_results_but_not_hidden_tests(self, graded):
        hidden = hidden_test_lines(self.source_notebook())
        assert len(hidden) > 20, "found too few hidden-test lines to check against"
        maximum = sum(graded.course.max_scores(self.assignment).values())
        for student in self.submissions():
            page = graded.course.feedback_html(self.assignment, student)
            text = visible_text(page)
            total = sum(graded.course.scores(self.assignment, student).values())
            assert f"Score: {total:.1f} / {maximum:.1f}" in text, f"{student}: no score line in the feedback"
            assert "HIDDEN TESTS" not in text, f"{student}: hidden-test markers in the feedback"
            leaked = [line for line in hidden if line in text]
            assert not leaked, f"{student}: hidden-test code in the feedback: {leaked[:3]}"
        # Failures are shown with the tests' messages; passing cells are not.
        messages = {"wrong_gate_order": "gru_step differs from",
                    "library_gru_cell": "gru_step called the library GRU",
                    "padding_ignored": "differs from running the GRU on that row alone, without padding",
                    "free_running": "with teacher forcing step t reads the gold token",
                    "greedy_never_stops": "a row that has produced <eos> must be PAD_ID from then on",
                    "greedy_off_by_one": "column t holds the token predicted at step t",
                    BLANK_STUDENT: "NotImplementedError"}
        for student, message in messages.items():
            assert message in visible_text(graded.course.feedback_html(self.assignment, student)), (
                f"{student}: the feedback does not show the failure message {message!r}")
        solution_text = visible_text(graded.course.feedback_html(self.assignment, SOLUTION))
        assert "Traceback" not in solution_text and "visible tests passed" in solution_text

    # ------------------------------------------------------------ (f) export
    def test_export_writes_the_totals(self, graded):
        maximum = sum(graded.course.max_scores(self.assignment).values())
        expected = {SOLUTION: maximum, BLANK_STUDENT: 0.0}
        for wrong in WRONG:
            lost = sum(graded.course.max_scores(self.assignment)[name] - score
                       for name, score in wrong.scores.items())
            expected[wrong.student] = maximum - lost
        rows = [row for row in graded.grades if row["assignment"] == self.assignment]
        assert {row["student_id"]: float(row["score"]) for row in rows} == expected
        assert {float(row["max_score"]) for row in rows} == {maximum}

    # ------------------------------------------------------------ collecting from an LMS
    def test_zip_collect_files_an_lms_download(self, tmp_path):
        """`nbgrader zip_collect` with the course's file-name pattern (Canvas style)."""
        course = Course.copy_of_repo(tmp_path / "course")
        archive = course.root / "downloaded" / self.assignment / "archive"
        archive.mkdir(parents=True)
        names = {f"smithjane_123456_789012_{self.assignment}.ipynb": "smithjane",
                 f"doejohn_LATE_234567_890123_{self.assignment}-1.ipynb": "doejohn",
                 "leeann_345678_901234_99-other-assignment.ipynb": None}    # not this assignment: skipped
        with zipfile.ZipFile(archive / "submissions.zip", "w") as bundle:
            for name in names:
                bundle.write(self.release_notebook(), name)
        course.nbgrader("zip_collect", self.assignment)
        collected = sorted(p.relative_to(course.root / "submitted").as_posix()
                           for p in (course.root / "submitted").rglob("*.ipynb"))
        assert collected == sorted(f"{student}/{self.assignment}/{self.assignment}.ipynb"
                                   for student in names.values() if student)

    # ------------------------------------------------------------ fixtures
    def test_submission_fixtures_are_up_to_date(self):
        for wrong in WRONG:
            committed = nbformat.read(submission_path(self.assignment, wrong.student), as_version=4)
            fresh = make_submission(self.assignment, wrong.student)
            assert json.dumps(committed, sort_keys=True) == json.dumps(fresh, sort_keys=True), (
                f"tests/submissions/{self.assignment}/{wrong.student} is stale: run `python tests/grading_utils.py`")
