"""Hostile and broken submissions, graded in ONE batch with honest students.

For each of chapter 1's assignments: a copy of the course with the test limits (TEST_LIMITS
below: 10 s per cell, 30 s per notebook, 100 kB of output per cell, 4 GiB, 128 processes), every
honest submission (HONEST below) and every hostile one declared for it (the chapter's
hostile_ch01.py and hostile/ folder, tests/chapters/ch01_rnn_bottleneck/) submitted, then a single
run of the course's parallel grading over all students (`python -m attention_course.grading.batch
<assignment> --workers 2 --force`: nbgrader's autograde, two sandboxed kernels at once),
`generate_feedback` and `export`.
It checks that the command succeeds (no submission stops the batch) within BATCH_LIMIT_S, that
every submission gets exactly its expected per-cell scores (honest ones included: a hostile
submission cannot change another's grade), that the course's files are unchanged, that no
sandbox process is left behind, what the snooping and vandal cells could see and do, and that
the feedback shows each submission its score and the reason for each failure (the limit it hit)
without any hidden-test code.
"""
import hashlib
import os
import json
import re
from pathlib import Path

import nbformat
import pytest

from attention_course.grading import verify

from harness.course import ASSIGNMENTS, REPO, Course
from harness.declarations import ZERO, hostile_submissions, wrong_named
from harness.feedback import hidden_test_lines, visible_text
from harness.submissions import honest_notebook, hostile_content

pytestmark = pytest.mark.slow

# The assignments whose hostile batches run here: chapter 1's (hostile_ch01.py).
HOSTILE_PYTORCH, HOSTILE_KERAS = "01-rnn-bottleneck-pytorch", "01-rnn-bottleneck-keras"
# The honest students graded in each batch: {student: the solution, the release, or a Wrong}.
HONEST = {"honest_full": "solution", "honest_blank": "release", "honest_partial": "greedy_never_stops"}
# The hostile batch's limits (the real defaults are in nbgrader_config.py: 60 s per cell, 300 s per
# notebook, 1 MB of output per cell, 6 GiB of address space, 512 processes).
TEST_LIMITS = """\
c.Execute.timeout = 10
c.SandboxedExecute.notebook_timeout = 30
c.SandboxedExecute.max_output_bytes = 100_000
c.SandboxedExecute.iopub_timeout = 5
c.SandboxKernelManager.memory_mb = 4096
c.SandboxKernelManager.processes = 128
c.SandboxKernelManager.wall_s = 60
"""
PROCESS_LIMIT = 128
# Each batch's own user ids, apart from other tests' kernels and from the other batch, which may
# run at the same time on the other test worker: a batch checks that none of its ids is left
# running, so the two must not share a range.
BATCH_UIDS = {HOSTILE_PYTORCH: range(4_000_000, 4_050_000), HOSTILE_KERAS: range(4_050_000, 4_100_000)}

# One autograde over the whole batch (21 PyTorch or 8 Keras notebooks: about 2.5 and 1.5 minutes
# on 2 cores next to another busy test worker, a minute of it the deliberate time-outs) must stay
# under this. The limits bound it anyway: at most notebook_timeout (+ start-up) per notebook.
BATCH_LIMIT_S = {HOSTILE_PYTORCH: 480, HOSTILE_KERAS: 300}
# What each failure must say in the feedback (the limit or check that stopped it).
REASONS = {"infinite_loop": "CellTimeoutError", "ignores_interrupt": "did not stop when interrupted",
           "notebook_budget": "time budget", "kernel_crash": "KernelDied", "memory_blowup": "MemoryError",
           "huge_output": "OutputLimitExceeded", "corrupt_json": "could not be read as a Jupyter notebook",
           "patch_libraries": "AutograderCheckFailed", "poison_imports": "AutograderCheckFailed",
           "swallow_errors": "AutograderCheckFailed", "sys_exit": "NameError"}


