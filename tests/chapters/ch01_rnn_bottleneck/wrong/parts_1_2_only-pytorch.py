# %% decoder [blank]

# %% greedy_decode [blank]
