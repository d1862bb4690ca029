"""The one-framework notebooks' Markdown, in plain CommonMark.

The chapters (book/NN_topic.ipynb) are written in MyST, which Jupyter Book renders: admonitions
and figures as directives, citations as roles, `[](timings.md)` links that take the page's
title, `%` comment lines. A student opens the one-framework notebooks (notebooks/) in
JupyterLab, VS Code, Colab or GitHub's viewer, none of which renders MyST without an extension
(jupyterlab-myst serves JupyterLab alone), so `course_tools.split` writes their Markdown cells
through `to_commonmark`, which every Markdown renderer shows:

* an admonition becomes a quoted block whose first line is its title in bold;
* a figure becomes an image link that resolves from notebooks/ (`../book/figures/...`), its
  caption a paragraph below it;
* `{cite:p}` and `{cite:t}` become author-year text, "(Vaswani et al., 2017)" and "Vaswani et
  al. (2017)", and `references_cell` lists the works a notebook cites, at its end;
* a link to a page of the book goes to its Markdown source (`../book/timings.md`), with the
  page's title as its text where the link has none; a link to a chapter goes to the chapter's
  notebook of the same framework;
* `%` comment lines are dropped; everything else (dollar maths, tables, code) is CommonMark
  already, with the GitHub extensions that every one of those renderers supports.

Written here because no maintained tool converts MyST to CommonMark for notebooks (mystmd
exports documents, not notebook cells, and needs Node.js; jupytext keeps MyST as it is).
"""
from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import Path

from . import ROOT

BOOK = ROOT / "book"
FROM_NOTEBOOKS = "../book/"          # the book's folder, seen from notebooks/
DIRECTIVE = re.compile(r"^(?P<fence>`{3,}|:{3,})\{(?P<name>[a-z-]+)\}\s*(?P<argument>.*)$")
OPTION = re.compile(r"^:(?P<key>[a-z-]+):\s*(?P<value>.*)$")
CITE = re.compile(r"\{cite:(?P<kind>[pt])\}`(?P<keys>[^`]+)`")
LINK = re.compile(r"(?<!!)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)\)")
REMOTE = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


# ------------------------------------------------------------------ the bibliography
@functools.cache
def bibliography(path: Path = BOOK / "references.bib") -> dict:
    """{key: pybtex entry} of the book's references."""
    from pybtex.database import parse_file

    return dict(parse_file(str(path)).entries)


ACCENTS = {'"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303",
           "c": "\u0327", "v": "\u030c"}
LETTERS = {"L": "Ł", "l": "ł", "o": "ø", "O": "Ø", "ss": "ß", "aa": "å", "AA": "Å"}
ACCENTED = re.compile(r"\\(?P<accent>[\"'`^~cv])\s*\{?(?P<letter>[A-Za-z])\}?")
LETTER = re.compile(r"\\(?P<name>ss|aa|AA|[LlOo])(?![A-Za-z])")


def _plain(text: str) -> str:
    """A BibTeX field as plain text: {\\"u} -> ü, {\\L} -> Ł, braces dropped (the accents
    and letters that BibTeX files use; the references' own tests check that none is left)."""
    text = ACCENTED.sub(lambda m: unicodedata.normalize("NFC", m["letter"] + ACCENTS[m["accent"]]), text)
    text = LETTER.sub(lambda m: LETTERS[m["name"]], text)
    return re.sub(r"\s+", " ", text.replace("{", "").replace("}", "")).strip()


def authors(key: str) -> str:
    """'Vaswani et al.', 'Bahdanau and Cho', 'Hochreiter': the citation's author part."""
    people = bibliography()[key].persons.get("author", [])
    names = [_plain(" ".join(person.last_names)) for person in people]
    if len(names) >= 3:
        return f"{names[0]} et al."
    return " and ".join(names) or _plain(bibliography()[key].fields.get("title", key))


def year(key: str) -> str:
    return bibliography()[key].fields.get("year", "n.d.")


def cite(kind: str, keys: list[str]) -> str:
    """The text of a {cite:p} (kind 'p') or {cite:t} (kind 't') role."""
    if kind == "t":
        return "; ".join(f"{authors(key)} ({year(key)})" for key in keys)
    return "(" + "; ".join(f"{authors(key)}, {year(key)}" for key in keys) + ")"


