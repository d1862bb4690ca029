"""Chapter 7's trained results over seeds, in both frameworks: the chapter's own cells.

    python -m measurements.ch07_seeds [--seeds 0 1 2]

The script executes the code cells of book/07_bert.ipynb in order, in one namespace, as
Jupyter does, with the chapter's seed (cell 1's ``SEED = 0``) set to each seed in turn. SEED
seeds the initial weights and dropout (``common.set_seed(SEED)``) and the order of the training
batches (``review_batches(..., seed=SEED)``, ``mlm_batches``, ``classification_batches``,
``next_sentence_batches``); the data, their splits and the held-out sets do not change. The
settings are therefore the chapter's by construction. It skips the cells that compare the
chapter's run with the recorded ranges (they read the file this script writes) and the final
timing cell. Per seed and framework it records:

- arm "encoder from scratch" (§7.1): test accuracy on the 1,000 test reviews;
- arm "masked LM" (§7.6): held-out masked-LM loss ("valid_loss", nats per masked token);
- arm "fine-tuned, pretrained weights" and "fine-tuned, random weights" (§7.8): accuracy on
  the 300 test reviews;
- arm "next sentence" (§7.9): accuracy on the 2,000 held-out pairs.

About 3 minutes per seed on one CPU thread (both frameworks; set OMP_NUM_THREADS=1
COURSE_THREADS=1 as the test run does).
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")                   # the figures are not shown

from attention_course import measured  # noqa: E402

NAME = "ch07_seeds"
NOTEBOOK = Path(__file__).resolve().parents[1] / "book" / "07_bert.ipynb"
SEED_LINE = "SEED = 0 "


def chapter_cells() -> list[str]:
    """The code cells of the chapter that this script runs, in order."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    sources = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]
    return [source for source in sources
            if "measured.span(" not in source and not source.startswith("wall, cpu =")]


def run(seed: int) -> list[dict]:
    cells = chapter_cells()
    assert sum(SEED_LINE in source for source in cells) == 1, "cell 1 sets SEED = 0"
    namespace: dict = {}
    start = time.perf_counter()
    for source in cells:
        exec(compile(source.replace(SEED_LINE, f"SEED = {seed} ", 1), str(NOTEBOOK), "exec"),
             namespace)
    seconds = time.perf_counter() - start
    runs = []
    for framework in ("Keras", "PyTorch"):
        fine_tuning = namespace["review_accuracy_by_framework"][framework]
        common = {"seed": seed, "framework": framework}
        runs += [
            {**common, "arm": "encoder from scratch",
             "accuracy": float(namespace["scratch_accuracy"][framework])},
            {**common, "arm": "masked LM",
             "valid_loss": float(namespace["mlm_results"][framework]["valid"])},
            {**common, "arm": "fine-tuned, pretrained weights", "accuracy": float(
                fine_tuning["MiniLM architecture, pretrained weights, fine-tuned"])},
            {**common, "arm": "fine-tuned, random weights", "accuracy": float(
                fine_tuning["MiniLM architecture, random weights, fine-tuned"])},
            {**common, "arm": "next sentence",
             "accuracy": float(namespace["nsp_accuracy"][framework])}]
    for one in runs:
        one["chapter_seconds"] = round(seconds, 1)
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    args = parser.parse_args()
    for seed in args.seeds:                     # recorded seed by seed
        runs = run(seed)
        for one in runs:
            print(one, flush=True)
        print("recorded in", measured.record(
            NAME, "measurements/ch07_seeds.py",
            "Chapter 7's trained results, seeds 0 to 2, Keras and PyTorch, from the chapter's own "
            "cells (SEED set per run): §7.1's encoder from scratch, §7.6's masked LM, §7.8's "
            "fine-tuning from pretrained and random weights, §7.9's next-sentence prediction",
            runs))


if __name__ == "__main__":
    main()
