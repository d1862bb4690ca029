# %% sampling
def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None, repetition_penalty=1.0, seen=None):
    """One token per row of logits (B, V): a NumPy integer array (B,). First the repetition penalty on
    the tokens of seen[b] (a NumPy integer array (B, T)); then temperature=0 is greedy; otherwise the
    temperature, then top-k, then top-p, and a draw that takes its randomness from rng."""
    if seen is not None and repetition_penalty != 1.0:      # CTRL: each token seen, once
        was_seen = torch.zeros(logits.shape, dtype=torch.bool, device=logits.device)
        was_seen[torch.arange(logits.shape[0])[:, None], torch.as_tensor(np.asarray(seen))] = True
        lowered = torch.where(logits > 0, logits / repetition_penalty, logits * repetition_penalty)
        logits = torch.where(was_seen, lowered, logits)
    if temperature == 0:                               # greedy: the most probable token
        return logits.argmax(dim=-1).cpu().numpy()
    if top_k is not None:
        logits = top_k_filter(logits, top_k)
    if top_p is not None:                              # then top-p, on what top-k kept
        logits = top_p_filter(logits, top_p)
    logits = logits / temperature                      # the temperature last
    probs = torch.softmax(logits.double(), dim=-1).cpu().numpy()          # (B, V)
    cumulative = probs.cumsum(axis=-1)
    u = rng.random((len(probs), 1)) * cumulative[:, -1:]                 # one uniform per row
    return (cumulative <= u).sum(axis=-1)             # the first token whose cumulative sum exceeds u
