"""Chapter 1's encoder-decoder over seeds, in both frameworks (§1.8, "Later outputs get worse").

    python -m measurements.ch01_seeds [--seeds 0 1 2] [--frameworks keras pytorch]

The chapter's exact settings and code: the number task, keras_seq2seq / torch_seq2seq.Seq2Seq
with the default sizes, 2,000 steps of 64 bucketed pairs, Adam at 6e-3 with cosine decay to 5%
and clipping at 1 (keras_training / torch_training.train), greedy decoding of the 20,000 test
sources. The seed sets the initial weights and the order of the batches (the chapter is seed 0:
common.set_seed(0) and data.bucketed_batches(..., seed=0), its default). Each run records what
§1.8's paragraph quotes, computed as the chapter's cell computes it: on the test sources of 25
tokens and more, the share of right characters at the first output position and the mean over
positions 10 to 20; and the exact match on the whole test set, which the chapter prints.
About 70 s per run and framework on one thread.
"""
from __future__ import annotations

import argparse

import numpy as np

from attention_course import common, data, evaluation, measured

from .seq2seq_runs import train_and_decode

STEPS, BATCH_SIZE = 2000, 64                                   # as in the chapter's §1.7
RECIPE = dict(lr=6e-3, final_lr_fraction=0.05, clip_norm=1.0)
LONG_SOURCE = 25                                               # §1.8: sources of 25+ tokens


def accuracy_by_output_position(pred, tgt_out, keep):
    """Fraction of correct characters at each target position (where it exists): the
    function of the chapter's cell after "Later outputs get worse", as it is there."""
    pred, tgt = pred[keep], tgt_out[keep]
    real = tgt != data.PAD_ID
    return ((pred == tgt) & real).sum(0) / np.maximum(real.sum(0), 1), real.sum(0)


def measure(task, pred) -> dict:
    """What the chapter prints of one run: exact match, and along the output of long sources
    the first character and positions 10 to 20."""
    accuracy, _ = accuracy_by_output_position(pred, task.test.tgt_out,
                                              task.test.src_lengths >= LONG_SOURCE)
    return {"exact_match": float(evaluation.exact_match(pred, task.test.tgt_out).mean()),
            "first_character": float(accuracy[0]),
            "positions_10_to_20": float(accuracy[9:20].mean())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--frameworks", nargs="+", default=["keras", "pytorch"],
                        choices=["keras", "pytorch"])
    args = parser.parse_args()
    common.set_threads()
    task = data.number_task()
    runs = []
    for framework in args.frameworks:
        for seed in args.seeds:
            pred, seconds = train_and_decode(framework, "seq2seq", task, seed, STEPS,
                                             BATCH_SIZE, RECIPE)
            run = {"seed": seed, "framework": framework, "arm": framework,
                   **measure(task, pred), "train_seconds": round(seconds, 1)}
            print(run, flush=True)
            runs.append(run)
    path = measured.record(
        "ch01_seeds", "measurements/ch01_seeds.py",
        "Chapter 1's encoder-decoder without attention (2,000 steps of 64, the chapter's "
        "recipe) over seeds in both frameworks: exact match on the 20,000 test pairs, and on "
        "the test sources of 25 tokens and more the share of right characters at the first "
        "output position and over positions 10 to 20.", runs)
    print("recorded in", path)
    for metric in ("first_character", "positions_10_to_20"):
        print(measured.span("ch01_seeds", metric))


if __name__ == "__main__":
    main()
