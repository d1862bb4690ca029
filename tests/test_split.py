"""The per-framework notebooks are exactly their chapter's cells, and need one framework.

`python -m course_tools.split` writes `notebooks/NN_topic-keras.ipynb` and `-pytorch.ipynb`
from each chapter; the test run executes those, not the chapters (conftest.py). Here, without
executing anything: they are up to date cell for cell; no kept cell imports the other
framework; the kernel start-up that hides the other framework does hide it; and the
one-framework requirement files are what their generator writes.
"""
import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from course_tools import commonmark, requirements, split

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = split.chapters()
IMPORTS_OF = {"keras": {"keras", "tensorflow", "keras_hub"}, "pytorch": {"torch"}}


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def imported_modules(source: str) -> set[str]:
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    modules = set()
    for node in ast.walk(ast.parse("\n".join(lines))):
        if isinstance(node, ast.Import):
            modules |= {alias.name.partition(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules.add(node.module.partition(".")[0])
    return modules


def test_every_chapter_has_two_split_notebooks_that_are_up_to_date():
    assert len(CHAPTERS) == 8
    assert split.stale_notebooks(write=False) == [], (
        "a split notebook differs from its chapter: run `python -m course_tools.split`, "
        "then execute the notebooks it wrote")
    for chapter in CHAPTERS:
        for framework in split.FRAMEWORKS:
            assert split.split_path(chapter, framework).exists()


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_split_notebooks_are_the_chapters_cells_in_order(chapter):
    cells = load(chapter)["cells"]
    for framework, other in split.FRAMEWORKS.items():
        notebook = load(split.split_path(chapter, framework))
        assert notebook["metadata"]["course_framework"] == framework
        expected = [c for c in cells
                    if not {other, split.BOTH} & set(c["metadata"].get("tags", []))]
        references = notebook["cells"].pop()
        assert references["id"] == split.REFERENCES_ID, "no reference list at the end"
        assert [c["id"] for c in notebook["cells"]] == [c["id"] for c in expected]
        for mine, theirs in zip(notebook["cells"], expected):
            source = "".join(theirs["source"])
            if theirs["cell_type"] == "markdown":
                source = commonmark.to_commonmark(source, framework)
            assert "".join(mine["source"]) == source and mine["cell_type"] == theirs["cell_type"]
        kept_tags = {t for c in notebook["cells"] for t in c["metadata"].get("tags", [])}
        assert other not in kept_tags and split.BOTH not in kept_tags
        # and every framework cell of the chapter is in one of the two notebooks
        assert any(framework in c["metadata"].get("tags", []) for c in notebook["cells"])


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_no_split_notebook_imports_the_other_framework(chapter):
    for framework, other in split.FRAMEWORKS.items():
        for cell in load(split.split_path(chapter, framework))["cells"]:
            if cell["cell_type"] == "code":
                found = imported_modules("".join(cell["source"])) & IMPORTS_OF[other]
                assert not found, f"{chapter.stem}-{framework}, cell {cell['id']} imports {found}"


def test_split_notebooks_have_no_errors_and_were_executed():
    for chapter in CHAPTERS:
        for framework in split.FRAMEWORKS:
            notebook = load(split.split_path(chapter, framework))
            code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
            assert all(c["execution_count"] for c in code), f"{chapter.stem}-{framework}"
            errors = [c["id"] for c in code for o in c["outputs"] if o["output_type"] == "error"]
            assert not errors, f"{chapter.stem}-{framework}: errors in cells {errors}"


@pytest.mark.parametrize("framework", ["keras", "pytorch"])
def test_the_kernel_start_up_hides_the_other_framework(framework):
    other = {"keras": "torch", "pytorch": "keras"}[framework]
    mine = {"keras": "keras", "pytorch": "torch"}[framework]
    probe = (f"import importlib.util, sys\n"
             f"assert importlib.util.find_spec({other!r}) is None\n"
             f"try:\n    import {other}\nexcept ModuleNotFoundError:\n    pass\n"
             f"else:\n    sys.exit('imported {other}')\n"
             f"import {mine}\nprint('ok')\n")
    env = dict(os.environ, COURSE_ONLY_FRAMEWORK=framework,
               PYTHONPATH=str(ROOT / "tests" / "one_framework"))
    run = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0 and "ok" in run.stdout, run.stderr[-2000:]


def test_one_framework_requirements_are_up_to_date():
    for framework, other in requirements.OTHER.items():
        text = (ROOT / f"requirements-{framework}.txt").read_text()
        assert text == requirements.render(framework), (
            "run `python -m course_tools.requirements`")
        names = {requirements.canonical(line.split("==")[0])
                 for line in text.splitlines() if line and not line.startswith("#")}
        assert not names & requirements.FRAMEWORK_PACKAGES[other]
        assert requirements.FRAMEWORK_PACKAGES[framework] <= names
        assert names <= set(requirements.pins())
        assert not names & requirements.tools_only(), "the instructors' tools are not a student's"


def test_the_tools_dependencies_are_pinned_alike_in_the_lock():
    """tools/pyproject.toml declares what only the tools need; `make` installs it from the lock."""
    import tomllib

    declared = tomllib.loads((ROOT / "tools" / "pyproject.toml").read_text())["project"]
    lock = requirements.pins()
    assert requirements.tools_only(), "copydetect at least (course_tools.similarity)"
    for pin in declared["dependencies"]:
        assert lock[requirements.canonical(pin.split("==")[0])] == pin


def test_gpu_requirements_are_the_lock_with_the_cuda_builds():
    text = (ROOT / "requirements-gpu.txt").read_text()
    assert text == requirements.render("gpu"), "run `python -m course_tools.requirements`"
    lines = {line for line in text.splitlines() if line and not line.startswith("#")}
    lock = requirements.pins()
    tensorflow_gpu = "tensorflow[and-cuda]==" + lock.pop("tensorflow-cpu").split("==")[1]
    assert tensorflow_gpu in lines, "TensorFlow's CUDA build, the version of tensorflow-cpu"
    assert set(lock.values()) <= lines, "every other pin of the lock, unchanged"
    added = lines - set(lock.values()) - {tensorflow_gpu}
    assert added == set(requirements.GPU_PINS)
    assert all(line.split("==")[0].startswith(("nvidia-", "cuda-", "triton")) for line in added)


def test_every_installed_package_is_pinned():
    """What `make setup` installed is exactly the lock: a package that one of ours pulls in
    without a pin (transformers' typer, say) would get whatever version is newest that day."""
    import sysconfig
    from importlib import metadata

    pinned = set(requirements.pins())
    for line in (ROOT / "requirements-nodeps.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            pinned.add(requirements.canonical(line.split("==")[0]))
    # Only what pip installed into the environment: setuptools puts its own vendored copies
    # (jaraco.*, more-itertools, ...) on sys.path once something imports it.
    site_packages = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    installed = {requirements.canonical(dist.metadata["Name"])
                 for dist in metadata.distributions(path=site_packages)}
    unpinned = installed - pinned - {"pip", "attention-course", "attention-course-tools"}
    assert not unpinned, f"installed but not pinned in requirements.txt: {sorted(unpinned)}"


def test_the_test_run_hides_the_other_framework_in_split_notebooks_only(tmp_path):
    """conftest.py, loaded as a plugin into a pytest run on notebooks named like split ones
    (and one that is not): each kernel sees only what its name allows."""
    import nbformat

    def probe(name, hidden, seen):
        lines = ["import importlib.util"]
        lines += [f"assert importlib.util.find_spec({m!r}) is None, {m!r}" for m in hidden]
        lines += [f"assert importlib.util.find_spec({m!r}) is not None, {m!r}" for m in seen]
        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("\n".join(lines))])
        notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                           "language": "python"}
        nbformat.write(notebook, tmp_path / name)

    probe("probe-keras.ipynb", hidden=["torch"], seen=["keras", "tensorflow"])
    probe("probe-pytorch.ipynb", hidden=["keras", "tensorflow", "keras_hub"], seen=["torch"])
    probe("probe.ipynb", hidden=[], seen=["torch", "keras"])      # not a split notebook
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("COURSE_ONLY_FRAMEWORK", None)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider", "-q",
         "--nbval", "--nbval-current-env", "--rootdir", str(tmp_path),
         "-c", str(tmp_path / "pytest.ini"), str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and "3 passed" in run.stdout, run.stdout[-3000:]


def test_every_reference_reads_as_plain_text():
    """The one-framework notebooks' reference lists and citations (course_tools.commonmark) show
    no LaTeX left from book/references.bib: no backslash, no brace."""
    for key in commonmark.bibliography():
        text = commonmark.reference(key) + commonmark.cite("p", [key]) + commonmark.cite("t", [key])
        assert not set("\\{}") & set(text), f"{key}: {text}"
    assert commonmark.cite("p", ["hochreiter1997"]) == "(Hochreiter and Schmidhuber, 1997)"
    assert "Jürgen" in commonmark.reference("hochreiter1997")
    assert commonmark.cite("t", ["vaswani2017"]) == "Vaswani et al. (2017)"
