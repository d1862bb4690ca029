"""The course manifest (``course.toml``): what is generated from it and what must agree with it.

    python -m course_tools.manifest            # rewrite the generated files and regions
    python -m course_tools.manifest --check    # exit 1 if one is stale or the course disagrees

Generated: ``_toc.yml`` (whole); the course tables of ``README.md`` and ``book/intro.md`` and the
chapter sections of ``book/assignments.md`` (between ``<!-- generated from course.toml -->`` and
``<!-- end of generated text -->``: the prose around them is written by hand). Checked: every
chapter's notebook exists and opens with its number and title, its ``#| export`` cells write
exactly the modules listed, each name that a chapter's ``asked`` table lists is defined by its
module, and ``solutions/`` holds exactly the listed assignments.
"""
from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import tomllib
from pathlib import Path

from . import ROOT

MANIFEST = ROOT / "course.toml"
FRAMEWORKS = ("keras", "pytorch")
BEGIN = "<!-- generated from course.toml by `make generate`: edit course.toml, not this table -->"
END = "<!-- end of generated text -->"


@dataclasses.dataclass(frozen=True)
class Chapter:
    number: int
    name: str
    title: str
    short: str
    papers: tuple[str, ...]
    modules: tuple[str, ...]
    assignment: str
    marks: int
    frameworks: tuple[str, ...] = FRAMEWORKS
    # {framework: ("module.name", ...)}: the package's versions of what the assignment asks for
    # (hidden from the grading sandbox), and those of them it keeps under a private name there
    asked: dict = dataclasses.field(default_factory=dict)
    kept: dict = dataclasses.field(default_factory=dict)
    # {framework: ("module.name", ...)}: the chapter's versions of what a part asks under another
    # name or signature (chapter 6's batched beam_search beside the assignment's one-source one):
    # hidden from the grading sandbox like the asked names, not checked by the own-work cell
    withheld: dict = dataclasses.field(default_factory=dict)
    # the part that asks for what the chapter does not show: {"cells": (grade ids of its answer
    # cells, the same in every framework), "copies": {framework: {name: "module.name"}}}, where
    # `copies` names, for each name the part asks for, the chapter's nearest component, which a
    # student who copies the chapter would paste under that name (tests/harness/copiers.py)
    variation: dict = dataclasses.field(default_factory=dict)

    @property
    def stem(self) -> str:
        """book/<stem>.ipynb: 01_rnn_bottleneck."""
        return f"{self.number:02d}_{self.name}"

    @property
    def notebook(self) -> Path:
        return ROOT / "book" / f"{self.stem}.ipynb"

    @property
    def assignments(self) -> tuple[str, ...]:
        """Its assignments, one per framework: 01-rnn-bottleneck-keras, ...-pytorch."""
        return tuple(f"{self.assignment}-{framework}" for framework in self.frameworks)


def chapters(path: Path = MANIFEST) -> list[Chapter]:
    entries = tomllib.loads(path.read_text(encoding="utf-8"))["chapters"]
    listed = ("papers", "modules", "frameworks")
    tables = ("asked", "kept", "withheld")
    return [Chapter(**{**entry, **{key: tuple(entry[key]) for key in listed if key in entry},
                       **{key: {fw: tuple(names) for fw, names in entry[key].items()}
                          for key in tables if key in entry},
                       **({"variation": {"cells": tuple(entry["variation"]["cells"]),
                                         "copies": entry["variation"].get("copies", {})}}
                          if "variation" in entry else {})})
            for entry in entries]


def assignment_marks() -> dict[str, int]:
    """Every assignment and its full marks, in course order."""
    return {name: chapter.marks for chapter in chapters() for name in chapter.assignments}


# ---------------------------------------------------------------- what is generated
def toc(course: list[Chapter]) -> str:
    lines = ["# Table of contents, generated from course.toml by `make generate`: edit that file.",
             "format: jb-book", "root: book/intro", "parts:",
             "  - caption: Before you start", "    chapters:", "      - file: book/notation",
             "  - caption: Chapters", "    chapters:"]
    lines += [f"      - file: book/{chapter.stem}" for chapter in course]
    lines += ["  - caption: Course material", "    chapters:", "      - file: book/assignments",
              "      - file: book/timings", "      - file: book/references"]
    return "\n".join(lines) + "\n"


def readme_table(course: list[Chapter]) -> str:
    rows = ["| chapter | topic | assignments |", "|---|---|---|"]
    rows += [f"| {c.number} | [{c.title}](book/{c.stem}.ipynb) | "
             + ", ".join(f"`{name}`" for name in c.assignments) + " |" for c in course]
    return "\n".join(rows)


def intro_table(course: list[Chapter]) -> str:
    rows = ["| # | Chapter | Key papers |", "|---|---|---|"]
    rows += [f"| {c.number:02d} | [{c.title}]({c.stem}.ipynb) | {{cite:p}}`{','.join(c.papers)}` |"
             for c in course]
    return "\n".join(rows)


def assignment_sections(course: list[Chapter]) -> str:
    sections = []
    for chapter in course:
        lines = [f"## {chapter.number:02d}. {chapter.short}", "",
                 f"Chapter: [{chapter.title}]({chapter.stem}.ipynb).", ""]
        for framework, name in zip(chapter.frameworks, chapter.assignments):
            framework = {"keras": "Keras", "pytorch": "PyTorch"}[framework]
            path = f"exercises/{name}/{name}.ipynb"
            lines += [f"- {framework}: {{download}}`{name}.ipynb <../{path}>`", f"  (`{path}`)"]
        sections.append("\n".join(lines))
    return "\n\n".join(sections)