def batch_limits(assignment: str) -> str:
    """TEST_LIMITS plus the user-id range of this assignment's hostile batch."""
    uids = BATCH_UIDS[assignment]
    return TEST_LIMITS + f"c.SandboxKernelManager.uid_range = [{uids.start}, {uids.stop - 1}]\n"


def tree_digest(*paths):
    digest = hashlib.sha256()
    for root in paths:
        for path in sorted(root.rglob("*")) if root.is_dir() else [root]:
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path).encode() + path.read_bytes())
    return digest.hexdigest()


def sandbox_processes(uids):
    """Processes of a batch's throw-away user ids (batch_limits gives each batch its own range)."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:                                   # the process ended meanwhile
            continue
        if int(fields["Uid"].split()[0]) in uids:
            found.append(f"{status.parent.name} {fields['Name'].strip()}")
    return found


def printed(notebook, marker):
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            for line in output.get("text", "").splitlines():
                if line.startswith(marker + " "):
                    return json.loads(line[len(marker) + 1:])
    raise AssertionError(f"no {marker} line in the outputs")


class HostileBatch:
    """One assignment's hostile batch: subclass it and set `assignment`."""

    assignment: str

    @classmethod
    def students(cls):
        """{student: its Hostile, or None for an honest student}, honest ones first."""
        found = {student: None for student in HONEST}
        found.update({h.student: h for h in hostile_submissions() if cls.assignment in h.assignments})
        return found

    @pytest.fixture(scope="class")
    @classmethod
    def batch(cls, tmp_path_factory):
        """Build and submit every student, autograde them in one run, feedback, export."""
        course = Course.copy_of_repo(tmp_path_factory.mktemp("hostile-" + cls.assignment),
                                     config=batch_limits(cls.assignment))
        course.release(cls.assignment)
        for student, hostile in cls.students().items():
            folder = course.root / "submitted" / student / cls.assignment
            folder.mkdir(parents=True)
            target = folder / f"{cls.assignment}.ipynb"
            if hostile is None:
                nbformat.write(honest_notebook(cls.assignment, HONEST[student]), target)
            else:
                target.write_bytes(hostile_content(cls.assignment, hostile))
        guarded = [course.root / name
                   for name in ("solutions", "exercises", "submitted", "nbgrader_config.py")]
        before = tree_digest(*guarded)
        # Graded by the parallel command, two kernels at once: a hanging or crashing submission
        # must not stop or touch the one graded beside it either.
        seconds = course.autograde_parallel(cls.assignment, timeout=2 * BATCH_LIMIT_S[cls.assignment])
        print(f"\nhostile batch {cls.assignment}: {len(cls.students())} notebooks in {seconds:.0f} s")
        after = tree_digest(*guarded)
        leftovers = sandbox_processes(BATCH_UIDS[cls.assignment])
        course.feedback(cls.assignment)
        grades = course.export()
        return dict(course=course, seconds=seconds, before=before, after=after, leftovers=leftovers,
                    grades=grades)

    def expected(self, batch, student):
        """{grade_id: score} that a student must get."""
        maximum = batch["course"].max_scores(self.assignment)
        hostile = self.students()[student]
        if hostile is None:
            kind = HONEST[student]
            if kind == "solution":
                return maximum
            if kind == "release":
                return {name: 0.0 for name in maximum}
            wrong = wrong_named(kind)
            return {**maximum, **{k: float(v) for k, v in wrong.scores.items()}}
        if hostile.scores == ZERO:
            return {name: 0.0 for name in maximum}
        assert set(hostile.scores) <= set(maximum)
        return {**maximum, **{k: float(v) for k, v in hostile.scores.items()}}

    # ------------------------------------------------------------ the batch as a whole
    def test_batch_finishes_in_time(self, batch):
        assert batch["seconds"] < BATCH_LIMIT_S[self.assignment], (
            f"the batch took {batch['seconds']:.0f} s (limit {BATCH_LIMIT_S[self.assignment]} s)")

    # ------------------------------------------------------------ every score, honest ones included
    def test_every_submission_gets_its_score(self, batch):
        wrong = {}
        for student in self.students():
            got = batch["course"].scores(self.assignment, student)
            want = self.expected(batch, student)
            if got != want:
                wrong[student] = {name: (got.get(name), score)
                                  for name, score in want.items() if got.get(name) != score}
        assert not wrong, ("scores differ (cell: (got, expected)):\n"
                           + "\n".join(f"{s}: {d}" for s, d in wrong.items()))

    def test_export_has_every_student_once_with_the_right_total(self, batch):
        rows = {row["student_id"]: float(row["score"])
                for row in batch["grades"] if row["assignment"] == self.assignment}
        assert rows == {student: sum(self.expected(batch, student).values()) for student in self.students()}
        assert {float(row["max_score"]) for row in batch["grades"]} == {16.0}   # points=100 did not stick

    # ------------------------------------------------------------ isolation
    def test_course_and_package_unchanged(self, batch):
        # (The package is mounted read-only in the sandbox: the vandal's write fails, see below.)
        assert batch["before"] == batch["after"], (
            "a submission changed solutions/, exercises/, submitted/ or the config")
        pwned = [p for p in batch["course"].root.rglob("*")
                 if "pwned" in p.name or p.name == "solutions-link"]
        pwned += list((REPO / "attention_course").rglob("pwned*"))
        assert not pwned, f"files written by a submission outside its sandbox: {pwned}"

    def test_no_sandbox_process_is_left(self, batch):
        assert not batch["leftovers"], (
            f"sandbox processes still running after the batch: {batch['leftovers']}")

    # ------------------------------------------------------------ feedback
    def test_feedback_shows_scores_and_reasons_but_no_hidden_tests(self, batch):
        course = batch["course"]
        hidden = hidden_test_lines(REPO / "solutions" / self.assignment / f"{self.assignment}.ipynb")
        maximum = sum(course.max_scores(self.assignment).values())
        for student, hostile in self.students().items():
            text = visible_text(course.feedback_html(self.assignment, student))
            # A line that the student wrote (fake_helpers guesses a helper's name) is no leak.
            own = hostile_content(self.assignment, hostile).decode(errors="replace") if hostile else ""
            total = sum(course.scores(self.assignment, student).values())
            assert f"Score: {total:.1f} / {maximum:.1f}" in text, f"{student}: no score line in the feedback"
            assert "HIDDEN TESTS" not in text, f"{student}: hidden-test markers in the feedback"
            leaked = [line for line in hidden if line in text and json.dumps(line)[1:-1] not in own]
            assert not leaked, f"{student}: hidden-test code in the feedback: {leaked[:3]}"
            if student in REASONS:
                assert REASONS[student] in text, f"{student}: the feedback does not say {REASONS[student]!r}"


