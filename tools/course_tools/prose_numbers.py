"""Numbers quoted in a chapter's prose, and the outputs that back them.

Used by tests/test_prose_numbers.py (every claim is backed by the committed outputs) and by
`python -m course_tools.reproduce` (the claims come out of a second execution too).

For every chapter notebook `book/NN_*.ipynb`, the numbers in its Markdown cells
that are *claims* must be backed by the notebook itself:

- claims: percentages (98.5%, "8 to 63%"), durations (12 s, 3.2 min, 9 minutes),
  ratios (2.4×, 2.4 times), decimals (0.97, 4e-07) and counts written with
  thousands separators (20,000);
- not claims: integers without a unit (sizes, step counts, "chapter 3"), years,
  section numbers (§1.3, headings), maths ($...$, $$...$$), code (`...`, fenced
  blocks), and every number of a sentence that cites a paper ({cite:p}/{cite:t}:
  numbers from the literature);
- evidence: the text of the notebook's code-cell outputs (streams, text/plain,
  text/markdown, text/html without tags), the chapter's results files
  (`book/results/<chapter>.json`, and any results file its code names, including those of
  `book/results/measured/`, written by the scripts of `measurements/`), and the
  numeric literals of its code cells (the settings it runs with);
- a claim matches a piece of evidence when the evidence, rounded to the claim's
  precision, gives the claim. A printed number backs a claim with a unit only if it
  is printed with that unit: 98.3% is backed by an output "98.27%", "9 minutes" by
  "531 s", 2.4× by "2.41×" or "2.41 times", but not by a bare 2.41 in an array.
  Results files and settings have no units: there 0.9830287 backs 98.3% (as a
  fraction) and a duration counts as seconds; an integer setting does not back an
  integer claim with a unit (a setting "20" does not back "20 times"). Decimals and
  counts without a unit are backed by any equal number.

A number that cannot come from the notebook (a measurement made elsewhere) is
exempted, visibly to maintainers and invisibly to readers, by a MyST comment line
in the same cell:

    % prose-number: 86 measured with three times the budget, not run by the book

The reason is required, and a marker that no claim of its cell uses fails the
test. Keep these few: prefer printing or asserting the number in a cell. See
CONTRIBUTING.md, "Numbers in prose".
"""

from __future__ import annotations

import html
import json
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path

from . import ROOT
from .split import chapters

BOOK = ROOT / "book"
RESULTS = BOOK / "results"
NOTEBOOKS = chapters(BOOK)                       # the combined chapters, not their splits

# A number as written in prose or output: 20,000 | 98.5 | 4e-07 | 3e-3 | 1_500
NUMBER = r"\d{1,3}(?:,\d{3})+(?![\d])|\d+(?:_\d{3})+|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
NUMBER_RE = re.compile(rf"(?<![\w.])(?<!\w-)(?<!\\)({NUMBER})(?=\W|$|(?:x|s|ms|min)\b)")
TIME_UNITS = {"ms": 1e-3, "s": 1.0, "sec": 1.0, "second": 1.0, "seconds": 1.0,
              "min": 60.0, "minute": 60.0, "minutes": 60.0, "hour": 3600.0, "hours": 3600.0}
UNIT_RE = re.compile(
    r"\s*(?:(%)|(×|(?:x|times)\b)(?!\s*\d)|(ms|s|sec|seconds?|min|minutes?|hours?)\b)"
)
RANGE_RE = re.compile(rf"\s*(?:to|–|—|-|and|or)\s*(?:{NUMBER})(?=\s*(?:%|×|ms\b|s\b|min\b|"
                      r"sec|seconds?\b|minutes?\b|hours?\b|times\b))")
MARKER_RE = re.compile(r"^\s*%\s*prose-number:\s*(\S+)\s*(.*)$")
ABBREVIATIONS = re.compile(r"\b(?:al|e\.g|i\.e|cf|vs|Fig|Eq|Sec|approx)\.$")


@dataclass(frozen=True)
class Number:
    text: str          # as written, without separators: "98.5", "20000", "4e-07"
    value: float       # in the unit's base (seconds for durations)
    decimals: float    # half a unit in the last place, in the base unit
    unit: str | None   # "percent" | "time" | "ratio" | None
    integer: bool      # written without a decimal point or exponent
    grouped: bool      # written with thousands separators (20,000)
    scale: float = 1.0  # base units per written unit (60 for minutes)
    source: str = "prose"  # "output" | "results" | "code" for evidence


def _number(raw: str, unit: str | None, time_scale: float = 1.0) -> Number:
    text = raw.replace(",", "").replace("_", "")
    value = float(text)
    mantissa, _, exponent = text.lower().partition("e")
    places = len(mantissa.partition(".")[2])
    half_ulp = 0.5 * 10.0 ** (int(exponent or 0) - places)
    integer = "." not in text and "e" not in text.lower()
    grouped = "," in raw or "_" in raw
    return Number(text, value * time_scale, half_ulp * time_scale, unit, integer, grouped,
                  time_scale)


