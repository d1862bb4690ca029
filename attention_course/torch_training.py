"""The PyTorch training loop of the course (twin of keras_training.py).

``train(model, batches, steps, loss_fn, ...)`` is the one loop every chapter
uses. The recipe is the same as in Keras, by construction: Adam, the learning
rate of every step taken from ``common.learning_rates`` (optional linear
warm-up, then a cosine decay to ``final_lr_fraction * lr``), gradients clipped
to a global norm, a progress bar with the mean loss of the last 50 steps, and
the loss of every step returned.

The losses stay on the device and are read back every 25 steps, not with
``loss.item()`` after every step: on a GPU that call would make the host wait
for the device at every step. The loss is a function ``loss_fn(model, batch)``
so that chapters 6-8 add classification, masked-LM and next-token losses
without touching the loop.
"""
from __future__ import annotations

from typing import Callable, Iterable

import numpy as np
import torch
from torch import nn

from . import evaluation
from .common import learning_rates
from .data import PAD_ID
from .progress import progress_bar

# Peaked softmax weights underflow into float32 "denormal" numbers (below 1.2e-38), and x86
# CPUs compute with those up to a hundred times more slowly: without this line a chapter-2
# attention model slowed from six steps a second to one step in six seconds once its weights
# grew. TensorFlow flushes denormals to zero by default; PyTorch does when asked. Nothing above
# 1.2e-38 changes. (The flag is per thread: it covers this loop, which runs on the main thread.)
torch.set_flush_denormal(True)

LOSS_WINDOW = 50          # the progress bar shows the mean loss of the last 50 steps
REFRESH_EVERY = 25        # ... updated every 25 steps


def compiled(layer, method: str = "__call__") -> Callable:
    """layer.method as it is: the twin of keras_training.compiled, which traces Keras
    layers into TensorFlow graphs. A PyTorch module's eager call costs microseconds,
    so there is nothing to gain; the decoding functions call it so that both
    frameworks' code reads alike."""
    return getattr(layer, method)


def _device(model) -> torch.device:
    return next(model.parameters()).device


def seq2seq_loss(model, batch):
    """Teacher-forced cross-entropy per target token, padding ignored.

    batch: data.Arrays with src (B, S), tgt_in (B, T), tgt_out (B, T).
    """
    device = _device(model)
    src = torch.as_tensor(batch.src, device=device)
    tgt_in = torch.as_tensor(batch.tgt_in, device=device)
    tgt_out = torch.as_tensor(batch.tgt_out, device=device)
    logits = model(src, tgt_in)                                          # (B, T, V)
    return nn.functional.cross_entropy(logits.flatten(0, 1), tgt_out.flatten(),
                                       ignore_index=PAD_ID)


def train(model, batches: Iterable, steps: int, loss_fn: Callable, lr: float = 3e-3,
          final_lr_fraction: float = 0.05, clip_norm: float | None = 1.0,
          warmup_steps: int = 0, desc: str = "train",
          callback: Callable | None = None, weight_decay: float = 0.0) -> list[float]:
    """Train for a fixed number of steps; return the loss of every step (Python floats).

    batches: an iterator of NumPy batches (e.g. data.bucketed_batches);
    loss_fn(model, batch) -> scalar loss tensor;
    callback(steps_done), if given, runs after every step (chapter 6 measures
    held-out accuracy during training with it);
    weight_decay > 0: AdamW (decoupled weight decay, Loshchilov and Hutter 2019) on the
    weight matrices and embedding tables, not on biases and layer-norm weights (as BERT).
    Parameters with requires_grad=False (a frozen encoder) are not trained.
    """
    batches = iter(batches)
    rates = learning_rates(steps, lr, final_lr_fraction, warmup_steps)
    trainable = [p for p in model.parameters() if p.requires_grad]
    if weight_decay:
        optimizer = torch.optim.AdamW(
            [{"params": [p for p in trainable if p.ndim >= 2], "weight_decay": weight_decay},
             {"params": [p for p in trainable if p.ndim < 2], "weight_decay": 0.0}], lr=lr)
    else:
        optimizer = torch.optim.Adam(trainable, lr=lr)
    losses = []                               # loss tensors; read back every REFRESH_EVERY
    model.train()
    with progress_bar(steps, desc=desc) as bar:
        for i in range(steps):
            for group in optimizer.param_groups:
                group["lr"] = float(rates[i])
            loss = loss_fn(model, next(batches))
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            if clip_norm is not None:
                nn.utils.clip_grad_norm_(trainable, clip_norm)
            optimizer.step()
            losses.append(loss.detach())
            if (i + 1) % REFRESH_EVERY == 0 or i + 1 == steps:
                recent = torch.stack(losses[-LOSS_WINDOW:]).mean().item()
                bar.set_postfix(loss=f"{recent:.4f}", refresh=False)
            bar.update()
            if callback is not None:
                callback(i + 1)
                model.train()                 # the callback may have evaluated the model
    model.eval()
    return torch.stack(losses).tolist()


@torch.no_grad()
def predict(decode: Callable, model, src: np.ndarray, max_len: int,
            batch_size: int = 1000) -> np.ndarray:
    """Run a decoding function (e.g. greedy_decode) over a NumPy source array.

    The rows are decoded in order of length, in batches cut to their longest
    source (less padding to encode and attend over), and returned in the
    original order: (N, max_len) (evaluation.decode_in_length_order).
    """
    model.eval()
    return evaluation.decode_in_length_order(decode, model, src, max_len, batch_size)

