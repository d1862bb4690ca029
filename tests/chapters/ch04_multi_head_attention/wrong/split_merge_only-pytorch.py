# %% multi_head_attention [blank]
