"""Every generator of committed files, in order (``make generate``), and every staleness check
(``make check``, which ``make test`` runs first).

    python -m course_tools.generate            # rewrite everything that is generated
    python -m course_tools.generate --check    # exit 1, listing what is stale; write nothing

In order, each reading what the ones before it wrote:

1. ``course_tools.manifest``      _toc.yml and the course tables, from course.toml
2. ``course_tools.export``        attention_course/<module>.py from the chapters' ``#| export`` cells
3. ``course_tools.split``         notebooks/NN_topic-keras.ipynb and -pytorch.ipynb from the chapters
4. ``course_tools.requirements``  requirements-keras.txt, -pytorch.txt, -gpu.txt from requirements.txt
   ``course_tools.student``       student/*.txt from uv.lock (and ``uv lock --check``), the README's
                                  platform table from _build/install/ when a test run left it
5. ``book/figures/make_figures.py``  the book's SVG diagrams
6. ``nbgrader generate_assignment``  exercises/<assignment>/ from solutions/<assignment>/ (in a
   temporary copy for ``--check``, so that the gradebook of the repository is not touched)

``--check`` also runs ``course_tools.duplicates`` (code written twice) and
``course_tools.variation_guard`` (no assignment's variation part is the chapter's code). Not generated here, because
they come out of a test run: book/timings.md (``make timings``) and the chapters' outputs.
"""
from __future__ import annotations

import argparse
import filecmp
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import ROOT, duplicates, export, manifest, requirements, split, student, variation_guard

FIGURES = ROOT / "book" / "figures"
RELEASE_FILES = ("nbgrader_config.py", "solutions")
# nbgrader's API in one process (one start-up instead of one per assignment), in the course root
# (nbgrader reads nbgrader_config.py from the current directory; alembic must be on PATH).
GENERATE_ALL = """
import sys
from nbgrader.apps import NbGraderAPI, NbGraderApp
app = NbGraderApp()
app.load_config_file()
api = NbGraderAPI(config=app.config)
api.log.setLevel("WARNING")
for name in sys.argv[1:]:
    result = api.generate_assignment(name, force=True)
    if not result["success"]:
        sys.exit(f"generate_assignment {name} failed:\\n{result['error']}\\n{result['log']}")
"""


def _module_step(module, check: bool) -> bool:
    """Run a generator's main(); True when it found nothing stale."""
    return module.main(["--check"] if check else []) == 0


def figures(check: bool) -> bool:
    spec = importlib.util.spec_from_file_location("make_figures", FIGURES / "make_figures.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    fresh = True
    for name, draw in script.FIGURES.items():
        svg, path = draw().svg(), FIGURES / name
        if not path.exists() or path.read_text(encoding="utf-8") != svg:
            fresh = False
            print(f"{'stale' if check else 'written'}: {path.relative_to(ROOT)}")
            if not check:
                path.write_text(svg, encoding="utf-8")
    return fresh


def releases(check: bool) -> bool:
    """nbgrader's releases of every assignment; with check, made in a temporary copy and compared."""
    names = list(manifest.assignment_marks())
    if not check:
        _generate_assignments(ROOT, names)
        return True
    with tempfile.TemporaryDirectory(prefix="course-releases-") as folder:
        root = Path(folder)
        for name in RELEASE_FILES:
            source = ROOT / name
            copy = shutil.copytree if source.is_dir() else shutil.copy
            copy(source, root / name)
        _generate_assignments(root, names)
        stale = [name for name in names if _differs(root / "exercises" / name, ROOT / "exercises" / name)]
    for name in stale:
        print(f"stale: exercises/{name} (run `make generate`)")
    return not stale


def _generate_assignments(root: Path, names: list[str]) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run([sys.executable, "-c", GENERATE_ALL, *names], cwd=root, env=env, check=True)


def _differs(made: Path, committed: Path) -> bool:
    comparison = filecmp.dircmp(made, committed, ignore=[".ipynb_checkpoints", "__pycache__"])
    return bool(comparison.left_only or comparison.right_only or
                any(not filecmp.cmp(made / f, committed / f, shallow=False) for f in comparison.common_files))


STEPS = [("manifest", lambda check: _module_step(manifest, check)),
         ("export", lambda check: _module_step(export, check)),
         ("split", lambda check: _module_step(split, check)),
         ("requirements", lambda check: _module_step(requirements, check)),
         ("student", lambda check: _module_step(student, check)),
         ("figures", figures),
         ("releases", releases)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if anything is stale")
    args = parser.parse_args(argv)
    failed = [name for name, step in STEPS if not step(args.check)]
    if args.check and duplicates.main([]) != 0:
        failed.append("duplicates")
    if args.check and variation_guard.main([]) != 0:
        failed.append("variations")
    if args.check:
        print("stale or failing: " + ", ".join(failed) if failed else "everything generated is up to date")
    return 1 if args.check and failed else 0


if __name__ == "__main__":
    sys.exit(main())
