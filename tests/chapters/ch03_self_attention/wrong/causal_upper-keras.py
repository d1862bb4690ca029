# %% masks
def padding_mask(tokens, pad_id=PAD_ID):
    """Which keys are real tokens. tokens: (B, S) int ids, padded with pad_id.
    Returns a boolean tensor of shape (B, 1, S): True at real tokens, False at padding. Use keras.ops.
    """
    return ops.expand_dims(ops.not_equal(tokens, pad_id), 1)   # (B, 1, S): the same for every query


def causal_mask(length):
    """Which positions each position may attend to when it must not look ahead.
    Returns a boolean tensor of shape (length, length): [i, j] is True for j <= i. Use keras.ops.
    """
    positions = ops.arange(length)
    return ops.expand_dims(positions, 0) >= ops.expand_dims(positions, 1)   # [i, j]: j <= i
