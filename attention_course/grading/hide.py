"""The course package that a graded kernel sees: without the answers its assignment asks for.

The package's modules hold the course's own versions of what the assignments ask students to
write (chapter 3's ``scaled_dot_product_attention``, chapter 8's ``top_k_filter``...). A
submission whose answer cell only imports them would earn the marks of work it did not do. So
the grading sandbox (``launch``) does not mount the installed package: it mounts a copy in
which the definition of each name that the assignment asks for (``course.toml``, the chapter's
``asked`` table) is replaced, in the source, by a stand-in of the same name that raises
``NotImplementedError`` when it is called or built. Everything else in the package stays, so
the set-up cells' imports (data, earlier chapters' layers) work as released.

Some asked names are also used by the course's own models that a set-up cell or a hidden test
needs (chapter 7's ``Bert`` builds a ``BertEmbeddings``; chapter 8's ``generate`` and its
checks use the course's ``CausalSelfAttention`` and filters): those the manifest lists again under ``kept``, and the copy
keeps their definition under a private name (``KEPT_PREFIX`` + name) that the module's own code
uses instead. ``course_checks`` finds them with ``course_version``.

The copies are made here, in the grader's process (never in the kernel), with ``ast`` (not text
patterns), and cached by a hash of the package's files and the names hidden, so that grading a
batch makes each copy once. The rewrite happens outside the kernel: whatever a submission does
(``importlib``, ``sys.modules``, ``inspect.getsource``, reading the files), it finds the copy.
"""
from __future__ import annotations

import ast
import hashlib
import os
import shutil
import tempfile
import tomllib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]          # attention_course/
KEPT_PREFIX = "_course_reference_"
MESSAGE = "{name} is the course's reference; the grader does not provide it: write your own"
SKIPPED = shutil.ignore_patterns("__pycache__", "*.pyc", ".ipynb_checkpoints")


def course_version(module, name: str):
    """The course's own version of `name` in `module`: the kept one in a grading copy, the
    module's attribute elsewhere (for the hidden tests' checks, which need the reference)."""
    return getattr(module, KEPT_PREFIX + name, None) or getattr(module, name)


# ---------------------------------------------------------------- what an assignment hides
def framework_of(assignment: str) -> str:
    """'keras' or 'pytorch': the last part of an assignment's name."""
    return assignment.rsplit("-", 1)[-1]


def chapter_of(manifest: Path, assignment: str) -> dict | None:
    """The manifest's entry of the chapter that `assignment` belongs to, or None."""
    entries = tomllib.loads(manifest.read_text(encoding="utf-8")).get("chapters", [])
    return next((entry for entry in entries
                 if assignment.startswith(entry.get("assignment", "") + "-")), None)


def hidden_names(manifest: Path, assignment: str) -> tuple[dict, dict]:
    """({module: [names hidden]}, {module: [names kept under a private name]}) of an
    assignment, from the manifest's `asked` and `withheld` tables (hidden) and `kept`."""
    chapter = chapter_of(manifest, assignment) or {}
    framework = framework_of(assignment)
    tables = []
    for keys in (("asked", "withheld"), ("kept",)):
        by_module: dict[str, list[str]] = {}
        for dotted in (d for key in keys for d in chapter.get(key, {}).get(framework, [])):
            module, name = dotted.split(".")
            by_module.setdefault(module, []).append(name)
        tables.append(by_module)
    return tables[0], tables[1]


# ---------------------------------------------------------------- the rewrite of one module
def stand_in(name: str, is_class: bool) -> ast.stmt:
    """A class or function named `name` that raises NotImplementedError when built or
    called."""
    message = MESSAGE.format(name=name)
    if is_class:
        source = (f"class {name}:\n    def __init__(self, *args, **kwargs):\n"
                  f"        raise NotImplementedError({message!r})\n")
    else:
        source = f"def {name}(*args, **kwargs):\n    raise NotImplementedError({message!r})\n"
    return ast.parse(source).body[0]


class _KeptNames(ast.NodeTransformer):
    """Renames the uses of kept names to their private names."""

    def __init__(self, kept: set[str]):
        self.kept = kept

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in self.kept:
            node.id = KEPT_PREFIX + node.id
        return node


def defined_name(node: ast.stmt) -> str | None:
    """The name a top-level class or function statement defines (None for other statements)."""
    if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return node.name
    return None


def without_references(source: str, hidden: list[str], kept: list[str], where: str) -> str:
    """A module's source with each hidden name's definition replaced by a stand-in; the
    kept ones' definitions stay under their private names, and the module's other code uses
    those."""
    tree = ast.parse(source)
    found = {defined_name(node) for node in tree.body} - {None}
    missing = sorted(set(hidden) - found)
    if missing:
        raise ValueError(f"{where}: course.toml asks for {missing}, which it does not define")
    renamer = _KeptNames(set(kept))
    body = []
    for node in tree.body:
        name = defined_name(node)
        if name in hidden:
            if name in kept:
                renamer.visit(node)
                node.name = KEPT_PREFIX + name
                body.append(node)
            body.append(stand_in(name, isinstance(node, ast.ClassDef)))
        else:
            body.append(renamer.visit(node))
    tree.body = body
    header = f"# The grading copy of {where}: the assignment's answers are stand-ins.\n"
    return header + ast.unparse(ast.fix_missing_locations(tree)) + "\n"


# ---------------------------------------------------------------- the cached copy
def copy_key(hidden: dict, kept: dict, package: Path = PACKAGE) -> str:
    """A hash of the package's files, this module and the names hidden and kept."""
    digest = hashlib.sha256(repr((sorted(hidden.items()), sorted(kept.items()))).encode())
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.relative_to(package).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:20]


def cache_root() -> Path:
    """Where the copies are kept: $ATTENTION_COURSE_CACHE, or ~/.cache/attention-course."""
    default = Path.home() / ".cache" / "attention-course"
    base = os.environ.get("ATTENTION_COURSE_CACHE") or default
    return Path(base) / "grading-packages"


def write_copy(target: Path, hidden: dict, kept: dict, package: Path) -> None:
    """The package copied to `target`/attention_course, the hidden names rewritten, readable
    by all."""
    copied = target / "attention_course"
    shutil.copytree(package, copied, ignore=SKIPPED)
    for module, names in hidden.items():
        path = copied / f"{module}.py"
        rewritten = without_references(path.read_text(encoding="utf-8"), names,
                                       kept.get(module, []), f"attention_course/{module}.py")
        path.write_text(rewritten, encoding="utf-8")
    for folder, _, files in os.walk(target):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)


def grading_package(manifest: Path, assignment: str, package: Path = PACKAGE) -> Path:
    """The folder of the attention_course copy for `assignment` (made once, then cached): the
    package itself where the assignment hides nothing."""
    hidden, kept = hidden_names(manifest, assignment)
    if not hidden:
        return package
    folder = cache_root() / copy_key(hidden, kept, package)
    if not (folder / "attention_course").is_dir():
        folder.parent.mkdir(parents=True, exist_ok=True)
        building = Path(tempfile.mkdtemp(prefix=".building-", dir=folder.parent))
        write_copy(building, hidden, kept, package)
        os.chmod(building, 0o755)
        try:
            building.rename(folder)           # atomic: two graders never see half a copy
        except OSError:                       # another grader finished it first
            shutil.rmtree(building, ignore_errors=True)
    return folder / "attention_course"
