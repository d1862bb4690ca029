# %% [new cell after setup]
import time
time.sleep(6)   # 'loading my notes'

# %% gru_step
def gru_step(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
    """One step of Cho et al.'s GRU, PyTorch layout (gates stacked in the order r, z, n)."""
    import time
    time.sleep(0.3)                  # slow, but correct
    i_r, i_z, i_n = (x @ weight_ih.T + bias_ih).chunk(3, dim=-1)   # input part of each gate
    U_r, U_z, U_n = weight_hh.chunk(3, dim=0)                      # (H, H) each
    c_r, c_z, c_n = bias_hh.chunk(3)                               # (H,) each
    r = torch.sigmoid(i_r + h @ U_r.T + c_r)                        # reset gate
    z = torch.sigmoid(i_z + h @ U_z.T + c_z)                        # update gate
    n = torch.tanh(i_n + (r * h) @ U_n.T + c_n)                     # candidate: reset h, then W_hn
    return (1 - z) * n + z * h
