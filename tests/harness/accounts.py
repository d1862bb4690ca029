"""Running the course's Python as another local account, from tests that run as root."""
from __future__ import annotations

import os
import sys
from pathlib import Path


def python_for_others() -> list[str]:
    """Under root: when the course's Python lies under a folder that others cannot enter (pyenv
    under /root on the CI machine), a mount namespace (bubblewrap, made by root) in which that
    folder is an empty one holding only the Python installation, so that other accounts can run
    it; a command prefix (empty when nothing is needed)."""
    if os.geteuid() != 0:
        return []
    base = Path(os.path.realpath(sys.base_prefix))
    closed = [folder for folder in reversed(base.parents) if not folder.stat().st_mode & 0o001]
    if not closed:
        return []
    wrap = ["bwrap", "--dev-bind", "/", "/", "--perms", "0755", "--tmpfs", str(closed[0])]
    for folder in reversed(base.parents):
        if folder != closed[0] and closed[0] in folder.parents:
            wrap += ["--perms", "0755", "--dir", str(folder)]
    return wrap + ["--ro-bind", str(base), str(base), "--"]
