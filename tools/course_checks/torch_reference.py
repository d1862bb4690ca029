"""PyTorch references that several chapters' checks share (computed in float64)."""
import math

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode


def attention(q, k, v, mask=None):
    """Scaled dot-product attention in float64, returned as float32 (output, weights);
    mask: True = may attend, broadcastable to (..., L, S)."""
    logits = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        logits = logits.masked_fill(~torch.as_tensor(mask, dtype=torch.bool), float("-inf"))
    alpha = torch.softmax(logits, dim=-1)
    return (alpha @ v.double()).float(), alpha.float()


def split_heads(x, num_heads):
    """(B, L, d) -> (B, h, L, d / h)."""
    b, length, d = x.shape
    return x.reshape(b, length, num_heads, d // num_heads).transpose(1, 2)


def merge_heads(x):
    """(B, h, L, d_head) -> (B, L, h * d_head)."""
    b, h, length, d = x.shape
    return x.transpose(1, 2).reshape(b, length, h * d)


def to_numpy(x):
    """A tensor (detached, on the CPU) or anything array-like, as a NumPy array."""
    return x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)


class OperationCounter(TorchDispatchMode):
    """Counts the operations that PyTorch runs inside `with OperationCounter() as counter:`."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.count += 1
        return func(*args, **(kwargs or {}))


def count_operations(run):
    """How many operations run() makes PyTorch run, without autograd (a check that code is
    batched counts operations for two sizes rather than timing it)."""
    with torch.no_grad(), OperationCounter() as counter:
        run()
    return counter.count
