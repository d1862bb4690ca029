"""Canvas round trip: the roster in, the grades and the feedback files out.

nbgrader knows students by an id, Canvas by its numeric user id. This module keeps the two the
same, so that nothing is matched by name:

    python -m course_tools.canvas roster canvas-export.csv
        Canvas' gradebook export (Grades → Export) → nbgrader's students: id = Canvas' numeric
        user id ("ID"), first and last name from "Student" ("Last, First"), lms_user_id = ID.
        Every enrolled student gets a row, also those who will submit nothing.
    nbgrader zip_collect <assignment>
        Canvas' download (Assignments → Download Submissions) is filed under the numeric user id
        too (attention_course/grading/collect.py reads `<name>_[LATE_]<user id>_<attachment id>_
        <file>`); the name part only labels a student the roster did not list.
    python -m course_tools.canvas grades canvas-export.csv -o canvas-import.csv
        The gradebook → Canvas' gradebook import: one row per student of the roster, one column
        per chapter (the policy: a student who did both frameworks' assignments of a chapter gets
        the higher score, late penalties deducted as `nbgrader export` does; a student who
        submitted nothing gets 0 for a chapter that has been graded, and a chapter nobody has been
        graded on yet is left out, so that importing does not touch it).
    python -m course_tools.canvas feedback <assignment> -o feedback-<assignment>.zip
        feedback/<user id>/<assignment>/*.html → a zip for Canvas' "Re-Upload Submissions": each
        file named `<name>_<user id>_<attachment id>_<assignment>-feedback.html`, the ids taken
        from the student's own downloaded file, which is how Canvas attaches a file to a
        submission (its `infer_comment_context_from_filename`: the first two all-digit fields of
        the name are the user and one attachment of that user's submission).

Why by hand: nbgrader has no LMS integration (its export plugin writes one row per student and
assignment), and Canvas' formats are CSV and file names, not an API the course could call from a
machine without the LMS's credentials.
"""
from __future__ import annotations

import argparse
import csv
import io
import re
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from . import ROOT
from .manifest import chapters

# The identity columns of Canvas' gradebook export, in its order ("Integration ID" only in
# some institutions' exports; kept when present).
IDENTITY = ("Student", "ID", "SIS User ID", "SIS Login ID", "Integration ID", "Section")
POINTS_POSSIBLE = "Points Possible"
# <name>_[LATE_]<user id>_<attachment id>_<the student's file name>, as Canvas names a download.
DOWNLOAD_NAME = re.compile(r"^(?P<name>[^_]+)_(?:(?P<late>LATE)_)?(?P<user>\d+)_"
                           r"(?P<attachment>\d+)_(?P<file>.+)$")
# An assignment column of Canvas' export: "<name> (<assignment id>)".
ASSIGNMENT_COLUMN = re.compile(r"^(?P<name>.*\S)\s*\((?P<id>\d+)\)$")


@dataclass(frozen=True)
class Student:
    """One row of the roster: Canvas' identity columns."""
    columns: dict

    @property
    def user_id(self) -> str:
        return self.columns["ID"]

    @property
    def names(self) -> tuple[str, str]:
        """(first name, last name) from Canvas' sortable "Last, First"."""
        last, _, first = self.columns["Student"].partition(",")
        return first.strip(), last.strip()


@dataclass(frozen=True)
class Roster:
    identity: tuple[str, ...]      # the identity columns the export has, in its order
    students: list[Student]
    columns: list[str]             # every column of the export (its assignment columns too)


def read_roster(path: Path) -> Roster:
    """Canvas' gradebook export: the header, an optional "Points Possible" row (and, in some
    exports, a "Read Only" or muted row), then one row per enrolment. Canvas' Test Student and
    rows without a numeric ID are left out."""
    text = path.read_text(encoding="utf-8-sig")          # Excel saves with a byte-order mark
    rows = list(csv.DictReader(io.StringIO(text)))
    header = list(csv.reader(io.StringIO(text)))[0]
    missing = [column for column in ("Student", "ID") if column not in header]
    if missing:
        raise SystemExit(f"{path}: not a Canvas gradebook export (no {', '.join(missing)} column)")
    students = [Student({key: (row.get(key) or "").strip() for key in IDENTITY if key in header})
                for row in rows
                if (row.get("ID") or "").strip().isdigit()
                and (row.get("Student") or "").strip() != "Student, Test"]
    identity = tuple(key for key in IDENTITY if key in header)
    return Roster(identity, students, header)


def import_roster(roster: Roster, db_url: str) -> tuple[int, int]:
    """Add or update every student of the roster in nbgrader's gradebook: (added, updated)."""
    from nbgrader.api import Gradebook, MissingEntry

    added = updated = 0
    with Gradebook(db_url) as gradebook:
        for student in roster.students:
            first, last = student.names
            try:
                gradebook.find_student(student.user_id)
                updated += 1
            except MissingEntry:
                added += 1
            gradebook.update_or_create_student(student.user_id, first_name=first, last_name=last,
                                               lms_user_id=student.user_id)
    return added, updated


