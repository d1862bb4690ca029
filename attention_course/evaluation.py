"""Framework-neutral metrics on NumPy arrays of token ids."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .data import EOS_ID, PAD_ID

# Source-length bins (in tokens) used by every chapter on the number task.
LENGTH_BINS: tuple[tuple[int, int], ...] = ((1, 6), (7, 12), (13, 18), (19, 24), (25, 30), (31, 44))


def trim_after_eos(ids: np.ndarray) -> list[list[int]]:
    """Each row up to (not including) its first <eos>, padding removed."""
    rows = []
    for row in np.asarray(ids):
        out = []
        for i in row:
            if i == EOS_ID:
                break
            if i != PAD_ID:
                out.append(int(i))
        rows.append(out)
    return rows


def decode_in_length_order(decode, model, src: np.ndarray, max_len: int,
                           batch_size: int = 1000) -> np.ndarray:
    """decode(model, src_batch, max_len) over the rows of `src` in order of length, in batches cut
    to their longest source; the outputs in the original order: (N, max_len)."""
    lengths = (src != PAD_ID).sum(axis=1)
    order = np.argsort(lengths, kind="stable")
    outputs = np.empty((len(src), max_len), dtype=np.int64)
    for start in range(0, len(src), batch_size):
        rows = order[start:start + batch_size]
        width = max(int(lengths[rows].max()), 1)
        outputs[rows] = np.asarray(decode(model, src[rows, :width], max_len))
    return outputs


def exact_match(predicted: np.ndarray, tgt_out: np.ndarray) -> np.ndarray:
    """Boolean per row: the predicted sequence equals the target up to <eos>."""
    pred = trim_after_eos(predicted)
    true = trim_after_eos(tgt_out)
    return np.array([p == t for p, t in zip(pred, true)])


def accuracy_by_length(lengths: np.ndarray, correct: np.ndarray,
                       bins: Sequence[tuple[int, int]] = LENGTH_BINS) -> list[dict]:
    """One row per bin: {"bin": "13-18", "low", "high", "n", "accuracy"} (accuracy NaN if empty)."""
    lengths = np.asarray(lengths)
    correct = np.asarray(correct, dtype=float)
    rows = []
    for low, high in bins:
        inside = (lengths >= low) & (lengths <= high)
        n = int(inside.sum())
        rows.append({"bin": f"{low}-{high}", "low": low, "high": high, "n": n,
                     "accuracy": float(correct[inside].mean()) if n else float("nan")})
    return rows


def format_table(columns: dict[str, list[dict]], title: str = "source tokens") -> str:
    """Markdown table of accuracy by length for one or more models.

    ``columns`` maps a model name to the rows returned by accuracy_by_length.
    """
    names = list(columns)
    first = columns[names[0]]
    header = f"| {title} | n | " + " | ".join(names) + " |"
    rule = "|---|---:|" + "---:|" * len(names)
    lines = [header, rule]
    for i, row in enumerate(first):
        cells = [f"{100 * columns[name][i]['accuracy']:.1f}%" for name in names]
        lines.append(f"| {row['bin']} | {row['n']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
