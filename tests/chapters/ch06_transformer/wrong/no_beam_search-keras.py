# %% beam [blank]
