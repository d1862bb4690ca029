"""Adding a chapter is an entry in course.toml and the chapter's own files; everything else is
generated. In a copy of the course, a dummy chapter 9 with one assignment (PyTorch only) is added
by hand (the manifest entry, its notebook, its solution), `make generate` picks it up everywhere,
`make check` passes, and the assignment round-trips: the solution gets full marks, the blank
release zero."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from harness.course import REPO, Course, kernel_env

pytestmark = pytest.mark.slow

ASSIGNMENT = "09-dummy-pytorch"
ENTRY = """
[[chapters]]
number = 9
name = "dummy"
title = "A dummy chapter"
short = "A dummy chapter"
papers = ["vaswani2017"]
modules = []
assignment = "09-dummy"
marks = 3
frameworks = ["pytorch"]

[chapters.variation]
cells = ["double"]
"""
ANSWER = '''def double(x):
    """Twice x."""
    ### BEGIN SOLUTION
    return 2 * x
    ### END SOLUTION'''
TESTS = '''# Tests (3 points): double(2) here, more when your work is graded.
assert double(2) == 4, "double(2) should be 4"
### BEGIN HIDDEN TESTS
from attention_course.grading import observe as _observe   # checked by the grader, outside the kernel
assert double(-7) == -14, "double(-7) should be -14"
_observe("double(-7)", double(-7))
### END HIDDEN TESTS'''


def _nbgrader(cell, grade_id, **flags):
    cell.metadata["nbgrader"] = {"grade_id": grade_id, "schema_version": 3, "grade": False,
                                 "solution": False, "locked": False, **flags}
    return cell


def _notebook(*cells) -> nbformat.NotebookNode:
    notebook = nbformat.v4.new_notebook(cells=list(cells))
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for index, cell in enumerate(notebook.cells):
        cell.id = f"dummy-{index}"
    return notebook


def _add_chapter_by_hand(root: Path) -> None:
    """What a maintainer writes: the manifest entry, the chapter, the assignment's solution."""
    with open(root / "course.toml", "a", encoding="utf-8") as manifest:
        manifest.write(ENTRY)
    chapter = _notebook(nbformat.v4.new_markdown_cell("# 9. A dummy chapter\n\nDoubling numbers."),
                        nbformat.v4.new_code_cell("print(2 * 21)"))
    nbformat.write(chapter, root / "book" / "09_dummy.ipynb")
    solution = _notebook(
        nbformat.v4.new_markdown_cell("# Assignment 9: double a number"),
        _nbgrader(nbformat.v4.new_code_cell(ANSWER), "double", solution=True),
        _nbgrader(nbformat.v4.new_code_cell(TESTS), "test_double", grade=True, locked=True, points=3))
    folder = root / "solutions" / ASSIGNMENT
    folder.mkdir(parents=True)
    nbformat.write(solution, folder / f"{ASSIGNMENT}.ipynb")


def _copy_of_the_repository(dest: Path) -> Path:
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in tracked.decode().split("\0"):
        if name and (REPO / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, dest / name)
    return dest


def _tools(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**kernel_env(), "COURSE_ROOT": str(root)}
    return subprocess.run([sys.executable, "-m", "course_tools.generate", *args], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)


def test_a_new_chapter_is_one_manifest_entry_and_its_own_files(tmp_path):
    root = _copy_of_the_repository(tmp_path / "course")
    _add_chapter_by_hand(root)
    generated = _tools(root)
    assert generated.returncode == 0, generated.stdout[-3000:] + generated.stderr[-3000:]
    checked = _tools(root, "--check")
    assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-3000:]
    assert "file: book/09_dummy" in (root / "_toc.yml").read_text()
    for page in ("README.md", "book/intro.md", "book/assignments.md"):
        assert "A dummy chapter" in (root / page).read_text(), page
    for framework in ("keras", "pytorch"):
        assert (root / "notebooks" / f"09_dummy-{framework}.ipynb").exists()
    release = root / "exercises" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    assert "raise NotImplementedError()" in release.read_text()

    course = Course(root)
    course.submit(ASSIGNMENT, "solved", root / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    course.submit(ASSIGNMENT, "blank", release)
    course.autograde_each(ASSIGNMENT, timeout=300)
    assert course.scores(ASSIGNMENT, "solved") == {"test_double": 3.0}
    assert course.scores(ASSIGNMENT, "blank") == {"test_double": 0.0}
    assert not os.path.exists(REPO / "book" / "09_dummy.ipynb"), "the test wrote into the repository"
