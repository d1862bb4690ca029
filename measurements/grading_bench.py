"""Grading throughput: a generated class graded with 1, 2, ... workers (issue 38).

    python -m measurements.grading_bench [--students 100] [--workers 1 2] [--runs 3] [--first-run 0]
        [--assignments 01-rnn-bottleneck-pytorch 01-rnn-bottleneck-keras] [--sequential]
    make bench-grading

For each assignment: a class of N submissions like a real one (the solution, the declared
partly-right submissions, the blank release, notebooks edited as students edit them in three
states, late copies of the solution, and a few hostile ones from the course's hostile set that
end quickly: the crash, the flood, the broken file...; the ones that hang on purpose are left
out, since each costs its time limit by design) is released and graded in a copy of the course
by `python -m attention_course.grading.batch --force` with each number of workers, `--runs`
times; with `--sequential` also by `nbgrader autograde` once, and every score must be the same.
Then one solution is graded alone with timers around each stage (the per-notebook breakdown).
Each run is added to book/results/measured/grading_bench.json, and the table of book/timings.md
between its GRADING markers is rewritten from that file, with the projection to a class of 500
on 16 cores (its model is printed with it).

Run it on a quiet machine: every core is used.
"""
from __future__ import annotations

import argparse
import collections
import functools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from attention_course import measured

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))              # the grading tests' submission builders

DUE = "2026-01-15 12:00:00 UTC"
LATE_STAMP = "2026-01-16 09:30:00.000000 UTC"
# Shares of the class (the rest is the solution); hostile submissions that end quickly.
SHARES = {"partial": 0.20, "blank": 0.10, "edited": 0.15, "late": 0.10, "hostile": 0.04}
QUICK_HOSTILE = ("kernel_crash", "huge_output", "corrupt_json", "snooper", "patch_libraries",
                 "fake_helpers")
# Where one notebook's grading time goes, in the order it is spent.
STAGES = ("reading and repairing the file", "starting the sandbox and kernel",
          "first code cell (imports)", "the other cells (answers and tests)",
          "checking the tests against the reference", "stopping the kernel",
          "nbgrader's own steps (the rest)", "whole notebook")
PAGE = ROOT / "book" / "timings.md"
START, END = "<!-- GRADING START -->", "<!-- GRADING END -->"
NAME, SCRIPT = "grading_bench", "measurements/grading_bench.py"


# ------------------------------------------------------------------ the class
def kinds(assignment: str) -> dict[str, list[bytes]]:
    """{kind: [notebook file, ...]} that the class draws from."""
    import nbformat
    from harness.declarations import hostile_submissions, wrong_batches
    from harness.edits import edited_variants
    from harness.submissions import batch_submission, hostile_content

    def raw(path: Path) -> bytes:
        return path.read_bytes()

    solution = raw(ROOT / "solutions" / assignment / f"{assignment}.ipynb")
    found = {"solution": [solution], "late": [solution],
             "blank": [raw(ROOT / "exercises" / assignment / f"{assignment}.ipynb")],
             "partial": [nbformat.writes(batch_submission(assignment, batch)).encode()
                         for batch in wrong_batches(assignment)],
             "edited": [content for content, _, _ in edited_variants(assignment).values()],
             "hostile": [hostile_content(assignment, hostile) for hostile in hostile_submissions()
                         if hostile.student in QUICK_HOSTILE and assignment in hostile.assignments]}
    return {kind: files for kind, files in found.items() if files}


def class_of(assignment: str, students: int) -> dict[str, tuple[str, bytes]]:
    """{student: (kind, notebook file)} of a class of `students`, shares as in SHARES."""
    pool = kinds(assignment)
    plan = []
    for kind, share in SHARES.items():
        if kind in pool:
            plan += [kind] * round(share * students)
    plan += ["solution"] * (students - len(plan))
    counts = collections.Counter()
    found = {}
    for number, kind in enumerate(plan):
        files = pool[kind]
        found[f"{kind}-{number:03d}"] = (kind, files[counts[kind] % len(files)])
        counts[kind] += 1
    return found


def course_with(folder: Path, assignment: str, the_class: dict) -> "Course":
    from harness.course import Course

    course = Course.copy_of_repo(folder)
    course.release(assignment)
    course.nbgrader("db", "assignment", "add", assignment, f"--duedate={DUE}")
    for student, (kind, content) in the_class.items():
        submitted = course.root / "submitted" / student / assignment
        submitted.mkdir(parents=True)
        (submitted / f"{assignment}.ipynb").write_bytes(content)
        if kind == "late":
            (submitted / "timestamp.txt").write_text(LATE_STAMP)
    return course


def scores(course, assignment: str) -> dict[str, float]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course.root / 'gradebook.db'}") as gradebook:
        return {submission.student_id: (submission.score, submission.late_submission_penalty)
                for submission in gradebook.assignment_submissions(assignment)}


