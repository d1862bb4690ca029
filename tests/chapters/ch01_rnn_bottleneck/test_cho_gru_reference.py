"""Assignment 1's part 1 asks for Cho et al.'s GRU (the reset gate applied to h before the recurrent
product). The Keras hidden test compares with keras.layers.GRUCell(reset_after=False); the PyTorch
one with course_checks.ch01_pytorch.cho_gru_step, since PyTorch has no such cell. Here that
reference is checked against the Keras layer (its biases b_ih + b_hh become Keras' one bias per
gate, the gates reordered r, z, n -> z, r, h and the matrices transposed), and shown to differ from
nn.GRUCell (the chapter's form) wherever the reset gate is not 1."""
import numpy as np
import pytest

import attention_course  # noqa: F401  (first: quiet TensorFlow)
import keras  # noqa: E402
import torch  # noqa: E402
from course_checks import ch01_pytorch  # noqa: E402
from torch import nn  # noqa: E402


def to_keras_order(stacked, H):
    """Gates (r, z, n) stacked along axis 0 -> (z, r, n)."""
    return np.concatenate([stacked[H:2 * H], stacked[:H], stacked[2 * H:]])


@pytest.mark.parametrize("B, D, H, seed", [(3, 5, 4, 0), (1, 2, 7, 1), (6, 3, 1, 2)])
def test_reference_equals_keras_reset_before(B, D, H, seed):
    g = torch.Generator().manual_seed(seed)
    w_ih, w_hh = torch.randn(3 * H, D, generator=g), torch.randn(3 * H, H, generator=g)
    b_ih, b_hh = torch.randn(3 * H, generator=g), torch.randn(3 * H, generator=g)
    x, h = torch.randn(B, D, generator=g), torch.randn(B, H, generator=g)
    ours = ch01_pytorch.cho_gru_step(x, h, w_ih, w_hh, b_ih, b_hh).numpy()

    # b_hn is not reset in the reference, so it joins the input bias; only then is it Keras' form.
    cell = keras.layers.GRUCell(H, reset_after=False)
    cell.build((None, D))
    cell.set_weights([to_keras_order(w_ih.numpy(), H).T, to_keras_order(w_hh.numpy(), H).T,
                      to_keras_order((b_ih + b_hh).numpy(), H)])
    theirs = keras.ops.convert_to_numpy(cell(x.numpy(), h.numpy())[0])
    assert np.abs(ours - theirs).max() < 1e-5

    library = nn.GRUCell(D, H)                                # the chapter's form differs
    with torch.no_grad():
        for p, w in zip(library.parameters(), (w_ih, w_hh, b_ih, b_hh)):
            p.copy_(w)
        assert (library(x, h) - torch.as_tensor(ours)).abs().max() > 1e-3
        library.bias_ih[:H] = 30.0                            # r = 1: the two forms agree
        b_ih[:H] = 30.0
        agree = ch01_pytorch.cho_gru_step(x, h, w_ih, w_hh, b_ih, b_hh)
        assert (library(x, h) - agree).abs().max() < 1e-5
