"""How alike the students' code is, per assignment: evidence for an instructor to read, never
an automatic penalty.

    python -m course_tools.similarity <assignment> [--course DIR] [--out DIR] [--show 0.3]

Run it after `nbgrader autograde <assignment>`, from the course's folder (or name it with
--course). It reads every autograded/<student>/<assignment>/<assignment>.ipynb and compares the
code each student wrote (the answer cells and the student's own code cells; the given cells
are left out) with the chapter's code (the code cells of the book's chapter that course.toml
maps the assignment to, less the other framework's), with the solution's answers
(solutions/<assignment>/) and with every other student's code. Everything the release hands
out (every code cell of exercises/<assignment>/: the given cells, the answers' signatures,
docstrings and `raise NotImplementedError()`) is boilerplate and never counts as a match, so
an untouched starter scores 0.

The fingerprinting is copydetect's (winnowing over Pygments tokens, names and strings
replaced, so renaming variables does not hide a copy); this module only picks the code,
scores pairs and writes the report. A pair's shares are the parts of each side's fingerprinted
code found in the other. The score of two students is the larger share (either may have copied
the other); of a student against the chapter or the solution, the student's share (the
chapter is far longer than an answer).

Written to --out (default: reports/similarity/<assignment>/ in the course, which .gitignore
keeps out of git: the report names students; the command refuses a folder that git would
track): similarity.csv (one row per compared pair, highest score first), similarity.html (a
self-contained page: the same table, then the code of every pair at or above --show side by
side with the matching parts highlighted; nothing is fetched from the network) and code/ (the
code that was compared, one file per student and reference).
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import io
import itertools
import subprocess
import sys
from pathlib import Path

import jinja2
import nbformat
from copydetect import CodeFingerprint, compare_files
from copydetect.utils import highlight_overlap
from markupsafe import Markup

from . import manifest

# copydetect's defaults: matches shorter than 25 characters of tokenised code (a name is one
# character) are noise. A window of 1 (guarantee = noise) keeps every k-gram: the scores do not
# depend on Python's per-process string hashing, and answers are small enough for it.
NOISE = 25
WINDOW = 1
CHAPTER_CONTEXT_LINES = 3      # the chapter's side of a pair shows this much around each match
CSV_FIELDS = ("score", "student", "compared_with", "kind", "student_share", "other_share",
              "matched_tokens")
SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")
TEMPLATES = Path(__file__).parent          # similarity.html, the page's template


@dataclasses.dataclass(frozen=True)
class Source:
    """Code to compare: whose it is (`name`), what it is (`kind`: student, solution, chapter)
    and the code itself, one cell after another."""

    name: str
    kind: str
    code: str


@dataclasses.dataclass(frozen=True)
class Pair:
    """One comparison of a student with another source, and where they match."""

    student: Source
    other: Source
    student_share: float
    other_share: float
    matched_tokens: int
    slices: tuple          # copydetect's (start, end) character slices in each side's code

    @property
    def anchor(self) -> str:
        """The id of the pair's side-by-side section on the page."""
        return f"pair-{self.student.name}-{self.other.name}"

    @property
    def score(self) -> float:
        if self.other.kind == "student":
            return max(self.student_share, self.other_share)
        return self.student_share

    def row(self) -> dict[str, object]:
        """The pair's row of the CSV."""
        return {"score": f"{self.score:.3f}", "student": self.student.name,
                "compared_with": self.other.name, "kind": self.other.kind,
                "student_share": f"{self.student_share:.3f}",
                "other_share": f"{self.other_share:.3f}",
                "matched_tokens": self.matched_tokens}


# ---------------------------------------------------------------- what is compared
def nbgrader_of(cell) -> dict:
    return cell.metadata.get("nbgrader", {})


def joined(cells: list[tuple[str, str]]) -> str:
    """Cells as one Python file, each after a `# %% <label>` line (comments are not
    compared)."""
    return "".join(f"# %% {label}\n{source.rstrip()}\n\n" for label, source in cells)


def label_of(cell, index: int) -> str:
    return nbgrader_of(cell).get("grade_id") or f"cell {index}"


