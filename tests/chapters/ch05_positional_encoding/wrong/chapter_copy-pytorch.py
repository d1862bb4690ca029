# %% alibi
import torch

from attention_course.torch_multi_head import MultiHeadAttention, merge_heads, split_heads
from attention_course.torch_self_attention import scaled_dot_product_attention


def alibi_slopes(length, d_model):            # -> (L, d_model), a float32 tensor
    """PE(p, 2i) = sin(p / 10000^(2i / d_model)), PE(p, 2i+1) = cos(the same angle).

    For an odd d_model the last column is the sine of one more frequency: its
    cosine partner would be column d_model, which does not exist.
    """
    positions = torch.arange(length, dtype=torch.float32)[:, None]       # (L, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float32)               # (ceil(d/2),)
    angles = positions / 10000.0 ** (two_i / d_model)                     # (L, ceil(d/2))
    pairs = torch.stack([torch.sin(angles), torch.cos(angles)], -1)     # (L, ceil(d/2), 2)
    return pairs.reshape(length, -1)[:, :d_model]                     # sin, cos, sin, ...


def alibi_bias(length, d_model):            # -> (L, d_model), a float32 tensor
    """PE(p, 2i) = sin(p / 10000^(2i / d_model)), PE(p, 2i+1) = cos(the same angle).

    For an odd d_model the last column is the sine of one more frequency: its
    cosine partner would be column d_model, which does not exist.
    """
    positions = torch.arange(length, dtype=torch.float32)[:, None]       # (L, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float32)               # (ceil(d/2),)
    angles = positions / 10000.0 ** (two_i / d_model)                     # (L, ceil(d/2))
    pairs = torch.stack([torch.sin(angles), torch.cos(angles)], -1)     # (L, ceil(d/2), 2)
    return pairs.reshape(length, -1)[:, :d_model]                     # sin, cos, sin, ...


class alibi_attention(MultiHeadAttention):
    """Chapter 4's multi-head attention with RoPE on every head's queries and keys."""

    def forward(self, query_input, key_value_input=None, attention_mask=None):
        if key_value_input is None:                  # self-attention
            key_value_input = query_input
        q = split_heads(self.query(query_input), self.num_heads)      # (B, h, T, d_k)
        k = split_heads(self.key(key_value_input), self.num_heads)    # (B, h, S, d_k)
        q, k = apply_rope(q), apply_rope(k)          # rotated by their positions
        v = split_heads(self.value(key_value_input), self.num_heads)      # (B, h, S, d_k)
        if attention_mask is not None:               # (B, T, S) or (B, 1, S) or (T, S)
            attention_mask = attention_mask.unsqueeze(-3)
        attended, weights = scaled_dot_product_attention(q, k, v, attention_mask)
        return self.output_projection(merge_heads(attended)), weights  # (B,T,d),(B,h,T,S)