def reference(key: str) -> str:
    """One line of the reference list: authors, year, title, venue, link."""
    entry = bibliography()[key]
    people = [_plain(" ".join(person.first_names + person.middle_names + person.last_names))
              for person in entry.persons.get("author", [])]
    fields = {name: _plain(value) for name, value in entry.fields.items()}
    venue = fields.get("journal") or fields.get("booktitle") or fields.get("publisher") or ""
    link = (f"https://doi.org/{entry.fields['doi']}" if "doi" in entry.fields
            else entry.fields.get("url", ""))
    parts = [", ".join(people) + f" ({year(key)}).", f"*{fields.get('title', key)}*."]
    if venue:
        parts.append(f"{venue}.")
    if link:
        parts.append(f"<{link}>")
    return " ".join(parts)


def cited_keys(markdown: str) -> list[str]:
    """The keys a Markdown text cites, in order of first citation."""
    keys: list[str] = []
    for match in CITE.finditer(markdown):
        keys += [key.strip() for key in match["keys"].split(",") if key.strip() not in keys]
    return keys


def references_cell_source(keys: list[str]) -> str:
    """The Markdown of a notebook's reference list."""
    ordered = sorted(keys, key=lambda key: (authors(key).lower(), year(key)))
    return "## References\n\n" + "\n".join(f"- {reference(key)}" for key in ordered)


# ------------------------------------------------------------------ links
@functools.cache
def page_title(page: Path) -> str:
    """The first heading of a Markdown page of the book."""
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return page.stem


def _link(match: re.Match, framework: str) -> str:
    text, target = match["text"], match["target"]
    path, _, anchor = target.partition("#")
    if REMOTE.match(target) or not path or not (BOOK / path).is_file():
        return match.group(0)
    page = BOOK / path
    if page.suffix == ".ipynb":
        new = f"{page.stem}-{framework}.ipynb"                    # the chapter, one framework
        text = text or page.stem
    else:
        new = FROM_NOTEBOOKS + path
        text = text or page_title(page)
    return f"[{text}]({new}{'#' + anchor if anchor else ''})"


# ------------------------------------------------------------------ directives
def _directive(name: str, argument: str, options: dict, body: list[str]) -> list[str]:
    """CommonMark lines for one directive block."""
    if name == "figure":
        alt = options.get("alt", "").replace("]", ")").replace("[", "(")
        lines = [f"![{alt}]({FROM_NOTEBOOKS}{argument})"]
        caption = "\n".join(body).strip()
        return lines + (["", caption] if caption else [])
    title = argument.strip() or name.capitalize()
    quoted = [f"**{title}**", ""] + body
    return ["> " + line if line.strip() else ">" for line in quoted]


def _blocks(lines: list[str]) -> list[str]:
    """The lines with every directive block replaced (an unclosed block is kept as it is)."""
    out: list[str] = []
    index = 0
    while index < len(lines):
        opening = DIRECTIVE.match(lines[index])
        if not opening:
            out.append(lines[index])
            index += 1
            continue
        fence = opening["fence"]
        end = next((j for j in range(index + 1, len(lines)) if lines[j].strip() == fence), None)
        if end is None:
            out.extend(lines[index:])
            break
        body = lines[index + 1:end]
        options = {}
        while body and OPTION.match(body[0]):
            option = OPTION.match(body.pop(0))
            options[option["key"]] = option["value"]
        while body and not body[0].strip():
            body.pop(0)
        out.extend(_directive(opening["name"], opening["argument"], options, _blocks(body)))
        index = end + 1
    return out


def to_commonmark(markdown: str, framework: str) -> str:
    """A chapter's Markdown cell as the one-framework notebook of `framework` shows it."""
    lines = [line for line in markdown.split("\n") if not line.startswith("%")]
    text = "\n".join(_blocks(lines))
    text = CITE.sub(lambda m: cite(m["kind"], [k.strip() for k in m["keys"].split(",")]), text)
    return LINK.sub(lambda m: _link(m, framework), text)
