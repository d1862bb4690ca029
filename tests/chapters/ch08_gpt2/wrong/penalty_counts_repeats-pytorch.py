# %% sampling
def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None, repetition_penalty=1.0, seen=None):
    """One token per row of logits (B, V): a NumPy integer array (B,). First the repetition penalty on
    the tokens of seen[b] (a NumPy integer array (B, T)); then temperature=0 is greedy; otherwise the
    temperature, then top-k, then top-p, and a draw that takes its randomness from rng."""
    if seen is not None and repetition_penalty != 1.0:      # CTRL: each token seen, once
        logits = logits.clone()
        for row, ids in enumerate(np.asarray(seen)):
            for token in ids:                          # every time it was seen
                if logits[row, token] > 0:
                    logits[row, token] = logits[row, token] / repetition_penalty
                else:
                    logits[row, token] = logits[row, token] * repetition_penalty
    if temperature == 0:                               # greedy: the most probable token
        return logits.argmax(dim=-1).cpu().numpy()
    logits = logits / temperature                      # the temperature next
    if top_k is not None:
        logits = top_k_filter(logits, top_k)
    if top_p is not None:                              # then top-p, on what top-k kept
        logits = top_p_filter(logits, top_p)
    probs = torch.softmax(logits.double(), dim=-1).cpu().numpy()          # (B, V)
    cumulative = probs.cumsum(axis=-1)
    u = rng.random((len(probs), 1)) * cumulative[:, -1:]                 # one uniform per row
    return (cumulative <= u).sum(axis=-1)             # the first token whose cumulative sum exceeds u
