# %% local_attention
def local_attention(query, keys, mask, W, U, v, W_p, v_p, D):
    """Luong's local-p attention for one decoder step, with additive scores.

    query: (B, H) decoder states s_{t-1}; keys: (B, S, K) encoder states; mask: (B, S) bool, True at
    real tokens; W, U, v: the layers of part 1; W_p: nn.Linear(H, A_p, bias=False),
    v_p: nn.Linear(A_p, 1, bias=False); D: the window's half-width, an integer >= 1.
    Returns (context (B, K), weights (B, S), positions p_t (B,)).
    """
    last = mask.sum(dim=-1) - 1                                           # (B,) L - 1: the last real position
    p_t = last * torch.sigmoid(v_p(torch.tanh(W_p(query)))).squeeze(-1)   # (B,) between 0 and L - 1
    offset = torch.arange(keys.shape[1]) - p_t.unsqueeze(-1)              # (B, S): s - p_t
    window = mask & (offset.abs() <= D)                                   # real, and within D of p_t
    align = masked_softmax(additive_scores(query, keys, W, U, v), window)   # 0 outside the window
    weights = align * torch.exp(-offset ** 2 / (2 * (D / 2) ** 2))       # the Gaussian, sigma = D / 2
    return context_vector(align, keys), weights, p_t                       # the context of the window alone
