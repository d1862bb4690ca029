# %% decoder_step
def decoder_step(token, state, keys, attention_mask, embedding, attention, cell, combine, out):
    context, weights = attention(state, keys, attention_mask)  # c_t
    x = torch.cat([embedding(token), context], dim=-1)         # (B, d_e + d_k)
    state = cell(x, state)                                     # s_t: (B, d_h)
    logits = out(torch.cat([state, context], dim=-1))          # (B, V)
    return logits, state, weights
