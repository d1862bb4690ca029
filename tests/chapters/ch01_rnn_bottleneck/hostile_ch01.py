"""Chapter 1's hostile and broken submissions: what real classes hand in, and what a student might
try against the autograder (the threat model is in the README's instructor guide).

Each Hostile declares a student, its frameworks, what it must score and why. The cells it writes
(its answers, and cells of its own) are in hostile/<student>.py beside this file, on the solution's
answers (or, with base="release", on the answers as released); what cells cannot say (deleted or
tampered test cells, a notebook's metadata, a broken file) is a `build` function below.
tests/test_grading_hostile.py grades them all, with honest students, in ONE `nbgrader autograde`
run per assignment under small limits.
"""
import copy

from harness.course import REPO
from harness.declarations import ZERO, Hostile
from harness.submissions import RELEASE_BASE, cell_named, grade_id_of, student_notebook

PYTORCH, BOTH_FRAMEWORKS = ("pytorch",), ("pytorch", "keras")
PARTS_3_4 = ["test_decoder_visible", "test_decoder_step_hidden", "test_teacher_forcing_hidden",
             "test_greedy_decode_visible", "test_greedy_decode_hidden"]
PART_5 = ["test_encoder_parameters_visible", "test_encoder_parameters_prediction_hidden",
          "test_encoder_parameters_measurement_hidden"]
PARTS_4_5 = ["test_greedy_decode_visible", "test_greedy_decode_hidden", *PART_5]


def deleted_test_cells(assignment):
    """The solution with both gru_step test cells, part 2's answer and its visible test deleted."""
    notebook = student_notebook(assignment)
    gone = {"test_gru_step_visible", "test_gru_step_hidden", "encoder_summary",
            "test_encoder_summary_visible"}
    notebook.cells = [cell for cell in notebook.cells if grade_id_of(cell) not in gone]
    return notebook


def _tamper_with_parts_1_2(cell, info):
    """Part 1's and 2's test cells: source replaced, grade flag off, points 100, grade_id renamed."""
    cell["test_gru_step_visible"].source = 'print("visible tests passed")'
    info["test_gru_step_hidden"]["grade"] = False
    cell["test_gru_step_hidden"].source = "pass"
    info["test_encoder_summary_visible"]["points"] = 100
    info["test_encoder_summary_hidden"]["grade_id"] = "my_own_test"
    cell["test_encoder_summary_hidden"].source = "pass"


def _tamper_with_parts_3_4(notebook, cell, info):
    """Part 3's and 4's: turned into Markdown, marked as a solution, metadata deleted, a decoy
    duplicate, a forged checksum."""
    decoder = cell["test_decoder_visible"]
    decoder.cell_type = "markdown"
    del decoder["outputs"], decoder["execution_count"]
    info["test_decoder_step_hidden"].update(solution=True, locked=False)
    cell["test_decoder_step_hidden"].source = "pass"
    del cell["test_teacher_forcing_hidden"].metadata["nbgrader"]
    cell["test_teacher_forcing_hidden"].source = "pass"
    twin = copy.deepcopy(cell["test_greedy_decode_visible"])
    twin.source, twin.id = "pass", "twin-of-a-test"
    notebook.cells.insert(notebook.cells.index(cell["test_greedy_decode_visible"]), twin)
    info["test_greedy_decode_hidden"]["checksum"] = "0" * 32
    cell["test_greedy_decode_hidden"].source = "pass"


def edited_test_cells(assignment):
    """The release with every test cell tampered with."""
    notebook = student_notebook(assignment, base=RELEASE_BASE)
    cell = {grade_id: cell_named(notebook, grade_id) for grade_id in (
        "test_gru_step_visible", "test_gru_step_hidden", "test_encoder_summary_visible",
        "test_encoder_summary_hidden", *PARTS_3_4)}
    info = {grade_id: c.metadata["nbgrader"] for grade_id, c in cell.items()}
    _tamper_with_parts_1_2(cell, info)
    _tamper_with_parts_3_4(notebook, cell, info)
    return notebook


def wrong_kernel(assignment):
    """The solution in a notebook that claims to be an R notebook."""
    notebook = student_notebook(assignment)
    notebook.metadata["kernelspec"] = {"name": "ir", "display_name": "R", "language": "R"}
    notebook.metadata["language_info"] = {"name": "R"}
    return notebook


def corrupt_json(assignment):
    """The release's first 3000 bytes: the upload broke off."""
    return (REPO / "exercises" / assignment / f"{assignment}.ipynb").read_bytes()[:3000]


