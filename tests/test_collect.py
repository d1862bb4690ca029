"""Which notebook of an assignment a handed-in file is, by its name (grading/collect.py).

One table for both places that decide it: `nbgrader zip_collect` (an LMS download, with
Canvas' `<student>_<ids>_` prefix) and `nbgrader autograde` (a student's folder in
submitted/). The real commands run on such names in tests/test_grading_renamed.py.
"""
import os

import pytest

from attention_course.grading.collect import choose, notebook_of, resolve, student_and_rest

PYTORCH, KERAS = "01-rnn-bottleneck-pytorch", "01-rnn-bottleneck-keras"

# file name -> the notebook it is, for the PyTorch or the Keras assignment (None: neither's).
NAMES = [
    ("01-rnn-bottleneck-pytorch.ipynb", PYTORCH),
    ("Copy of 01-rnn-bottleneck-pytorch.ipynb", PYTORCH),             # Colab
    ("Copy of Copy of 01-rnn-bottleneck-pytorch.ipynb", PYTORCH),
    ("01-rnn-bottleneck-pytorch-Copy1.ipynb", PYTORCH),               # JupyterLab's Duplicate
    ("01-rnn-bottleneck-pytorch (1).ipynb", PYTORCH),                 # a browser, twice
    ("01-rnn-bottleneck-pytorch(2).ipynb", PYTORCH),
    ("01-rnn-bottleneck-pytorch copy 2.ipynb", PYTORCH),              # macOS Finder
    ("01-rnn-bottleneck-pytorch - Copy.ipynb", PYTORCH),              # Windows Explorer
    ("Copy of 01-rnn-bottleneck-pytorch-Copy1 (1).ipynb", PYTORCH),
    ("01-RNN-Bottleneck-PyTorch.ipynb", PYTORCH),                     # another case
    ("01_rnn_bottleneck_pytorch.ipynb", PYTORCH),                     # other separators
    ("01-rnn-bottleneck-pytorch-1.ipynb", PYTORCH),                   # Canvas' resubmission
    ("smithjane_123456_789012_01-rnn-bottleneck-pytorch.ipynb", PYTORCH),      # Canvas
    ("doejohn_LATE_234567_890123_01-rnn-bottleneck-pytorch-1.ipynb", PYTORCH),
    ("smithjane_123456_789012_Copy of 01-rnn-bottleneck-pytorch (1).ipynb", PYTORCH),
    ("smithjane_123456_789012_01_rnn_bottleneck_pytorch-Copy1.ipynb", PYTORCH),
    ("01-rnn-bottleneck-keras.ipynb", KERAS),
    ("01-rnn-bottleneck-keras (1).ipynb", KERAS),                     # never the PyTorch one
    ("Copy of 01-rnn-bottleneck-keras.ipynb", KERAS),
    ("smithjane_123456_789012_01-rnn-bottleneck-keras-Copy1.ipynb", KERAS),
    ("leeann_345678_901234_99-other-assignment.ipynb", None),
    ("02-bahdanau-attention-pytorch (1).ipynb", None),                # another chapter
    ("01-rnn-bottleneck.ipynb", None),                                # which framework?
    ("01-rnn-bottleneck-pytorch-keras.ipynb", None),
    ("01-rnn-bottleneck-pytorch2.ipynb", None),
    ("Untitled.ipynb", None),
    ("homework.ipynb", None),
]


@pytest.mark.parametrize("file_name, expected", NAMES, ids=[name for name, _ in NAMES])
def test_which_notebook_a_file_name_is(file_name, expected):
    for assignment in (PYTORCH, KERAS):
        want = expected if expected == assignment else None
        assert notebook_of(file_name, [assignment]) == want, assignment


def test_the_exact_name_wins_over_a_longer_one_that_it_is_a_renamed_form_of():
    assert notebook_of("lab-2.ipynb", ["lab", "lab-2"]) == "lab-2"
    assert notebook_of("lab-3.ipynb", ["lab", "lab-2"]) == "lab"


def _paths(*names):
    return [os.path.join("submitted", "s", PYTORCH, name) for name in names]


def test_a_single_notebook_is_graded_whatever_its_name():
    chosen, others = choose(_paths("homework.ipynb"), [PYTORCH])
    assert chosen == {PYTORCH: _paths("homework.ipynb")[0]} and others == []


@pytest.mark.parametrize("names, graded", [
    (("scratch.ipynb", f"{PYTORCH}.ipynb", f"Copy of {PYTORCH}.ipynb"), f"{PYTORCH}.ipynb"),
    (("scratch.ipynb", f"Copy of {PYTORCH}.ipynb"), f"Copy of {PYTORCH}.ipynb"),
    ((f"{KERAS}.ipynb", f"{PYTORCH} (1).ipynb"), f"{PYTORCH} (1).ipynb"),
    (("my-rnn-bottleneck-pytorch.ipynb", "Untitled.ipynb"), "my-rnn-bottleneck-pytorch.ipynb"),
])
def test_of_several_notebooks_the_closest_name_is_graded(names, graded):
    chosen, others = choose(_paths(*names), [PYTORCH])
    assert chosen == {PYTORCH: _paths(graded)[0]}
    assert others == sorted(set(_paths(*names)) - {chosen[PYTORCH]})


def test_each_notebook_of_an_assignment_takes_its_own_file():
    chosen, others = choose(_paths("part-b (1).ipynb", "Copy of part-a.ipynb", "notes.ipynb"),
                            ["part-a", "part-b"])
    assert chosen == {"part-a": _paths("Copy of part-a.ipynb")[0],
                      "part-b": _paths("part-b (1).ipynb")[0]}
    assert others == _paths("notes.ipynb")


def test_resolve_reads_the_students_file_and_says_so(tmp_path):
    for name in (f"Copy of {PYTORCH}.ipynb", "scratch.ipynb"):
        (tmp_path / name).write_text("{}")
    graded_as = str(tmp_path / f"{PYTORCH}.ipynb")
    for names in ([PYTORCH], []):       # []: not released; the name being graded still counts
        source, notes = resolve(graded_as, names)
        assert source == str(tmp_path / f"Copy of {PYTORCH}.ipynb")
        assert notes == [f"your notebook `Copy of {PYTORCH}.ipynb` was graded as "
                         f"`{PYTORCH}.ipynb` (the assignment's notebook has that name)",
                         "other notebooks in your submission were not graded: `scratch.ipynb`"]


# A downloaded file's stem -> (the student it is filed under, the student's own file name).
STUDENTS = [
    ("smithjane_123456_789012_01-rnn-bottleneck-pytorch", ("123456", "01-rnn-bottleneck-pytorch")),
    ("doejohn_LATE_234567_890123_Copy of lab_2", ("234567", "Copy of lab_2")),
    ("smithjane_654321_789013_01-rnn-bottleneck-pytorch", ("654321", "01-rnn-bottleneck-pytorch")),
    ("jdoe_01-rnn-bottleneck-pytorch", ("jdoe", "01-rnn-bottleneck-pytorch")),   # another LMS
]


@pytest.mark.parametrize("stem, expected", STUDENTS, ids=[stem for stem, _ in STUDENTS])
def test_a_canvas_download_is_filed_under_the_numeric_user_id(stem, expected):
    """Two students Canvas names "smithjane" stay two students: the id, not the name, decides."""
    assert student_and_rest(stem) == expected
