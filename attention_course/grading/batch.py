"""Grade every submission of an assignment with several sandboxed kernels at once, on this
machine or on a cluster, into the one gradebook.

    python -m attention_course.grading.batch ASSIGNMENT [--workers N] [--force] [--restart]
        [--scheduler tcp://HOST:8786] [--db URL]

Run it where ``nbgrader autograde`` runs (the course folder, with nbgrader_config.py). Each
submission is graded by nbgrader's own autograde (``NbGraderAPI.autograde``, one student at a
time, as the Formgrader does) in a Dask worker: the course's sandbox, late penalties, students
created once and the gradebook's rows are nbgrader's, and ``generate_feedback`` / ``export``
work afterwards as usual. ``nbgrader autograde`` keeps working as before.

Where it runs: ``--workers N`` starts N worker processes on this machine (Dask's LocalCluster;
default: one per core, at most one per 3 GB of memory); ``--scheduler`` sends the same work to
a running Dask cluster (``dask scheduler`` + ``dask worker`` on the nodes, or dask-jobqueue's
SLURMCluster / PBSCluster, or the Dask operator on Kubernetes). The workers need the course's
environment and bubblewrap, not the course folder: each task carries the submission, and the
workers of one machine share a copy of what grading reads (nbgrader_config.py, course.toml, the
assignment's source and release, the reference solution's cached observations) in a temporary
folder; the graded files come back to this folder's ``autograded/``. The gradebook must be one
that every worker reaches: on one machine the course's SQLite file, on a cluster a database
server (``--db postgresql+psycopg://user@host/gradebook``; nbgrader takes any SQLAlchemy URL).

Without ``--force`` the submissions graded already are skipped, as ``nbgrader autograde`` does
(a submission counts as graded when each of its notebooks is in ``autograded/`` complete, with
the checks' hash the sandbox records). With ``--force`` every submission is graded again. A run
that was killed is resumed by the same command: a journal in ``autograded/.batch/`` records
when an unfinished run began, and only what was not graded since is graded (``--restart``
ignores it). A submission is graded in one nbgrader call whose gradebook rows replace the old
ones, and its files are moved into ``autograded/`` only when it is done, so a killed run leaves
nothing half-graded behind that a rerun does not redo.
"""
from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import shutil
import socket
import sys
import tempfile
import time
from pathlib import Path

JOURNAL = ".batch"                     # in autograded/: {assignment}.json of an unfinished run
GRADED_KEY = "attention_course"        # metadata the sandbox writes into each graded notebook


# ------------------------------------------------------------------ the course folder (driver)
def course_config(root: Path):
    """The course's nbgrader configuration (nbgrader_config.py in `root`), as nbgrader loads it."""
    from traitlets.config.loader import PyFileConfigLoader

    if not (root / "nbgrader_config.py").is_file():
        sys.exit(f"{root} has no nbgrader_config.py: run this in the course folder")
    return PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()


def check_sandboxed(config) -> None:
    """Refuse to grade when the configuration would run student code outside the sandbox."""
    from .execute import SandboxedExecute

    preprocessors = config.get("Autograde", {}).get("autograde_preprocessors", [])
    if SandboxedExecute not in preprocessors:
        sys.exit("nbgrader_config.py does not run submissions in the course's sandbox "
                 "(SandboxedExecute in Autograde.autograde_preprocessors): refusing to grade")


def course_directory(root: Path, config):
    from nbgrader.coursedir import CourseDirectory

    return CourseDirectory(config=config, root=str(root))


def assignment_folder(coursedir, kind: str, student: str, assignment: str) -> Path:
    """`kind` is one of nbgrader's folders: source, release, submitted, autograded."""
    return Path(coursedir.format_path(getattr(coursedir, f"{kind}_directory"), student, assignment))


def submitted_students(coursedir, assignment: str) -> list[str]:
    """The students with a submission of `assignment`, sorted."""
    pattern = assignment_folder(coursedir, "submitted", "*", assignment)
    return sorted(path.parent.name for path in pattern.parent.parent.glob(f"*/{assignment}")
                  if path.is_dir())


