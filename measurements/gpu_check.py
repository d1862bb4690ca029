"""The chapters' PyTorch notebooks on the device PyTorch finds (a GPU), timed and compared with
their committed outputs (which a CPU made).

    python -m measurements.gpu_check [--notebooks 01 02 ...] [--save DIR] [--commit SHA]

Each notebooks/NN_topic-pytorch.ipynb runs with nbclient, a kernel per notebook, in the
environment the test run gives nbval's kernels: conftest.py's (TensorFlow hidden, results written
to a temporary folder) and one thread, as under `make test`'s workers (COURSE_THREADS=1). Every
code cell whose output nbval checks (no nbval-ignore-output or nbval-skip) is compared with its
committed output the way nbval compares them: its stream coalescing, the keys it skips (images,
execution counts), no sanitizers (the course gives nbval none). A notebook is one run of
book/results/measured/gpu_check.json (arm: the notebook and the device): the device, the torch
version, its wall seconds (kernel start included) and each code cell's, the checked cells whose
outputs differ (nbval's cell number, the first differing lines, committed against this run), the
cells that raised. Its processor, commit and date are those of measured.record; a copy of the
course without .git can name its commit with --commit. Needs no GPU (on a CPU it checks the
committed outputs), but the test stack's nbclient, ipykernel and nbval besides the notebooks' own.
"""
from __future__ import annotations

import argparse
import copy
import os
import sys
import time
from pathlib import Path
from types import SimpleNamespace

from attention_course import measured

ROOT = Path(__file__).resolve().parents[1]
NAME, SCRIPT = "gpu_check", "measurements/gpu_check.py"
# nbval's IPyNbFile.skip_compare without --nbdime: the output keys it does not compare.
SKIP = ("metadata", "traceback", "prompt_number", "output_type", "name", "execution_count",
        "application/vnd.jupyter.widget-view+json", "image/png", "image/jpeg")
SHOWN = 3                              # differing lines kept per cell
PACKAGES = ("numpy", "transformers", "tokenizers", "scikit-learn", "pandas", "matplotlib")


def checked(cell) -> bool:
    """Whether nbval compares this code cell's outputs (its tags and comment markers)."""
    from nbval.plugin import find_comment_markers, find_metadata_tags

    options = dict(find_metadata_tags(cell.metadata))
    options.update(find_comment_markers(cell.source))
    return options.get("check", True) and not options.get("skip")


def flat(outputs) -> dict[str, list]:
    """{key: [value, ...]} as nbval's compare_outputs flattens a cell's outputs."""
    from nbval.plugin import coalesce_streams, transform_streams_for_comparison

    values: dict[str, list] = {}
    for output in transform_streams_for_comparison(coalesce_streams(copy.deepcopy(outputs))):
        for key, value in output.items():
            if key in SKIP:
                continue
            for k, v in (value.items() if key == "data" else [(key, value)]):
                if k not in SKIP:
                    values.setdefault(k, []).append(v if isinstance(v, str) else str(v))
    return values


def difference(committed, ran) -> dict | None:
    """None when nbval would pass the cell, else where the outputs first part."""
    old, new = flat(committed), flat(ran)
    if old == new:
        return None
    for key in sorted(old.keys() | new.keys()):
        if old.get(key) != new.get(key):
            a = "\n".join(old.get(key, ["(no such output)"])).splitlines()
            b = "\n".join(new.get(key, ["(no such output)"])).splitlines()
            pairs = [[x, y] for x, y in zip(a, b) if x != y]
            if len(a) != len(b):
                pairs.append([f"({len(a)} lines)", f"({len(b)} lines)"])
            return {"key": key, "differing_lines": len(pairs), "lines": pairs[:SHOWN]}
    return None


def printed(cell) -> str:
    """What a cell printed (its stdout, the last 500 characters): a failed check's numbers."""
    text = "".join(out.get("text", "") for out in cell.outputs
                   if out.output_type == "stream" and out.name == "stdout")
    return text[-500:]


