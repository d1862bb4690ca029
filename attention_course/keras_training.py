"""Keras training settings used by the chapters (parallel to torch_training.py).

The same recipe as in PyTorch: Adam, cosine decay of the learning rate to a
fraction of its initial value over a fixed number of steps, clipping by global
norm, teacher-forced cross-entropy with padding ignored.  ``fit_settings`` is
the tidy ``fit`` configuration for notebooks: no Keras per-batch log, one
progress bar that redraws in place.
"""
from __future__ import annotations

from typing import Callable, Iterator

import keras
import numpy as np

from .data import PAD_ID, Arrays, endless_batches
from .progress import progress_bar


class ProgressBar(keras.callbacks.Callback):
    """One tqdm bar for a whole fit() run, showing the mean loss of the last 50 steps
    (the same number as the PyTorch loop shows)."""

    def __init__(self, total_steps: int, desc: str = "train"):
        super().__init__()
        self.total_steps = total_steps
        self.desc = desc
        self.losses: list[float] = []      # the loss of every step

    def on_train_begin(self, logs=None):
        self.bar = progress_bar(self.total_steps, desc=self.desc)

    def on_epoch_begin(self, epoch, logs=None):
        self._epoch_mean = 0.0

    def on_train_batch_end(self, batch, logs=None):
        # Keras reports the running mean over the epoch; recover this step's own loss from it.
        mean = float(logs["loss"])
        self.losses.append((batch + 1) * mean - batch * self._epoch_mean)
        self._epoch_mean = mean
        self.bar.set_postfix(loss=f"{np.mean(self.losses[-50:]):.4f}", refresh=False)
        self.bar.update()

    def on_train_end(self, logs=None):
        self.bar.close()


def fit_settings(total_steps: int, desc: str = "train") -> dict:
    """Keyword arguments for model.fit in a notebook: quiet Keras, one progress bar."""
    return {"verbose": 0, "callbacks": [ProgressBar(total_steps, desc)]}


def cosine_adam(total_steps: int, lr: float = 3e-3, final_fraction: float = 0.05,
                clip_norm: float = 1.0) -> keras.optimizers.Optimizer:
    """Adam with lr decaying from lr to final_fraction * lr along a cosine, and global-norm clipping."""
    schedule = keras.optimizers.schedules.CosineDecay(lr, decay_steps=total_steps, alpha=final_fraction)
    return keras.optimizers.Adam(learning_rate=schedule, global_clipnorm=clip_norm)


def seq2seq_batches(arrays: Arrays, batch_size: int, seed: int = 0) -> Iterator:
    """((src, tgt_in), tgt_out) batches forever, for model.fit."""
    for batch in endless_batches(arrays, batch_size, seed):
        yield (batch.src, batch.tgt_in), batch.tgt_out


def train(model: keras.Model, train_arrays: Arrays, steps: int, batch_size: int = 128,
          lr: float = 3e-3, final_lr_fraction: float = 0.05, clip_norm: float = 1.0,
          seed: int = 0, desc: str = "train") -> list[float]:
    """Compile and fit a teacher-forced seq2seq model for a fixed number of steps.

    Returns the loss of every step.
    """
    model.compile(optimizer=cosine_adam(steps, lr, final_lr_fraction, clip_norm),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=PAD_ID))
    settings = fit_settings(steps, desc)
    # shuffle=False: the batches are already shuffled (Keras warns otherwise).
    model.fit(seq2seq_batches(train_arrays, batch_size, seed), steps_per_epoch=steps, epochs=1,
              shuffle=False, **settings)
    return settings["callbacks"][0].losses


def predict(decode: Callable, model: keras.Model, src: np.ndarray, max_len: int,
            batch_size: int = 1000) -> np.ndarray:
    """Run a decoding function (e.g. greedy_decode) over a NumPy source array in batches."""
    outputs = [np.asarray(decode(model, src[i:i + batch_size], max_len))
               for i in range(0, len(src), batch_size)]
    return np.concatenate(outputs)
