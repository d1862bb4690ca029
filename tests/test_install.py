"""A student's install on any platform (issue 36): the files of student/ follow uv.lock, every
supported platform x Python x framework resolves to wheels on PyPI, and on this machine (Linux
x86_64) a fresh environment per Python, made the way the README says, with the course's wheel
instead of the repository, runs chapter 3's one-framework notebook and assignment 3's visible
tests (with the solution's answers).

The results go to _build/install/ (platforms.json, executed-*.json), from which
`python -m course_tools.student` writes the README's platform table; the last test checks that the
committed table is the one this run gives.

PyTorch runs only on Python 3.11 here: its CPU build for Linux comes from PyTorch's own index,
which this machine cannot reach, and the one CPU wheel on its disk is for 3.11. On 3.12 and 3.13 a
PyTorch environment would download PyPI's CUDA build (several GB), so only the Keras side runs.
"""
from __future__ import annotations

import glob
import json
import os
import re
import shutil
import subprocess
import time
import tomllib
from pathlib import Path

import nbformat
import pytest
import yaml

from course_tools import student
from harness.student_env import course_wheel, install, local_cpu_torch, uv

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = "03_self_attention"
ASSIGNMENT = "03-self-attention"
ENVIRONMENTS = [("3.11", "keras"), ("3.12", "keras"), ("3.13", "keras"), ("3.11", "pytorch")]
_executed: list[tuple[str, str]] = []


def test_the_student_files_follow_the_lock():
    for name in student.FILES:
        assert (ROOT / "student" / f"{name}.txt").read_text() == student.render(name), (
            f"student/{name}.txt is stale: python -m course_tools.student")


def test_no_cuda_package_for_a_linux_pytorch_student():
    """On Linux, pytorch.txt installs neither torch (PyPI's is a CUDA build) nor a CUDA library."""
    lines = [line for line in (ROOT / "student" / "pytorch.txt").read_text().splitlines()
             if line and not line.startswith("#")]
    assert not [line for line in lines if student.CUDA.match(student.name_of(line))]
    torch = [line for line in lines if student.name_of(line) == "torch"]
    assert torch == [f"torch==2.13.0 ; {student.LINUX_TORCH}"]


def test_the_student_files_hold_no_maintainer_tool():
    names = {student.name_of(line) for name in student.FILES
             for line in (ROOT / "student" / f"{name}.txt").read_text().splitlines()
             if line and not line.startswith("#")}
    for tool in ("sphinx", "jupyter-book", "nbval", "selenium", "hypothesis", "pylint",
                 "copydetect", "pytest"):
        assert tool not in names


def test_environment_yml_is_the_student_environment():
    """conda's environment.yml: a Python the course supports, and its pip part is student/'s
    files (not solved with conda here: conda's channels are not reachable from this machine)."""
    environment = yaml.safe_load((ROOT / "environment.yml").read_text())
    python = next(d for d in environment["dependencies"] if isinstance(d, str)
                  and d.startswith("python="))
    assert python.split("=")[1] in student.PYTHONS
    pip = next(d["pip"] for d in environment["dependencies"] if isinstance(d, dict))
    assert pip == ["-r student/keras.txt"]
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert requires == ">=3.11,<3.14"


def test_every_platform_resolves_to_wheels():
    """Every platform x Python x framework, against PyPI, wheels only (no build from source but
    for student.SDIST_ONLY); writes _build/install/platforms.json."""
    found = student.platforms()
    failed = [f"{r['platform']} {r['python']} {r['framework']}: {r['error']}"
              for r in found if not r["ok"]]
    assert not failed, "\n".join(failed)


# --- fresh environments on this machine ----------------------------------------------------------

def interpreter(version: str) -> str | None:
    found = subprocess.run([*student.uv(), "python", "find", "--no-project", version],
                           capture_output=True, text=True,
                           env={**os.environ, "UV_PYTHON_DOWNLOADS": "never"})
    if found.returncode == 0 and found.stdout.strip():
        return found.stdout.strip()
    pyenv = sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python{version}")))
    return pyenv[-1] if pyenv else None


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return course_wheel(tmp_path_factory.mktemp("wheel"))


def with_solution_answers(framework: str) -> nbformat.NotebookNode:
    """The student release of the assignment, its answer cells filled with the solution's."""
    name = f"{ASSIGNMENT}-{framework}"
    release = nbformat.read(ROOT / "exercises" / name / f"{name}.ipynb", as_version=4)
    solution = nbformat.read(ROOT / "solutions" / name / f"{name}.ipynb", as_version=4)
    answers = {cell.metadata["nbgrader"]["grade_id"]: cell.source for cell in solution.cells
               if cell.metadata.get("nbgrader", {}).get("solution")}
    filled = 0
    for cell in release.cells:
        grading = cell.metadata.get("nbgrader", {})
        if grading.get("solution"):
            cell.source = answers[grading["grade_id"]]
            filled += 1
    assert filled, f"{name}: no answer cell"
    return release