def chapter_columns(roster: Roster) -> dict[str, str]:
    """{chapter's assignment stem: the Canvas column it goes to}. A Canvas assignment whose name
    holds the stem ("01-rnn-bottleneck") or "Chapter <n>" takes it, with its id; a chapter with
    no such column gets a new column named by its title (Canvas creates the assignment)."""
    found = {}
    for chapter in chapters():
        labels = (chapter.assignment.lower(), f"chapter {chapter.number}")
        for column in roster.columns:
            match = ASSIGNMENT_COLUMN.match(column)
            if match and any(re.search(rf"(?<![\w-]){re.escape(label)}(?![\w-])",
                                       match["name"].lower()) for label in labels):
                found[chapter.assignment] = column
                break
        else:
            found[chapter.assignment] = f"Chapter {chapter.number}: {chapter.short}"
    return found


def chapter_scores(db_url: str) -> dict[str, dict[str, float]]:
    """{chapter's assignment stem: {student id: score}} for every chapter with at least one
    graded submission: the higher of the student's two frameworks, late penalties deducted;
    0 for a student of the gradebook without a submission."""
    from nbgrader.api import Gradebook, MissingEntry

    scores = {}
    with Gradebook(db_url) as gradebook:
        students = [student.id for student in gradebook.students]
        for chapter in chapters():
            graded = {}
            for assignment in chapter.assignments:
                try:
                    submissions = gradebook.find_assignment(assignment).submissions
                except MissingEntry:
                    continue
                for submission in submissions:
                    score = max(0.0, submission.score - submission.late_submission_penalty)
                    student = submission.student.id
                    graded[student] = max(graded.get(student, 0.0), score)
            if graded:
                scores[chapter.assignment] = {student: graded.get(student, 0.0)
                                              for student in students}
    return scores


def grades_csv(roster: Roster, scores: dict[str, dict[str, float]]) -> str:
    """Canvas' gradebook import: the identity columns, one column per graded chapter, a
    "Points Possible" row, one row per student of the roster (in the roster's order)."""
    columns = chapter_columns(roster)
    marks = {chapter.assignment: chapter.marks for chapter in chapters()}
    graded = [stem for stem in columns if stem in scores]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*roster.identity, *(columns[stem] for stem in graded)])
    writer.writerow([f"    {POINTS_POSSIBLE}", *[""] * (len(roster.identity) - 1),
                     *(f"{marks[stem]:g}" for stem in graded)])
    for student in roster.students:
        row = [student.columns.get(key, "") for key in roster.identity]
        row += [f"{scores[stem].get(student.user_id, 0.0):g}" for stem in graded]
        writer.writerow(row)
    return out.getvalue()


def downloads(course: Path, assignment: str) -> dict[str, re.Match]:
    """{user id: the name of its downloaded file} for Canvas' download of an assignment, read
    where zip_collect left it (downloaded/<assignment>/extracted/, or archive/)."""
    found = {}
    for folder in ("extracted", "archive"):
        for path in sorted((course / "downloaded" / assignment / folder).rglob("*")):
            match = DOWNLOAD_NAME.match(path.name)
            if match and path.suffix == ".ipynb":
                found.setdefault(match["user"], match)
    return found


def feedback_zip(course: Path, assignment: str, target: Path) -> list[str]:
    """Write the zip of feedback files for Canvas' Re-Upload Submissions; the names in it."""
    names = []
    matched = downloads(course, assignment)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as bundle:
        for user, download in sorted(matched.items()):
            folder = course / "feedback" / user / assignment
            for page in sorted(folder.glob("*.html")):
                name = (f"{download['name']}_{user}_{download['attachment']}_"
                        f"{page.stem}-feedback.html")
                bundle.write(page, name)
                names.append(name)
    return names


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m course_tools.canvas", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", default=f"sqlite:///{ROOT / 'gradebook.db'}",
                        help="nbgrader's gradebook (an SQLAlchemy URL)")
    commands = parser.add_subparsers(dest="command", required=True)
    roster = commands.add_parser("roster", help="add Canvas' students to the gradebook")
    roster.add_argument("export", type=Path)
    grades = commands.add_parser("grades", help="write Canvas' gradebook import")
    grades.add_argument("export", type=Path)
    grades.add_argument("-o", "--output", type=Path, default=Path("canvas-import.csv"))
    feedback = commands.add_parser("feedback", help="zip the feedback for Canvas' re-upload")
    feedback.add_argument("assignment")
    feedback.add_argument("-o", "--output", type=Path)
    feedback.add_argument("--course", type=Path, default=Path.cwd())
    args = parser.parse_args(argv)

    if args.command == "roster":
        added, updated = import_roster(read_roster(args.export), args.db)
        print(f"{added} students added, {updated} updated")
    elif args.command == "grades":
        roster_read = read_roster(args.export)
        args.output.write_text(grades_csv(roster_read, chapter_scores(args.db)), encoding="utf-8")
        print(f"{args.output}: {len(roster_read.students)} students")
    else:
        target = args.output or Path(f"feedback-{args.assignment}.zip")
        names = feedback_zip(args.course, args.assignment, target)
        print(f"{target}: {len(names)} feedback files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
