"""Plotting helpers, drawn off screen."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from attention_course.evaluation import accuracy_by_length  # noqa: E402
from attention_course.plotting import (MASK_COLOURS, attention_heatmap, mask_heatmap,  # noqa: E402
                                       mask_legend_handles, metric_by_length,
                                       shared_colorbar)


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_heatmap_labels_are_the_tokens():
    queries, keys = ["4", "1", "2", "<eos>"], ["four", "hundred", "twelve"]
    weights = np.random.default_rng(0).dirichlet(np.ones(len(keys)), size=len(queries))
    ax = attention_heatmap(weights, queries, keys, title="weights")
    ax.figure.canvas.draw()
    assert [t.get_text() for t in ax.get_xticklabels()] == keys
    assert [t.get_text() for t in ax.get_yticklabels()] == queries
    assert ax.get_title() == "weights"
    image = ax.get_images()[0]
    np.testing.assert_array_equal(image.get_array(), weights)   # rows = queries, columns = keys


def test_heatmap_colour_bar_is_labelled():
    ax = attention_heatmap(np.eye(3) * 0.5, list("abc"), list("xyz"))
    colorbar = ax.get_images()[0].colorbar
    assert colorbar is not None and colorbar.ax.get_ylabel() == "attention weight"


def test_heatmaps_share_a_colour_scale_when_asked():
    fig, axes = plt.subplots(1, 2)
    attention_heatmap(np.full((2, 2), 0.5), ["a", "b"], ["c", "d"], ax=axes[0], vmax=1.0,
                      colorbar=False)
    attention_heatmap(np.eye(2) * 0.9, ["a", "b"], ["c", "d"], ax=axes[1], vmax=1.0,
                      colorbar=False)
    assert all(ax.get_images()[0].colorbar is None for ax in axes)
    assert [ax.get_images()[0].get_clim() for ax in axes] == [(0.0, 1.0), (0.0, 1.0)]
    bar = shared_colorbar(fig, axes)
    assert bar.ax.get_ylabel() == "attention weight"
    assert len(fig.axes) == 3                                  # two heatmaps, one bar


def test_heatmap_scale_defaults_to_the_largest_weight():
    ax = attention_heatmap(np.eye(2) * 0.3, ["a", "b"], ["c", "d"])
    assert ax.get_images()[0].get_clim() == (0.0, 0.3)


def test_mask_heatmap_colours_and_legend():
    mask = np.tril(np.ones((4, 4), dtype=bool))
    ax = mask_heatmap(mask, title="causal")
    image = ax.get_images()[0]
    allowed = image.cmap(image.norm(1))
    blocked = image.cmap(image.norm(0))
    assert matplotlib.colors.to_hex(allowed) == MASK_COLOURS[True]
    assert matplotlib.colors.to_hex(blocked) == MASK_COLOURS[False]
    np.testing.assert_array_equal(image.get_array(), mask.astype(int))
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["may attend (True)", "blocked (False)"]
    assert [matplotlib.colors.to_hex(h.get_facecolor()) for h in mask_legend_handles()] == [
        MASK_COLOURS[True], MASK_COLOURS[False]]


def test_mask_heatmap_without_legend_and_refuses_non_boolean():
    assert mask_heatmap(np.eye(3, dtype=bool), legend=False).get_legend() is None
    with pytest.raises(ValueError, match="boolean"):
        mask_heatmap(np.eye(3))


def test_heatmap_draws_on_a_given_axis():
    fig, (left, right) = plt.subplots(1, 2)
    assert attention_heatmap(np.eye(2), ["a", "b"], ["c", "d"], ax=right) is right
    assert not left.get_images() and right.get_images()


@pytest.mark.parametrize("shape", [(3, 2), (2, 2), (3, 3), (6,)])
def test_heatmap_shape_mismatch_raises(shape):
    # 2 query tokens and 3 key tokens need weights of shape (2, 3).
    with pytest.raises(ValueError, match="shape"):
        attention_heatmap(np.zeros(shape), ["a", "b"], ["x", "y", "z"])


def test_metric_by_length_one_line_per_model():
    lengths = np.array([2, 8, 15, 22, 28, 40])
    curves = {"GRU": accuracy_by_length(lengths, [1, 1, 1, 0, 0, 0]),
              "attention": accuracy_by_length(lengths, [1, 1, 1, 1, 1, 0]),
              "transformer": accuracy_by_length(lengths, [1, 1, 1, 1, 1, 1])}
    ax = metric_by_length(curves, title="exact match by length")
    lines = ax.get_lines()
    assert len(lines) == 3
    assert [line.get_label() for line in lines] == list(curves)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(curves)
    np.testing.assert_allclose(lines[0].get_ydata(), [1, 1, 1, 0, 0, 0])
    np.testing.assert_allclose(lines[0].get_xdata(), [3.5, 9.5, 15.5, 21.5, 27.5, 37.5])
    assert [t.get_text() for t in ax.get_xticklabels()] == [r["bin"] for r in curves["GRU"]]
