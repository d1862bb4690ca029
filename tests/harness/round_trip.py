"""The grading round trip of one assignment, as an instructor runs it, in a copy of the course.

`GradingRoundTrip` (subclassed per assignment by tests/test_grading.py): generate_assignment
reproduces the committed exercises/; the solution autogrades to full marks and the released
exercise to zero; every known-wrong submission of the assignment (declared in its chapter's
folder, tests/chapters/chNN_<name>/, built by harness/submissions.py) gets exactly its partial
score, cell by cell (graded in batches: harness/declarations.py's wrong_batches); each autograde
takes under a minute; the feedback shows scores and messages
but no hidden-test code; `nbgrader export` writes the totals; zip_collect files an LMS download.
`StudentEditsRoundTrip` adds the student-edited notebooks (harness/edits.py), which must keep
their scores.
"""
from __future__ import annotations

import copy
import time
import zipfile
from pathlib import Path
from types import SimpleNamespace

import course_checks
import nbformat
import pytest

from .course import COMMAND_TIMEOUT_S, REPO, Course
from .declarations import batch_of, wrong_batches, wrong_named, wrongs_for
from .edits import edit_bases, edited_variants, partial_student
from . import importers
from .feedback import hidden_test_lines, visible_text
from .submissions import batch_submission

# The two students of every round trip besides the wrong ones: the solution notebook itself, and
# the released exercise handed in unchanged.
SOLUTION_STUDENT, RELEASE_STUDENT = "solution", "blank"
AUTOGRADE_LIMIT_S = 60   # per notebook; the solutions take about 10-20 s on a 2-core machine


