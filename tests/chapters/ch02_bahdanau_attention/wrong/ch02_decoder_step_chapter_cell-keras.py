# %% decoder_step
def decoder_step(token, state, keys, attention_mask, embedding, attention, cell, combine, out):
    context, weights = attention(state, keys, attention_mask)       # c_t
    x = ops.concatenate([embedding(token), context], axis=-1)       # (B, d_e + d_k)
    state, _ = cell(x, state)                                       # s_t: (B, d_h)
    logits = out(ops.concatenate([state, context], axis=-1))        # (B, V)
    return logits, state, weights
