"""Canvas' formats, read and written by course_tools.canvas (the round trip with a real
gradebook, zip_collect and feedback is in tests/test_grading_renamed.py)."""
import csv
import io

from course_tools import canvas
from course_tools.manifest import chapters

# Canvas' gradebook export, as Grades → Export writes it: the identity columns, assignment
# columns "<name> (<id>)", read-only score columns, a "Points Possible" row, the Test Student.
EXPORT = """\ufeffStudent,ID,SIS User ID,SIS Login ID,Section,01-rnn-bottleneck (4101),Chapter 2 quiz (4102),Current Score
    Points Possible,,,,,16.00,16.00,(read only)
"Smith, Jane",123456,S-1,jsmith,Section A,,,
"Smith, Jane",654321,S-2,jsmith2,Section B,,,
"Doe, John",234567,S-3,jdoe,Section A,,,
"Student, Test",999999,,,Section A,,,
"""


def roster(tmp_path):
    path = tmp_path / "export.csv"
    path.write_text(EXPORT, encoding="utf-8")
    return canvas.read_roster(path)


def test_the_roster_is_every_enrolled_student_by_numeric_id(tmp_path):
    read = roster(tmp_path)
    assert [student.user_id for student in read.students] == ["123456", "654321", "234567"]
    assert read.students[0].names == ("Jane", "Smith")
    assert read.identity == ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")


def test_chapters_go_to_the_canvas_assignments_that_name_them(tmp_path):
    columns = canvas.chapter_columns(roster(tmp_path))
    assert columns["01-rnn-bottleneck"] == "01-rnn-bottleneck (4101)"        # by its stem
    assert columns["02-bahdanau-attention"] == "Chapter 2 quiz (4102)"       # by "Chapter 2"
    assert columns["03-self-attention"] == f"Chapter 3: {chapters()[2].short}"   # a new one


def test_the_import_has_canvas_columns_points_and_a_row_per_student(tmp_path):
    read = roster(tmp_path)
    scores = {"01-rnn-bottleneck": {"123456": 16.0, "234567": 7.5},
              "02-bahdanau-attention": {"123456": 3.0}}
    rows = list(csv.reader(io.StringIO(canvas.grades_csv(read, scores))))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section",
                       "01-rnn-bottleneck (4101)", "Chapter 2 quiz (4102)"]
    assert rows[1] == ["    Points Possible", "", "", "", "", "16", "16"]
    assert rows[2:] == [["Smith, Jane", "123456", "S-1", "jsmith", "Section A", "16", "3"],
                        ["Smith, Jane", "654321", "S-2", "jsmith2", "Section B", "0", "0"],
                        ["Doe, John", "234567", "S-3", "jdoe", "Section A", "7.5", "0"]]


def test_a_feedback_name_is_what_canvas_attaches_to_the_submission():
    """Canvas' re-upload takes the first two all-digit fields of a name as the user and an
    attachment of that user's submission (canvas-lms, infer_comment_context_from_filename)."""
    match = canvas.DOWNLOAD_NAME.match("doejohn_LATE_234567_890123_lab_2-Copy1.ipynb")
    assert (match["name"], match["late"], match["user"], match["attachment"]) == (
        "doejohn", "LATE", "234567", "890123")
    name = f"{match['name']}_{match['user']}_{match['attachment']}_lab-feedback.html"
    assert [field for field in name.split("_") if field.isdigit()][:2] == ["234567", "890123"]
