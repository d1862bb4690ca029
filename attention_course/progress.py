"""A tqdm progress bar that leaves one clean line in a notebook.

A plain tqdm bar in a notebook writes every update, with carriage returns, into
the cell's stored output; ``tqdm.notebook`` needs widgets that a static book
cannot show.  This bar redraws a single IPython display in place, so the saved
notebook (and the built book) holds only its final state.  Outside IPython it
is an ordinary tqdm bar on stderr.
"""
from __future__ import annotations

import sys

from tqdm import tqdm


class _DisplayFile:
    """A file-like object that shows the latest line written to it in one IPython display."""

    def __init__(self):
        from IPython.display import display

        self._handle = display({"text/plain": ""}, raw=True, display_id=True)

    def write(self, text: str) -> None:
        line = text.replace("\r", "").strip()
        if line:
            self._handle.update({"text/plain": line}, raw=True)

    def flush(self) -> None:
        pass


def _in_notebook() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover
        return False
    shell = get_ipython()
    return shell is not None and shell.__class__.__name__ == "ZMQInteractiveShell"


def progress_bar(total: int, desc: str = "", **kwargs) -> tqdm:
    """tqdm(total=...) drawn in place in a notebook, on stderr elsewhere."""
    file = _DisplayFile() if _in_notebook() else sys.stderr
    options = dict(total=total, desc=desc, file=file, ascii=True, mininterval=0.5,
                   dynamic_ncols=False, ncols=100)
    options.update(kwargs)
    return tqdm(**options)
