"""The package modules generated from `#| export` cells match the chapters."""
from pathlib import Path

from course_tools import export


def test_generated_modules_match_the_chapters():
    rendered = export.render()
    assert rendered, "no cell in book/ is marked '#| export <module>'"
    for module, content in rendered.items():
        path = export.PACKAGE / f"{module}.py"
        assert path.exists(), f"{path} is missing: run `python -m course_tools.export`"
        assert path.read_text(encoding="utf-8") == content, (
            f"{path.name} differs from the cells of the chapter that exports it: edit the notebook "
            "and run `python -m course_tools.export`")


def test_each_generated_module_compiles():
    for module, content in export.render().items():
        compile(content, f"{module}.py", "exec")


def test_marker_is_recognised_only_on_the_first_line(tmp_path: Path):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("#| export demo_mod\nx = 1"),
                nbformat.v4.new_code_cell("y = 2\n#| export demo_mod"),
                nbformat.v4.new_markdown_cell("#| export demo_mod\nz = 3")]
    nbformat.write(nb, tmp_path / "01_demo.ipynb")
    exported = export.exported_cells(tmp_path / "01_demo.ipynb")
    assert [module for module, _ in exported] == ["demo_mod"]
    source = exported[0][1]
    assert "x = 1" in source and "#| export" not in source
    assert "y = 2" not in source   # marker not on the first line
    assert "z = 3" not in source   # markdown cells are never exported
