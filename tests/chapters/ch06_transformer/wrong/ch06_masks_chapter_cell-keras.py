# %% masks
from attention_course.keras_self_attention import causal_mask


def decoder_masks(tgt_in, src):
    # The lines of the chapter's Decoder.call (§6.3) that build its two masks, pad_id = PAD_ID.
    length = ops.shape(tgt_in)[1]
    self_mask = ops.logical_and(causal_mask(length),                  # (T, T)
                                ops.expand_dims(tgt_in != PAD_ID, 1))  # -> (B, T, T)
    cross_mask = ops.expand_dims(src != PAD_ID, 1)                     # (B, 1, S)
    return self_mask, cross_mask
