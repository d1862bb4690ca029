# %% gru_step
def gru_step(x, h, kernel, recurrent_kernel, bias):
    """One step of Cho et al.'s GRU (the reset gate applied to h before the recurrent product),
    Keras layout of GRUCell(reset_after=False): gates stacked in the order z, r, h along the last axis.

    x: (B, D) inputs, h: (B, H) previous states (arrays or tensors),
    kernel: (D, 3H), recurrent_kernel: (H, 3H), bias: (3H,) (one bias per gate).
    Returns the new states, (B, H). Use keras.ops (ops.matmul, ops.sigmoid, ops.tanh, ops.split, ...).
    """
    cell = layers.GRUCell(ops.shape(h)[-1], reset_after=False)   # the library cell, with the given weights
    cell.build((None, ops.shape(x)[-1]))
    cell.set_weights([ops.convert_to_numpy(w) for w in (kernel, recurrent_kernel, bias)])
    return cell(x, h)[0]
