"""The checks of `make check` catch what they are for: code written twice, a stale or wrong
course table (course.toml), a variation part that copies its chapter. (`make check` itself runs
them on the course before the tests.)"""
from __future__ import annotations

import dataclasses
import textwrap

import nbformat

from course_tools import duplicates, manifest, variation_guard
from harness import copiers

HELPER = textwrap.dedent('''\
    def reference_attention(q, k, v, mask=None):
        logits = q @ k.T / np.sqrt(k.shape[-1])
        if mask is not None:
            logits = np.where(mask, logits, -np.inf)
        alpha = np.exp(logits - logits.max(axis=-1, keepdims=True))
        alpha = alpha / alpha.sum(axis=-1, keepdims=True)
        return alpha @ v, alpha
    ''')


def _module(path, *bodies):
    path.write_text("import numpy as np\n\n\n" + "\n\n".join(bodies))
    return path


def test_a_pasted_helper_is_found(tmp_path):
    first = _module(tmp_path / "first.py", HELPER, "def other():\n    return 1\n")
    second = _module(tmp_path / "second.py", "def unrelated():\n    return 2\n", HELPER)
    duplicated, text = duplicates.report([first, second], {})
    assert duplicated >= duplicates.MIN_LINES and "first.py" in text and "second.py" in text


def test_short_runs_of_equal_lines_are_no_copy(tmp_path):
    short = "\n".join(HELPER.splitlines()[:duplicates.MIN_LINES - 1]) + "\n"
    first = _module(tmp_path / "first.py", short + "    return 1\n")
    second = _module(tmp_path / "second.py", short + "    return 2\n")
    assert duplicates.report([first, second], {})[0] == 0


def test_a_helper_pasted_into_two_hidden_tests_is_found(tmp_path):
    """Notebook cells are scanned too: a helper pasted into the hidden tests of two solutions."""
    paths = []
    for name in ("a-keras", "a-pytorch"):
        notebook = nbformat.v4.new_notebook()
        hidden = f"# Hidden tests\n### BEGIN HIDDEN TESTS\n{HELPER}### END HIDDEN TESTS\n"
        notebook.cells = [nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_code_cell(hidden)]
        folder = tmp_path / "solutions" / name
        folder.mkdir(parents=True)
        nbformat.write(notebook, folder / f"{name}.ipynb")
        extracted = tmp_path / f"{name}.py"
        extracted.write_text(duplicates.cells_as_python(folder / f"{name}.ipynb"))
        paths.append(extracted)
    assert duplicates.report(paths, {})[0] >= duplicates.MIN_LINES


def test_the_manifest_agrees_with_the_course_and_its_tables_are_current():
    course = manifest.chapters()
    assert manifest.disagreements(course) == []
    for path, content in manifest.rendered(course).items():
        assert path.read_text(encoding="utf-8") == content, f"{path.name} is stale: run `make generate`"


def test_a_wrong_manifest_entry_is_reported():
    course = manifest.chapters()
    wrong_modules = dataclasses.replace(course[0], modules=("keras_seq2seq",))
    wrong_title = dataclasses.replace(course[1], title="Another title")
    problems = manifest.disagreements([wrong_modules, wrong_title, *course[2:]])
    assert any("exports" in problem and "keras_seq2seq" in problem for problem in problems)
    assert any("opens with" in problem for problem in problems)
    missing = manifest.disagreements(course[:-1])
    assert any("solutions/ holds" in problem for problem in missing)


def test_a_renamed_chapter_makes_the_tables_stale():
    course = manifest.chapters()
    renamed = [dataclasses.replace(course[0], title="A new title"), *course[1:]]
    stale = [path.name for path, content in manifest.rendered(renamed).items()
             if path.read_text(encoding="utf-8") != content]
    assert sorted(stale) == ["README.md", "assignments.md", "intro.md"]
    assert "A new title" in manifest.intro_table(renamed)


def test_a_variation_that_pastes_the_chapter_is_caught():
    """The guard's measure: each variation's solution stays under the limit, and the chapter's
    nearest component (what a copier pastes for it) is far above it."""
    measured = variation_guard.scores()
    assert measured and all(share <= variation_guard.LIMIT for share in measured.values()), measured
    for chapter in manifest.chapters():
        assignment = chapter.assignments[-1]
        framework = chapter.frameworks[-1]
        for dotted in chapter.variation["copies"][framework].values():
            pasted = variation_guard.share_in_chapter(assignment, copiers.component_code(dotted))
            assert pasted > variation_guard.LIMIT, (assignment, dotted, pasted)
