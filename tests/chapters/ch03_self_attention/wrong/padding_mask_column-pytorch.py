# %% masks
def padding_mask(tokens, pad_id=PAD_ID):
    """Which keys are real tokens. tokens: (B, S) int64 ids, padded with pad_id.
    Returns a bool tensor of shape (B, 1, S): True at real tokens, False at padding.
    """
    return (tokens != pad_id).unsqueeze(-1)         # (B, 1, S): the same for every query


def causal_mask(length):
    """Which positions each position may attend to when it must not look ahead.
    Returns a bool tensor of shape (length, length): [i, j] is True for j <= i.
    """
    return torch.tril(torch.ones(length, length, dtype=torch.bool))   # on and below the diagonal