def notebook_names(coursedir, assignment: str) -> list[str]:
    return sorted(p.name for p in assignment_folder(coursedir, "source", ".", assignment).glob("*.ipynb"))


def is_graded(folder: Path, notebooks: list[str], since: float | None) -> bool:
    """Is every notebook in `folder` (a student's autograded/ folder) complete, written at or after
    `since` (a time stamp, or None for any time)?"""
    for name in notebooks:
        path = folder / name
        try:
            metadata = json.loads(path.read_text()).get("metadata", {})
        except (OSError, ValueError):
            return False
        if "checks_digest" not in metadata.get(GRADED_KEY, {}):
            return False
        if since is not None and path.stat().st_mtime < since:
            return False
    return True


def folder_files(folder: Path) -> dict[str, bytes]:
    """{path relative to `folder`: content} of every file under it."""
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def write_files(folder: Path, files: dict[str, bytes]) -> None:
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)


def replace_folder(folder: Path, files: dict[str, bytes]) -> None:
    """Make `folder` hold exactly `files`, switching over in one rename (what a killed run left
    half-written beside it is removed first)."""
    for stale in folder.parent.glob(f".{folder.name}.*-*"):
        shutil.rmtree(stale, ignore_errors=True)
    partial = folder.with_name(f".{folder.name}.partial-{os.getpid()}")
    write_files(partial, files)
    if folder.exists():
        old = folder.with_name(f".{folder.name}.old-{os.getpid()}")
        os.replace(folder, old)
        os.replace(partial, folder)
        shutil.rmtree(old)
    else:
        folder.parent.mkdir(parents=True, exist_ok=True)
        os.replace(partial, folder)


def grading_bundle(root: Path, coursedir, assignment: str) -> dict[str, bytes]:
    """What a worker needs to grade `assignment`, besides the submission: the configuration, the
    manifest, the assignment's source and release, and the reference's cached observations."""
    bundle = {name: (root / name).read_bytes() for name in ("nbgrader_config.py", "course.toml")
              if (root / name).is_file()}
    for kind in ("source", "release"):
        folder = assignment_folder(coursedir, kind, ".", assignment)
        base = folder.relative_to(root)
        bundle.update({f"{base.as_posix()}/{name}": content
                       for name, content in folder_files(folder).items()})
    reference = reference_folder(root, coursedir, assignment)
    if reference.is_dir():
        bundle.update({f"{reference.relative_to(root).as_posix()}/{path.name}": path.read_bytes()
                       for path in reference.glob("*.json")})
    return bundle


def reference_folder(root: Path, coursedir, assignment: str) -> Path:
    return root / coursedir.autograded_directory / ".reference" / assignment


