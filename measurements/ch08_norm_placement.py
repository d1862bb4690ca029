"""Chapter 8, §8.2: post-LN and pre-LN without warm-up, and post-LN with warm-up, over seeds.

    python -m measurements.ch08_norm_placement               # seeds 0, 1, 2
    python -m measurements.ch08_norm_placement --seeds 3 4

The chapter's experiment ("Why pre-LN?"): chapter 6's Transformer (torch_transformer, 4
encoder and 4 decoder layers, d_model 32, 4 heads, d_ff 64, no dropout) learns to reverse 12
random digits, 150 steps of 64 sequences, Adam at a peak of 1e-2, cosine decay to 5%, gradients
clipped to norm 1. The chapter runs post-LN and pre-LN without warm-up, seed 0; here the same
two arms and a third, post-LN with a linear warm-up over the first 50 of the 150 steps, from
seeds 0-2 (PyTorch). The metric is the chapter's: the mean training loss of the last 20 steps
(guessing a digit costs ln 10 = 2.30 nats).
"""
from __future__ import annotations

import argparse

import numpy as np

from attention_course import common, data, measured

# The chapter's settings (§8.2, "Why pre-LN?")
DIGITS, LENGTH, LN_STEPS = 10, 12, 150
LN_SIZE = dict(d_model=32, num_heads=4, d_ff=64, num_layers=4, dropout=0.0)
LN_RECIPE = dict(lr=1e-2, warmup_steps=0, final_lr_fraction=0.05, clip_norm=1.0)
FIRST_DIGIT = data.UNK_ID + 1
WARMUP = 50
ARMS = {"post-LN": (False, 0), "pre-LN": (True, 0), "post-LN, 50 warm-up steps": (False, WARMUP)}


def reverse_batches(batch_size, seed=0):
    """The chapter's task: endless batches of 12 random digits -> the same digits reversed."""
    rng = np.random.default_rng(seed)
    while True:
        src = rng.integers(FIRST_DIGIT, FIRST_DIGIT + DIGITS, size=(batch_size, LENGTH))
        reverse = src[:, ::-1]
        bos = np.full((batch_size, 1), data.BOS_ID)
        eos = np.full((batch_size, 1), data.EOS_ID)
        yield data.Arrays(src, np.concatenate([bos, reverse], 1),
                          np.concatenate([reverse, eos], 1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", nargs="*", type=int, default=[0, 1, 2])
    args = parser.parse_args()
    common.set_threads()
    from attention_course import torch_training, torch_transformer
    runs = []
    for seed in args.seeds:
        for arm, (norm_first, warmup) in ARMS.items():
            common.set_seed(seed)
            model = torch_transformer.Transformer(FIRST_DIGIT + DIGITS, FIRST_DIGIT + DIGITS,
                                                  **LN_SIZE, norm_first=norm_first)
            losses = torch_training.train(
                model, reverse_batches(64, seed=seed), LN_STEPS, torch_training.seq2seq_loss,
                **{**LN_RECIPE, "warmup_steps": warmup}, desc=f"{arm}, seed {seed}")
            run = dict(seed=seed, arm=arm, framework="pytorch", norm_first=norm_first,
                       warmup_steps=warmup, final_loss=round(float(np.mean(losses[-20:])), 4),
                       first_loss=round(float(np.mean(losses[:20])), 4))
            print(run, flush=True)
            runs.append(run)
    measured.record("ch08_norm_placement", "measurements/ch08_norm_placement.py", ABOUT, runs)


ABOUT = ("Chapter 8, §8.2: chapter 6's Transformer (PyTorch), 4 + 4 layers of width 32, "
         "reversing 12 digits, 150 steps of 64 sequences, Adam at 1e-2 with cosine decay to 5%, "
         "post-LN or pre-LN without warm-up (the chapter's two arms) and post-LN with 50 "
         "warm-up steps; final_loss: mean training loss of the last 20 steps (first_loss: of "
         "the first 20); guessing costs ln 10 = 2.30.")

if __name__ == "__main__":
    main()
