"""Committed outputs agree with the results files they were made from.

Chapter 1 saves its accuracy-by-length table to book/results/01_rnn_bottleneck.json;
chapter 2 reads that file and draws the chapter-1 columns of its own table, and saves its
own table, which chapter 6 reads beside chapter 1's. If a chapter is
re-executed (rewriting the file) and a later one that reads it is not, the book shows numbers
from two different runs. These checks read the committed notebooks and files only (fast): every
accuracy-by-length table in an output whose columns name a framework must show, rounded as
printed, the rows of the results file the notebook read.
"""
import json
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[1] / "book"
RESULTS = BOOK / "results"


def markdown_tables(notebook: Path):
    """Every Markdown table printed by a code cell: (cell id, header, rows as lists of cells)."""
    for cell in json.loads(notebook.read_text())["cells"]:
        for output in cell.get("outputs", []):
            text = "".join(output.get("data", {}).get("text/markdown", ""))
            lines = [line.strip() for line in text.splitlines() if line.strip().startswith("|")]
            if len(lines) > 2 and lines[0].startswith("| source tokens"):
                split = [[part.strip() for part in line.strip("|").split("|")] for line in lines]
                yield cell.get("id"), split[0], split[2:]


def results_rows(name: str) -> dict:
    """{framework: {bin: accuracy as printed, e.g. '98.3%'}} from a results file."""
    data = json.loads((RESULTS / f"{name}.json").read_text())
    return {framework: {row["bin"]: f"{row['accuracy']:.1%}" for row in rows}
            for framework, rows in data.items()}


# (notebook, results file, how a column header names a framework's column from that file)
CASES = [
    ("01_rnn_bottleneck", "01_rnn_bottleneck", r"^(Keras|PyTorch)$"),
    ("02_bahdanau_attention", "01_rnn_bottleneck", r"^(Keras|PyTorch), chapter 1$"),
    ("02_bahdanau_attention", "02_bahdanau_attention", r"^(Keras|PyTorch), attention$"),
    ("06_transformer", "01_rnn_bottleneck", r"^(Keras|PyTorch), chapter 1$"),
    ("06_transformer", "02_bahdanau_attention", r"^(Keras|PyTorch), chapter 2$"),
    ("06_transformer", "06_transformer", r"^(Keras|PyTorch), Transformer$"),
]


@pytest.mark.parametrize("notebook,results,column", CASES, ids=[c[0] for c in CASES])
def test_tables_show_the_committed_results_file(notebook, results, column):
    expected = results_rows(results)
    checked = 0
    for cell_id, header, rows in markdown_tables(BOOK / f"{notebook}.ipynb"):
        for index, name in enumerate(header):
            match = re.match(column, name)
            if not match:
                continue
            framework = match.group(1)
            for row in rows:
                assert row[index] == expected[framework][row[0]], (
                    f"{notebook} (cell {cell_id}) shows {row[index]} for {framework}, "
                    f"{row[0]} tokens, but book/results/{results}.json holds "
                    f"{expected[framework][row[0]]}: re-execute the chapters in order "
                    f"(the one that writes the file first) and commit them together")
                checked += 1
    assert checked >= 12, f"found only {checked} cells to compare in {notebook}'s tables"


def test_chapter_2_summary_line_quotes_the_results_file():
    """Chapter 2's compared cell prints chapter 1's accuracy on the longest sources."""
    expected = results_rows("01_rnn_bottleneck")
    cells = json.loads((BOOK / "02_bahdanau_attention.ipynb").read_text())["cells"]
    printed = "".join("".join(o.get("text", "")) for c in cells for o in c.get("outputs", []))
    quoted = re.findall(r"^(Keras|PyTorch): .*chapter 1 ([\d.]+%) on the longest sources",
                        printed, flags=re.M)
    assert len(quoted) == 2, quoted
    for framework, value in quoted:
        assert value == expected[framework]["31-44"], (framework, value)
