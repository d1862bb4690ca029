"""Do the numbers that the prose states come out of a second execution too?

Every chapter is committed executed, and its prose quotes numbers from those outputs
(tests/test_prose_numbers.py checks that each one is backed by them). `make test`
executes every notebook again and keeps the text of each cell's outputs in
`.timings/outputs/<notebook>.json` (see conftest.py). This command checks, for every claim
of the prose, that the second execution backs it as well, by the same rules: rounded to
the precision the prose writes it with.

The test run executes each chapter's two split notebooks (attention_course/split.py), so
the outputs of both are compared with the chapter's prose. Claims backed only by the cells
that need both frameworks (tagged both-frameworks: Keras against PyTorch) are counted apart,
not re-executed: the unit tests make those comparisons.

Not checked, because no two executions share them: durations (12 s, 3.2 min) and what
is computed from them (speed-ups and per-step costs: a ratio or percentage in a sentence
about time or speed), and numbers marked `% prose-number:` (measured outside the book).

    make test                                  # the second execution, on the same machine
    python -m course_tools.reproduce       # compare; exit 1 if a claim did not reproduce
    python -m course_tools.reproduce --write   # and record the check in book/timings.md

Where a library is not deterministic, the chapter must say so and not quote the number;
on *another* processor, float rounding may differ (chapter 6 shows an example), which is
why the check is meant for two executions on one machine.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from .prose_numbers import BOOK, RESULTS, backs, claims_in, evidence_for
from .prose_numbers import output_texts
from .split import BOTH
from .timings import chapter_of

ROOT = BOOK.parent
RUN = ROOT / ".timings"
TIMINGS_PAGE = BOOK / "timings.md"
START, END = "<!-- reproduce:start -->", "<!-- reproduce:end -->"
# A ratio or percentage next to such words is a speed measurement.
# "of the time" is a frequency ("right 91% of the time"), not a duration.
ABOUT_SPEED = re.compile(r"(?i)\b(faster|slower|speed|speed-up|cheaper|costlier|(?<!of the )time|times "
                         r"the|seconds?|ms|milliseconds?|minutes?|per (?:step|token|second))\b")


@dataclass
class Check:
    notebook: str
    checked: int = 0
    differ: list[str] = field(default_factory=list)
    not_rerun: int = 0       # backed only by cells that need both frameworks (not re-executed)


def is_timing(claim, sentence: str) -> bool:
    """A duration, or a ratio or percentage with words about speed right around it
    ("2.4× faster", "saves 12% of the time", "a speed-up of 9.3×")."""
    if claim.unit == "time":
        return True
    if claim.unit not in ("ratio", "percent"):
        return False
    digits = r"[,_]?".join(re.escape(ch) for ch in claim.text)
    for match in re.finditer(rf"(?<![\d.]){digits}(?![\d])", sentence):
        around = sentence[max(0, match.start() - 25):match.end() + 25]
        if ABOUT_SPEED.search(around):
            return True
    return False


def check(notebook: Path, rerun_outputs: str, rerun_results: Path) -> Check:
    """Compare one chapter's prose claims with a second execution's output text."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    committed = evidence_for(notebook)
    # The test run executes the split notebooks, which leave out the cross-framework
    # checks (cells tagged both-frameworks; the unit tests make those comparisons).
    rerun_cells = [c for c in cells if BOTH not in c.get("metadata", {}).get("tags", [])]
    committed_rerun = evidence_for(notebook, outputs=output_texts(rerun_cells))
    again = evidence_for(notebook, outputs=rerun_outputs, results_dir=rerun_results)
    result = Check(notebook.name)
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        claims, markers = claims_in("".join(cell["source"]))
        for claim, sentence in claims:
            if claim.text in markers or is_timing(claim, sentence):
                continue
            if not any(backs(e, claim) for e in committed):
                continue                       # unbacked even once: test_prose_numbers says so
            if not any(backs(e, claim) for e in committed_rerun):
                result.not_rerun += 1
                continue
            result.checked += 1
            if not any(backs(e, claim) for e in again):
                short = " ".join(sentence.split())[:140]
                result.differ.append(f"cell {index}: {claim.text} in \"{short}\"")
    return result


def run_checks(run: Path = RUN) -> list[Check]:
    """One check per chapter, against the outputs of both its split notebooks."""
    outputs: dict[str, list[str]] = {}
    for recorded in sorted(run.glob("outputs/*.json")):
        record = json.loads(recorded.read_text(encoding="utf-8"))
        outputs.setdefault(chapter_of(record["notebook"]), []).extend(record["outputs"].values())
    checks = []
    for chapter, texts in sorted(outputs.items()):
        notebook = ROOT / chapter
        if not notebook.exists():
            continue
        results = run / "results" if (run / "results").is_dir() else RESULTS
        checks.append(check(notebook, "\n".join(texts), results))
    return checks


def summary(checks: list[Check]) -> str:
    lines = ["| notebook | claims checked | not reproduced | from cross-framework checks "
             "(not re-executed) |", "|---|---:|---|---:|"]
    for c in checks:
        lines.append(f"| `{c.notebook}` | {c.checked} | "
                     + ("; ".join(c.differ) if c.differ else "none") + f" | {c.not_rerun} |")
    return "\n".join(lines)


def write_page(checks: list[Check], note: str) -> None:
    text = TIMINGS_PAGE.read_text(encoding="utf-8")
    block = (f"{START}\nLast check ({date.today().isoformat()}{', ' + note if note else ''}):\n\n"
             f"{summary(checks)}\n{END}")
    if START in text:
        text = text[:text.index(START)] + block + text[text.index(END) + len(END):]
    else:
        text = text.rstrip() + "\n\n## Reproducibility\n\n" + block + "\n"
    TIMINGS_PAGE.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true",
                        help="record the result in book/timings.md")
    parser.add_argument("--note", default="", help="what was compared, for the page")
    args = parser.parse_args(argv)
    checks = run_checks()
    if not checks:
        print("no recorded execution in .timings/: run `make test` first", file=sys.stderr)
        return 2
    print(summary(checks))
    if args.write:
        write_page(checks, args.note)
    return 1 if any(c.differ for c in checks) else 0


if __name__ == "__main__":
    sys.exit(main())