def _unit_after(text: str, end: int) -> tuple[str | None, float]:
    """The unit written right after a number (or after the range it starts)."""
    match = UNIT_RE.match(text, end)
    if not match:
        ranged = RANGE_RE.match(text, end)
        if not ranged:
            return None, 1.0
        match = UNIT_RE.match(text, ranged.end())
        if not match:
            return None, 1.0
    if match.group(1):
        return "percent", 1.0
    if match.group(2):
        if match.group(2) == "x" and match.start(2) != end:  # "2 x" is not "2x"
            return None, 1.0
        return "ratio", 1.0
    return "time", TIME_UNITS[match.group(3)]


def numbers_in(text: str, source: str = "prose") -> list[tuple[Number, int]]:
    """Every number of a text with its unit, and where it starts."""
    found = []
    for match in NUMBER_RE.finditer(text):
        unit, scale = _unit_after(text, match.end())
        number = _number(match.group(1), unit, scale)
        if re.search(r"(?<![\w.])[-−]$", text[max(0, match.start() - 2):match.start()]):
            number = replace(number, value=-number.value)               # -0.105
        found.append((replace(number, source=source), match.start()))
    return found


# ---------------------------------------------------------------------------
# Claims in Markdown
# ---------------------------------------------------------------------------

def _units(markdown: str) -> list[str]:
    """Paragraphs, list items and table rows, then sentences."""
    blocks, current = [], []
    for line in markdown.split("\n"):
        starts_item = re.match(r"\s*(?:[-*+]|\d+\.)\s", line) or line.lstrip().startswith("|")
        if not line.strip() or starts_item or line.lstrip().startswith("#"):
            if current:
                blocks.append(" ".join(current))
            current = []
        if line.strip():
            current.append(line)
        if line.lstrip().startswith(("|", "#")):
            blocks.append(" ".join(current))
            current = []
    if current:
        blocks.append(" ".join(current))
    sentences = []
    for block in blocks:
        start = 0
        for match in re.finditer(r"[.!?](?=\s+[^\sa-z])", block):
            if ABBREVIATIONS.search(block[start:match.end()]):
                continue
            sentences.append(block[start:match.end()])
            start = match.end()
        sentences.append(block[start:])
    return [s.strip() for s in sentences if s.strip()]


def _strip_not_claims(sentence: str) -> str:
    sentence = re.sub(r"^\s*#.*$", " ", sentence)                     # heading
    sentence = re.sub(r"^\s*(?:[-*+]|\d+\.)\s", " ", sentence)         # list marker
    sentence = re.sub(r"\$[^$]*\$", " ", sentence)                     # inline maths
    sentence = re.sub(r"`[^`]*`", " ", sentence)                       # code, roles
    sentence = re.sub(r"\]\([^)]*\)", "] ", sentence)                  # link targets
    sentence = re.sub(r"https?://\S+", " ", sentence)
    sentence = re.sub(r"§\s*\d+(?:\.\d+)*", " ", sentence)             # section numbers
    sentence = re.sub(r"(?i)\b(?:chapter|section|figure|table|step|part)\s+\d+(?:\.\d+)*",
                      " ", sentence)
    return sentence


CODE_DIRECTIVES = ("{code}", "{code-block}", "{code-cell}", "{math}", "{raw}")


def _drop_code_blocks(text: str) -> str:
    """Remove fenced code and maths; keep the prose inside directives ({admonition}...)."""
    kept, fence, drop = [], None, False
    for line in text.split("\n"):
        opening = re.match(r"^\s*(`{3,}|~{3,})(.*)$", line)
        if fence is None and opening:
            fence = opening.group(1)
            info = opening.group(2).split() or [""]
            drop = not info[0].startswith("{") or info[0] in CODE_DIRECTIVES
            continue
        if fence is not None and line.strip() == fence:
            fence, drop = None, False
            continue
        if fence is not None and (drop or re.match(r"^\s*:[\w-]+:", line)):
            continue                                                   # code, or an option
        kept.append(line)
    return "\n".join(kept)


def claims_in(markdown: str) -> tuple[list[tuple[Number, str]], dict[str, str]]:
    """Claims of one Markdown cell (with their sentence) and its exemption markers."""
    markers = {}
    kept = []
    for line in markdown.split("\n"):
        marker = MARKER_RE.match(line)
        if marker:
            markers[marker.group(1).rstrip("%×").replace(",", "")] = marker.group(2).strip()
        elif not re.match(r"\s*%", line):                              # MyST comment
            kept.append(line)
    text = "\n".join(kept)
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.DOTALL)
    text = _drop_code_blocks(text)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.DOTALL)
    text = re.sub(r"\\begin\{(\w+\*?)\}.*?\\end\{\1\}", " ", text, flags=re.DOTALL)
    claims = []
    for sentence in _units(text):
        if re.search(r"\{cite:[a-z]+\}", sentence):
            continue
        for number, _ in numbers_in(_strip_not_claims(sentence)):
            if number.unit or not number.integer or number.grouped:
                claims.append((number, sentence))
    return claims, markers


