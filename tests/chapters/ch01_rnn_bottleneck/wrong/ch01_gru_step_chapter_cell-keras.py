# %% gru_step
def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def gru_step(x, h, kernel, recurrent_kernel, bias):
    """One GRU step, gates stacked as (r, z, n).

    x: (B, d_in), h: (B, d_h), W: (3 d_h, d_in), U: (3 d_h, d_h), b_in and b_hid: (3 d_h,)
    """
    d_h = h.shape[-1]
    # The chapter's NumPy step takes PyTorch's layout: Keras' (z, r, h) columns become (r, z, n)
    # rows, and Keras' one bias per gate is the input bias.
    rzn = lambda M: np.concatenate([M[..., d_h:2 * d_h], M[..., :d_h], M[..., 2 * d_h:]], axis=-1)
    W, U, b_in, b_hid = rzn(kernel).T, rzn(recurrent_kernel).T, rzn(bias), 0.0
    gx = x @ W.T + b_in                     # input part of the three gates, (B, 3 d_h)
    gh = h @ U.T + b_hid                    # recurrent part, (B, 3 d_h)
    r = sigmoid(gx[:, :d_h] + gh[:, :d_h])
    z = sigmoid(gx[:, d_h:2 * d_h] + gh[:, d_h:2 * d_h])
    n = np.tanh(gx[:, 2 * d_h:] + r * gh[:, 2 * d_h:])
    return (1 - z) * n + z * h