def default_workers() -> int:
    """One per core, at most one per 3 GB of memory (a Keras kernel takes about 1 GB)."""
    cores = len(os.sched_getaffinity(0))
    memory_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9
    return max(1, min(cores, int(memory_gb // 3)))


def sqlite_url_for_workers(url: str) -> str:
    """SQLite takes one writer at a time: let a worker wait for the lock instead of failing."""
    if url.startswith("sqlite:") and "timeout=" not in url:
        return url + ("&" if "?" in url else "?") + "timeout=120"
    return url


# ------------------------------------------------------------------ one submission (worker)
_APIS: dict[tuple[str, str], object] = {}
_HELD: dict[str, object] = {}          # bundle id -> this process's shared lock on its copy


def grading_base() -> Path:
    """This account's folder of course copies on this machine (0700: they hold solutions)."""
    base = Path(tempfile.gettempdir()) / f"attention-course-grading-{os.getuid()}"
    base.mkdir(mode=0o700, exist_ok=True)
    return base


def hold_bundle(base: Path, bundle_id: str) -> None:
    """Hold a shared lock on `<bundle_id>.use` while this process grades from that copy. A lock
    dies with its process, so the copies of a killed run are the ones nobody holds."""
    while bundle_id not in _HELD:
        path = base / f"{bundle_id}.use"
        handle = open(path, "a")
        fcntl.flock(handle, fcntl.LOCK_SH)
        with contextlib.suppress(FileNotFoundError):    # not swept away while we waited
            if os.stat(path).st_ino == os.fstat(handle.fileno()).st_ino:
                _HELD[bundle_id] = handle
                continue
        handle.close()


def sweep_stale_bundles(base: Path) -> list[str]:
    """Remove the copies, solutions and all, that killed runs left here: those whose lock no
    live process holds. Returns their bundle ids."""
    swept = []
    for path in base.glob("*.use"):
        try:
            handle = open(path)
        except FileNotFoundError:                        # another worker swept it first
            continue
        with handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:                      # a live run grades from it
                continue
            bundle_id = path.name.removesuffix(".use")
            shutil.rmtree(base / bundle_id, ignore_errors=True)
            (base / f"{bundle_id}.lock").unlink(missing_ok=True)
            path.unlink(missing_ok=True)
            swept.append(bundle_id)
    return swept


def worker_course(bundle_id: str, bundle: dict[str, bytes]) -> Path:
    """This machine's copy of the bundle (shared by its workers: the reference runs once)."""
    base = grading_base()
    if bundle_id not in _HELD:
        sweep_stale_bundles(base)
        hold_bundle(base, bundle_id)
    root = base / bundle_id
    with open(base / f"{bundle_id}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / ".ready").exists():
            write_files(root, bundle)
            (root / ".ready").touch()
    return root


def forget_bundle(bundle_id: str) -> None:
    """Remove this machine's copy of a run's bundle (it holds the solutions), at the run's end."""
    base = grading_base()
    for key in [key for key in _APIS if key[0] == str(base / bundle_id)]:
        del _APIS[key]
    shutil.rmtree(base / bundle_id, ignore_errors=True)
    (base / f"{bundle_id}.lock").unlink(missing_ok=True)
    (base / f"{bundle_id}.use").unlink(missing_ok=True)
    with contextlib.suppress(KeyError):
        _HELD.pop(bundle_id).close()


def grading_api(root: Path, db_url: str):
    """nbgrader's API for the course copy in `root`, made once per worker process."""
    key = (str(root), db_url)
    if key not in _APIS:
        from nbgrader.apps import NbGraderAPI

        config = course_config(root)
        check_sandboxed(config)
        config.CourseDirectory.db_url = db_url
        _APIS[key] = NbGraderAPI(coursedir=course_directory(root, config), config=config)
    return _APIS[key]


_SANDBOX_CHECKED: list[str] = []      # this worker process's sandbox check: "" = it works


def sandbox_problem() -> str:
    """Why the sandbox cannot start in this process ("" when it can), checked once."""
    if not _SANDBOX_CHECKED:
        from .launch import SandboxUnavailable, check_sandbox

        try:
            check_sandbox()
            _SANDBOX_CHECKED.append("")
        except SandboxUnavailable as error:
            _SANDBOX_CHECKED.append(str(error))
    return _SANDBOX_CHECKED[0]


def grade_submission(task: dict, bundle: dict[str, bytes]) -> dict:
    """Grade one student's submission (a Dask task). Returns the student, whether nbgrader
    succeeded, the seconds, the end of its log, the graded files and any new reference cache."""
    start = time.perf_counter()
    problem = sandbox_problem()
    if problem:                                       # no student code runs on such a worker
        return {"student": task["student"], "success": False, "seconds": 0.0, "files": {},
                "log": f"the grading sandbox cannot start on this worker: {problem}", "reference": {}}
    root = worker_course(task["bundle_id"], bundle)
    api = grading_api(root, task["db_url"])
    coursedir = api.coursedir
    student, assignment = task["student"], task["assignment"]
    submitted = assignment_folder(coursedir, "submitted", student, assignment)
    graded = assignment_folder(coursedir, "autograded", student, assignment)
    for folder in (submitted, graded):
        shutil.rmtree(folder, ignore_errors=True)
    write_files(submitted, task["files"])
    try:
        result = api.autograde(assignment, student, force=True, create=True)
        files = folder_files(graded) if result["success"] else {}
    finally:
        for folder in (submitted, graded):              # no student's work stays on the worker
            shutil.rmtree(folder.parent if folder.parent.name == student else folder,
                          ignore_errors=True)
    reference = reference_folder(root, coursedir, assignment)
    log = result.get("log") or ""
    return {"student": student, "success": bool(result["success"]),
            "seconds": time.perf_counter() - start, "files": files,
            "worker": f"{socket.gethostname()}:{os.getpid()}",
            "warnings": notable_lines(log),
            "log": log[-4000:] + (result.get("error") or "")[-4000:],
            "reference": {path.name: path.read_bytes() for path in reference.glob("*.json")}}


def notable_lines(log: str) -> str:
    """The WARNING and ERROR messages of nbgrader's log (with their continuation lines): what
    the instructor guide tells instructors to read (repairs, limits hit, failed checks)."""
    kept, keeping = [], False
    for line in log.splitlines():
        if line.startswith("["):
            keeping = line.startswith(("[WARNING]", "[ERROR]"))
        if keeping:
            kept.append(line)
    return "\n".join(kept)


# ------------------------------------------------------------------ the class (driver)
class Journal:
    """autograded/.batch/<assignment>.json: when the unfinished run of this assignment began."""

    def __init__(self, autograded: Path, assignment: str):
        self.path = autograded / JOURNAL / f"{assignment}.json"

    def begun(self) -> float | None:
        try:
            return float(json.loads(self.path.read_text())["started"])
        except (OSError, ValueError, KeyError):
            return None

    def begin(self, started: float) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps({"started": started}))

    def end(self) -> None:
        self.path.unlink(missing_ok=True)


def plan(root: Path, coursedir, assignment: str, force: bool, restart: bool, say=print):
    """(every student who submitted, those to grade, the journal). Only a --force run needs a
    journal: without --force, a rerun skips what is graded already anyway."""
    students = submitted_students(coursedir, assignment)
    journal = Journal(root / coursedir.autograded_directory, assignment)
    since = None if restart else journal.begun()
    if since is not None:
        say(f"resuming the run of {assignment} begun {time.ctime(since)} "
            "(--restart to start again)")
    elif force:
        since = time.time()
        journal.begin(since)
    notebooks = notebook_names(coursedir, assignment)
    todo = [student for student in students if not is_graded(
        assignment_folder(coursedir, "autograded", student, assignment), notebooks, since)]
    return students, todo, journal


class Progress:
    """done / total, failures, submissions per minute and the time left, one line per result."""

    def __init__(self, total: int, say=print):
        self.total, self.done, self.failed, self.say = total, 0, [], say
        self.start = time.perf_counter()

    def add(self, result: dict) -> None:
        self.done += 1
        if not result["success"]:
            self.failed.append(result["student"])
        elapsed = time.perf_counter() - self.start
        rate = self.done / elapsed * 60
        left = (self.total - self.done) / (self.done / elapsed)
        self.say(f"[{self.done:>{len(str(self.total))}}/{self.total}] {result['student']}: "
                 f"{'graded' if result['success'] else 'FAILED'} in {result['seconds']:.1f} s; "
                 f"{len(self.failed)} failed, {rate:.1f} per minute, about {left / 60:.1f} min left")


@contextlib.contextmanager
def dask_client(workers: int, scheduler: str | None):
    """A Dask client of the cluster at `scheduler`, or of `workers` processes started here for
    this run (closed with it)."""
    from dask.distributed import Client, LocalCluster

    if scheduler:
        with Client(scheduler) as client:
            yield client
        return
    with tempfile.TemporaryDirectory(prefix="attention-course-dask-") as scratch, \
            LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, memory_limit=0,
                         dashboard_address=None, local_directory=scratch) as cluster, \
            Client(cluster) as client:
        yield client


def grade_class(root: Path, assignment: str, workers: int | None = None, force: bool = False,
                restart: bool = False, scheduler: str | None = None, db_url: str | None = None,
                say=print) -> dict:
    """Grade the submissions of `assignment` in the course folder `root`; returns
    {"graded": [...], "failed": [...], "skipped": [...], "seconds": wall time, "workers": how
    many worker processes graded}."""
    from dask.distributed import as_completed

    root = root.resolve()
    config = course_config(root)
    check_sandboxed(config)
    if not scheduler and sandbox_problem():           # before any student code runs
        raise SystemExit(f"No submission was graded: {sandbox_problem()}")
    coursedir = course_directory(root, config)
    students, todo, journal = plan(root, coursedir, assignment, force, restart, say)
    skipped = sorted(set(students) - set(todo))
    say(f"{assignment}: {len(students)} submissions, {len(todo)} to grade, "
        f"{len(skipped)} graded already")
    start = time.perf_counter()
    if not todo:
        journal.end()
        return {"graded": [], "failed": [], "skipped": skipped, "seconds": 0.0, "workers": 0}
    bundle = grading_bundle(root, coursedir, assignment)
    bundle_id = f"{assignment}-{os.getpid()}-{int(time.time())}"
    url = sqlite_url_for_workers(db_url or coursedir.db_url)
    progress, graded, workers_used = Progress(len(todo), say), [], set()
    with dask_client(workers or default_workers(), scheduler) as client:
        shared = client.scatter(bundle, broadcast=True)
        futures = [client.submit(grade_submission, {
            "bundle_id": bundle_id, "db_url": url, "assignment": assignment, "student": student,
            "files": folder_files(assignment_folder(coursedir, "submitted", student, assignment)),
        }, shared, key=f"grade-{assignment}-{student}-{bundle_id}", pure=False)
            for student in todo]
        try:
            for future in as_completed(futures):
                result = future.result()
                keep_result(root, coursedir, assignment, result)
                if result.get("warnings"):
                    say(indented(result["student"], result["warnings"]))
                progress.add(result)
                workers_used.add(result.get("worker"))
                if result["success"]:
                    graded.append(result["student"])
                else:
                    say(f"nbgrader failed on {result['student']}; its log ends with:\n"
                        f"{result['log']}")
        finally:                                      # a lost worker or ^C: still no copy left
            client.run(forget_bundle, bundle_id)
    if not progress.failed:
        journal.end()
    return {"graded": sorted(graded), "failed": sorted(progress.failed), "skipped": skipped,
            "seconds": time.perf_counter() - start, "workers": len(workers_used - {None})}


def indented(student: str, text: str) -> str:
    return "\n".join(f"  {student}: {line}" for line in text.splitlines())


def keep_result(root: Path, coursedir, assignment: str, result: dict) -> None:
    """Move a graded submission's files into autograded/, and keep a new reference cache."""
    if result["success"]:
        replace_folder(assignment_folder(coursedir, "autograded", result["student"], assignment),
                       result["files"])
    reference = reference_folder(root, coursedir, assignment)
    for name, content in result["reference"].items():
        if not (reference / name).exists():
            write_files(reference, {name: content})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("assignment")
    parser.add_argument("--workers", type=int, default=None,
                        help=f"worker processes on this machine (default here: {default_workers()})")
    parser.add_argument("--force", action="store_true", help="grade every submission again")
    parser.add_argument("--restart", action="store_true",
                        help="ignore an unfinished run's journal instead of resuming it")
    parser.add_argument("--scheduler", help="a running Dask scheduler's address (a cluster)")
    parser.add_argument("--db", help="the gradebook's SQLAlchemy URL (default: the course's)")
    args = parser.parse_args(argv)
    summary = grade_class(Path.cwd(), args.assignment, args.workers, args.force, args.restart,
                          args.scheduler, args.db)
    print(f"{len(summary['graded'])} graded, {len(summary['failed'])} failed, "
          f"{len(summary['skipped'])} skipped, in {summary['seconds']:.0f} s "
          f"by {summary['workers']} worker processes")
    if summary["failed"]:
        print("failed (rerun the same command to retry them): " + ", ".join(summary["failed"]))
    return 1 if summary["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
