"""The assignments' own-work cell: are the asked names written in the notebook?

The course package holds its own versions of what the assignments ask for, and the grader does
not provide them (``hide``): an answer that imports one (however: ``from ... import``,
``importlib``, ``sys.modules``, a subclass that adds nothing) scores 0 for its part. This
check, which students run before they hand in, says so early. It looks at the notebook's
objects only, so it is a courtesy, not what protects a grade: that is the grader's copy of the
package.
"""
from __future__ import annotations

PACKAGE = "attention_course"


def course_origin(value, name: str) -> str | None:
    """The course module that `value` (or, for a class, a class it derives from that has the
    same name) comes from, or None when it is the notebook's own."""
    classes = value.__mro__ if isinstance(value, type) else (value,)
    for candidate in classes:
        module = getattr(candidate, "__module__", None) or ""
        if module.split(".")[0] == PACKAGE and getattr(candidate, "__name__", "") == name:
            return module
    return None


def assert_own_work(namespace: dict, asked: list[str]) -> None:
    """Fail with one line per name of `asked` that `namespace` lacks or has from the
    course."""
    problems = []
    for name in asked:
        if name not in namespace:
            problems.append(f"{name} is not defined: run its answer cell")
        elif course_origin(namespace[name], name):
            problems.append(f"{name} is the course's version, not yours: the grader does not "
                            "provide it, so this part would score 0: write your own")
    assert not problems, "\n".join(problems)
    print(f"Your own work: {', '.join(asked)} are defined in this notebook.")