def student_env(venv: Path, home: Path) -> dict[str, str]:
    """What a student's shell has after activating the environment: no repository on the path."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "COURSE_ONLY_FRAMEWORK", "VIRTUAL_ENV")}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", VIRTUAL_ENV=str(venv),
               JUPYTER_CONFIG_DIR=str(home / "config"), JUPYTER_DATA_DIR=str(home / "data"),
               JUPYTER_RUNTIME_DIR=str(home / "runtime"), COURSE_RESULTS_OUT=str(home / "results"),
               COURSE_CACHE_DIR=str(home / "cache"), TF_CPP_MIN_LOG_LEVEL="3",
               TF_ENABLE_ONEDNN_OPTS="0", KERAS_BACKEND="tensorflow")
    return env


def execute(venv: Path, notebook: nbformat.NotebookNode, where: Path, env: dict) -> None:
    path = where / "notebook.ipynb"
    nbformat.write(notebook, path)
    run = subprocess.run([str(venv / "bin" / "python"), "-m", "nbconvert", "--to", "notebook",
                          "--execute", "--output", "executed.ipynb", "--ExecutePreprocessor.timeout=600",
                          str(path)], cwd=where, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-4000:]


@pytest.fixture
def venv(tmp_path) -> Path:
    """The student's environment, removed afterwards (about 2 GB each)."""
    path = tmp_path / "env"
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.mark.slow
@pytest.mark.parametrize("python, framework", ENVIRONMENTS,
                         ids=[f"{p}-{f}" for p, f in ENVIRONMENTS])
def test_a_fresh_student_environment_runs_a_chapter_and_an_assignment(python, framework, wheel,
                                                                      venv, tmp_path):
    found = interpreter(python)
    if found is None:
        pytest.skip(f"no Python {python} on this machine")
    torch_wheel = local_cpu_torch()
    if framework == "pytorch" and torch_wheel is None:
        pytest.skip("no local CPU wheel of torch 2.13.0 (PyTorch's CPU index is not reachable)")
    start = time.monotonic()
    target = ["--python", str(venv / "bin" / "python")]
    install(venv, found, [framework, "hub"] if framework == "pytorch" else [framework], wheel)
    seconds = time.monotonic() - start
    installed = uv("pip", "list", "--format", "json", *target).stdout
    names = {student.name_of(item["name"]) for item in json.loads(installed)}
    assert not {name for name in names if student.CUDA.match(name)}, "a CUDA package came in"
    assert ("torch" in names) == (framework == "pytorch")
    assert ("tensorflow-cpu" in names) == (framework == "keras")

    home = tmp_path / "home"
    home.mkdir()
    env = student_env(venv, home)
    # The installed package, not the repository: its committed results come from the wheel.
    check = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import attention_course, attention_course.results as r; "
                            "print(attention_course.__file__); r.load('01_rnn_bottleneck')"],
                           cwd=home, env=env, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    assert str(venv) in check.stdout and str(ROOT) not in check.stdout
    if framework == "pytorch":
        # the hub profile: nbgrader's student side, the single-user server the hub starts, and
        # the server extensions a hub student uses (Assignments tab, nbgitpuller's link) enabled
        for command in (["-m", "nbgrader", "--version"], ["-m", "jupyterhub.singleuser", "--version"],
                        ["-m", "jupyter", "server", "extension", "list"]):
            hub = subprocess.run([str(venv / "bin" / "python"), *command], cwd=home, env=env,
                                 capture_output=True, text=True)
            assert hub.returncode == 0, hub.stderr
        listed = re.sub(r"\x1b\[[0-9;]*m", "", hub.stdout + hub.stderr)
        for extension in ("nbgrader.server_extensions.assignment_list", "nbgitpuller"):
            assert re.search(rf"{re.escape(extension)} enabled", listed), listed

    chapter = nbformat.read(ROOT / "notebooks" / f"{NOTEBOOK}-{framework}.ipynb", as_version=4)
    execute(venv, chapter, home, env)
    execute(venv, with_solution_answers(framework), home, env)

    summary = (f"chapter 3's notebook and assignment 3's visible tests in a fresh venv"
               + (" (torch 2.13.0+cpu, hub profile)" if framework == "pytorch" else ""))
    student.RESULTS.mkdir(parents=True, exist_ok=True)
    (student.RESULTS / f"executed-{python}-{framework}.json").write_text(json.dumps(
        {"python": python, "framework": framework, "summary": summary,
         "install_s": round(seconds, 1), "total_s": round(time.monotonic() - start, 1),
         "venv_mb": int(subprocess.run(["du", "-sm", str(venv)], capture_output=True,
                                       text=True).stdout.split()[0])}) + "\n")
    _executed.append((python, framework))


def test_the_readme_platform_table_is_this_run():
    """The committed table is what this run's results give (python -m course_tools.student)."""
    if sorted(_executed) != sorted(ENVIRONMENTS):
        pytest.skip("not every environment ran in this session")
    readme = student.README.read_text()
    assert student._readme_with(readme, student.table()) == readme, (
        "README.md's platform table is stale: python -m course_tools.student")
