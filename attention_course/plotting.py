"""Plots shared by the chapters: attention heatmaps and metric-versus-length curves."""
from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np

FIGSIZE = (6.4, 3.6)


def attention_heatmap(weights: np.ndarray, query_tokens: Sequence[str], key_tokens: Sequence[str],
                      ax=None, title: str | None = None, cmap: str = "viridis"):
    """Heatmap of attention weights, shape (queries, keys), with token labels.

    Rows are the tokens that attend (queries, e.g. output tokens), columns the
    tokens attended to (keys, e.g. source tokens).
    """
    weights = np.asarray(weights)
    if weights.shape != (len(query_tokens), len(key_tokens)):
        raise ValueError(f"weights have shape {weights.shape}, but there are "
                         f"{len(query_tokens)} query and {len(key_tokens)} key tokens")
    if ax is None:
        width = max(3.0, 0.35 * len(key_tokens) + 1.5)
        height = max(2.5, 0.3 * len(query_tokens) + 1.2)
        _, ax = plt.subplots(figsize=(width, height))
    image = ax.imshow(weights, cmap=cmap, vmin=0.0, aspect="auto")
    ax.set_xticks(range(len(key_tokens)), labels=key_tokens, rotation=90)
    ax.set_yticks(range(len(query_tokens)), labels=query_tokens)
    ax.set_xlabel("attended to (keys)")
    ax.set_ylabel("attending (queries)")
    if title:
        ax.set_title(title)
    ax.figure.colorbar(image, ax=ax, fraction=0.04, pad=0.02)
    return ax


def metric_by_length(curves: dict[str, list[dict]], ax=None, ylabel: str = "exact match",
                     title: str | None = None, styles: dict[str, dict] | None = None):
    """Plot one or more rows-of-bins curves (see evaluation.accuracy_by_length).

    ``styles`` maps a curve's name to extra keyword arguments of ``ax.plot``,
    e.g. ``{"baseline": {"linestyle": "--"}}``.
    """
    if ax is None:
        _, ax = plt.subplots(figsize=FIGSIZE)
    styles = styles or {}
    for name, rows in curves.items():
        centers = [(r["low"] + r["high"]) / 2 for r in rows]
        style = {"marker": "o", **styles.get(name, {})}
        ax.plot(centers, [r["accuracy"] for r in rows], label=name, **style)
    first = next(iter(curves.values()))
    ax.set_xticks([(r["low"] + r["high"]) / 2 for r in first], labels=[r["bin"] for r in first])
    ax.set_xlabel("source length (tokens)")
    ax.set_ylabel(ylabel)
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend()
    if title:
        ax.set_title(title)
    return ax
