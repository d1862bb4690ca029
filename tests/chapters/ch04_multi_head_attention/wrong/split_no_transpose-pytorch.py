# %% split_and_merge
def split_heads(x, d_head):
    """(B, L, d_model) -> (B, h, L, d_head), h = d_model / d_head: split_heads(x, d_head)[b, i, l]
    is x[b, l, i*d_head:(i+1)*d_head], head i of position l."""
    batch, length, width = x.shape
    return x.reshape(batch, width // d_head, length, d_head)       # straight to (B, h, L, d_head)


def merge_heads(x):
    """(B, h, L, d_head) -> (B, L, h d_head): the inverse of split_heads."""
    x = x.transpose(1, 2)                                           # (B, L, h, d_head)
    batch, length, num_heads, d_head = x.shape
    return x.reshape(batch, length, num_heads * d_head)             # heads side by side again
