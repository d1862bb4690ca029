# %% greedy_decode
def greedy_decode(step, state, max_len):
    """Greedy decoding from <bos>, one step at a time.

    step:    a function (prev_tokens (B,) int, state) -> (logits (B, V), new state)
    state:   the initial decoder state, (B, H)
    max_len: the most tokens to produce per row
    Returns a NumPy integer array (B, max_len): each row's predictions up to and including its
    first <eos>, then PAD_ID. Stops calling step once every row has produced <eos>.
    """
    B = ops.shape(state)[0]
    ids = np.full((B, max_len), PAD_ID, dtype="int32")
    token = np.full((B,), BOS_ID, dtype="int32")
    done = np.zeros(B, dtype=bool)
    for t in range(max_len):
        logits, state = step(token, state)
        ids[:, t] = np.where(done, PAD_ID, token)  # the token fed in
        token = ops.convert_to_numpy(ops.argmax(logits, axis=-1)).astype("int32")
        done |= token == EOS_ID
        if done.all():
            break
    return ids
