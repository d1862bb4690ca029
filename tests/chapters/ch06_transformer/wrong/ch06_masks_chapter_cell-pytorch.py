# %% masks
from attention_course.torch_self_attention import causal_mask


def decoder_masks(tgt_in, src):
    # The lines of the chapter's Decoder.forward (§6.3) that build its two masks, pad_id = PAD_ID.
    length = tgt_in.shape[1]
    causal = causal_mask(length).to(tgt_in.device)                   # (T, T)
    self_mask = causal & (tgt_in != PAD_ID).unsqueeze(1)               # (B, T, T)
    cross_mask = (src != PAD_ID).unsqueeze(1)                          # (B, 1, S)
    return self_mask, cross_mask