class GradingRoundTrip:
    """The grading round trip for one assignment. Subclass it as `Test...` and set `assignment`:
    the subclass's tests share one graded copy of the course (the class-scoped `graded` fixture).

    To add a known-wrong submission, declare it in its chapter's wrong_chNN.py with the scores it
    must get, and write its answer cells in the chapter's wrong/ folder (harness/declarations.py).
    """

    assignment: str

    @classmethod
    def source_notebook(cls) -> Path:
        """The solution notebook (nbgrader's source)."""
        return REPO / "solutions" / cls.assignment / f"{cls.assignment}.ipynb"

    @classmethod
    def release_notebook(cls) -> Path:
        """The released exercise, as committed."""
        return REPO / "exercises" / cls.assignment / f"{cls.assignment}.ipynb"

    @classmethod
    def submissions(cls, folder: Path) -> dict[str, Path]:
        """student -> notebook: the solution, the unmodified exercise, the known-wrong ones in their
        batches (built from their declarations into `folder`)."""
        found = {SOLUTION_STUDENT: cls.source_notebook(), RELEASE_STUDENT: cls.release_notebook()}
        built = {batch.student: batch_submission(cls.assignment, batch)
                 for batch in wrong_batches(cls.assignment)}
        built[importers.STUDENT] = importers.importer_submission(cls.assignment)[0]
        for student, notebook in built.items():
            found[student] = folder / student / f"{cls.assignment}.ipynb"
            found[student].parent.mkdir(parents=True)
            nbformat.write(notebook, found[student])
        return found

    def pytest_generate_tests(self, metafunc):
        """`wrong` runs over this assignment's wrong submissions (pytest calls this hook on the class)."""
        if "wrong" in metafunc.fixturenames:
            wrongs = wrongs_for(self.assignment)
            metafunc.parametrize("wrong", wrongs, ids=[wrong.student for wrong in wrongs])

    @pytest.fixture(scope="class")
    @classmethod
    def graded(cls, tmp_path_factory):
        """Release, submit every known submission, autograde them in one batch (each timed),
        feedback, export."""
        course = Course.copy_of_repo(tmp_path_factory.mktemp(cls.assignment))
        course.release(cls.assignment)
        submissions = cls.submissions(tmp_path_factory.mktemp("built-" + cls.assignment))
        for student, notebook in submissions.items():
            course.submit(cls.assignment, student, notebook)
        seconds = course.autograde_each(cls.assignment,
                                        timeout=COMMAND_TIMEOUT_S + AUTOGRADE_LIMIT_S * len(submissions))
        whole = seconds.pop("(whole batch)")
        assert set(seconds) == set(submissions), f"graded {sorted(seconds)}, submitted {sorted(submissions)}"
        print(f"\nautograde seconds, {cls.assignment} ({whole:.0f} s in all): "
              + ", ".join(f"{s} {t:.1f}" for s, t in seconds.items()))
        course.feedback(cls.assignment)
        grades = course.export()
        return SimpleNamespace(course=course, seconds=seconds, grades=grades, submitted=submissions)

    # ------------------------------------------------------------ (a) release
    def test_release_reproduces_committed_exercises(self, graded):
        fresh = graded.course.root / "exercises" / self.assignment
        committed = REPO / "exercises" / self.assignment
        names = sorted(p.relative_to(fresh).as_posix() for p in fresh.rglob("*") if p.is_file())
        assert names == sorted(p.relative_to(committed).as_posix()
                               for p in committed.rglob("*") if p.is_file())
        for name in names:
            assert (fresh / name).read_bytes() == (committed / name).read_bytes(), (
                f"exercises/{self.assignment}/{name} is not what generate_assignment makes from "
                f"solutions/: run `nbgrader generate_assignment {self.assignment} --force` from the "
                "repo root and commit it")

    # ------------------------------------------------------------ (b), (c), (d) scores
    def test_solution_gets_full_marks(self, graded):
        maximum = graded.course.max_scores(self.assignment)
        assert sum(maximum.values()) > 0
        assert graded.course.scores(self.assignment, SOLUTION_STUDENT) == maximum

    def test_blank_exercise_gets_zero(self, graded):
        scores = graded.course.scores(self.assignment, RELEASE_STUDENT)
        assert scores == {name: 0.0 for name in graded.course.max_scores(self.assignment)}

    def test_wrong_submission_gets_its_partial_score(self, graded, wrong):
        maximum = graded.course.max_scores(self.assignment)
        assert set(wrong.scores) <= set(maximum), (
            f"unknown cells in the expectation: {set(wrong.scores) - set(maximum)}")
        batch = batch_of(self.assignment, wrong.student)
        got = graded.course.scores(self.assignment, batch.student)
        assert {name: got[name] for name in wrong.scores} == wrong.scores, wrong.why
        others = batch.scores                 # the cells that the batch's other members lose
        expected = {**maximum, **{name: float(score) for name, score in others.items()}}
        assert got == expected, f"graded with {batch.student}: {wrong.why}"

    def test_importing_or_pasting_the_course_earns_nothing(self, graded):
        """The generated copier (harness/importers.py, copiers.py): 0 on every part it imported
        from the course's package or, for the variation, pasted from the chapter; full marks on
        the others."""
        notebook, imported = importers.importer_submission(self.assignment)
        maximum = graded.course.max_scores(self.assignment)
        expected = importers.expected_scores(notebook, imported, maximum)
        assert graded.course.scores(self.assignment, importers.STUDENT) == expected

    def test_each_autograde_takes_under_a_minute(self, graded):
        slow = {student: round(t, 1) for student, t in graded.seconds.items() if t > AUTOGRADE_LIMIT_S}
        assert not slow, f"autograde took longer than {AUTOGRADE_LIMIT_S} s per notebook: {slow}"

    # ------------------------------------------------------------ (e) feedback
    def test_feedback_shows_results_but_not_hidden_tests(self, graded):
        hidden = hidden_test_lines(self.source_notebook())
        assert len(hidden) > 20, "found too few hidden-test lines to check against"
        maximum = sum(graded.course.max_scores(self.assignment).values())
        for student in graded.submitted:
            page = graded.course.feedback_html(self.assignment, student)
            text = visible_text(page)
            total = sum(graded.course.scores(self.assignment, student).values())
            assert f"Score: {total:.1f} / {maximum:.1f}" in text, (
                f"{student}: no score line in the feedback")
            assert "HIDDEN TESTS" not in text, f"{student}: hidden-test markers in the feedback"
            leaked = [line for line in hidden if line in text]
            assert not leaked, f"{student}: hidden-test code in the feedback: {leaked[:3]}"
        # Failures are shown with the tests' messages; passing cells are not.
        messages = [(batch_of(self.assignment, wrong.student).student, wrong.message_for(self.assignment))
                    for wrong in wrongs_for(self.assignment)]
        messages.append((RELEASE_STUDENT, "NotImplementedError"))
        for student, message in messages:
            assert message in visible_text(graded.course.feedback_html(self.assignment, student)), (
                f"{student}: the feedback does not show the failure message {message!r}")
        solution_text = visible_text(graded.course.feedback_html(self.assignment, SOLUTION_STUDENT))
        assert "Traceback" not in solution_text and "visible tests passed" in solution_text

    def test_each_grade_records_the_checks_it_used(self, graded):
        """A regrade next term can tell whether the hidden tests' checks changed since."""
        digest = course_checks.checks_digest()
        for student in graded.submitted:
            metadata = graded.course.autograded_notebook(self.assignment, student).metadata
            assert metadata.get("attention_course", {}).get("checks_digest") == digest, student

    # ------------------------------------------------------------ (f) export
    def test_export_writes_the_totals(self, graded):
        maximum = sum(graded.course.max_scores(self.assignment).values())
        expected = {SOLUTION_STUDENT: maximum, RELEASE_STUDENT: 0.0}
        for batch in wrong_batches(self.assignment):
            lost = sum(graded.course.max_scores(self.assignment)[name] - score
                       for name, score in batch.scores.items())
            expected[batch.student] = maximum - lost
        notebook, imported = importers.importer_submission(self.assignment)
        expected[importers.STUDENT] = sum(importers.expected_scores(
            notebook, imported, graded.course.max_scores(self.assignment)).values())
        rows = [row for row in graded.grades if row["assignment"] == self.assignment]
        assert {row["student_id"]: float(row["score"]) for row in rows} == expected
        assert {float(row["max_score"]) for row in rows} == {maximum}

    # ------------------------------------------------------------ collecting from an LMS
    def test_zip_collect_files_an_lms_download(self, tmp_path):
        """`nbgrader zip_collect` with the course's file-name pattern (Canvas style)."""
        course = Course.copy_of_repo(tmp_path / "course")
        archive = course.root / "downloaded" / self.assignment / "archive"
        archive.mkdir(parents=True)
        # Canvas' names: the student is the numeric user id, not the name part
        names = {f"smithjane_123456_789012_{self.assignment}.ipynb": "123456",
                 f"doejohn_LATE_234567_890123_{self.assignment}-1.ipynb": "234567",
                 "leeann_345678_901234_99-other-assignment.ipynb": None}    # not this assignment: skipped
        with zipfile.ZipFile(archive / "submissions.zip", "w") as bundle:
            for name in names:
                bundle.write(self.release_notebook(), name)
        course.nbgrader("zip_collect", self.assignment)
        collected = sorted(p.relative_to(course.root / "submitted").as_posix()
                           for p in (course.root / "submitted").rglob("*.ipynb"))
        assert collected == sorted(f"{student}/{self.assignment}/{self.assignment}.ipynb"
                                   for student in names.values() if student)


