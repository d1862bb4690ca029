"""Write the per-notebook timing table of book/timings.md from the last test run.

The test run (`make test`) records how long each notebook's cells took, per
framework, in .timings/*.json: the two split notebooks of each chapter
(`notebooks/NN_topic-keras.ipynb`, `-pytorch.ipynb`; see attention_course/split.py), whose
times add up to the chapter's. Then:

    python -m course_tools.timings     # or: make timings

replaces the table between the markers in book/timings.md.
"""
from __future__ import annotations

import json
import platform
import sys
from pathlib import Path

from . import ROOT

PAGE = ROOT / "book" / "timings.md"
START, END = "<!-- timings:start -->", "<!-- timings:end -->"


def chapter_of(notebook: str) -> str:
    """notebooks/01_x-keras.ipynb -> book/01_x.ipynb (a chapter's own path stays as it is)."""
    path = Path(notebook)
    stem, _, framework = path.stem.rpartition("-")
    return f"book/{stem}.ipynb" if framework in ("keras", "pytorch") else notebook


def by_chapter(records: list[dict]) -> dict[str, dict[str, dict]]:
    """chapter -> {"keras" | "pytorch" | "combined": that notebook's record}."""
    chapters: dict[str, dict[str, dict]] = {}
    for r in records:
        stem = Path(r["notebook"]).stem
        kind = stem.rpartition("-")[2] if chapter_of(r["notebook"]) != r["notebook"] else "combined"
        chapters.setdefault(chapter_of(r["notebook"]), {})[kind] = r
    return chapters


def table(records: list[dict]) -> str:
    lines = ["| chapter | shared cells | Keras cells | PyTorch cells | Keras notebook "
             "| PyTorch notebook | chapter total | passed |",
             "|---|---:|---:|---:|---:|---:|---:|:---:|"]
    for chapter, parts in sorted(by_chapter(records).items()):
        seconds = {k: sum(p["seconds"].get(k, 0) for p in parts.values())
                   for k in ("shared", "keras", "pytorch")}
        notebook = {k: f"{parts[k]['total']:.0f} s" if k in parts else "-"
                    for k in ("keras", "pytorch")}
        total = sum(p["total"] for p in parts.values())
        passed = all(p["passed"] for p in parts.values())
        lines.append(f"| `{chapter}` | " + " | ".join(f"{seconds[k]:.0f} s" for k in seconds)
                     + f" | {notebook['keras']} | {notebook['pytorch']} "
                     f"| **{total / 60:.1f} min** | {'yes' if passed else 'NO'} |")
    first = records[0]
    lines.append("")
    lines.append(f"Measured by the test suite on {first['cpus']} CPU cores ({platform.machine()}), "
                 f"with {first['parallel_notebooks']} test workers running side by side (one thread "
                 "each; the other worker runs the grading tests, or another notebook). Each chapter "
                 "runs as its Keras notebook and its PyTorch notebook, each with its shared cells, "
                 "so the shared cells count twice in the chapter's total. Each chapter's \"how long "
                 "this takes\" box quotes its own committed run; with more threads on a free "
                 "machine a chapter runs faster.")
    return "\n".join(lines)


def main() -> int:
    records = [json.loads(p.read_text()) for p in sorted((ROOT / ".timings").glob("*.json"))]
    if not records:
        print("no timings recorded: run `make test` first", file=sys.stderr)
        return 1
    page = PAGE.read_text(encoding="utf-8")
    head, _, rest = page.partition(START)
    _, _, tail = rest.partition(END)
    PAGE.write_text(f"{head}{START}\n{table(records)}\n{END}{tail}", encoding="utf-8")
    print(f"updated {PAGE.relative_to(ROOT)} from {len(records)} notebook(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