# ------------------------------------------------------------------ grading runs
def timed_batch(course, assignment: str, workers: int) -> float:
    from harness.course import kernel_env

    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "attention_course.grading.batch", assignment,
                    "--workers", str(workers), "--force"], cwd=course.root, env=kernel_env(),
                   check=True, capture_output=True, text=True)
    return time.perf_counter() - start


def timed_sequential(course, assignment: str) -> float:
    start = time.perf_counter()
    course.nbgrader("autograde", assignment, "--force", timeout=24 * 3600)
    return time.perf_counter() - start


def breakdown(assignment: str, folder: Path, repeats: int = 3) -> dict[str, float]:
    """Seconds per notebook in each stage, for the solution graded alone `repeats` times (after a
    first grading that runs the reference): measured in this process with timers around the
    course's and nbgrader's own functions."""
    from harness.course import kernel_env

    os.environ.update(kernel_env())
    solution = (ROOT / "solutions" / assignment / f"{assignment}.ipynb").read_bytes()
    course = course_with(folder, assignment, {f"s{n}": ("solution", solution)
                                              for n in range(repeats + 1)})
    from attention_course.grading import batch, execute, sanitize, verify

    totals = collections.Counter()
    first_cell = {}

    def timer(owner, name, label, first=False):
        original = getattr(owner, name)

        @functools.wraps(original)
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                seconds = time.perf_counter() - start
                if first:
                    executor = args[0]
                    cell = args[1]
                    if cell.cell_type == "code" and cell.source.strip() and id(executor) not in first_cell:
                        first_cell[id(executor)] = True
                        totals["first code cell (imports)"] += seconds
                        seconds = 0.0
                totals[label] += seconds
        setattr(owner, name, wrapper)

    timer(sanitize.RepairSubmission, "preprocess", "reading and repairing the file")
    timer(execute.SandboxedExecute, "start_new_kernel", "starting the sandbox and kernel")
    timer(execute.SandboxedExecute, "start_new_kernel_client", "starting the sandbox and kernel")
    timer(execute.SandboxedExecute, "preprocess_cell", "the other cells (answers and tests)", first=True)
    timer(execute.SandboxedExecute, "_cleanup_kernel", "stopping the kernel")
    timer(verify, "apply", "checking the tests against the reference")
    api = batch.grading_api(course.root, f"sqlite:///{course.root / 'gradebook.db'}")
    api.autograde(assignment, "s0", force=True, create=True)      # runs the reference once
    totals.clear()
    start = time.perf_counter()
    for number in range(1, repeats + 1):
        assert api.autograde(assignment, f"s{number}", force=True, create=True)["success"]
    whole = (time.perf_counter() - start) / repeats
    stages = {label: totals[label] / repeats for label in STAGES[:-2]}
    stages["nbgrader's own steps (the rest)"] = whole - sum(stages.values())
    stages["whole notebook"] = whole
    return stages


# ------------------------------------------------------------------ the page
def rates(runs: list[dict], assignment: str, workers: int) -> dict[int, float]:
    """{run number: submissions per minute} of `assignment` graded by `workers` workers."""
    return {run["seed"]: run["per_minute"] for run in runs
            if run["assignment"] == assignment and run["workers"] == workers}


def speed_up(runs: list[dict], assignment: str, workers: int) -> float | None:
    """The median over runs of (rate with `workers`) / (rate with one worker in the same run):
    each run grades with both one after the other, so a machine that is slower in one run than
    in another does not count as a speed-up."""
    one, many = rates(runs, assignment, 1), rates(runs, assignment, workers)
    ratios = [many[run] / one[run] for run in many if run in one]
    return statistics.median(ratios) if ratios else None


def projection(runs: list[dict], assignment: str) -> dict | None:
    """A class of 500 on 16 cores, from this processor's runs of `assignment`: the seconds per
    submission of one worker, divided by 16 times the per-worker efficiency measured with the
    most workers run here (assumed to hold up to 16, given one core and 3 GB per worker)."""
    most = max((run["workers"] for run in runs if run["assignment"] == assignment), default=1)
    found = speed_up(runs, assignment, most)
    if most == 1 or found is None:
        return None
    one = statistics.median(rates(runs, assignment, 1).values())
    efficiency = found / most
    return {"efficiency": efficiency, "workers_measured": most,
            "minutes": 500 / (one * 16 * efficiency)}


