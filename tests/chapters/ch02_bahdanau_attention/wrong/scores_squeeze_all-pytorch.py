# %% additive_scores
def additive_scores(query, keys, W, U, v):
    """Additive (Bahdanau) scores e_{t,i} = v^T tanh(W s_{t-1} + U h_i + b).

    query: (B, H) decoder states s_{t-1}; keys: (B, S, K) encoder states h_i;
    W: nn.Linear(H, A, bias=False), U: nn.Linear(K, A) (its bias is b), v: nn.Linear(A, 1, bias=False).
    Returns the scores, (B, S).
    """
    projected = W(query).unsqueeze(1) + U(keys)      # (B, 1, A) + (B, S, A): the query meets every key
    return v(torch.tanh(projected)).squeeze()      # (B, S, 1) -> (B, S)
