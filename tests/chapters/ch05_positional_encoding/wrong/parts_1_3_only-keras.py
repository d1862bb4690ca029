# %% rope [blank]

# %% rope_scores_cell [blank]
