"""The course's build and check tools (maintainers and instructors; not in a student's install).

ROOT is the course's repository: the folder above tools/, or COURSE_ROOT where that is set (the
tests run the tools on a copy of the course, e.g. with an extra chapter).
"""
import os
from pathlib import Path

ROOT = Path(os.environ.get("COURSE_ROOT") or Path(__file__).resolve().parents[2]).resolve()
