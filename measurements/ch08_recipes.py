"""Chapter 8, §8.4: the recipes tried before the chapter's, and the chapter's recipe over seeds.

    python -m measurements.ch08_recipes                      # every arm below
    python -m measurements.ch08_recipes --arms chapter       # the chapter's recipe only

Each arm trains the chapter's character-level GPT (attention_course.torch_gpt2 / keras_gpt2,
dropout 0) on the chapter's text and split (gpt_data.shakespeare_text, the last 10% held out),
on random windows of 64 characters, with the course's training loop (Adam, warm-up, cosine
decay to 10% of the peak, gradient norm clipped to 1), and measures the validation loss in nats
per character on the chapter's 40 fixed batches of 50 held-out windows (VALID, seed 123).
Seed s sets common.set_seed(s) and the training windows' seed, as the chapter does with 0.
The arm "chapter" is the chapter's recipe exactly (2 layers of width 112, 24 windows, peak
8e-3 after 50 warm-up steps, 600 steps), in both frameworks; the others are PyTorch only.
"""
from __future__ import annotations

import argparse
import itertools
import time

import numpy as np

from attention_course import common, gpt_data, measured

CONTEXT = 64


def chapter_data():
    """The chapter's characters, training ids and validation batches (§8.4's cell)."""
    text = gpt_data.shakespeare_text()
    chars = gpt_data.CharVocabulary(text)
    ids = chars.encode(text)
    split = int(0.9 * len(ids))
    train_ids, valid_ids = ids[:split], ids[split:]
    valid = list(itertools.islice(gpt_data.random_windows(valid_ids, 50, CONTEXT, seed=123), 40))
    return chars, train_ids, valid


# name: (layers, width, batch, peak lr, warm-up steps, steps, seeds, frameworks)
ARMS = {
    "4x128, batch 12, lr 1e-3": (4, 128, 12, 1e-3, 100, 600, (0,), ("pytorch",)),
    "4x128, batch 12, lr 4e-3": (4, 128, 12, 4e-3, 100, 600, (0,), ("pytorch",)),
    "4x128, batch 24, lr 8e-3, 500 steps": (4, 128, 24, 8e-3, 50, 500, (0,), ("pytorch",)),
    "3x128, batch 24, lr 8e-3": (3, 128, 24, 8e-3, 50, 600, (0,), ("pytorch",)),
    "2x128, batch 24, lr 8e-3": (2, 128, 24, 8e-3, 50, 600, (0,), ("pytorch",)),
    "1x128, batch 24, lr 8e-3": (1, 128, 24, 8e-3, 50, 600, (0, 1, 2), ("pytorch",)),
    "chapter": (2, 112, 24, 8e-3, 50, 600, (0, 1, 2), ("keras", "pytorch")),
}


def train_once(framework, chars, train_ids, valid, layers, width, batch, lr, warmup, steps,
               seed, optimizer_options=None):
    """Train one model with the course's code; (validation loss, seconds of training)."""
    size = dict(vocab_size=len(chars), max_len=CONTEXT, d_model=width, num_heads=4,
                num_layers=layers, dropout=0.0)
    recipe = dict(lr=lr, warmup_steps=warmup, final_lr_fraction=0.1, clip_norm=1.0,
                  **(optimizer_options or {}))
    batches = gpt_data.random_windows(train_ids, batch, CONTEXT, seed=seed)
    common.set_seed(seed)
    if framework == "keras":
        from attention_course import keras_gpt2, keras_training
        model = keras_gpt2.GPT2(**size)
        start = time.perf_counter()
        keras_training.train(model, batches, steps, keras_gpt2.language_model_loss, **recipe,
                             desc=f"Keras seed {seed}")
        seconds = time.perf_counter() - start
        return keras_gpt2.validation_loss(model, valid), seconds
    from attention_course import torch_gpt2, torch_training
    model = torch_gpt2.GPT2(**size)
    start = time.perf_counter()
    torch_training.train(model, batches, steps, torch_gpt2.language_model_loss, **recipe,
                         desc=f"PyTorch seed {seed}")
    seconds = time.perf_counter() - start
    return torch_gpt2.validation_loss(model, valid), seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arms", nargs="*", default=list(ARMS), choices=list(ARMS))
    parser.add_argument("--seeds", nargs="*", type=int, help="instead of each arm's seeds")
    args = parser.parse_args()
    common.set_threads()
    chars, train_ids, valid = chapter_data()
    for arm in args.arms:
        layers, width, batch, lr, warmup, steps, seeds, frameworks = ARMS[arm]
        for seed, framework in itertools.product(args.seeds or seeds, frameworks):
            loss, seconds = train_once(framework, chars, train_ids, valid, layers, width,
                                       batch, lr, warmup, steps, seed)
            run = dict(seed=seed, arm=f"{arm} ({framework})", recipe=arm, framework=framework,
                       layers=layers, width=width, batch=batch, lr=lr, warmup_steps=warmup,
                       steps=steps, validation_loss=round(loss, 4),
                       train_seconds=round(seconds, 1))
            print(run, flush=True)
            measured.record("ch08_recipes", "measurements/ch08_recipes.py", ABOUT, [run])


ABOUT = ("Chapter 8, §8.4: validation loss (nats per character, the chapter's 2,000 held-out "
         "windows) of character-level GPTs trained with the course's code and loop on the "
         "chapter's text and split, one arm per recipe (layers, width, batch, peak learning "
         "rate, warm-up, steps; cosine decay to 10%, no dropout); 'chapter' is the chapter's "
         "recipe in both frameworks. train_seconds: wall-clock seconds of training on one "
         "thread of a machine shared with other jobs, not a benchmark.")

if __name__ == "__main__":
    main()
