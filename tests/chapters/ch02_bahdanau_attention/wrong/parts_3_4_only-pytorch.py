# %% additive_scores [blank]

# %% masked_softmax [blank]