HOSTILE = [
    Hostile("infinite_loop", PYTORCH, {"test_greedy_decode_hidden": 0},
            "greedy_decode forgets max_len: the visible script ends in time (1 point), the first hidden "
            "script has a row that never ends, so that cell runs into the per-cell limit and is "
            "interrupted (CellTimeoutError, 0 of 3); nothing else is affected."),
    Hostile("ignores_interrupt", BOTH_FRAMEWORKS, {name: 0 for name in PARTS_4_5},
            "A cell after part 3 loops and swallows KeyboardInterrupt: it runs into the per-cell limit, "
            "ignores the interrupt, so its kernel is stopped; parts 4 and 5 are not run (NotRun, 0 of "
            "7); parts 1-3 keep their 9 points."),
    Hostile("notebook_budget", PYTORCH, {name: 0 for name in PARTS_4_5},
            "Four 8 s cells, each under the per-cell limit, after part 4's answer: together they go over "
            "the notebook's 30 s, so one is cut short and the tests of parts 4 and 5 are not run (0 of "
            "7)."),
    Hostile("slow_but_within_limits", PYTORCH, {},
            "Correct, with a 6 s cell and a gru_step that sleeps 0.3 s per call: within every limit, "
            "full marks."),
    Hostile("kernel_crash", BOTH_FRAMEWORKS, {name: 0 for name in PARTS_3_4 + PART_5},
            "os._exit(0) after part 2 kills the kernel (KernelDied): parts 1 and 2 keep their 6 points, "
            "parts 3 to 5 are not run (0 of 10)."),
    Hostile("sys_exit", PYTORCH, {"test_gru_step_visible": 0, "test_gru_step_hidden": 0},
            "sys.exit() in part 1's answer only raises SystemExit in that cell (IPython catches it): "
            "gru_step is undefined (0 of 2), the rest runs normally (14)."),
    Hostile("memory_blowup", PYTORCH, {"test_greedy_decode_visible": 0, "test_greedy_decode_hidden": 0},
            "greedy_decode leaks 1 GiB per step: it hits the sandbox's address-space limit (MemoryError) "
            "in both greedy tests (0 of 4); the kernel survives and the other parts keep 12 points."),
    Hostile("huge_output", PYTORCH, {"test_gru_step_visible": 0, "test_gru_step_hidden": 0},
            "gru_step prints 400 kB per call: both gru_step test cells go over the per-cell output limit "
            "(OutputLimitExceeded, 0 of 2); the rest is untouched (14)."),
    Hostile("deleted_test_cells", PYTORCH,
            {"test_encoder_summary_visible": 0, "test_encoder_summary_hidden": 0},
            "Both gru_step test cells, part 2's answer cell and its visible test cell deleted: the test "
            "cells are put back and run (part 1 still earns its 2 points with the right answer); part 2 "
            "has no answer (0 of 4).",
            build=deleted_test_cells),
    Hostile("edited_test_cells", BOTH_FRAMEWORKS, ZERO,
            "Blank answers, and every test cell tampered with: source replaced, grade flag off, points "
            "100, grade_id renamed, turned into Markdown, marked as a solution, metadata deleted, a "
            "decoy duplicate, a forged checksum. Every test is restored and fails: 0, out of 16.",
            build=edited_test_cells),
    Hostile("corrupt_json", BOTH_FRAMEWORKS, ZERO,
            "A truncated file (not valid JSON): graded as the blank assignment with a note saying so, "
            "and the batch goes on.",
            build=corrupt_json),
    Hostile("wrong_kernel", PYTORCH, {},
            "Correct answers in a notebook that claims to be an R notebook: it still runs in the "
            "sandboxed Python kernel, full marks.",
            build=wrong_kernel),
    Hostile("snooper", PYTORCH, {},
            "Correct answers, plus cells that look for the solutions, the gradebook, other students' "
            "work and the notebook file (none is visible), try the network (unreachable), and print "
            "the hidden test that just ran (the feedback blanks those lines). Full marks."),
    Hostile("vandal", PYTORCH, {},
            "Correct answers, plus a cell that tries to write into other students' work, the course, "
            "the gradebook and the package, plants a symlink and forks until the process limit: "
            "nothing outside its private folder changes. Full marks."),
    Hostile("patch_libraries", PYTORCH,
            {"test_gru_step_visible": 0, "test_gru_step_hidden": 0, "test_encoder_summary_visible": 0,
             "test_encoder_summary_hidden": 0, "test_decoder_step_hidden": 0,
             "test_teacher_forcing_hidden": 0, "test_greedy_decode_visible": 0,
             "test_greedy_decode_hidden": 0, **{name: 0 for name in PART_5}},
            "Answers that return zeros, with torch.allclose, numpy.allclose, Tensor.item, AssertionError "
            "and print patched: several tests pass in the kernel, but the values they checked differ "
            "from the reference (AutograderCheckFailed). Only the visible decoder test, which zeros "
            "really pass (shapes, and step 0 equal to decoder_step), keeps its point."),
    Hostile("poison_imports", PYTORCH, ZERO,
            "Zero answers, and builtins.__import__ / sys.modules hand the tests a do-nothing "
            "attention_course.grading: the tests report nothing, so none is confirmed, not even the "
            "one that zeros pass: 0."),
    Hostile("swallow_errors", BOTH_FRAMEWORKS, ZERO,
            "Blank answers, and an IPython AST transformer that wraps every later cell in try/except: "
            "no test cell shows an error, but none gets to report its values: 0.",
            base=RELEASE_BASE),
    Hostile("fake_helpers", PYTORCH, {"test_greedy_decode_hidden": 0},
            "greedy_decode ignores <eos>, and a cell redefines ScriptedStep, _check_greedy and "
            "_expected_ids to hide it: the hidden test uses its own copies, so it fails (0 of 3), as "
            "for the honest greedy_never_stops (13)."),
]