class StudentEditsRoundTrip(GradingRoundTrip):
    """... plus (g) the student-edited notebooks (issue 11): the solved, blank and partially right
    notebooks after one drawn sequence of edits (harness/edits.py), and any named edits, graded
    in the same course copy. tests/test_grading.py gives it to one framework's assignment per
    chapter (the two have the same cells: tests/test_assignment_twins.py)."""

    # Named student edits (regression cases): {"edited-<name>": (function(notebook) -> notebook,
    # base kind)}, autograded with the random edited variants.
    named_edits: dict = {}

    @pytest.fixture(scope="class")
    @classmethod
    def edited(cls, graded):
        """The edited variants (edited_variants, named_edits), collected with zip_collect and
        autograded in ONE batch in the same course copy (the reference solution's run is cached
        there), then their feedback."""
        course = graded.course
        variants = edited_variants(cls.assignment)
        bases = edit_bases(cls.assignment)
        for student, (edit, kind) in cls.named_edits.items():
            edited = edit(copy.deepcopy(bases[kind][0]))
            variants[student] = (nbformat.writes(edited).encode(), kind, student)
        # Collected from an LMS download, as instructors do: zip_collect must file them byte for
        # byte, whatever their editor wrote. Named `<student>_<a>.ipynb` (an LMS that puts the
        # student's id first), so that they keep their names here; Canvas' names, filed under the
        # numeric user id, are test_zip_collect_files_an_lms_download's and test_grading_renamed's.
        archive = course.root / "downloaded" / cls.assignment / "archive"
        archive.mkdir(parents=True)
        with zipfile.ZipFile(archive / "submissions.zip", "w") as bundle:
            for student, (data, _, _) in variants.items():
                name = f"{student}_{cls.assignment}.ipynb"
                bundle.writestr(name, data)
        course.nbgrader("zip_collect", cls.assignment)
        for student, (data, _, _) in variants.items():
            collected = course.root / "submitted" / student / cls.assignment / f"{cls.assignment}.ipynb"
            assert collected.read_bytes() == data, f"zip_collect changed {student}'s file"
        pattern = "edited-*"            # only these: the round trip's own students are graded already
        start = time.perf_counter()
        result = course.nbgrader("autograde", cls.assignment, "--force", "--student", pattern)
        seconds = time.perf_counter() - start
        print(f"\nedited variants, {cls.assignment}: {len(variants)} notebooks in one batch, "
              f"{seconds:.0f} s")
        course.nbgrader("generate_feedback", cls.assignment, "--force", "--student", pattern)
        return SimpleNamespace(course=course, variants=variants, seconds=seconds,
                               log=result.stdout + result.stderr)

    def expected_scores(self, course, kind):
        """What an edited notebook must score: that of the notebook it was edited from."""
        maximum = course.max_scores(self.assignment)
        if kind == "solution":
            return maximum
        if kind == "blank":
            return {name: 0.0 for name in maximum}
        wrong = wrong_named(partial_student(self.assignment))
        return {**maximum, **{name: float(score) for name, score in wrong.scores.items()}}

    def test_edited_notebooks_keep_their_scores(self, edited):
        wrong = []
        for student, (_, kind, how) in edited.variants.items():
            got = edited.course.scores(self.assignment, student)
            want = self.expected_scores(edited.course, kind)
            if got != want:
                diff = {name: (got.get(name), score)
                        for name, score in want.items() if got.get(name) != score}
                wrong.append(f"{student} ({kind}, {how}): (got, expected) {diff}")
        assert not wrong, ("edited notebooks graded differently from what their student wrote:\n"
                           + "\n".join(wrong))

    def test_edited_notebooks_feedback_says_what_was_repaired_and_hides_the_tests(self, edited):
        hidden = hidden_test_lines(self.source_notebook())
        maximum = sum(edited.course.max_scores(self.assignment).values())
        for student in edited.variants:
            text = visible_text(edited.course.feedback_html(self.assignment, student))
            total = sum(edited.course.scores(self.assignment, student).values())
            assert f"Score: {total:.1f} / {maximum:.1f}" in text, (
                f"{student}: no score line in the feedback")
            assert "Autograder:" in text and "your notebook was repaired" in text, (
                f"{student}: no repair note")
            assert f"Repaired the submission of {student} " in edited.log, (
                f"{student}: no WARNING in the log")
            assert "HIDDEN TESTS" not in text and not [line for line in hidden if line in text], (
                f"{student}: hidden-test code in the feedback")
