"""Keep the hidden tests out of the feedback that students get back (``GenerateFeedback``).

nbgrader's feedback is rendered from the autograded notebooks, which hold the hidden tests
(autograde restores them from the gradebook), and out of the box it shows them: in the test
cells' source, and in the traceback of a failing test, which quotes the failing line and its
neighbours (nbgrader issue 1363). A submission's own code can also print them: it runs in the
same kernel as the tests, so it can read their source (IPython's history, ``inspect`` on its
caller) and print it into an output. This preprocessor

* removes every ``### BEGIN HIDDEN TESTS`` ... ``### END HIDDEN TESTS`` region from the test
  cells' source;
* drops every traceback frame that quotes a test cell (frames are labelled ``Cell In[n]`` with
  that cell's execution count) or a module of the hidden tests' checks (``course_checks``); the
  error's name and message, which the tests write for students, and the frames in the student's
  own code stay;
* replaces, in every output of every cell, each line that contains a line of hidden-test code
  (16 characters or more, and not also in visible code; the lines of the ``course_checks`` modules
  that the hidden tests import count as hidden-test code) or a hidden-test marker by
  ``[hidden test code removed]``.

What it cannot stop is hidden-test code that a submission prints *encoded* (reversed, base64,
one character per line): the feedback shows what the submission's code printed. Instructors
who worry about that can hide outputs of hidden-test cells entirely (``hide_test_outputs``).
"""
from __future__ import annotations

import re

from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_FRAME = re.compile(r"^\s*(?:Cell In\s*\[(\d+)\]|File <ipython-input-(\d+)-|<ipython-input-(\d+)-)")
_CHECKS_FRAME = re.compile(r"^\s*File \S*[/\\]course_checks[/\\]")
_SPACE = re.compile(r"\s+")
REMOVED = "[hidden test code removed]"
MIN_LINE = 16


def is_test(cell) -> bool:
    info = cell.metadata.get("nbgrader", {})
    return cell.cell_type == "code" and info.get("grade") and not info.get("solution")


def _norm(text: str) -> str:
    return _SPACE.sub(" ", _ANSI.sub("", text)).strip()


def imported_checks(source: str) -> set[str]:
    """The course_checks modules that `source` imports, and those they import in turn."""
    from course_checks import PACKAGE

    names = set(re.findall(r"from course_checks import ([\w, ]+)", source))
    names = {name.split(" as ")[0].strip() for group in names for name in group.split(",")}
    found = set()
    while names:
        name = names.pop()
        path = PACKAGE / f"{name}.py"
        if name in found or not path.exists():
            continue
        found.add(name)
        text = path.read_text()
        names |= set(re.findall(r"^from \.(\w+) import", text, re.M))
        names |= {n.strip() for group in re.findall(r"^from \. import ([\w, ]+)", text, re.M)
                  for n in group.split(",")}
    return found


def checks_lines(hidden_source: str) -> set[str]:
    """The code lines of the course_checks modules that the hidden tests import, normalised; none
    when the package is absent."""
    try:
        from course_checks import PACKAGE
    except ImportError:
        return set()
    lines = set()
    for name in sorted(imported_checks(hidden_source)):
        for line in (PACKAGE / f"{name}.py").read_text().split("\n"):
            flat = _norm(line)
            if flat and not flat.startswith(("#", '"', "'", 'f"', "f'")):
                lines.add(flat)
    return lines


class HideHiddenTestsInFeedback(NbGraderPreprocessor):
    begin = "BEGIN HIDDEN TESTS"
    end = "END HIDDEN TESTS"
    hide_test_outputs = Bool(False, help="show only the error name and message of failing test cells: "
                             "none of their other outputs").tag(config=True)

    def preprocess(self, nb, resources):
        tests = [cell for cell in nb.cells if is_test(cell)]
        counts = {int(cell.execution_count) for cell in tests if cell.get("execution_count") is not None}
        hidden, visible = set(), set()
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            inside = False
            for line in cell.source.split("\n"):
                if self.begin in line:
                    inside = True
                elif self.end in line:
                    inside = False
                else:
                    (hidden if inside and is_test(cell) else visible).add(_norm(line))
        hidden |= checks_lines("\n".join(hidden))
        self._hidden = sorted(line for line in hidden - visible if len(line) >= MIN_LINE)
        for cell in tests:
            cell.source = self._without_hidden_region(cell.source)
        for cell in nb.cells:
            outputs = cell.get("outputs", [])
            for output in outputs:
                if output.get("output_type") == "error":
                    output.traceback = [self._scrub(frame) for frame in output.get("traceback", [])
                                        if self._cell_quoted(frame) not in counts
                                        and not _CHECKS_FRAME.match(_ANSI.sub("", frame))]
                    output.evalue = self._scrub(output.get("evalue", ""))
                elif output.get("output_type") == "stream":
                    output.text = self._scrub(output.get("text", ""))
                else:
                    data = output.get("data", {})
                    for mime in list(data):
                        if isinstance(data[mime], str):
                            data[mime] = self._scrub(data[mime])
            if self.hide_test_outputs and is_test(cell):
                cell.outputs = [o for o in outputs if o.get("output_type") == "error"]
                for output in cell.outputs:
                    output.traceback = [f"{output.ename}: {output.evalue}"]
        return nb, resources

    def _scrub(self, text: str) -> str:
        if not text:
            return text
        lines = text.split("\n")
        for i, line in enumerate(lines):
            flat = _norm(line)
            if self.begin in flat or self.end in flat or (
                    len(flat) >= MIN_LINE and any(secret in flat for secret in self._hidden)):
                lines[i] = REMOVED
        return "\n".join(lines)

    def _without_hidden_region(self, source):
        kept, hidden = [], False
        for line in source.split("\n"):
            if self.begin in line:
                hidden = True
            elif self.end in line:
                hidden = False
            elif not hidden:
                kept.append(line)
        return "\n".join(kept).rstrip("\n")

    @staticmethod
    def _cell_quoted(frame):
        """The execution count of the cell that a traceback frame quotes, or None."""
        match = _FRAME.match(_ANSI.sub("", frame))
        return int(next(group for group in match.groups() if group)) if match else None
