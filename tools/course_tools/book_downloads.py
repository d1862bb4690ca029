"""Sphinx extension: each chapter page offers its Keras-only and PyTorch-only notebooks.

The download menu of a chapter page (sphinx-book-theme's header button, which already
offers the combined .ipynb) gets two more entries, one per framework, and the built book
gets the split notebooks (course_tools/split.py) under `_notebooks/`, so the links
work offline from `_build/html`. Listed in `_config.yml` (sphinx: extra_extensions).
"""
from __future__ import annotations

import shutil
from pathlib import Path

from . import split

FOLDER = "_notebooks"
NAMES = {"keras": "Keras", "pytorch": "PyTorch"}


def _chapter(app, pagename: str) -> Path | None:
    path = Path(app.srcdir) / f"{pagename}.ipynb"
    if path.exists() and path in split.chapters(path.parent):
        return path
    return None


def add_buttons(app, pagename, templatename, context, doctree):
    chapter = _chapter(app, pagename)
    if chapter is None:
        return
    for group in context.get("header_buttons", []):
        if group.get("label") != "download-buttons":
            continue
        for position, framework in enumerate(split.FRAMEWORKS, start=1):
            group["buttons"].insert(position, {
                "type": "link",
                "url": f"{context['pathto'](FOLDER, 1)}/{split.split_path(chapter, framework).name}",
                "text": f"{NAMES[framework]} only (.ipynb)",
                "tooltip": f"Download this chapter as a {NAMES[framework]}-only notebook",
                "icon": "fas fa-code",
                "label": f"download-{framework}-notebook-button",
            })


def copy_notebooks(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    target = Path(app.outdir) / FOLDER
    target.mkdir(parents=True, exist_ok=True)
    for chapter in split.chapters(Path(app.srcdir) / "book"):
        for framework in split.FRAMEWORKS:
            shutil.copy2(split.split_path(chapter, framework), target)


def setup(app):
    app.connect("html-page-context", add_buttons, priority=502)   # after the theme's (501)
    app.connect("build-finished", copy_notebooks)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
