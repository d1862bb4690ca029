# %% scaled_dot_product_attention [blank]

# %% masks [blank]
