# %% split_and_merge
def split_heads(x, num_heads):
    """(B, L, d_model) -> (B, h, L, d_head), d_head = d_model / h: split_heads(x, h)[b, i, l]
    is x[b, l, i*d_head:(i+1)*d_head], head i of position l."""
    batch, length, d_model = x.shape
    x = x.reshape(batch, length, num_heads, d_model // num_heads)   # (B, L, h, d_head): head i's columns
    return x.transpose(1, 2)                                        # (B, h, L, d_head): heads before positions


def merge_heads(x):
    """(B, h, L, d_head) -> (B, L, h d_head): the inverse of split_heads."""
    batch, num_heads, length, d_head = x.shape
    return x.reshape(batch, length, num_heads * d_head)             # heads side by side again
