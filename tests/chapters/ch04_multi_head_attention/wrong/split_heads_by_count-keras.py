# %% split_and_merge
# The chapter's split_heads(x, num_heads) and merge_heads (section 4.4), pasted.
def split_heads(x, num_heads):                       # (B, L, d_model) -> (B, h, L, d_k)
    batch, length, d_model = ops.shape(x)
    x = ops.reshape(x, (batch, length, num_heads, d_model // num_heads))
    return ops.transpose(x, (0, 2, 1, 3))


def merge_heads(x):                                  # (B, h, L, d_k) -> (B, L, h d_k)
    x = ops.transpose(x, (0, 2, 1, 3))
    batch, length, num_heads, d_k = ops.shape(x)
    return ops.reshape(x, (batch, length, num_heads * d_k))