def run_notebook(path: Path, save: Path | None) -> dict:
    import nbformat
    from nbclient import NotebookClient

    import conftest             # the test run's kernel environment (its set-up hook, below)

    conftest.pytest_runtest_setup(SimpleNamespace(path=path))
    committed = nbformat.read(path, as_version=4)
    notebook = copy.deepcopy(committed)
    client = NotebookClient(notebook, timeout=900, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(path.parent)}})
    started, seconds = {}, {}
    numbers = {index: number for number, index in          # nbval's cell numbers: code cells
               enumerate(i for i, cell in enumerate(notebook.cells) if cell.cell_type == "code")}
    client.on_cell_execute = lambda cell, cell_index: started.update(
        {cell_index: time.perf_counter()})

    def executed(cell, cell_index, execute_reply):
        seconds[cell_index] = time.perf_counter() - started[cell_index]
        print(f"  {path.stem} cell {numbers[cell_index]}: {seconds[cell_index]:.1f} s", flush=True)

    client.on_cell_executed = executed
    errors, start = [], time.perf_counter()
    try:
        client.execute()
    except Exception as error:          # the kernel died or a cell timed out: say so, go on
        errors.append({"cell": None, "error": f"{type(error).__name__}: {error}"[:500]})
    wall = time.perf_counter() - start
    if save:
        save.mkdir(parents=True, exist_ok=True)
        nbformat.write(notebook, save / path.name)
    differs, cell_seconds, number = [], [], 0
    for index, (old, new) in enumerate(zip(committed.cells, notebook.cells)):
        if old.cell_type != "code":
            continue
        cell_seconds.append(round(seconds.get(index, 0.0), 2))
        errors += [{"cell": number, "error": f"{out.ename}: {out.evalue}"[:500],
                    "printed": printed(new)} for out in new.outputs if out.output_type == "error"]
        if checked(old) and old.execution_count is not None:
            moved = difference(old.outputs, new.outputs)
            if moved:
                differs.append({"cell": number, **moved})
        number += 1
    return {"notebook": path.name, "wall_seconds": round(wall, 1), "code_cells": number,
            "checked_cells": sum(checked(c) for c in committed.cells if c.cell_type == "code"),
            "cell_seconds": cell_seconds, "differs": differs, "errors": errors}


def device() -> dict:
    """What the notebooks ran on: the GPU PyTorch sees (or the CPU) and the library versions."""
    from importlib.metadata import PackageNotFoundError, version

    import torch

    def installed(name):
        try:
            return version(name)
        except PackageNotFoundError:
            return None

    facts = {"torch": torch.__version__, "cuda": torch.version.cuda,
             "packages": {name: installed(name) for name in PACKAGES}}
    if torch.cuda.is_available():
        properties = torch.cuda.get_device_properties(0)
        facts |= {"device": properties.name,
                  "gpu_memory_gib": round(properties.total_memory / 2**30, 1),
                  "compute_capability": f"{properties.major}.{properties.minor}"}
    else:
        facts["device"] = "cpu"
    return facts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebooks", nargs="+", default=[], help="chapter numbers (default: all)")
    parser.add_argument("--save", type=Path, help="write the executed notebooks here")
    parser.add_argument("--commit", help="the course's commit, where this copy has no .git")
    args = parser.parse_args()
    # As `make test` runs its notebooks: conftest.py sets these under pytest-xdist's workers.
    os.environ.setdefault("COURSE_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    sys.path.insert(0, str(ROOT))                              # conftest.py
    facts = device()
    print(facts, flush=True)
    paths = sorted((ROOT / "notebooks").glob("*-pytorch.ipynb"))
    for path in paths:
        if args.notebooks and path.name[:2] not in args.notebooks:
            continue
        run = {"seed": 0, "arm": f"{path.stem} on {facts['device']}", **facts,
               **run_notebook(path, args.save)}
        if args.commit:
            run["commit"] = args.commit
        print({k: v for k, v in run.items() if k != "cell_seconds"}, flush=True)
        measured.record(NAME, SCRIPT,
                        "each chapter's PyTorch notebook executed on the device PyTorch finds "
                        "(nbclient, the test run's kernel environment, one thread), timed, and "
                        "its nbval-checked outputs compared with the committed (CPU) ones",
                        [run])


if __name__ == "__main__":
    main()