def page_section(recorded: dict) -> str:
    runs = recorded["runs"]
    by_processor = sorted({run["processor"] for run in runs})
    lines = ["| assignment | processor | workers | submissions | runs | per minute (median) | "
             "speed-up (median of runs) |", "|---|---|---|---|---|---|---|"]
    for processor in by_processor:
        mine = [run for run in runs if run["processor"] == processor]
        for assignment in sorted({run["assignment"] for run in mine}):
            size = max(run["students"] for run in mine if run["assignment"] == assignment)
            for workers in sorted({run["workers"] for run in mine if run["assignment"] == assignment}):
                found = rates(mine, assignment, workers)
                speed = speed_up(mine, assignment, workers)
                lines.append(f"| {assignment} | {processor} | {workers} | {size} | {len(found)} | "
                             f"{statistics.median(found.values()):.1f} | "
                             f"{'-' if speed is None else f'{speed:.2f}x'} |")
    lines.append("")
    for processor in by_processor:
        mine = [run for run in runs if run["processor"] == processor]
        for assignment in sorted({run["assignment"] for run in mine}):
            found = projection(mine, assignment)
            stages = next((run["breakdown"] for run in reversed(mine)
                           if run["assignment"] == assignment and run.get("breakdown")), None)
            if stages:
                parts = ", ".join(f"{label} {stages[label]:.2f} s" for label in STAGES)
                lines.append(f"- **{assignment}**, one notebook graded alone ({processor}): {parts}.")
            if found:
                lines.append(
                    f"- **{assignment}, projected** (a model, not a measurement): a class of 500 on "
                    f"16 cores in about {found['minutes']:.1f} minutes, assuming each of 16 workers "
                    f"keeps the efficiency measured here with {found['workers_measured']} "
                    f"({found['efficiency']:.0%} of a worker alone) and has a core and 3 GB of "
                    "memory to itself.")
    lines.append("")
    lines.append(f"Measured outside the test run by `{SCRIPT}` (`make bench-grading`); "
                 f"{len(runs)} runs recorded, the processor, commit and date of each in "
                 f"`book/results/measured/{NAME}.json`.")
    return "\n".join(lines)


def write_page() -> None:
    page = PAGE.read_text(encoding="utf-8")
    head, found, rest = page.partition(START)
    if not found:
        raise SystemExit(f"{PAGE} has no {START} marker")
    _, _, tail = rest.partition(END)
    PAGE.write_text(f"{head}{START}\n{page_section(measured.load(NAME))}\n{END}{tail}", encoding="utf-8")


# ------------------------------------------------------------------ main
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--first-run", type=int, default=0,
                        help="number of the first run (to add runs to those recorded)")
    parser.add_argument("--assignments", nargs="+",
                        default=["01-rnn-bottleneck-pytorch", "01-rnn-bottleneck-keras"])
    parser.add_argument("--sequential", action="store_true",
                        help="also grade with `nbgrader autograde` and compare every score")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="grading-bench-"))
    runs = []
    try:
        for assignment in args.assignments:
            the_class = class_of(assignment, args.students)
            print(f"{assignment}: {collections.Counter(kind for kind, _ in the_class.values())}")
            base = course_with(scratch / f"{assignment}-base", assignment, the_class)
            expected = None
            if args.sequential:
                course = copy_course(base, scratch / f"{assignment}-sequential")
                seconds = timed_sequential(course, assignment)
                expected = scores(course, assignment)
                print(f"  nbgrader autograde, one after the other: {seconds:.0f} s "
                      f"({len(the_class) / seconds * 60:.1f} per minute)", flush=True)
            stages = breakdown(assignment, scratch / f"{assignment}-breakdown")
            print("  breakdown (s per notebook): " + ", ".join(f"{k} {v:.2f}" for k, v in stages.items()))
            for run in range(args.first_run, args.first_run + args.runs):
                for workers in args.workers:
                    course = copy_course(base, scratch / f"{assignment}-{workers}-{run}")
                    seconds = timed_batch(course, assignment, workers)
                    if expected is not None:
                        assert scores(course, assignment) == expected, "a score differs"
                    rate = len(the_class) / seconds * 60
                    print(f"  run {run}, {workers} worker(s): {seconds:.0f} s, {rate:.1f} per minute",
                          flush=True)
                    runs.append({"seed": run, "arm": f"{assignment} workers={workers}",
                                 "assignment": assignment, "workers": workers,
                                 "students": len(the_class), "seconds": round(seconds, 1),
                                 "per_minute": round(rate, 2), "same_scores_as_nbgrader":
                                 expected is not None,
                                 "breakdown": {k: round(v, 3) for k, v in stages.items()}
                                 if run == args.first_run and workers == 1 else None})
                    shutil.rmtree(course.root, ignore_errors=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    measured.record(NAME, SCRIPT, "Grading throughput of a generated class with 1, 2, ... "
                    "workers (attention_course/grading/batch.py), and where one notebook's "
                    "grading time goes.", runs)
    write_page()
    print(page_section(measured.load(NAME)))


def copy_course(base, folder: Path):
    from harness.course import Course

    shutil.copytree(base.root, folder)
    return Course(folder)


if __name__ == "__main__":
    main()
