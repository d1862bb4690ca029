"""The reproducibility check (attention_course/reproduce.py) on small notebooks: a claim that
a second execution still backs passes, one it no longer backs is reported, and timings are
left out."""
import json

import nbformat
import pytest

from course_tools import reproduce

PROSE = ("It reached 98.3% on 20,000 pairs. It trained in 12 s, 2.4× faster than the RNN, "
         "with a loss of 0.052.\n")
FIRST = "accuracy 98.27% on 20,000 pairs; trained in 12.2 s, 2.41× faster; loss 0.0518\n"


def notebook(tmp_path, output=FIRST):
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell(PROSE),
        nbformat.v4.new_code_cell("print(report)", outputs=[
            nbformat.v4.new_output("stream", name="stdout", text=output)]),
    ])
    path = tmp_path / "09_example.ipynb"
    nbformat.write(nb, path)
    return path


def test_the_same_numbers_reproduce_and_timings_are_left_out(tmp_path):
    again = "accuracy 98.34% on 20,000 pairs; trained in 15.9 s, 1.7× faster; loss 0.0524\n"
    result = reproduce.check(notebook(tmp_path), again, tmp_path)
    assert result.checked == 3                      # 98.3%, 20,000 and 0.052; not 12 s, 2.4×
    assert result.differ == []


def test_a_number_that_changed_is_reported(tmp_path):
    again = "accuracy 98.1% on 20,000 pairs; trained in 12.2 s, 2.41× faster; loss 0.0518\n"
    result = reproduce.check(notebook(tmp_path), again, tmp_path)
    assert result.checked == 3
    assert len(result.differ) == 1 and "98.3" in result.differ[0]


def test_a_claim_unbacked_the_first_time_is_not_counted(tmp_path):
    path = notebook(tmp_path, output="accuracy 97.0% on 20,000 pairs; loss 0.0518\n")
    result = reproduce.check(path, "accuracy 97.0% on 20,000 pairs; loss 0.0518\n", tmp_path)
    assert result.checked == 2 and result.differ == []


@pytest.mark.parametrize("sentence, timing", [
    ("The cache makes it 9.3× faster.", True),
    ("A step costs 12% less time.", True),
    ("The Transformer reached 92.8% of the pairs.", False),
    ("The first character is right 91% of the time.", False),
    ("Keras and PyTorch agree to 2.4× the rounding error.", False),
])
def test_speed_claims_are_timings(sentence, timing):
    from course_tools.prose_numbers import claims_in
    claim, text = claims_in(sentence)[0][0]
    assert reproduce.is_timing(claim, text) == timing


def test_the_command_reads_a_recorded_run(tmp_path, monkeypatch):
    path = notebook(tmp_path)
    monkeypatch.setattr(reproduce, "ROOT", tmp_path)
    run = tmp_path / ".timings"
    (run / "outputs").mkdir(parents=True)
    (run / "outputs" / "09_example.json").write_text(json.dumps(
        {"notebook": path.name, "outputs": {"c1": FIRST.replace("98.27", "96.5")}}))
    checks = reproduce.run_checks(run)
    assert [c.notebook for c in checks] == ["09_example.ipynb"]
    assert "98.3" in checks[0].differ[0]
    assert "98.3" in reproduce.summary(checks)
