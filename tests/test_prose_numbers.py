"""Numbers quoted in a chapter's prose match the outputs they come from.

The rules (what counts as a claim, what backs it, the `% prose-number:` markers) are in
tools/course_tools/prose_numbers.py; see CONTRIBUTING.md, "Numbers in prose".
"""
from dataclasses import replace

import pytest

import nbformat

from course_tools.prose_numbers import (BOOK, NOTEBOOKS, backs, claims_in, comments_inside_paragraphs,
                                        numbers_in, unbacked_claims)

# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_prose_numbers_match_outputs(notebook):
    problems = unbacked_claims(notebook)
    if problems:
        pytest.fail(
            f"{notebook.relative_to(BOOK.parent)}: numbers in prose that no output, results "
            "file or setting of the notebook backs (print or assert them, fix the prose, or "
            "add '% prose-number: N reason'; see CONTRIBUTING.md):\n  " + "\n  ".join(problems),
            pytrace=False,
        )


PAGES = NOTEBOOKS + sorted(BOOK.glob("*.md"))


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_no_comment_line_splits_a_paragraph(page):
    """A MyST comment (`%`, the prose-number markers too) ends the paragraph it stands in: the
    text after it renders as a new paragraph. Markers go after the paragraph, past a blank line."""
    if page.suffix == ".md":
        texts = [page.read_text(encoding="utf-8")]
    else:
        texts = [cell.source for cell in nbformat.read(page, as_version=4).cells
                 if cell.cell_type == "markdown"]
    split = [cut for text in texts for cut in comments_inside_paragraphs(text)]
    assert not split, f"{page.name}: a % line splits a paragraph before {split}"


def test_a_comment_inside_a_paragraph_is_found_and_one_after_it_is_not():
    inside = "The step took 5.5 s instead of\n% prose-number: 5.5 s measured elsewhere\n24.6 s eagerly.\n"
    assert comments_inside_paragraphs(inside) == ["24.6 s eagerly."]
    after = "The step took 5.5 s.\n\n% prose-number: 5.5 s measured elsewhere\n\nNext paragraph.\n"
    assert comments_inside_paragraphs(after) == []
    last = "The step took 5.5 s.\n% prose-number: 5.5 s measured elsewhere\n"
    assert comments_inside_paragraphs(last) == []
    fenced = "Text\n```python\n% not a comment in code\nx = 1\n```\n"
    assert comments_inside_paragraphs(fenced) == []


def _claim_texts(markdown: str) -> list[str]:
    return [n.text + {"percent": "%", "time": "s", "ratio": "x"}.get(n.unit, "")
            for n, _ in claims_in(markdown)[0]]


def test_claims_are_recognised():
    text = (
        "## 2.8 Training\n"
        "Attention reaches 98.5% on 20,000 sources in 12 s, 2.4× faster, "
        "about 3.2 min per run and 2.4 times the cost; weights 0.97 and 4e-07.\n"
        "Between 8 to 63% of them (see §1.3, chapter 3) use 128 units and 400 steps.\n"
        "Cho et al. reported 26.3% {cite:p}`cho2014properties`. A layer of 2 × 128 in 2015.\n"
        "The maths $d_k = 64$, 0.5 $x$, the code `lr=0.003` and\n\n"
        "$$\\sqrt{d_k} = 8.0$$\n"
    )
    assert _claim_texts(text) == [
        "98.5%", "20000", "12s", "2.4x", "3.2s", "2.4x", "0.97", "4e-07", "8%", "63%", "0.5",
    ]


def test_evidence_rounds_to_the_claim():
    def claim(text):
        return claims_in(text)[0][0][0]

    def printed(text):
        return numbers_in(text, "output")[0][0]

    def stored(text):
        return replace(printed(text), source="results")

    assert backs(stored("0.9830287"), claim("It reached 98.3% here."))
    assert backs(printed("accuracy 98.27%"), claim("It reached 98.3% here."))
    assert not backs(printed("accuracy 0.983"), claim("It reached 98.3% here."))
    assert not backs(printed("scores [1.39 -2.41]"), claim("It costs 2.4 times as much."))
    assert not backs(printed("context [-0.105]"), claim("It is 0.105 here."))
    assert backs(printed("context [-0.105]"), claim("It is −0.105 here."))
    assert not backs(printed("98.1%"), claim("It reached 98.3% here."))
    assert backs(printed("took 531 s"), claim("It takes about 9 minutes."))
    assert not backs(printed("took 600 s"), claim("It takes about 9 minutes."))
    assert backs(printed("ratio 2.41×"), claim("It costs 2.4 times as much."))
    assert not backs(printed("shape (20, 8)"), claim("It starts 20 times weaker."))
    assert backs(printed("std ratio 34.6×"), claim("It starts 35 times weaker."))
    assert not backs(printed("std ratio 34.6"), claim("It starts 35 times weaker."))
    assert backs(printed("n = 20000"), claim("We decode 20,000 sources."))
    assert backs(replace(printed("lr = 0.05"), source="code"), claim("It decays to 5%."))


def test_markers_exempt_and_must_be_used():
    cell = "Three times the budget reached 86%.\n% prose-number: 86 measured outside the book\n"
    claims, markers = claims_in(cell)
    assert [c.text for c, _ in claims] == ["86"] and markers == {
        "86": "measured outside the book"
    }
