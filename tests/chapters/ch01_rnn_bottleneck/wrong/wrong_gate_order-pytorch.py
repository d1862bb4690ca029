# %% gru_step
def gru_step(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
    """One step of Cho et al.'s GRU (the reset gate applied to h before the recurrent product),
    PyTorch layout (gates stacked in the order r, z, n).

    x: (B, D) inputs, h: (B, H) previous states,
    weight_ih: (3H, D), weight_hh: (3H, H), bias_ih: (3H,), bias_hh: (3H,).
    Returns the new states, (B, H).
    """
    i_z, i_r, i_n = (x @ weight_ih.T + bias_ih).chunk(3, dim=-1)   # input part of each gate
    U_z, U_r, U_n = weight_hh.chunk(3, dim=0)                      # (H, H) each
    c_z, c_r, c_n = bias_hh.chunk(3)                               # (H,) each
    r = torch.sigmoid(i_r + h @ U_r.T + c_r)                        # reset gate
    z = torch.sigmoid(i_z + h @ U_z.T + c_z)                        # update gate
    n = torch.tanh(i_n + (r * h) @ U_n.T + c_n)                     # candidate: reset h, then W_hn
    return (1 - z) * n + z * h