class TestHostilePytorch(HostileBatch):
    assignment = HOSTILE_PYTORCH

    def test_snooper_saw_nothing_and_reached_nobody(self, batch):
        found = printed(batch["course"].autograded_notebook(HOSTILE_PYTORCH, "snooper"), "SNOOP")
        for name in ("solutions", "gradebook", "submitted", "autograded", "config", "repo solutions",
                     "ssh keys", "shadow"):
            assert isinstance(found[name], str) and found[name].endswith("Error"), (
                f"the sandbox showed {name}: {found[name]}")
        assert found["notebooks here"] == [], (
            "the kernel could read the notebook being graded (it holds the hidden tests)")
        assert found["internet"] != "connected" and found["registry"] != "connected"
        assert found["processes"] < 10, "the kernel sees processes outside its sandbox"

    def test_the_leak_attempt_really_printed_hidden_code_before_the_feedback_removed_it(self, batch):
        notebook = batch["course"].autograded_notebook(HOSTILE_PYTORCH, "snooper")
        text = "".join(o.get("text", "") for cell in notebook.cells for o in cell.get("outputs", []))
        hidden = hidden_test_lines(REPO / "solutions" / HOSTILE_PYTORCH / f"{HOSTILE_PYTORCH}.ipynb")
        assert any(line in text for line in hidden), (
            "the leak attempt printed nothing (the check above proves nothing)")
        feedback = visible_text(batch["course"].feedback_html(HOSTILE_PYTORCH, "snooper"))
        assert "[hidden test code removed]" in feedback

    def test_vandal_changed_nothing_outside_and_hit_the_process_limit(self, batch):
        result = printed(batch["course"].autograded_notebook(HOSTILE_PYTORCH, "vandal"), "VANDAL")
        fork = result.pop("fork")
        count = int(re.match(r"(\d+) processes", fork).group(1))
        assert count < PROCESS_LIMIT and "Resource temporarily unavailable" in fork, fork
        # Whatever the cell believed it wrote went to its private, throw-away folders (see
        # test_course_and_package_unchanged); the package (the grading copy the kernel imports,
        # attention_course/grading/hide.py) is read-only even there.
        package = [path for path in result if path.endswith("/attention_course/pwned.py")]
        assert len(package) == 1 and result[package[0]] == "OSError", result