# ---------------------------------------------------------------------------
# Evidence: outputs, results files, code
# ---------------------------------------------------------------------------

def _output_text(output: dict) -> str:
    if output.get("output_type") == "stream":
        return "".join(output.get("text", ""))
    parts = []
    data = output.get("data", {})
    for mime in ("text/plain", "text/markdown"):
        if mime in data:
            parts.append("".join(data[mime]))
    if "text/html" in data:
        parts.append(html.unescape(re.sub(r"<[^>]+>", " ", "".join(data["text/html"]))))
    return "\n".join(parts)


def _json_numbers(value) -> list[Number]:
    if isinstance(value, bool):
        return []
    if isinstance(value, (int, float)):
        return [_number(repr(abs(value)) if isinstance(value, float) else str(abs(value)), None)
            if value >= 0 else replace(_number(repr(-value), None), value=float(value))]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _json_numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in _json_numbers(v)]
    return []


def output_texts(cells: list[dict]) -> str:
    """The text of every output of a notebook's code cells (streams, plain, Markdown, HTML)."""
    return "\n".join(
        _output_text(o) for c in cells if c["cell_type"] == "code" for o in c.get("outputs", [])
    )


def evidence_for(notebook: Path, outputs: str | None = None,
                 results_dir: Path = RESULTS) -> list[Number]:
    """Numbers that may back the notebook's claims: its outputs (the committed ones, or the
    text of another execution's outputs), its code's settings, and the results files its
    code names (in results_dir)."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    if outputs is None:
        outputs = output_texts(cells)
    found = [n for n, _ in numbers_in(outputs, "output")]
    found += [n for n, _ in numbers_in(code, "code")]
    # book/results/*.json, and the files of measurements made outside the notebooks
    # (book/results/measured/*.json: attention_course/measured.py)
    for results in sorted(results_dir.rglob("*.json")):
        if results.stem == notebook.stem or results.stem in code:
            numbers = _json_numbers(json.loads(results.read_text(encoding="utf-8")))
            found += [replace(n, source="results") for n in numbers]
    return found


def backs(evidence: Number, claim: Number) -> bool:
    tolerance = claim.decimals * (1 + 1e-9) + 1e-12

    def close(value: float) -> bool:
        return math.isfinite(value) and abs(value - claim.value) <= tolerance

    if claim.unit is None and claim.integer:                    # a count: 20,000
        return evidence.integer and close(evidence.value)
    if evidence.unit == claim.unit:                             # 98.3% from "98.27%"
        return close(evidence.value)
    if claim.unit is None and evidence.unit == "percent":       # 0.97 from "97%"
        return close(evidence.value / 100)
    if evidence.unit is not None or evidence.source == "output":
        return False  # a printed number backs a claim with a unit only if it has that unit
    if evidence.integer and claim.integer:
        return False  # a setting "20" does not back "20 times"
    # a results file or a setting, without a unit
    if claim.unit == "percent":
        return close(evidence.value) or close(evidence.value * 100)   # or a fraction
    return close(evidence.value)


def unbacked_claims(notebook: Path) -> list[str]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    evidence = evidence_for(notebook)
    problems = []
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        claims, markers = claims_in("".join(cell["source"]))
        used = set()
        for claim, sentence in claims:
            if claim.text in markers:
                used.add(claim.text)
                continue
            if not any(backs(e, claim) for e in evidence):
                unit = {"percent": "%", "time": " (duration)", "ratio": "×"}.get(claim.unit, "")
                problems.append(f"cell {index}: {claim.text}{unit} in \"{_short(sentence)}\"")
        for number, reason in markers.items():
            if number not in used:
                problems.append(f"cell {index}: marker '% prose-number: {number}' matches no "
                                "claim of its cell (stale?)")
            elif len(reason) < 8:
                problems.append(f"cell {index}: marker for {number} gives no reason")
    return problems


COMMENT_RE = re.compile(r"^\s*%")


def comments_inside_paragraphs(markdown: str) -> list[str]:
    """MyST comment lines (``%``, the prose-number markers among them) that split a paragraph:
    a comment ends the paragraph it stands in, so text right before and right after it renders as
    two paragraphs. Returns the first words of each text cut off that way. Put markers on their own,
    after the paragraph and a blank line."""
    lines = _drop_code_blocks(markdown).split("\n")
    found = []
    for index, line in enumerate(lines):
        if not COMMENT_RE.match(line):
            continue
        before = next((l for l in reversed(lines[:index]) if not COMMENT_RE.match(l)), "")
        after = next((l for l in lines[index + 1:] if not COMMENT_RE.match(l)), "")
        if before.strip() and after.strip() and not (index and COMMENT_RE.match(lines[index - 1])):
            found.append(after.strip()[:40])
    return found


def _short(sentence: str, width: int = 160) -> str:
    sentence = " ".join(sentence.split())
    return sentence if len(sentence) <= width else sentence[: width - 1] + "…"
