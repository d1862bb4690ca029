"""The book's diagrams: drawn from source, readable in both themes, and present.

`book/figures/*.svg` are written by `book/figures/make_figures.py`; a figure edited
by hand, or a script changed without re-running it, fails here. Every figure that a
chapter or page references must exist (the book build would also fail, but only
in the slow tests).
"""
from __future__ import annotations

import importlib.util
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
FIGURES = BOOK / "figures"
SVG = "{http://www.w3.org/2000/svg}"
# Figures the chapters are built around (issue 13): one architecture diagram each.
EXPECTED = ["encoder_decoder.svg", "attention_step.svg", "qkv.svg", "multi_head.svg",
            "positional_rotation.svg", "transformer.svg", "causal_mask.svg",
            "decoder_only.svg", "three_masks.svg"]


def _script():
    spec = importlib.util.spec_from_file_location("make_figures", FIGURES / "make_figures.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_figure_is_generated_and_up_to_date():
    script = _script()
    assert sorted(script.FIGURES) == sorted(EXPECTED)
    for name, draw in script.FIGURES.items():
        committed = (FIGURES / name).read_text(encoding="utf-8")
        assert committed == draw().svg(), (
            f"book/figures/{name} differs from what make_figures.py draws: "
            "run `python book/figures/make_figures.py` and commit both"
        )
    stray = {p.name for p in FIGURES.glob("*.svg")} - set(script.FIGURES)
    assert not stray, f"SVGs without a source in make_figures.py: {sorted(stray)}"


@pytest.mark.parametrize("name", EXPECTED)
def test_figure_is_readable_in_both_themes(name):
    root = ET.parse(FIGURES / name).getroot()
    assert root.tag == f"{SVG}svg" and root.get("viewBox"), name
    assert (root.findtext(f"{SVG}title") or "").strip(), f"{name}: no <title> (alt text)"
    # the first shape is an opaque light card behind everything (the dark theme does
    # not invert images, so dark strokes need a light background of their own)
    card = next(el for el in root if el.tag == f"{SVG}rect")
    width, height = root.get("viewBox").split()[2:]
    assert card.get("fill", "").lower() in ("#ffffff", "#fff", "white"), name
    assert float(card.get("width")) >= float(width) - 4, name
    assert float(card.get("height")) >= float(height) - 4, name
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    assert sum(bool(t.strip()) for t in texts) >= 8, f"{name}: too few labels"


def _references() -> list[tuple[str, str]]:
    """(page, target) for every figure a book page or chapter points to."""
    pattern = re.compile(r"""(?:\]\(|\{figure\}\s*|src=["']|:image:\s*)([^)\s"'{}]*figures/[^)\s"']+)""")
    found = []
    for page in sorted(BOOK.glob("*.md")):
        found += [(page.name, m) for m in pattern.findall(page.read_text(encoding="utf-8"))]
    for notebook in sorted(BOOK.glob("*.ipynb")):
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "markdown":
                text = "".join(cell["source"])
                found += [(notebook.name, m) for m in pattern.findall(text)]
    return found


def test_referenced_figures_exist():
    missing = [
        f"{page}: {target}" for page, target in _references()
        if not (BOOK / target).resolve().is_file()
    ]
    assert not missing, "figures referenced but missing:\n" + "\n".join(missing)
