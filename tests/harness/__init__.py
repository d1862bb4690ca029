"""The grading test harness (tests/test_grading*.py), one job per module.

course.py        a copy of the course and the nbgrader command line run in it (`Course`)
cells.py         the declaration files' format: a student's cells as code (jupytext percent format)
declarations.py  `Wrong` and `Hostile`, and loading each chapter's from tests/chapters/chNN_<name>/
submissions.py   building a student's notebook: release + solution answers + declared cells
feedback.py      what a feedback page shows, and the hidden-test lines it must not show
edits.py         the student-edited notebooks of issue 11 (edits drawn by tests/student_edits.py)
round_trip.py    `GradingRoundTrip`: one assignment's grading round trip, as an instructor runs it
"""
