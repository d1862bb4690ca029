"""Write the per-notebook timing table of book/timings.md from the last test run.

The test run (`make test`) records how long each notebook's cells took, per
framework, in .timings/*.json.  Then:

    python -m attention_course.timings     # or: make timings

replaces the table between the markers in book/timings.md.
"""
from __future__ import annotations

import json
import platform
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "book" / "timings.md"
START, END = "<!-- timings:start -->", "<!-- timings:end -->"


def table(records: list[dict]) -> str:
    lines = ["| notebook | shared cells | Keras cells | PyTorch cells | total | passed |",
             "|---|---:|---:|---:|---:|:---:|"]
    for r in sorted(records, key=lambda r: r["notebook"]):
        s = r["seconds"]
        cells = [f"{s.get(k, 0):.0f} s" for k in ("shared", "keras", "pytorch")]
        lines.append(f"| `{r['notebook']}` | " + " | ".join(cells)
                     + f" | **{r['total'] / 60:.1f} min** | {'yes' if r['passed'] else 'NO'} |")
    first = records[0]
    lines.append("")
    lines.append(f"Measured by the test suite on {first['cpus']} CPU cores ({platform.machine()}), "
                 f"with {first['parallel_notebooks']} test workers running side by side (one thread "
                 "each per framework; the other worker runs the grading tests, or another notebook). "
                 "Each chapter's \"how long this takes\" box quotes its own committed run; with "
                 "more threads on a free machine a chapter runs faster.")
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
