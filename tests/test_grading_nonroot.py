"""Grading as a grader who is not root (issue 37, item 2), for real.

A hub host or a cluster node rarely gives the instructor root. Here a real local account that is
not root (`attention-grader`, created by the test when it runs as root; the maintainer's own
account otherwise) grades with `python -m attention_course.grading.batch`:

- where unprivileged user namespaces are allowed (Debian 12, this machine), each kernel runs in
  one, mapped to the grader's own user id: the solution gets full marks and the blank release
  zero, as when root grades;
- inside a namespace that forbids new user namespaces (bubblewrap's `--disable-userns`, which is
  what a container under Docker's or Kubernetes' default seccomp profile, or Ubuntu's AppArmor
  restriction, does to the grader), the command stops with an error that says so and what to do,
  before any student code runs: the gradebook holds no submission.
"""
from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from harness.accounts import python_for_others
from harness.course import REPO, Course, kernel_env

ASSIGNMENT = "03-self-attention-pytorch"
GRADER = "attention-grader"


def grader_account() -> pwd.struct_passwd:
    """The account that grades: a system user made for the test under root, else oneself."""
    if os.geteuid() != 0:
        return pwd.getpwuid(os.geteuid())
    try:
        return pwd.getpwnam(GRADER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                        GRADER], check=True)
        return pwd.getpwnam(GRADER)


@pytest.fixture(scope="module")
def grader():
    if shutil.which("bwrap") is None:
        pytest.fail("bubblewrap is missing (apt-get install bubblewrap)")
    return grader_account()


@pytest.fixture
def course_of(grader):
    """A course copy with two submissions, owned by the grader (outside pytest's root-only
    folders), released by the grader."""
    made = []

    def make() -> Course:
        folder = Path(tempfile.mkdtemp(prefix="attention-nonroot-"))
        made.append(folder)
        course = Course.copy_of_repo(folder / "course")
        course.submit(ASSIGNMENT, "solved", REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
        course.submit(ASSIGNMENT, "blank", REPO / "exercises" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
        for path in [folder, *folder.rglob("*")]:
            os.chown(path, grader.pw_uid, grader.pw_gid)
        run_as(grader, course, ["-m", "nbgrader", "generate_assignment", ASSIGNMENT, "--force"],
               check=True)
        return course

    yield make
    for folder in made:
        shutil.rmtree(folder, ignore_errors=True)


def run_as(grader, course: Course, args: list[str], wrap: list[str] = (), check: bool = False):
    """Run `python ARGS` in the course copy as the grader (through runuser under root)."""
    env = {**kernel_env(), "HOME": str(course.root.parent), "USER": grader.pw_name,
           "ATTENTION_COURSE_CACHE": str(course.root.parent / "cache")}
    as_user = [*python_for_others(), "runuser", "-u", grader.pw_name, "--"] if os.geteuid() == 0 else []
    result = subprocess.run([*as_user, *wrap, sys.executable, *args], cwd=course.root, env=env,
                            capture_output=True, text=True, timeout=600)
    if check:
        assert result.returncode == 0, f"{args} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def submissions(course: Course) -> dict[str, float]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course.root / 'gradebook.db'}") as gradebook:
        return {submission.student_id: submission.score
                for submission in gradebook.assignment_submissions(ASSIGNMENT)}


def test_a_grader_who_is_not_root_grades(grader, course_of):
    course = course_of()
    result = run_as(grader, course, ["-m", "attention_course.grading.batch", ASSIGNMENT,
                                     "--workers", "1", "--force"], check=True)
    assert "2 graded, 0 failed" in result.stdout
    full = sum(course.max_scores(ASSIGNMENT).values())
    assert full > 0 and submissions(course) == {"solved": full, "blank": 0}


def test_without_user_namespaces_it_stops_before_any_student_code(grader, course_of):
    course = course_of()
    forbid = ["bwrap", "--unshare-user", "--disable-userns", "--bind", "/", "/", "--dev", "/dev",
              "--proc", "/proc", "--"]
    result = run_as(grader, course, ["-m", "attention_course.grading.batch", ASSIGNMENT,
                                     "--workers", "1", "--force"], wrap=forbid)
    said = result.stdout + result.stderr
    assert result.returncode != 0
    assert "No submission was graded" in said and "user namespaces" in said, said[-3000:]
    assert "grading VM" in said                                   # and what to do instead
    assert submissions(course) == {}