GENERATED_REGIONS = {"README.md": readme_table, "book/intro.md": intro_table,
                     "book/assignments.md": assignment_sections}


def with_region(text: str, body: str, where: str) -> str:
    """`text` with its generated region replaced by `body`."""
    pattern = re.compile(re.escape(BEGIN) + r"\n.*?\n" + re.escape(END), re.S)
    if len(pattern.findall(text)) != 1:
        raise ValueError(f"{where} must hold exactly one generated region ({BEGIN} ... {END})")
    return pattern.sub(lambda _: f"{BEGIN}\n\n{body}\n\n{END}", text)


def rendered(course: list[Chapter]) -> dict[Path, str]:
    """Every generated file's content."""
    files = {ROOT / "_toc.yml": toc(course)}
    for name, render in GENERATED_REGIONS.items():
        path = ROOT / name
        files[path] = with_region(path.read_text(encoding="utf-8"), render(course), name)
    return files


# ---------------------------------------------------------------- what must agree
def top_level_names(module: str) -> set[str] | None:
    """The classes and functions that attention_course/<module>.py defines (None: no file)."""
    import ast

    path = ROOT / "attention_course" / f"{module}.py"
    if not path.is_file():
        return None
    return {node.name for node in ast.parse(path.read_text(encoding="utf-8")).body
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))}


def asked_problems(chapter: Chapter) -> list[str]:
    """How a chapter's `asked`, `kept` and `withheld` tables are wrong: an unknown framework, a
    module that does not define a listed name, a kept name that is not asked, a withheld name that
    is."""
    problems = []
    where = f"course.toml, chapter {chapter.number}"
    tables = (("asked", chapter.asked), ("kept", chapter.kept), ("withheld", chapter.withheld))
    for key, table in tables:
        if set(table) - set(chapter.frameworks):
            problems.append(f"{where}: `{key}` lists {sorted(table)}, "
                            f"its assignments are in {sorted(chapter.frameworks)}")
    for key, table in tables:
        for framework, dotted_names in table.items():
            for dotted in dotted_names:
                module, _, name = dotted.partition(".")
                defined = top_level_names(module)
                if defined is None or name not in defined:
                    problems.append(f"{where}: {key} {dotted!r}: attention_course/{module}.py "
                                    f"does not define {name!r}")
            extra = set(dotted_names) - set(chapter.asked.get(framework, ()))
            if key == "kept" and extra:
                problems.append(f"{where}: kept {sorted(extra)} are not asked ({framework})")
            asked_too = set(dotted_names) - extra
            if key == "withheld" and asked_too:
                problems.append(f"{where}: withheld {sorted(asked_too)} are asked already "
                                f"({framework})")
    return problems


def own_work_names(notebook: Path) -> list[str] | None:
    """The names that a solution's own-work cell (grade_id own_work) checks, or None."""
    import ast
    import json

    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "own_work":
            calls = [node for node in ast.walk(ast.parse("".join(cell["source"])))
                     if isinstance(node, ast.Call)
                     and getattr(node.func, "id", "") == "assert_own_work"]
            return ast.literal_eval(calls[0].args[1]) if calls else None
    return None


def own_work_problems(chapter: Chapter) -> list[str]:
    """Where a solution's own-work cell does not check exactly the names its `asked` lists."""
    problems = []
    for framework, assignment in zip(chapter.frameworks, chapter.assignments):
        notebook = ROOT / "solutions" / assignment / f"{assignment}.ipynb"
        asked = [dotted.partition(".")[2] for dotted in chapter.asked.get(framework, ())]
        if asked and notebook.is_file() and own_work_names(notebook) != asked:
            problems.append(f"{notebook.relative_to(ROOT)}: its own-work cell must call "
                            f"assert_own_work(globals(), {asked}) (course.toml's `asked`)")
    return problems


def disagreements(course: list[Chapter]) -> list[str]:
    """How the repository differs from the manifest (empty when it does not)."""
    from . import export

    problems = []
    for chapter in course:
        problems += asked_problems(chapter) + own_work_problems(chapter)
        if not chapter.notebook.exists():
            problems.append(f"chapter {chapter.number}: {chapter.notebook.relative_to(ROOT)} is missing")
            continue
        import nbformat

        first = nbformat.read(chapter.notebook, as_version=4).cells[0].source.split("\n")[0]
        if first != f"# {chapter.number}. {chapter.title}":
            problems.append(f"{chapter.notebook.name} opens with {first!r}, not "
                            f"'# {chapter.number}. {chapter.title}'")
        exported = {module for module, _ in export.exported_cells(chapter.notebook)}
        if exported != set(chapter.modules):
            problems.append(f"{chapter.notebook.name} exports {sorted(exported)}, "
                            f"course.toml lists {sorted(chapter.modules)}")
    declared = sorted(name for chapter in course for name in chapter.assignments)
    found = sorted(path.name for path in (ROOT / "solutions").iterdir() if path.is_dir())
    if declared != found:
        problems.append(f"solutions/ holds {found}, course.toml declares {declared}")
    numbers = [chapter.number for chapter in course]
    if numbers != list(range(1, len(course) + 1)):
        problems.append(f"chapter numbers {numbers} are not 1, 2, ... in order")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report what is stale or wrong")
    args = parser.parse_args(argv)
    course = chapters()
    problems = disagreements(course)
    for path, content in rendered(course).items():
        if path.read_text(encoding="utf-8") != content:
            if args.check:
                problems.append(f"{path.relative_to(ROOT)} is stale: run `make generate`")
            else:
                path.write_text(content, encoding="utf-8")
                print(f"written: {path.relative_to(ROOT)}")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
