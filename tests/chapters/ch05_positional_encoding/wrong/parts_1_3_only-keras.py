# %% rope [blank]

# %% alibi [blank]

# %% encoding_distance [blank]
