"""The test run must keep every cell of a notebook on one worker, in order, in one kernel.

nbval runs a notebook cell by cell as separate pytest items. Under pytest-xdist, a distribution
mode that sends single items to whichever worker is free splits a notebook: a later cell runs in a
fresh kernel that never saw the imports, and fails with a NameError. This happened for real: with
pytest 9, `--dist loadgroup` silently stopped grouping (pytest-xdist 3.8 renames `item._nodeid`,
which pytest 9 no longer reads). This test runs a small notebook, whose cells each depend on the one
before, with the exact pytest options of the Makefile's `test` target.
"""
import re
import shlex
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def makefile_test_options() -> list[str]:
    """The options after `-m pytest` in the Makefile's test recipe, with $(JOBS) set to 2."""
    recipe = re.search(r"^test:.*\n\t(.+)$", (ROOT / "Makefile").read_text(), flags=re.M).group(1)
    options = recipe.split("-m pytest", 1)[1].replace("$(JOBS)", "2")
    return shlex.split(options)


def chained_notebook(cells: int) -> nbformat.NotebookNode:
    """Cell 0 sets a counter, each later cell adds one, the last checks the count."""
    sources = ["count = 0"] + ["count += 1"] * (cells - 2) + [f"assert count == {cells - 2}"]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    return notebook


def test_the_makefile_options_run_a_notebook_on_one_worker(tmp_path):
    options = makefile_test_options()
    assert "-n" in options, "the Makefile no longer runs the tests on several workers"
    for name in ("first", "second"):   # two notebooks, so both workers have work
        nbformat.write(chained_notebook(12), tmp_path / f"{name}.ipynb")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *options, "-p", "no:cacheprovider", "-q",
         "--rootdir", str(tmp_path), "-c", str(tmp_path / "pytest.ini"), str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "24 passed" in run.stdout, run.stdout[-2000:]
