# %% scaled_dot_product_attention
from attention_course.torch_self_attention import scaled_dot_product_attention

# %% masks
from attention_course.torch_self_attention import causal_mask, padding_mask

# %% self_attention
from attention_course.torch_self_attention import SelfAttention
