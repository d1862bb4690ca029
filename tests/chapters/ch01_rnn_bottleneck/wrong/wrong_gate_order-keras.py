# %% gru_step
def gru_step(x, h, kernel, recurrent_kernel, bias):
    """One step of Cho et al.'s GRU (the reset gate applied to h before the recurrent product),
    Keras layout of GRUCell(reset_after=False): gates stacked in the order z, r, h along the last axis.

    x: (B, D) inputs, h: (B, H) previous states (arrays or tensors),
    kernel: (D, 3H), recurrent_kernel: (H, 3H), bias: (3H,) (one bias per gate).
    Returns the new states, (B, H). Use keras.ops (ops.matmul, ops.sigmoid, ops.tanh, ops.split, ...).
    """
    i_r, i_z, i_n = ops.split(ops.matmul(x, kernel) + bias, 3, axis=-1)     # input part and bias
    U_r, U_z, U_n = ops.split(recurrent_kernel, 3, axis=-1)                 # (H, H) each
    z = ops.sigmoid(i_z + ops.matmul(h, U_z))                               # update gate
    r = ops.sigmoid(i_r + ops.matmul(h, U_r))                               # reset gate
    n = ops.tanh(i_n + ops.matmul(r * h, U_n))                              # candidate: reset h, then W_hn
    return (1 - z) * n + z * h
