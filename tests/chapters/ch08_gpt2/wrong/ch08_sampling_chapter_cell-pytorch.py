# %% sampling
def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None):
    """One token per row of logits (B, V): NumPy (B,). temperature=0 is greedy.
    The draw uses NumPy's rng, so both frameworks draw the same tokens from the same
    probabilities: the first token whose cumulative probability exceeds a uniform u."""
    if temperature == 0:
        return logits.argmax(dim=-1).cpu().numpy()
    logits = logits / temperature
    if top_k is not None:
        logits = top_k_filter(logits, top_k)
    if top_p is not None:
        logits = top_p_filter(logits, top_p)
    probs = torch.softmax(logits.double(), dim=-1).cpu().numpy()          # (B, V)
    cumulative = probs.cumsum(axis=-1)
    u = rng.random((len(probs), 1)) * cumulative[:, -1:]
    return (cumulative <= u).sum(axis=-1)
