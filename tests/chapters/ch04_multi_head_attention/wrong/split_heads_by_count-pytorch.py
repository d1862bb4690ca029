# %% split_and_merge
# The chapter's split_heads(x, num_heads) and merge_heads (section 4.4), pasted.
def split_heads(x, num_heads):                       # (B, L, d_model) -> (B, h, L, d_k)
    batch, length, d_model = x.shape
    x = x.reshape(batch, length, num_heads, d_model // num_heads)
    return x.transpose(1, 2)


def merge_heads(x):                                  # (B, h, L, d_k) -> (B, L, h d_k)
    x = x.transpose(1, 2)
    batch, length, num_heads, d_k = x.shape
    return x.reshape(batch, length, num_heads * d_k)
