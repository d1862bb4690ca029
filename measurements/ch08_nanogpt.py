"""Chapter 8, §8.4: nanoGPT's CPU recipe and the chapter's, on the chapter's text, split and machine.

    python -m measurements.ch08_nanogpt                  # seeds 0 and 1
    python -m measurements.ch08_nanogpt --seeds 0

Karpathy's nanoGPT publishes a recipe for a laptop's CPU (README, "I only have a macbook";
config/train_shakespeare_char.py for what the command line does not change): 4 layers of width
128, 4 heads, context 64, batch 12, 2,000 iterations, no dropout, AdamW (β2 = 0.99, weight decay
0.1 on the weight matrices and embeddings), peak learning rate 1e-3 after 100 warm-up
iterations, cosine decay to 1e-4, gradients clipped to norm 1. Here that recipe trains the
course's own GPT (attention_course.torch_gpt2: it has biases where nanoGPT's default has none)
with the course's loop (torch_training.train, whose AdamW is given β2 = 0.99 below), beside the
chapter's recipe (ch08_recipes' "chapter" arm: Adam, 2 layers of width 112, 24 windows, 600
steps), from the same seeds, and both are validated on the chapter's 2,000 held-out windows.
"""
from __future__ import annotations

import argparse
import functools
from unittest import mock

import torch

from attention_course import common, measured
from measurements.ch08_recipes import ARMS, chapter_data, train_once

# (layers, width, batch, peak lr, warm-up, steps)
NANOGPT = (4, 128, 12, 1e-3, 100, 2000)
NANOGPT_OPTIMIZER = dict(weight_decay=0.1)          # AdamW; β2 = 0.99 patched in below
CHAPTER = ARMS["chapter"][:6]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", nargs="*", type=int, default=[0, 1])
    args = parser.parse_args()
    common.set_threads()
    chars, train_ids, valid = chapter_data()
    adamw_099 = functools.partial(torch.optim.AdamW, betas=(0.9, 0.99))
    for seed in args.seeds:
        for arm, recipe in (("nanoGPT's CPU recipe", NANOGPT), ("the chapter's recipe", CHAPTER)):
            layers, width, batch, lr, warmup, steps = recipe
            options = NANOGPT_OPTIMIZER if recipe is NANOGPT else None
            with mock.patch.object(torch.optim, "AdamW", adamw_099):   # nanoGPT's β2
                loss, seconds = train_once("pytorch", chars, train_ids, valid, layers, width,
                                           batch, lr, warmup, steps, seed, options)
            run = dict(seed=seed, arm=arm, framework="pytorch", layers=layers, width=width,
                       batch=batch, lr=lr, warmup_steps=warmup, steps=steps,
                       windows_seen=batch * steps, validation_loss=round(loss, 4),
                       train_seconds=round(seconds, 1))
            print(run, flush=True)
            measured.record("ch08_nanogpt", "measurements/ch08_nanogpt.py", ABOUT, [run])


ABOUT = ("Chapter 8, §8.4: nanoGPT's published CPU recipe (4 layers of width 128, 4 heads, "
         "context 64, batch 12, 2,000 iterations, AdamW with beta2 0.99 and weight decay 0.1, "
         "peak 1e-3 after 100 warm-up iterations, cosine decay to 1e-4, no dropout) and the "
         "chapter's recipe, both training the course's GPT (PyTorch) on the chapter's text and "
         "split, one thread, validated on the chapter's 2,000 held-out windows (nats per "
         "character). train_seconds: wall-clock seconds of training on one thread of a machine "
         "shared with other jobs.")

if __name__ == "__main__":
    main()