def written_by_student(notebook) -> str:
    """The code a student wrote: every code cell that is not a given (locked) one."""
    return joined([(label_of(cell, index), cell.source)
                   for index, cell in enumerate(notebook.cells, 1)
                   if cell.cell_type == "code" and not nbgrader_of(cell).get("locked")])


def solution_answers(notebook) -> str:
    """The answer cells of a solution notebook, without nbgrader's solution markers."""
    cells = [(label_of(cell, index), without_markers(cell.source))
             for index, cell in enumerate(notebook.cells, 1)
             if cell.cell_type == "code" and nbgrader_of(cell).get("solution")]
    return joined(cells)


def without_markers(source: str) -> str:
    return "\n".join(line for line in source.split("\n")
                     if not any(marker in line for marker in SOLUTION_MARKERS))


def every_code_cell(notebook, skip_tags: frozenset[str] = frozenset()) -> str:
    """The code cells of a notebook, less those carrying one of `skip_tags`."""
    return joined([(label_of(cell, index), cell.source)
                   for index, cell in enumerate(notebook.cells, 1)
                   if cell.cell_type == "code"
                   and not skip_tags & set(cell.metadata.get("tags", []))])


def read_notebook(path: Path):
    return nbformat.read(path, as_version=4)


def chapter_notebook(course: Path, assignment: str) -> Path:
    """The book's chapter of an assignment, as course.toml maps them."""
    for chapter in manifest.chapters(course / "course.toml"):
        if assignment in chapter.assignments:
            return course / "book" / f"{chapter.stem}.ipynb"
    raise SystemExit(f"{assignment}: no chapter of course.toml has this assignment")


def chapter_code(course: Path, assignment: str) -> str:
    """The chapter's code cells that a student of this assignment's framework reads."""
    framework = assignment.rsplit("-", 1)[-1]
    others = frozenset(manifest.FRAMEWORKS) - {framework}
    return every_code_cell(read_notebook(chapter_notebook(course, assignment)), others)


def students(course: Path, assignment: str) -> list[Source]:
    """Every autograded submission of the assignment, by student id."""
    found = sorted((course / "autograded").glob(f"*/{assignment}/{assignment}.ipynb"))
    return [Source(path.parents[1].name, "student", written_by_student(read_notebook(path)))
            for path in found if not path.parents[1].name.startswith(".")]


def references(course: Path, assignment: str) -> list[Source]:
    """The solution's answers and the chapter's code."""
    solution = read_notebook(course / "solutions" / assignment / f"{assignment}.ipynb")
    return [Source("solution", "solution", solution_answers(solution)),
            Source("chapter", "chapter", chapter_code(course, assignment))]


def boilerplate(course: Path, assignment: str) -> list[str]:
    """What the release hands out (exercises/<assignment>/): its answer cells as an untouched
    submission reads (so that runs of code across two starters count as boilerplate too), and
    all its code cells (the given ones too, should a student copy one)."""
    release = read_notebook(course / "exercises" / assignment / f"{assignment}.ipynb")
    return [written_by_student(release), every_code_cell(release)]


# ---------------------------------------------------------------- comparing (copydetect)
def fingerprint(source: Source, template_hashes) -> CodeFingerprint:
    """copydetect's fingerprint of a source, the release's fingerprints left out."""
    return CodeFingerprint(f"{source.name}.py", NOISE, WINDOW, boilerplate=template_hashes,
                           fp=io.StringIO(source.code))


def template_fingerprints(codes: list[str]) -> list[int]:
    """The fingerprints of the boilerplate documents, every k-gram of each."""
    hashes = set()
    for code in codes:
        hashes |= CodeFingerprint("release.py", NOISE, 1, fp=io.StringIO(code)).hashes
    return sorted(hashes)


def compare(student: Source, other: Source, prints: dict[str, CodeFingerprint]) -> Pair:
    overlap, (student_share, other_share), slices = compare_files(prints[student.name],
                                                                 prints[other.name])
    return Pair(student, other, float(student_share), float(other_share), int(overlap), slices)


