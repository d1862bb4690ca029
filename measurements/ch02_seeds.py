"""Chapter 2's attention model over seeds, in both frameworks (§2.8 and §2.9).

    python -m measurements.ch02_seeds [--seeds 0 1 2] [--frameworks keras pytorch]

The chapter's exact settings and code: the number task of chapter 1, keras_attention /
torch_attention.AttentionSeq2Seq with the default sizes, 1,200 steps of 32 bucketed pairs,
Adam at 6e-3 with cosine decay to 5% and clipping at 1 (keras_training / torch_training.train),
greedy decoding of the 20,000 test sources. The seed sets the initial weights and the order of
the batches (the chapter is seed 0: common.set_seed(0) and data.bucketed_batches(..., seed=0)).
Each run records the exact match on the whole test set, the lowest exact match over the
source-length bins (what §2.9's "or more at every length" quotes) and the longest bin's.
About 100 s per run and framework on one thread.
"""
from __future__ import annotations

import argparse

from attention_course import common, data, evaluation, measured

from .seq2seq_runs import train_and_decode

STEPS, BATCH_SIZE = 1200, 32                                   # as in the chapter's §2.8
RECIPE = dict(lr=6e-3, final_lr_fraction=0.05, clip_norm=1.0)


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
            pred, seconds = train_and_decode(framework, "attention", task, seed, STEPS,
                                             BATCH_SIZE, RECIPE)
            correct = evaluation.exact_match(pred, task.test.tgt_out)
            rows = evaluation.accuracy_by_length(task.test.src_lengths, correct)
            by_bin = {row["bin"]: row["accuracy"] for row in rows if row["n"]}
            run = {"seed": seed, "framework": framework, "arm": framework,
                   "exact_match": float(correct.mean()),
                   "lowest_by_length": float(min(by_bin.values())),
                   "longest_bin": float(by_bin["31-44"]),
                   "train_seconds": round(seconds, 1)}
            print(run, flush=True)
            runs.append(run)
    path = measured.record(
        "ch02_seeds", "measurements/ch02_seeds.py",
        "Chapter 2's attention model (1,200 steps of 32, the chapter's recipe) over seeds in "
        "both frameworks: exact match on the 20,000 test pairs, overall, lowest over the "
        "source-length bins and on the longest sources (31-44 tokens).", runs)
    print("recorded in", path)
    for framework in args.frameworks:
        for metric in ("exact_match", "lowest_by_length"):
            print(framework, measured.span("ch02_seeds", metric, framework=framework))


if __name__ == "__main__":
    main()
