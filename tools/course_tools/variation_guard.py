"""`make check`: no assignment's variation part is the chapter's code.

    python -m course_tools.variation_guard           # every assignment's score; exit 1 above LIMIT

Each assignment's variation part (course.toml, `[chapters.variation]`) asks for something the
chapter does not show. This check fingerprints the part's solution (its answer cells, without
nbgrader's solution markers) and the chapter's code that a student of that framework reads (the
same selection as the similarity report, course_tools/similarity.py, with copydetect's
fingerprints), leaves out what the release hands out (signatures, docstrings), and measures the
share of the solution's fingerprints found in the chapter. A chapter edit that shows the
variation, or a solution rewritten from a chapter cell, raises that share: above LIMIT the check
fails and names the assignment, so the part is rewritten (or the chapter's text moved) before it
becomes a copy.
"""
from __future__ import annotations

import sys

import nbformat

from . import ROOT, manifest, similarity

# The largest share of a variation's solution that may match the chapter. The solutions share
# the chapter's idioms (a softmax, a reshape into heads, the layers' names) but not its
# algorithm: the variations measured 0.00-0.32 when they were written (`python -m
# course_tools.variation_guard` prints each), and the pasted components that a copier hands in
# score above the limit (tests/test_check_tools.py).
LIMIT = 0.5


def variation_code(assignment: str, cells: tuple[str, ...], root=ROOT) -> str:
    """The variation's answer cells of an assignment's solution, as a student would write them."""
    notebook = nbformat.read(root / "solutions" / assignment / f"{assignment}.ipynb", as_version=4)
    found = {similarity.label_of(cell, index): cell.source
             for index, cell in enumerate(notebook.cells, 1)}
    missing = [grade_id for grade_id in cells if grade_id not in found]
    if missing:
        raise KeyError(f"{assignment}: no answer cell {missing} (course.toml's variation)")
    return similarity.joined([(grade_id, similarity.without_markers(found[grade_id]))
                              for grade_id in cells])


def share_in_chapter(assignment: str, code: str, root=ROOT) -> float:
    """The share of `code`'s fingerprints that the chapter's code holds (the release's
    boilerplate left out)."""
    variation = similarity.Source("variation", "solution", code)
    chapter = similarity.Source("chapter", "chapter", similarity.chapter_code(root, assignment))
    pairs = similarity.all_pairs([variation], [chapter], similarity.boilerplate(root, assignment))
    return pairs[0].student_share


def scores(root=ROOT) -> dict[str, float]:
    """{assignment: the share of its variation's solution found in its chapter}."""
    found = {}
    for chapter in manifest.chapters(root / "course.toml"):
        for assignment in chapter.assignments:
            if chapter.variation:
                code = variation_code(assignment, chapter.variation["cells"], root)
                found[assignment] = share_in_chapter(assignment, code, root)
    return found


def main(argv: list[str] | None = None) -> int:
    course = manifest.chapters()
    missing = [chapter.assignment for chapter in course if not chapter.variation]
    measured = scores()
    over = {name: share for name, share in measured.items() if share > LIMIT}
    for name, share in measured.items():
        print(f"variation of {name}: {share:.2f} of it in the chapter"
              + (f"  > {LIMIT}: it copies the chapter" if name in over else ""))
    for name in missing:
        print(f"{name}: course.toml declares no variation part")
    return 1 if over or missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
