"""Write each chapter's Keras-only and PyTorch-only notebook from the combined one.

A chapter, ``book/NN_topic.ipynb``, is the book's source: shared cells (no framework tag),
pairs of cells tagged ``keras`` and ``pytorch``, and a few cells tagged ``both-frameworks``
that check one framework against the other (they need both installed). A student who
follows one framework runs ``notebooks/NN_topic-keras.ipynb`` or ``-pytorch.ipynb``:
the shared cells and that framework's cells, in the chapter's order, with the same ids,
sources and metadata, and nothing that imports the other framework. They live outside
``book/``, which holds the book's sources only (no code cell reads a path relative to its
notebook). Their Markdown is the chapter's in plain CommonMark (course_tools.commonmark: quoted
admonitions, image links to ``../book/figures/``, author-year citations and a reference list at
the end), so that they read well in JupyterLab, VS Code, Colab and GitHub without an extension.

Their outputs come from executing the split notebook itself (a shared cell prints what
*this* framework computed), so this command copies the cells and keeps the outputs of an
existing split notebook wherever a cell's source is unchanged; a cell that is new or changed
gets the chapter's outputs until the split notebook is executed again:

    python -m course_tools.split           # (re)write the sixteen notebooks
    python -m course_tools.split --check   # exit 1 if one's cells differ from its chapter

The test run executes the split notebooks, not the combined ones (conftest.py), each in a
kernel where the other framework cannot be imported; the cross-framework checks that the
``both-frameworks`` cells show are the unit tests' job (tests/test_*_equivalence.py and
the chapters' tests/test_<topic>.py).
"""
from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path

from . import ROOT
from .commonmark import cited_keys, references_cell_source, to_commonmark

BOOK = ROOT / "book"
OUT = ROOT / "notebooks"                                     # the split notebooks
FRAMEWORKS = {"keras": "pytorch", "pytorch": "keras"}        # framework -> the other one
BOTH = "both-frameworks"                                      # a cell that needs both
REFERENCES_ID = "course-references"                           # the reference list's cell


def is_split(path: Path) -> bool:
    return path.stem.rsplit("-", 1)[-1] in FRAMEWORKS


def chapters(book: Path = BOOK) -> list[Path]:
    """The combined chapter notebooks, book/NN_topic.ipynb, as course.toml lists them."""
    from .manifest import chapters as listed   # here, not at the top: manifest -> export -> split

    return [book / f"{chapter.stem}.ipynb" for chapter in listed()]


def split_path(chapter: Path, framework: str) -> Path:
    """book/01_x.ipynb -> notebooks/01_x-keras.ipynb"""
    return OUT / f"{chapter.stem}-{framework}.ipynb"


def framework_of(path: Path) -> str | None:
    """'keras' or 'pytorch' for a split notebook, None for anything else."""
    return path.stem.rsplit("-", 1)[-1] if is_split(path) else None


def kept_cells(chapter: dict, framework: str) -> list[dict]:
    """The chapter's cells that a reader of `framework` runs: shared ones and its own."""
    dropped = {FRAMEWORKS[framework], BOTH}
    return [cell for cell in chapter["cells"]
            if not dropped & set(cell.get("metadata", {}).get("tags", []))]


def _key(cell: dict) -> tuple:
    return cell.get("id"), cell["cell_type"], "".join(cell["source"])


def split(chapter: dict, framework: str, existing: dict | None = None) -> dict:
    """The framework's notebook; outputs kept from `existing` where a cell is unchanged."""
    previous = {_key(cell): cell for cell in (existing or {}).get("cells", [])}
    notebook = copy.deepcopy({key: value for key, value in chapter.items() if key != "cells"})
    notebook["metadata"]["course_framework"] = framework
    notebook["cells"] = []
    cited = []
    for cell in kept_cells(chapter, framework):
        cell = copy.deepcopy(cell)
        if cell["cell_type"] == "markdown":
            source = "".join(cell["source"])
            cited += [key for key in cited_keys(source) if key not in cited]
            cell["source"] = to_commonmark(source, framework)
        old = previous.get(_key(cell))
        if cell["cell_type"] == "code" and old is not None:
            cell["outputs"] = copy.deepcopy(old["outputs"])
            cell["execution_count"] = old.get("execution_count")
            if "execution" in old.get("metadata", {}):
                cell["metadata"]["execution"] = copy.deepcopy(old["metadata"]["execution"])
        notebook["cells"].append(cell)
    if cited:
        notebook["cells"].append({"cell_type": "markdown", "id": REFERENCES_ID, "metadata": {},
                                  "source": references_cell_source(cited)})
    return notebook


def _cells(notebook: dict) -> list[tuple]:
    return [(c.get("id"), c["cell_type"], "".join(c["source"]),
             {k: v for k, v in c.get("metadata", {}).items() if k != "execution"})
            for c in notebook["cells"]]


def same_cells(a: dict, b: dict) -> bool:
    """Equal cell by cell in id, type, source and metadata (outputs aside)."""
    return _cells(a) == _cells(b)


def stale_notebooks(write: bool) -> list[Path]:
    stale = []
    for path in chapters():
        chapter = json.loads(path.read_text(encoding="utf-8"))
        for framework in FRAMEWORKS:
            target = split_path(path, framework)
            existing = json.loads(target.read_text(encoding="utf-8")) if target.exists() else None
            wanted = split(chapter, framework, existing)
            if existing is None or not same_cells(existing, wanted):
                stale.append(target)
                if write:
                    target.parent.mkdir(exist_ok=True)
                    text = json.dumps(wanted, indent=1, sort_keys=True, ensure_ascii=False)
                    target.write_text(text + "\n", encoding="utf-8")     # nbformat's layout
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale notebooks")
    args = parser.parse_args(argv)
    stale = stale_notebooks(write=not args.check)
    for target in stale:
        print(f"{'stale' if args.check else 'written'}: {target.relative_to(ROOT)}")
    return 1 if (args.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
