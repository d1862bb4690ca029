"""Chapter 6, §6.6: the chapter's Transformer trained for 4,000 steps instead of 1,200.

    python -m measurements.ch06_long_run [--seeds 0 1] [--steps 4000]

The chapter's model (d_model 64, 4 heads, d_ff 128, 2 + 2 layers, no dropout) and recipe
(batches of 64, Adam at 5e-3, 100 warm-up steps, cosine decay to 5%, clipping at 1, label
smoothing 0.1) in PyTorch on one thread, with the schedule stretched over --steps steps;
exact match by source length on the chapter's 4,000 test pairs, greedy decoding. The chapter
quotes the range of the longest bin (31-44 source tokens) over the recorded runs. Seed s
sets the initial weights (common.set_seed) and the order of the batches.
"""
import argparse
import fcntl
import tempfile
import time
from pathlib import Path

import torch
from torch import nn

from attention_course import common, data, evaluation, measured, torch_training
from attention_course import torch_transformer

SIZE = dict(d_model=64, num_heads=4, d_ff=128, num_layers=2, dropout=0.0)    # the chapter's
RECIPE = dict(lr=5e-3, warmup_steps=100, final_lr_fraction=0.05, clip_norm=1.0)
BATCH_SIZE, TEST_PAIRS, DECODE_BATCH = 64, slice(0, 4000), 125


def smoothed_loss(model, batch, smoothing=0.1):                # the chapter's torch_smoothed_loss
    src, tgt_in, tgt_out = (torch.as_tensor(a) for a in (batch.src, batch.tgt_in, batch.tgt_out))
    logits = model(src, tgt_in)
    return nn.functional.cross_entropy(logits.flatten(0, 1), tgt_out.flatten(),
                                       ignore_index=data.PAD_ID, label_smoothing=smoothing)


def run(task, seed, steps):
    common.set_seed(seed)
    model = torch_transformer.Transformer(len(task.src_vocab), len(task.tgt_vocab), **SIZE)
    start = time.perf_counter()
    torch_training.train(model, data.bucketed_batches(task.train, BATCH_SIZE, seed=seed), steps,
                         smoothed_loss, **RECIPE, desc=f"seed {seed}")
    seconds = time.perf_counter() - start
    predicted = torch_training.predict(torch_transformer.greedy_decode, model,
                                       task.test.src[TEST_PAIRS], task.test.tgt_out.shape[1],
                                       batch_size=DECODE_BATCH)
    correct = evaluation.exact_match(predicted, task.test.tgt_out[TEST_PAIRS])
    rows = evaluation.accuracy_by_length(task.test.src_lengths[TEST_PAIRS], correct)
    result = {"seed": seed, "framework": "pytorch", "steps": steps,
              "training_seconds": round(seconds, 1), "exact_match": float(correct.mean())}
    result.update({f"accuracy_{row['bin']}": row["accuracy"] for row in rows})
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--steps", type=int, default=4000)
    args = parser.parse_args()
    common.set_threads()
    task = data.number_task()
    for seed in args.seeds:
        result = run(task, seed, args.steps)
        print(result, flush=True)
        with open(Path(tempfile.gettempdir()) / "ch06_long_run.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)                   # several scripts may record at once
            measured.record("ch06_long_run", "measurements/ch06_long_run.py",
                            "§6.6's Transformer and recipe, PyTorch, one thread, trained for "
                            f"{args.steps} steps; exact match by source length on the chapter's "
                            "4,000 test pairs", [result])


if __name__ == "__main__":
    main()
