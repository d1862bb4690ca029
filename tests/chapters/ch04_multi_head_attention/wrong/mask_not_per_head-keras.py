# %% multi_head_attention
class MultiHeadAttention(layers.Layer):
    """h heads of scaled dot-product attention, each d_head wide (d_model / h if not given), computed
    together.

    MultiHeadAttention(d_model, num_heads, d_head=None): with d_head None, raises ValueError when
    num_heads does not divide d_model, and d_head = d_model / num_heads; layers.Dense layers with
    biases named query, key, value (num_heads * d_head units) and output_projection (d_model units).
    call(query_input (B, L, d_model), key_value_input (B, S, d_model) or None (self-attention),
         attention_mask: bool, True = may attend, (B, L, S), (B, 1, S) or (L, S), or None)
    returns (output (B, L, d_model), weights (B, h, L, S)).
    """

    def __init__(self, d_model, num_heads, d_head=None, **kwargs):
        super().__init__(**kwargs)
        if d_head is None:                                 # the chapter's split of d_model
            if d_model % num_heads:
                raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
            d_head = d_model // num_heads
        self.num_heads, self.d_head = num_heads, d_head
        inner = num_heads * d_head                         # the heads side by side, any width
        self.query = layers.Dense(inner)                   # the h matrices W_Q side by side
        self.key = layers.Dense(inner)                     # W_K
        self.value = layers.Dense(inner)                   # W_V
        self.output_projection = layers.Dense(d_model)     # W_O: back to d_model

    def call(self, query_input, key_value_input=None, attention_mask=None):
        if key_value_input is None:                        # self-attention
            key_value_input = query_input
        q = split_heads(self.query(query_input), self.d_head)       # (B, h, L, d_head)
        k = split_heads(self.key(key_value_input), self.d_head)     # (B, h, S, d_head)
        v = split_heads(self.value(key_value_input), self.d_head)   # (B, h, S, d_head)
        attended, weights = scaled_dot_product_attention(q, k, v, attention_mask)   # all heads at once
        return self.output_projection(merge_heads(attended)), weights  # (B, L, d_model), (B, h, L, S)
