"""Grading a class in parallel (issue 38): `python -m attention_course.grading.batch`, run for real.

One class of one PyTorch assignment (the solution, the blank release, the declared wrong
submissions, a late copy of the solution, a student who pasted the course's code) is graded
four ways, each in its own copy of the course, and every cell of every student must get the
same score (the late penalty included) as `nbgrader autograde` gives one after the other:

- the batch with 2 local Dask workers, sharing the course's SQLite gradebook;
- a batch run killed with SIGKILL after its second result, then the same command again: the
  rerun resumes (grades only what the killed run had not finished), leaves no row without
  its scores, and removes the copy of the assignment (solutions included) that the killed run
  left in the temporary folder;
- a real Dask cluster (`dask scheduler` and two `dask worker` processes, each with its own
  temporary folder) with the gradebook on a real PostgreSQL server that the test starts
  (Debian's `postgresql`, as `.ci/run` installs it).

Kernels graded side by side hold distinct user ids (`sandbox.lease_uid`). Needs bubblewrap, as
every grading test; the PostgreSQL test is skipped without PostgreSQL, and fails under CI=true.
"""
from __future__ import annotations

import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

from harness.course import REPO, Course, kernel_env
from harness.declarations import wrong_batches
from harness.importers import STUDENT as IMPORTER, importer_submission
from harness.services import free_port, unavailable
from harness.submissions import batch_submission

ASSIGNMENT = "03-self-attention-pytorch"
DUE = "2026-01-15 12:00:00 UTC"
LATE_STAMP = "2026-01-16 09:30:00.000000 UTC"
# nbgrader's own late rule, so that the late student's score shows that it was applied.
LATE_CONFIG = 'c.LateSubmissionPlugin.penalty_method = "zero"\n'
BATCH = [sys.executable, "-m", "attention_course.grading.batch", ASSIGNMENT]


