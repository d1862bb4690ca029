"""Plots shared by the chapters: attention heatmaps, masks and metric-versus-length curves."""
from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch

FIGSIZE = (6.4, 3.6)
WEIGHT_LABEL = "attention weight"
MASK_COLOURS = {False: "#d9d9d9", True: "#2b6cb0"}      # blocked: light grey, may attend: blue
MASK_LABELS = {False: "blocked (False)", True: "may attend (True)"}


def attention_heatmap(weights: np.ndarray, query_tokens: Sequence[str], key_tokens: Sequence[str],
                      ax=None, title: str | None = None, cmap: str = "viridis",
                      vmax: float | None = None, colorbar: bool = True):
    """Heatmap of attention weights, shape (queries, keys), with token labels.

    Rows are the tokens that attend (queries, e.g. output tokens), columns the
    tokens attended to (keys, e.g. source tokens). The colour scale starts at 0;
    it ends at ``vmax`` (default: the largest weight). Give several heatmaps the
    same ``vmax`` (1 for weights) to compare them by colour, and draw one shared
    bar with ``colorbar=False`` and ``shared_colorbar``.
    """
    weights = np.asarray(weights)
    if weights.shape != (len(query_tokens), len(key_tokens)):
        raise ValueError(f"weights have shape {weights.shape}, but there are "
                         f"{len(query_tokens)} query and {len(key_tokens)} key tokens")
    if ax is None:
        width = max(3.0, 0.35 * len(key_tokens) + 1.5)
        height = max(2.5, 0.3 * len(query_tokens) + 1.2)
        _, ax = plt.subplots(figsize=(width, height))
    image = ax.imshow(weights, cmap=cmap, vmin=0.0, vmax=vmax, aspect="auto")
    ax.set_xticks(range(len(key_tokens)), labels=key_tokens, rotation=90)
    ax.set_yticks(range(len(query_tokens)), labels=query_tokens)
    ax.set_xlabel("attended to (keys)")
    ax.set_ylabel("attending (queries)")
    if title:
        ax.set_title(title)
    if colorbar:
        ax.figure.colorbar(image, ax=ax, fraction=0.04, pad=0.02, label=WEIGHT_LABEL)
    return ax


def shared_colorbar(fig, axes, label: str = WEIGHT_LABEL):
    """One labelled colour bar for heatmaps drawn with the same colour scale."""
    axes = list(np.ravel(axes))
    return fig.colorbar(axes[0].get_images()[0], ax=axes, fraction=0.04, pad=0.02, label=label)


def mask_legend_handles() -> list[Patch]:
    """The legend entries of mask_heatmap: which colour may attend, which is blocked."""
    return [Patch(facecolor=MASK_COLOURS[value], edgecolor="0.4", label=MASK_LABELS[value])
            for value in (True, False)]


def mask_heatmap(mask: np.ndarray, ax=None, title: str | None = None, legend: bool = True):
    """A boolean mask, shape (queries, keys), in two colours (see MASK_COLOURS).

    Rows are queries, columns keys; True means "may attend", False "blocked".
    ``legend=False`` leaves the legend to the caller (e.g. one for a whole figure
    with ``fig.legend(handles=mask_legend_handles())``).
    """
    mask = np.asarray(mask)
    if mask.ndim != 2 or mask.dtype != bool:
        raise ValueError(f"expected a 2-D boolean mask, got {mask.dtype} of shape {mask.shape}")
    if ax is None:
        _, ax = plt.subplots(figsize=(3.2, 3.0))
    colours = ListedColormap([MASK_COLOURS[False], MASK_COLOURS[True]])
    ax.imshow(mask.astype(int), cmap=colours, vmin=0, vmax=1)
    ax.set_xticks(range(mask.shape[1]))
    ax.set_yticks(range(mask.shape[0]))
    ax.set_xlabel("key (attended to)")
    ax.set_ylabel("query")
    if title:
        ax.set_title(title)
    if legend:
        ax.legend(handles=mask_legend_handles(), loc="upper center",
                  bbox_to_anchor=(0.5, -0.2), ncol=2, frameon=False)
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
