"""PyTorch training loop used by the chapters (parallel to keras_training.py).

The recipe is the same in both frameworks: Adam, a cosine learning-rate decay
to a fraction of the initial rate over a fixed number of steps, and gradient
clipping by global norm.  Fixed step counts (not wall-clock budgets) make
results reproducible on other machines.
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np
import torch
from torch import nn

from .data import PAD_ID, Arrays, endless_batches
from .progress import progress_bar


def cosine_decay(optimizer: torch.optim.Optimizer, total_steps: int,
                 final_fraction: float = 0.05) -> torch.optim.lr_scheduler.LambdaLR:
    """lr(step) = lr0 * (f + (1 - f) * (1 + cos(pi * step / total)) / 2): from lr0 down to f * lr0.

    The same schedule as keras.optimizers.schedules.CosineDecay(lr0, total, alpha=f).
    """
    def factor(step: int) -> float:
        progress = min(step, total_steps) / total_steps
        return final_fraction + (1 - final_fraction) * 0.5 * (1 + math.cos(math.pi * progress))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def seq2seq_loss(model: nn.Module, batch: Arrays, device: torch.device) -> torch.Tensor:
    """Teacher-forced cross-entropy per target token, padding ignored."""
    src = torch.as_tensor(batch.src, device=device)
    tgt_in = torch.as_tensor(batch.tgt_in, device=device)
    tgt_out = torch.as_tensor(batch.tgt_out, device=device)
    logits = model(src, tgt_in)                                  # (B, T, V)
    return nn.functional.cross_entropy(logits.flatten(0, 1), tgt_out.flatten(), ignore_index=PAD_ID)


def train(model: nn.Module, train_arrays: Arrays, steps: int, batch_size: int = 128,
          lr: float = 3e-3, final_lr_fraction: float = 0.05, clip_norm: float = 1.0,
          loss_fn: Callable = seq2seq_loss, device: torch.device | None = None,
          seed: int = 0, desc: str = "train") -> list[float]:
    """Train for a fixed number of steps with a progress bar; return the loss of every step."""
    device = device or next(model.parameters()).device
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    schedule = cosine_decay(optimizer, steps, final_lr_fraction)
    data = endless_batches(train_arrays, batch_size, seed)
    losses: list[float] = []
    model.train()
    with progress_bar(steps, desc=desc) as bar:
        for _ in range(steps):
            loss = loss_fn(model, next(data), device)
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
            optimizer.step()
            schedule.step()
            losses.append(loss.item())
            bar.set_postfix(loss=f"{np.mean(losses[-50:]):.4f}", refresh=False)
            bar.update()
    model.eval()
    return losses


@torch.no_grad()
def predict(decode: Callable, model: nn.Module, src: np.ndarray, max_len: int,
            batch_size: int = 1000) -> np.ndarray:
    """Run a decoding function (e.g. greedy_decode) over a NumPy source array in batches."""
    device = next(model.parameters()).device
    model.eval()
    outputs = [decode(model, torch.as_tensor(src[i:i + batch_size], device=device), max_len).cpu().numpy()
               for i in range(0, len(src), batch_size)]
    return np.concatenate(outputs)