class TestHostileKeras(HostileBatch):
    assignment = HOSTILE_KERAS


# ---------------------------------------------------------------- quick checks (no kernel)
def test_sandbox_tools_are_installed():
    import shutil

    missing = [tool for tool in ("bwrap", "prlimit", "setpriv", "timeout") if not shutil.which(tool)]
    assert not missing, f"autograding needs {missing}: apt-get install bubblewrap (util-linux, coreutils)"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_test_cell_reports_what_it_checks(assignment):
    """Every test cell of a source notebook must report (``_observe``, in a hidden region) the
    values it checks: the out-of-kernel check (attention_course/grading/verify.py) only covers
    cells that do. A new assignment's test cells need their probes too (see CONTRIBUTING.md)."""
    notebook = nbformat.read(REPO / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    bare = []
    for cell in notebook.cells:
        info = cell.metadata.get("nbgrader", {})
        if cell.cell_type == "code" and info.get("grade") and not info.get("solution"):
            hidden = (cell.source.split("### BEGIN HIDDEN TESTS", 1)[-1]
                      if "BEGIN HIDDEN TESTS" in cell.source else "")
            if "_observe(" not in hidden:
                bare.append(info["grade_id"])
    assert not bare, f"test cells without observations: {bare}"


def test_observations_compare_kind_shape_and_values_within_tolerance():
    import numpy as np

    from attention_course.grading.observe import encode
    from attention_course.grading.verify import disagreement, same_value

    reference = encode(np.array([[1.0, 2.0]], dtype="float32"))
    assert same_value(encode(np.array([[1.00001, 2.0]])), reference)            # float64, within 1e-4
    assert not same_value(encode(np.array([[1.01, 2.0]])), reference)
    assert not same_value(encode(np.array([1.0, 2.0])), reference)              # shape
    assert not same_value(encode(np.array([[1, 2]])), reference)                # kind
    assert not same_value(encode(np.array([[float("nan"), 2.0]])), reference)
    assert same_value(encode([[1, 2], "float32"]), encode([[1, 2], "float32"]))
    assert not same_value(encode([[1, 2], "float64"]), encode([[1, 2], "float32"]))
    want = [{"name": "a", "value": reference}]
    assert disagreement([{"name": "a", "value": reference}], want) is None
    assert "stopped reporting" in disagreement([], want)
    assert "extra" in disagreement(want * 2, want)
    leaked = disagreement([{"name": "a", "value": encode(np.zeros((1, 2)))}], want)
    assert "1.0" not in leaked                                                  # no values leaked


def test_range_declared_observations_use_the_reference_range():
    """A measurement observed with `within` passes anywhere in the range that the reference run
    recorded, whatever range the student's run reports; the reference's own value must lie in
    it."""
    import numpy as np

    from attention_course.grading.observe import encode
    from attention_course.grading.verify import disagreement, reference_out_of_range

    def report(value, within=None):
        found = {"name": "variance", "value": encode(value)}
        return found if within is None else {**found, "within": list(within)}

    want = [report(1.02, (0.9, 1.1))]
    assert disagreement([report(0.95)], want) is None         # not the reference's value
    assert disagreement([report(np.float32(1.08))], want) is None     # a 0-d array
    assert disagreement([report(np.array([0.91]))], want) is None     # one element
    assert "outside the accepted range" in disagreement([report(1.2)], want)
    assert "outside the accepted range" in disagreement([report(1.2, (0.0, 9.0))], want)
    for wrong in (float("nan"), "1.0", True, [1.0], np.array([1.0, 1.0]), None):
        assert disagreement([report(wrong)], want) is not None, wrong
    assert "0.9" not in disagreement([report(1.2)], want)             # no range leaked
    assert "reported under another name" in disagreement([{**report(1.0), "name": "x"}], want)
    broken = [report(1.5, (0.9, 1.1))]                                # the reference outside
    assert "reference's own measurement" in disagreement([report(1.0)], broken)
    assert reference_out_of_range({"cell": [report(2.0), *broken]}) == ["cell: variance"]
    assert reference_out_of_range({"cell": want + [report(5.0)]}) == []
    # Without `within`, nothing changes: the reference's value within 1e-4.
    assert "other values" in disagreement([report(1.0)], [report(1.02)])


def test_observe_records_a_declared_range(monkeypatch):
    """observe(name, value, within=(low, high)) sends the range with the value; without
    `within` the report is as before (name and value only)."""
    import importlib

    observe_module = importlib.import_module("attention_course.grading.observe")   # the module
    shown = []
    monkeypatch.setenv("ATTENTION_COURSE_GRADING", "1")
    monkeypatch.setattr("IPython.display.display", lambda data, raw: shown.append(data))
    observe_module.observe("m", 1.5, within=(1, 2))
    observe_module.observe("v", 3)
    ranged, plain = (data[observe_module.MIME] for data in shown)
    assert ranged == {"name": "m", "value": {"py": 1.5}, "within": [1.0, 2.0]}
    assert plain == {"name": "v", "value": {"py": 3}}


def test_python_paths_under_tmp_stay_visible_in_the_sandbox(tmp_path, monkeypatch):
    """A course checked out under /tmp (as CI may do) binds its venv below /tmp: the sandbox's own
    /tmp must be mounted before those binds, or it hides the venv and every kernel fails to start."""
    import shutil

    if not shutil.which("bwrap"):
        pytest.fail("autograding needs bwrap: apt-get install bubblewrap")
    from attention_course.grading import launch

    venv = "/tmp/some-course/.venv"
    monkeypatch.setattr(launch, "read_only_paths", lambda: [venv])
    (tmp_path / "ipc").mkdir()
    connection = tmp_path / "connection.json"
    connection.write_text("{}")
    settings = {**launch.DEFAULTS, "private_dir": str(tmp_path), "uid": os.getuid()}
    command = launch.build_command(str(connection), [], str(tmp_path), settings)
    tmpfs_tmp = next(i for i in range(len(command) - 1) if command[i:i + 2] == ["--tmpfs", "/tmp"])
    venv_bind = next(i for i in range(len(command) - 2) if command[i:i + 3] == ["--ro-bind", venv, venv])
    assert tmpfs_tmp < venv_bind, "the sandbox's /tmp is mounted after (over) the Python paths under /tmp"


def test_a_grade_records_the_checks_digest(tmp_path):
    """What a regrade compares (execute.SandboxedExecute.record_checks_digest): the hash recorded in
    an autograded notebook's metadata, or None for a notebook graded before, or unreadable."""
    notebook = nbformat.v4.new_notebook()
    path = tmp_path / "graded.ipynb"
    nbformat.write(notebook, path)
    assert verify.recorded_checks_digest(path) is None
    notebook.metadata["attention_course"] = {"checks_digest": verify.checks_digest()}
    nbformat.write(notebook, path)
    assert verify.recorded_checks_digest(path) == verify.checks_digest() != "course_checks-missing"
    path.write_text("{not json")
    assert verify.recorded_checks_digest(path) is None
