"""The copier of every round trip (harness/copiers.py) pastes working chapter code.

A variation part must score 0 for a student who pastes the chapter's nearest component under the
asked name (tests/harness/round_trip.py). That proves something only if the paste is the
chapter's code as it runs: here each generated cell runs, in this process with the real
package, and binds each asked name to the chapter's component (a class or function of the
component's name, defined by the paste, not imported), and nothing else reaches the globals.
"""
import pytest

from course_tools import manifest
from harness import copiers

CASES = [(chapter, framework, assignment) for chapter in manifest.chapters()
         for framework, assignment in zip(chapter.frameworks, chapter.assignments)]


@pytest.mark.parametrize("chapter, framework, assignment", CASES,
                         ids=[assignment for _, _, assignment in CASES])
def test_the_paste_defines_the_chapters_component_under_the_asked_name(chapter, framework,
                                                                        assignment):
    copies = chapter.variation["copies"][framework]
    for cell in copiers.copier_cells(chapter, framework, assignment):
        namespace = {}
        exec(compile(cell.source, cell.grade_id, "exec"), namespace)    # noqa: S102 (our own code)
        for asked, dotted in copies.items():
            if asked not in copiers.defined_names(cell.source):
                continue
            pasted = namespace[asked]
            assert pasted.__name__ == dotted.split(".")[1], (asked, dotted)
            assert pasted.__module__ != f"attention_course.{dotted.split('.')[0]}", (
                f"{asked}: imported from the package, not pasted")
        leaked = {name for name in namespace if not name.startswith("_")} - copiers.defined_names(
            cell.source)
        assert not leaked, f"the paste put {sorted(leaked)} into the notebook's globals"
