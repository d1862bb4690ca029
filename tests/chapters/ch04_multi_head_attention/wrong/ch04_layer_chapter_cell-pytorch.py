# %% multi_head_attention
class MultiHeadAttention(nn.Module):
    """h heads of scaled dot-product attention, each d_k = d_model / h wide, all at once."""

    def __init__(self, d_model, num_heads):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.num_heads = num_heads
        self.d_head = d_model // num_heads             # part 1's split_heads takes the width
        self.query = nn.Linear(d_model, d_model)     # the h matrices W_Q side by side
        self.key = nn.Linear(d_model, d_model)       # W_K
        self.value = nn.Linear(d_model, d_model)     # W_V
        self.output_projection = nn.Linear(d_model, d_model)   # W_O
        for linear in (self.query, self.key, self.value, self.output_projection):
            nn.init.xavier_uniform_(linear.weight)   # as Keras' Dense starts:
            nn.init.zeros_(linear.bias)              # Glorot uniform, zero bias

    def forward(self, query_input, key_value_input=None, attention_mask=None):
        if key_value_input is None:                  # self-attention
            key_value_input = query_input
        q = split_heads(self.query(query_input), self.d_head)      # (B, h, T, d_k)
        k = split_heads(self.key(key_value_input), self.d_head)    # (B, h, S, d_k)
        v = split_heads(self.value(key_value_input), self.d_head)  # (B, h, S, d_k)
        if attention_mask is not None:               # (B, T, S) or (B, 1, S) or (T, S)
            attention_mask = attention_mask.unsqueeze(-3)  # the same for every head
        attended, weights = scaled_dot_product_attention(q, k, v, attention_mask)
        return self.output_projection(merge_heads(attended)), weights  # (B,T,d), (B,h,T,S)
