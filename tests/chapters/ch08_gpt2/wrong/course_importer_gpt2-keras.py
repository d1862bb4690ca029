# %% attention
from attention_course.keras_gpt2 import CausalSelfAttention

# %% filters
from attention_course.keras_gpt2 import top_k_filter, top_p_filter

# %% sampling
from attention_course.keras_gpt2 import sample_next

# %% generate
from attention_course.keras_gpt2 import generate