def all_pairs(class_list: list[Source], refs: list[Source], template: list[str]) -> list[Pair]:
    """Every student against each reference and against every other student, best first."""
    hashes = template_fingerprints(template)
    prints = {source.name: fingerprint(source, hashes) for source in class_list + refs}
    pairs = [compare(student, ref, prints) for student in class_list for ref in refs]
    pairs += [compare(one, two, prints) for one, two in itertools.combinations(class_list, 2)]
    return sorted(pairs, key=lambda pair: (-pair.score, pair.student.name, pair.other.name))


# ---------------------------------------------------------------- the report
def highlighted(source: Source, slices, css_class: str) -> Markup:
    """A source's code, HTML-escaped, its matching parts in <mark>."""
    context = CHAPTER_CONTEXT_LINES if source.kind == "chapter" else -1
    code, _ = highlight_overlap(source.code, slices, f"<mark class='{css_class}'>", "</mark>",
                                truncate=context, escape_html=True)
    return Markup(code)


def side_by_side(pair: Pair) -> dict[str, object]:
    """What the page shows of one pair: its two sides' code, highlighted."""
    return {"pair": pair, "left": highlighted(pair.student, pair.slices[0], "match"),
            "right": highlighted(pair.other, pair.slices[1], "match")}


def render_html(assignment: str, pairs: list[Pair], show: float) -> str:
    """The page: every pair in a table, then the pairs at or above `show` side by side."""
    shown = [side_by_side(pair) for pair in pairs
             if pair.matched_tokens and pair.score >= show]
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES),
                                     autoescape=True)
    template = environment.get_template("similarity.html")
    return template.render(assignment=assignment, pairs=pairs, shown=shown, show=show,
                           shown_anchors={item["pair"].anchor for item in shown})


def write_csv(path: Path, pairs: list[Pair]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_FIELDS)
        writer.writeheader()
        writer.writerows(pair.row() for pair in pairs)


def write_code(folder: Path, sources: list[Source]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for source in sources:
        (folder / f"{source.kind}-{source.name}.py").write_text(source.code, encoding="utf-8")


def git_would_track(out: Path) -> bool:
    """Whether `out` lies in a git work tree and is not ignored there (a report there could be
    committed). git check-ignore: 0 ignored, 1 not ignored, 128 not in a work tree."""
    existing = next(parent for parent in [out, *out.parents] if parent.exists())
    try:
        result = subprocess.run(["git", "-C", str(existing), "check-ignore", "-q", str(out)],
                                capture_output=True, check=False)
    except FileNotFoundError:                  # no git: nothing to commit the report with
        return False
    return result.returncode == 1


def report(course: Path, assignment: str, out: Path, show: float) -> list[Pair]:
    """Compare, then write the CSV, the page and the compared code into `out`."""
    class_list = students(course, assignment)
    if not class_list:
        raise SystemExit(f"no autograded/<student>/{assignment}/{assignment}.ipynb in "
                         f"{course}: run `nbgrader autograde {assignment}` first")
    refs = references(course, assignment)
    pairs = all_pairs(class_list, refs, boilerplate(course, assignment))
    out.mkdir(parents=True, exist_ok=True)
    write_code(out / "code", class_list + refs)
    write_csv(out / "similarity.csv", pairs)
    page = render_html(assignment, pairs, show)
    (out / "similarity.html").write_text(page, encoding="utf-8")
    return pairs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("assignment", help="e.g. 03-self-attention-pytorch")
    parser.add_argument("--course", type=Path, default=Path.cwd(),
                        help="the course's folder (course.toml, book/, autograded/...)")
    parser.add_argument("--out", type=Path,
                        help="where to write (default: <course>/reports/similarity/<a>)")
    parser.add_argument("--show", type=float, default=0.3,
                        help="show pairs with at least this score side by side (default 0.3)")
    args = parser.parse_args(argv)
    course = args.course.resolve()
    out = (args.out or course / "reports" / "similarity" / args.assignment).resolve()
    if git_would_track(out):
        print(f"{out} is not git-ignored: the report names students; choose an ignored folder "
              "(reports/ is) or one outside the repository", file=sys.stderr)
        return 2
    pairs = report(course, args.assignment, out, args.show)
    print(f"{len(pairs)} comparisons, highest score first: {out / 'similarity.csv'}, "
          f"{out / 'similarity.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
