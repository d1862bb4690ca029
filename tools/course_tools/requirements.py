"""Write requirements-keras.txt, requirements-pytorch.txt and requirements-gpu.txt from the
course's full lock.

A student who follows one framework installs only it: the pins of `requirements.txt`,
less the other framework and every package that only it needs. Which package needs which
comes from the installed packages' own metadata (their `Requires-Dist`, markers evaluated
for this machine), walked from the top-level names of `requirements.in`. What only the
instructors' tools need (the dependencies that tools/pyproject.toml declares: copydetect, for
the similarity report) is left out of these two as well.

A student with an NVIDIA GPU (Linux x86_64) installs `requirements-gpu.txt` (`make setup
GPU=1`): the same pins, TensorFlow's CUDA build (`tensorflow[and-cuda]`) in place of
`tensorflow-cpu`, and the CUDA libraries of both frameworks pinned (GPU_PINS). PyPI's
`torch` wheel for Linux x86_64 is already a CUDA build, so `torch` keeps its pin.

    python -m course_tools.requirements           # write the three files
    python -m course_tools.requirements --check   # exit 1 if one is out of date
"""
from __future__ import annotations

import argparse
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

from . import ROOT

FRAMEWORK_PACKAGES = {"keras": {"tensorflow-cpu", "keras"}, "pytorch": {"torch"}}
OTHER = {"keras": "pytorch", "pytorch": "keras"}
# What pip adds to the lock for the GPU variant on Linux x86_64: the CUDA 12.9 libraries of
# TensorFlow 2.21's `and-cuda` extra and the CUDA 13 libraries of PyPI's torch 2.13.0 wheel
# (they have different names and live side by side), as resolved on 2026-11-25 by
# `pip install --dry-run --report r.json -r requirements-gpu.txt` against PyPI. To renew
# them, resolve `tensorflow[and-cuda]==V` and `torch==V` the same way and copy the new names.
GPU_PINS = [
    "cuda-bindings==13.5.0", "cuda-pathfinder==1.9.1", "cuda-toolkit==13.0.3.0",
    "nvidia-cublas==13.1.1.3", "nvidia-cublas-cu12==12.9.3.13",
    "nvidia-cuda-cupti==13.0.85", "nvidia-cuda-cupti-cu12==12.9.79",
    "nvidia-cuda-nvcc-cu12==12.9.86",
    "nvidia-cuda-nvrtc==13.0.88", "nvidia-cuda-nvrtc-cu12==12.9.86",
    "nvidia-cuda-runtime==13.0.96", "nvidia-cuda-runtime-cu12==12.9.79",
    "nvidia-cudnn-cu12==9.28.0.42", "nvidia-cudnn-cu13==9.20.0.48",
    "nvidia-cufft==12.0.0.61", "nvidia-cufft-cu12==11.4.1.4", "nvidia-cufile==1.15.1.6",
    "nvidia-curand==10.4.0.35", "nvidia-curand-cu12==10.3.10.19",
    "nvidia-cusolver==12.0.4.66", "nvidia-cusolver-cu12==11.7.5.82",
    "nvidia-cusparse==12.6.3.3", "nvidia-cusparse-cu12==12.5.10.65",
    "nvidia-cusparselt-cu13==0.8.1",
    "nvidia-nccl-cu12==2.32.3", "nvidia-nccl-cu13==2.29.7",
    "nvidia-nvjitlink==13.5.37", "nvidia-nvjitlink-cu12==12.9.86",
    "nvidia-nvshmem-cu13==3.4.5", "nvidia-nvtx==13.0.85", "triton==3.7.1",
]
VARIANTS = ("keras", "pytorch", "gpu")


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def top_level() -> list[str]:
    names = []
    for line in (ROOT / "requirements.in").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            names.append(canonical(Requirement(line).name))
    return names


def tools_only() -> set[str]:
    """The names that the tools distribution declares (tools/pyproject.toml): instructors' and
    maintainers' needs, pinned in the lock but not installed by a student."""
    project = tomllib.loads((ROOT / "tools" / "pyproject.toml").read_text())["project"]
    return {canonical(Requirement(text).name) for text in project.get("dependencies", [])}


def pins() -> dict[str, str]:
    """canonical name -> the line of requirements.txt that pins it."""
    found = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            found[canonical(Requirement(line.split("#", 1)[0].strip()).name)] = line.strip()
    return found


def dependencies(name: str, extras: frozenset[str] = frozenset()) -> set[tuple]:
    """What an installed package, with these extras, requires on this machine:
    {(name, its extras)}."""
    try:
        requires = metadata.requires(name) or []
    except metadata.PackageNotFoundError:
        return set()
    needed = set()
    for text in requires:
        requirement = Requirement(text)
        if requirement.marker is None or any(requirement.marker.evaluate({"extra": extra})
                                             for extra in {"", *extras}):
            needed.add((canonical(requirement.name), frozenset(requirement.extras)))
    return needed


def closure(roots: set[str]) -> set[str]:
    """The names of the roots and of everything they need, extras followed."""
    seen, todo = set(), [(root, frozenset()) for root in roots]
    while todo:
        item = todo.pop()
        if item not in seen:
            seen.add(item)
            todo.extend(dependencies(*item) - seen)
    return {name for name, _ in seen}


def render_gpu() -> str:
    lock = pins()
    version = Requirement(lock.pop("tensorflow-cpu")).specifier
    lock["tensorflow"] = f"tensorflow[and-cuda]{version}"
    lock.update((canonical(Requirement(pin).name), pin) for pin in GPU_PINS)
    lines = ["# The course on an NVIDIA GPU (Linux x86_64): requirements.txt with TensorFlow's CUDA",
             "# build instead of tensorflow-cpu, and the CUDA libraries of both frameworks.",
             "# Generated by `python -m course_tools.requirements`; do not edit by hand.",
             "# Then `pip install --no-deps -r requirements-nodeps.txt`, as for the full course."]
    lines += [lock[name] for name in sorted(lock)]
    return "\n".join(lines) + "\n"


def render(framework: str) -> str:
    if framework == "gpu":
        return render_gpu()
    dropped = FRAMEWORK_PACKAGES[OTHER[framework]]
    wanted = closure(set(top_level()) - dropped - tools_only())
    lock = pins()
    lines = [f"# The course for {'Keras (TensorFlow)' if framework == 'keras' else 'PyTorch'} "
             "only: requirements.txt without "
             f"{' and '.join(sorted(dropped))} and what only they need.",
             "# Generated by `python -m course_tools.requirements`; do not edit by hand.",
             "# Then `pip install --no-deps -r requirements-nodeps.txt`, as for the full course."]
    lines += [lock[name] for name in sorted(lock) if name in wanted]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale files")
    args = parser.parse_args(argv)
    stale = 0
    for framework in VARIANTS:
        path = ROOT / f"requirements-{framework}.txt"
        text = render(framework)
        if not path.exists() or path.read_text() != text:
            stale += 1
            print(f"{'stale' if args.check else 'written'}: {path.name}")
            if not args.check:
                path.write_text(text)
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