def class_notebooks(folder: Path) -> dict[str, Path]:
    """student -> notebook of the class graded in every test."""
    solution = REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    found = {"solved": solution, "late": solution,
             "blank": REPO / "exercises" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"}
    # Two batches of declared mistakes (partial scores) are enough here: the round trip grades all.
    built = {batch.student: batch_submission(ASSIGNMENT, batch)
             for batch in wrong_batches(ASSIGNMENT)[:2]}
    built[IMPORTER] = importer_submission(ASSIGNMENT)[0]
    for student, notebook in built.items():
        found[student] = folder / f"{student}.ipynb"
        nbformat.write(notebook, found[student])
    return found


def course_with_class(folder: Path, notebooks: dict[str, Path], config: str = "") -> Course:
    course = Course.copy_of_repo(folder, config=LATE_CONFIG + config)
    course.release(ASSIGNMENT)
    course.nbgrader("db", "assignment", "add", ASSIGNMENT, f"--duedate={DUE}")
    for student, notebook in notebooks.items():
        course.submit(ASSIGNMENT, student, notebook)
    (course.root / "submitted" / "late" / ASSIGNMENT / "timestamp.txt").write_text(LATE_STAMP)
    return course


def class_scores(course: Course, students, db_url: str | None = None) -> dict[str, dict]:
    """{student: {grade_id: score, "(late penalty)": ..., "(total)": ...}} from the gradebook."""
    from nbgrader.api import Gradebook

    scores = {}
    with Gradebook(db_url or f"sqlite:///{course.root / 'gradebook.db'}") as gradebook:
        for student in students:
            submission = gradebook.find_submission(ASSIGNMENT, student)
            grades = {grade.name: grade.auto_score for grade in submission.notebooks[0].grades}
            assert None not in grades.values(), f"{student} has a grade row without its score"
            scores[student] = {**grades, "(late penalty)": submission.late_submission_penalty,
                               "(total)": submission.score}
    return scores


def run_batch(course: Course, *args: str, timeout: float = 600,
              env: dict | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run([*BATCH, *args], cwd=course.root, env=env or kernel_env(), text=True,
                            capture_output=True, timeout=timeout)
    assert result.returncode == 0, f"batch failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


@pytest.fixture(scope="module")
def the_class(tmp_path_factory):
    return class_notebooks(tmp_path_factory.mktemp("class"))


@pytest.fixture(scope="module")
def sequential(tmp_path_factory, the_class):
    """The class graded by `nbgrader autograde`, one submission after the other."""
    course = course_with_class(tmp_path_factory.mktemp("sequential"), the_class)
    course.nbgrader("autograde", ASSIGNMENT, "--force", timeout=900)
    return class_scores(course, the_class)


def test_the_class_tests_what_it_should(sequential):
    """The comparison means something: full marks, zero, partial scores, the late rule applied."""
    totals = {student: scores["(total)"] for student, scores in sequential.items()}
    full = totals["solved"]
    assert full > 0 and totals["blank"] == 0
    # nbgrader keeps the score and records the penalty beside it (export subtracts it).
    assert sequential["late"]["(late penalty)"] == full and sequential["solved"]["(late penalty)"] == 0
    assert any(0 < total < full for total in totals.values()), totals


def test_two_workers_grade_as_nbgrader_does(tmp_path, the_class, sequential):
    course = course_with_class(tmp_path / "course", the_class)
    result = run_batch(course, "--workers", "2", "--force")
    assert f"{len(the_class)} graded, 0 failed" in result.stdout
    assert f"[{len(the_class)}/{len(the_class)}]" in result.stdout        # progress lines
    assert "by 2 worker processes" in result.stdout
    assert class_scores(course, the_class) == sequential
    # A second run without --force skips them all, as `nbgrader autograde` does.
    again = run_batch(course, "--workers", "2")
    assert f"0 graded, 0 failed, {len(the_class)} skipped" in again.stdout
    # The usual steps work afterwards on what the batch wrote.
    course.feedback(ASSIGNMENT)
    full = sequential["solved"]["(total)"]
    assert f"Score: {full:.1f} / {full:.1f}" in course.feedback_html(ASSIGNMENT, "solved")
    rows = {row["student_id"]: row for row in course.export() if row["assignment"] == ASSIGNMENT}
    assert float(rows["solved"]["score"]) == sequential["solved"]["(total)"]


def test_a_killed_run_resumes_and_finishes_right(tmp_path, the_class, sequential):
    course = course_with_class(tmp_path / "course", the_class)
    temporary = tmp_path / "tmp"                     # where the workers keep their course copy
    temporary.mkdir()
    env = {**kernel_env(), "TMPDIR": str(temporary)}
    run = subprocess.Popen([*BATCH, "--workers", "2", "--force"], cwd=course.root, env=env,
                           text=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           start_new_session=True)
    finished = []
    for line in run.stdout:                          # kill it after its second result
        if line.startswith("["):
            finished.append(line)
        if len(finished) == 2:
            os.killpg(run.pid, signal.SIGKILL)
            break
    run.wait(timeout=60)
    assert len(finished) == 2, "the batch ended before it could be killed"
    copies = temporary / f"attention-course-grading-{os.getuid()}"
    left = [path for path in copies.iterdir() if path.is_dir()]
    assert len(left) == 1 and (left[0] / "nbgrader_config.py").exists()  # the killed run's copy
    result = run_batch(course, "--workers", "2", "--force", env=env)
    assert "resuming the run" in result.stdout
    graded = int(result.stdout.rsplit(" graded,", 1)[0].rsplit("\n", 1)[-1])
    assert 0 < graded <= len(the_class) - 2, result.stdout
    assert class_scores(course, the_class) == sequential
    assert not (course.root / "autograded" / ".batch" / f"{ASSIGNMENT}.json").exists()
    # The rerun removed the copy the killed run left (it holds the solutions) and its own.
    assert not list(copies.iterdir()), sorted(path.name for path in copies.iterdir())


# ------------------------------------------------------------------ a cluster: Dask + PostgreSQL
def postgres_bin() -> Path | None:
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    return found[-1].parent if found else None


@pytest.fixture(scope="module")
def postgres():
    """A real PostgreSQL server in a temporary folder (as the `postgres` user when run as root:
    the server refuses root); yields a SQLAlchemy URL of an empty database."""
    binaries = postgres_bin()
    if binaries is None:
        unavailable("PostgreSQL is not installed (apt-get install postgresql)")
    folder = Path(tempfile.mkdtemp(prefix="attention-course-pg-"))
    os.chmod(folder, 0o755)
    as_user = []
    if os.geteuid() == 0:
        owner = pwd.getpwnam("postgres")
        os.chown(folder, owner.pw_uid, owner.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    data, port = folder / "data", free_port()
    subprocess.run([*as_user, binaries / "initdb", "-D", data, "-U", "grader", "--auth=trust"],
                   check=True, capture_output=True)
    subprocess.run([*as_user, binaries / "pg_ctl", "-D", data, "-w", "-l", folder / "log", "-o",
                    f"-p {port} -k {folder} -c listen_addresses=127.0.0.1", "start"],
                   check=True, capture_output=True)
    try:
        subprocess.run([*as_user, binaries / "createdb", "-h", "127.0.0.1", "-p", str(port), "-U",
                        "grader", "gradebook"], check=True, capture_output=True)
        yield f"postgresql+psycopg://grader@127.0.0.1:{port}/gradebook"
    finally:
        subprocess.run([*as_user, binaries / "pg_ctl", "-D", data, "-m", "immediate", "stop"],
                       capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def dask_cluster(tmp_path):
    """A Dask scheduler and two workers, separate processes, each worker with its own folder."""
    dask = str(Path(sys.executable).parent / "dask")
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    processes = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                   "--no-dashboard"], env=kernel_env(), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)]
    for number in (1, 2):
        own = tmp_path / f"worker{number}"
        own.mkdir()
        env = {**kernel_env(), "TMPDIR": str(own)}            # its own course copy (batch.py)
        processes.append(subprocess.Popen(
            [dask, "worker", address, "--nthreads", "1", "--nworkers", "1", "--memory-limit", "0",
             "--local-directory", str(own), "--no-dashboard"], env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    try:
        from dask.distributed import Client

        with Client(address, timeout=60) as client:
            client.wait_for_workers(2, timeout=120)
        yield address, [tmp_path / "worker1", tmp_path / "worker2"]
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


def test_a_dask_cluster_grades_into_postgresql(tmp_path, the_class, sequential, postgres, dask_cluster):
    address, worker_folders = dask_cluster
    course = course_with_class(tmp_path / "course", the_class,
                               config=f'c.CourseDirectory.db_url = "{postgres}"\n')
    assert not (course.root / "gradebook.db").exists()             # the release went to PostgreSQL
    result = run_batch(course, "--scheduler", address, "--force")
    assert f"{len(the_class)} graded, 0 failed" in result.stdout
    assert class_scores(course, the_class, postgres) == sequential
    # Both workers graded, each from its own temporary folder, and left nothing there (their
    # copy of the assignment holds the solutions, and the students' files).
    assert "by 2 worker processes" in result.stdout
    for folder in worker_folders:
        assert list(folder.glob("attention-course-grading-*")), f"{folder.name} had no course copy"
        assert not list(folder.glob("attention-course-grading-*/*")), "a worker kept files"


# ------------------------------------------------------------------ user ids
def test_concurrent_kernels_never_share_a_user_id(tmp_path):
    from attention_course.grading.sandbox import lease_uid

    held = [lease_uid(5_000_000, 5_000_009) for _ in range(10)]     # every id of the range
    assert len({uid for uid, _ in held}) == 10
    with pytest.raises(RuntimeError, match="no free user id"):
        lease_uid(5_000_000, 5_000_009, tries=200)
    uid, handle = held.pop()
    os.close(handle)                                                 # a kernel ends: its id is free
    assert lease_uid(5_000_000, 5_000_009, tries=500)[0] == uid
    # Across processes too: a second process cannot take an id this one holds, even with a
    # temporary folder of its own (as a batch system gives each job, and dask_cluster each worker).
    probe = ("from attention_course.grading.sandbox import lease_uid\n"
             "try:\n    lease_uid(5_000_000, 5_000_009, tries=200)\nexcept RuntimeError:\n"
             "    print('none free')\n")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                            env={**os.environ, "TMPDIR": str(tmp_path)})
    assert result.stdout.strip() == "none free"


def test_the_user_id_locks_live_where_every_grader_of_the_machine_finds_them(tmp_path):
    """One folder per machine and account, whatever $TMPDIR says; /tmp where /run is read-only
    (a container's), checked in a mount namespace whose /run is read-only."""
    probe = "from attention_course.grading.sandbox import uid_lock_folder; print(uid_lock_folder())"
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    found = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                           check=True).stdout.strip()
    writable_run = os.geteuid() == 0 and os.access("/run", os.W_OK)
    assert found == f"{'/run' if writable_run else '/tmp'}/attention-course-uids-{os.geteuid()}"
    read_only = subprocess.run(["bwrap", "--dev-bind", "/", "/", "--ro-bind", "/run", "/run",
                                sys.executable, "-c", probe], env=env, capture_output=True,
                               text=True, check=True).stdout.strip()
    assert read_only == f"/tmp/attention-course-uids-{os.geteuid()}"
