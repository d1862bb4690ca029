# %% split_and_merge
def split_heads(x, d_head):
    """(B, L, d_model) -> (B, h, L, d_head), h = d_model / d_head: split_heads(x, d_head)[b, i, l]
    is x[b, l, i*d_head:(i+1)*d_head], head i of position l."""
    batch, length, width = x.shape
    x = x.reshape(batch, length, width // d_head, d_head)           # (B, L, h, d_head): head i's columns
    return x.transpose(1, 2)                                        # (B, h, L, d_head): heads before positions


def merge_heads(x):
    """(B, h, L, d_head) -> (B, L, h d_head): the inverse of split_heads."""
    batch, num_heads, length, d_head = x.shape
    return x.reshape(batch, length, num_heads * d_head)             # heads side by side again
