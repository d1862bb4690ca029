# %% greedy_decode
def greedy_decode(step, state, max_len):
    B = state.shape[0]
    ids = torch.full((B, max_len), PAD_ID, dtype=torch.long)
    token = torch.full((B,), BOS_ID, dtype=torch.long)
    done = torch.zeros(B, dtype=torch.bool)
    t = 0
    while not bool(done.all()):              # forgot max_len: a row that never says <eos> loops forever
        logits, state = step(token, state)
        token = logits.argmax(dim=-1)
        if t < max_len:
            ids[:, t] = torch.where(done, torch.full_like(token, PAD_ID), token)
        done = done | (token == EOS_ID)
        t += 1
    return ids

