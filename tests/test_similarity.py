"""The instructors' similarity report (course_tools.similarity) on a small class with a planted
copy: its CSV ranks the copy first, its page shows the copy side by side, offline.

The class of 03-self-attention-pytorch, as autograded notebooks (the release with the
students' answers: `nbgrader autograde` itself is not needed to read answers):

    ada      her own answers (tests/similarity_class/ada-pytorch.py)
    ben      his own answers, written differently (ben-pytorch.py)
    mallory  ada's answers with the variables renamed and nothing else: the planted copy
    cy       the release with one answer, chapter 3's known-wrong `no_scaling` (the
             solution's code without the scaling)
    dee      the release untouched: the starters are boilerplate, so she matches nothing

The course files the command reads (course.toml, the chapter, the solution, the release) are
copied into a temporary course folder, where the report is written (reports/similarity/...).
"""
from __future__ import annotations

import csv
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from book_site import driver  # noqa: F401 (the headless Chromium fixture)
from harness.cells import DeclaredCell, read_cells
from harness.course import REPO
from harness.declarations import wrong_named
from harness.submissions import RELEASE_BASE, student_notebook

ASSIGNMENT = "03-self-attention-pytorch"
CLASS = REPO / "tests" / "similarity_class"
COURSE_FILES = ("course.toml", "book/03_self_attention.ipynb",
                f"solutions/{ASSIGNMENT}/{ASSIGNMENT}.ipynb",
                f"exercises/{ASSIGNMENT}/{ASSIGNMENT}.ipynb")
# The planted copy's only change: ada's names, renamed (the docstrings' words with them).
RENAMES = {"raw": "logits", "attn": "probs", "result": "mixed_values", "exps": "expd",
           "top": "row_max", "queries": "qs", "keys": "ks", "values": "vs"}
PLANTED = {"ada", "mallory"}
UNRELATED_AT_MOST = 0.3     # ada and ben, measured: 0.18


def renamed(cells: list[DeclaredCell]) -> list[DeclaredCell]:
    """The cells with RENAMES applied to whole words."""
    def rename(source: str) -> str:
        for old, new in RENAMES.items():
            source = re.sub(rf"\b{old}\b", new, source)
        return source
    return [DeclaredCell(cell.kind, cell.grade_id, rename(cell.source)) for cell in cells]


def class_cells(planted: bool) -> dict[str, list[DeclaredCell]]:
    """Each student's declared answer cells (on the blank release)."""
    ada = read_cells(CLASS / "ada-pytorch.py")
    cells = {"ada": ada, "ben": read_cells(CLASS / "ben-pytorch.py"),
             "cy": wrong_named("no_scaling").cells(ASSIGNMENT), "dee": []}
    if planted:
        cells["mallory"] = renamed(ada)
    return cells


def course_with_class(root: Path, planted: bool) -> Path:
    """A course folder with the files the report reads and the class, as autograded."""
    for name in COURSE_FILES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, root / name)
    for student, cells in class_cells(planted).items():
        path = root / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(student_notebook(ASSIGNMENT, cells, base=RELEASE_BASE), path)
    return root


def similarity(course: Path, *args: str) -> subprocess.CompletedProcess:
    """The instructor's command, run in the course folder."""
    return subprocess.run([sys.executable, "-m", "course_tools.similarity", ASSIGNMENT, *args],
                          cwd=course, capture_output=True, text=True, timeout=120)


def report_of(course: Path) -> Path:
    result = similarity(course)
    assert result.returncode == 0, result.stderr[-3000:]
    return course / "reports" / "similarity" / ASSIGNMENT


def rows_of(report: Path) -> list[dict[str, str]]:
    with open(report / "similarity.csv", newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def student_pairs(rows: list[dict[str, str]]) -> dict[frozenset, float]:
    return {frozenset((row["student"], row["compared_with"])): float(row["score"])
            for row in rows if row["kind"] == "student"}


@pytest.fixture(scope="module")
def planted_report(tmp_path_factory) -> Path:
    return report_of(course_with_class(tmp_path_factory.mktemp("course"), planted=True))


def test_the_planted_copy_ranks_first_and_unrelated_pairs_score_low(planted_report):
    rows = rows_of(planted_report)
    first = rows[0]
    assert {first["student"], first["compared_with"]} == PLANTED and first["kind"] == "student"
    assert float(first["score"]) >= 0.9, first
    others = {pair: score for pair, score in student_pairs(rows).items() if pair != PLANTED}
    assert len(others) == 9, "every other pair of the five students"
    assert max(others.values()) <= UNRELATED_AT_MOST, others
    assert [float(row["score"]) for row in rows] == sorted(
        (float(row["score"]) for row in rows), reverse=True)


def test_an_untouched_release_matches_nothing_and_a_solution_copy_shows(planted_report):
    rows = rows_of(planted_report)
    assert all(float(row["score"]) == 0 for row in rows if "dee" in
               (row["student"], row["compared_with"])), "the starters are boilerplate"
    against = {(row["student"], row["kind"]): float(row["score"]) for row in rows}
    assert against[("cy", "solution")] >= 0.8, "cy's answer is the solution's, less one factor"
    assert (planted_report / "code" / "student-mallory.py").is_file()


def test_the_page_names_nothing_to_fetch(planted_report):
    page = (planted_report / "similarity.html").read_text(encoding="utf-8")
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//|@import|url\(|<script""",
                         page, flags=re.IGNORECASE)


def test_without_the_planted_copy_no_pair_stands_out(tmp_path):
    rows = rows_of(report_of(course_with_class(tmp_path, planted=False)))
    assert max(student_pairs(rows).values()) <= UNRELATED_AT_MOST


def test_refuses_to_write_where_git_would_track_the_report(tmp_path):
    course = course_with_class(tmp_path / "course", planted=False)
    subprocess.run(["git", "init", "-q", str(course)], check=True)
    result = similarity(course, "--out", str(course / "grading-notes"))
    assert result.returncode == 2 and "not git-ignored" in result.stderr
    assert not (course / "grading-notes").exists()
    (course / ".gitignore").write_text("reports/\n")
    assert similarity(course).returncode == 0, "the default folder, reports/, is ignored"


@pytest.mark.browser
def test_the_page_shows_the_planted_copy_side_by_side_offline(
        planted_report, driver):  # noqa: F811 (the fixture)
    from selenium.webdriver.common.by import By

    driver.get((planted_report / "similarity.html").as_uri())
    first_link = driver.find_element(By.CSS_SELECTOR, "table.pairs tbody tr a")
    section = driver.find_element(By.ID, first_link.get_attribute("href").split("#")[1])
    headers = [th.text for th in
               section.find_elements(By.CSS_SELECTOR, "table.side-by-side th")]
    assert {header.split()[0] for header in headers} == PLANTED, headers
    sides = section.find_elements(By.CSS_SELECTOR, "table.side-by-side td pre")
    assert len(sides) == 2 and all(side.is_displayed() for side in sides)
    marked = [" ".join(mark.text for mark in side.find_elements(By.TAG_NAME, "mark"))
              for side in sides]
    ada, mallory = marked if headers[0].startswith("ada") else marked[::-1]
    assert "raw = torch.einsum" in ada and "logits = torch.einsum" in mallory
    fetched = driver.execute_script(
        "return performance.getEntriesByType('resource').map(entry => entry.name)")
    assert fetched == [], "the page loads nothing: no CDN, no font, no script"
