"""Shared pytest set-up: quiet frameworks, one thread per worker, notebook timings.

It sits at the repository root so that its hooks see the book/ notebooks too.

nbval executes each chapter's two split notebooks (`notebooks/NN_topic-keras.ipynb` and
`-pytorch.ipynb`, written by `python -m course_tools.split`), not the combined chapter:
each in a kernel that cannot import the other framework (tests/one_framework/), which proves
that a student needs only one framework installed.

The run time of every nbval cell is added up per notebook and per framework
tag (keras / pytorch / shared) and written to .timings/<notebook>.json at the
end of the run; `python -m course_tools.timings` turns those files into
the table in book/timings.md.

The text of every cell's outputs in this execution (ignored cells included) goes to
.timings/outputs/<notebook>.json, and the results files the chapters wrote to
.timings/results/: `python -m course_tools.reproduce` checks with them that the
numbers the prose states come out of this second execution too.
"""
import json
import os
import shutil
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import pytest

from course_tools import split

ROOT = Path(__file__).resolve().parent
ONE_FRAMEWORK = ROOT / "tests" / "one_framework"      # its sitecustomize hides the other one
# The test harness (tests/harness/) and the shared test helpers (tests/*.py) import from tests/,
# also for the test modules in the chapter folders (tests/chapters/chNN_<name>/), whose own folder
# is all that pytest puts on sys.path (so every test module's name must be unique).
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))

# Notebooks under tests/ are grading fixtures (submissions), not notebooks for nbval.
collect_ignore_glob = ["tests/fixtures/**/*"]

# Set before any framework is imported; the notebook kernels inherit them.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
# Chapters re-executed by the tests write their results files here, not over the committed
# book/results/ (see attention_course/results.py): a test run changes no tracked file.
os.environ.setdefault("COURSE_RESULTS_OUT", tempfile.mkdtemp(prefix="course-results-"))
if os.environ.get("PYTEST_XDIST_WORKER"):
    # Two workers on two cores: one thread each, in both frameworks.
    os.environ.setdefault("COURSE_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")



def pytest_ignore_collect(collection_path, config):
    """The combined chapters are the book's source; the test run executes their splits."""
    path = Path(collection_path)
    if path.suffix == ".ipynb" and path.parent == ROOT / "book":
        named = {Path(arg.split("::")[0]).resolve() for arg in config.args}
        return None if path.resolve() in named else True    # unless named on the command line
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Before nbval starts a split notebook's kernel (at its first cell), tell the kernel's
    start-up which framework it may import; any other notebook gets both."""
    framework = split.framework_of(Path(str(item.path)))
    if framework is None:
        os.environ.pop("COURSE_ONLY_FRAMEWORK", None)
        return
    os.environ["COURSE_ONLY_FRAMEWORK"] = framework
    paths = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    if str(ONE_FRAMEWORK) not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([str(ONE_FRAMEWORK), *filter(None, paths)])


_seconds = defaultdict(lambda: defaultdict(float))   # notebook -> framework -> seconds
_outputs = defaultdict(dict)                          # notebook -> cell id -> output text
_failed = set()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Label each notebook cell's report with its framework tag (survives xdist)."""
    outcome = yield
    report = outcome.get_result()
    cell = getattr(item, "cell", {})
    tags = cell.get("metadata", {}).get("tags", [])
    report.framework = next((t for t in ("keras", "pytorch") if t in tags), "shared")
    outputs = getattr(item, "test_outputs", None)      # nbval's record of this execution
    if call.when == "call" and outputs is not None:
        from course_tools.prose_numbers import output_texts
        report.cell_outputs = [cell.get("id") or item.name,
                               output_texts([{"cell_type": "code", "outputs": outputs}])]


def pytest_runtest_logreport(report):
    notebook = report.nodeid.split("::")[0]
    if not notebook.endswith(".ipynb"):
        return
    if report.when == "call":
        _seconds[notebook][getattr(report, "framework", "shared")] += report.duration
        if getattr(report, "cell_outputs", None):
            cell_id, text = report.cell_outputs
            _outputs[notebook][cell_id] = text
    if report.failed:
        _failed.add(notebook)


def pytest_sessionfinish(session, exitstatus):
    if os.environ.get("PYTEST_XDIST_WORKER") or not _seconds:
        return
    out = ROOT / ".timings"
    out.mkdir(exist_ok=True)
    workers = getattr(session.config.option, "numprocesses", None) or 1
    for notebook, seconds in _seconds.items():
        if not (session.config.rootpath / notebook).resolve().is_relative_to(ROOT):
            continue        # a notebook outside the course (tests/test_split.py's probes)
        record = {"notebook": notebook, "passed": notebook not in _failed,
                  "cpus": os.cpu_count(), "parallel_notebooks": workers,
                  "seconds": {k: round(v, 1) for k, v in sorted(seconds.items())},
                  "total": round(sum(seconds.values()), 1)}
        (out / (Path(notebook).stem + ".json")).write_text(json.dumps(record, indent=1) + "\n")
        if notebook in _outputs:
            (out / "outputs").mkdir(exist_ok=True)
            (out / "outputs" / (Path(notebook).stem + ".json")).write_text(
                json.dumps({"notebook": notebook, "outputs": _outputs[notebook]}, indent=1,
                           ensure_ascii=False) + "\n")
    written = Path(os.environ["COURSE_RESULTS_OUT"])
    if any(written.glob("*.json")):
        (out / "results").mkdir(exist_ok=True)
        for results in written.glob("*.json"):
            shutil.copy(results, out / "results" / results.name)
