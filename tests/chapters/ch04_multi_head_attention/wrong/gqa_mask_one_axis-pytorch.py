# %% grouped_query_attention
class GroupedQueryAttention(nn.Module):
    """h query heads that share g = num_kv_heads key-value heads, h / g query heads to each.

    GroupedQueryAttention(d_model, num_heads, num_kv_heads): raises ValueError when num_heads does
    not divide d_model or num_kv_heads does not divide num_heads; nn.Linear layers named query and
    output_projection (d_model to d_model), key and value (d_model to num_kv_heads * d_head), with
    biases. Query head i attends with key-value head i // (num_heads / num_kv_heads).
    forward(query_input (B, L, d_model), key_value_input (B, S, d_model) or None (self-attention),
            attention_mask: bool, True = may attend, (B, L, S), (B, 1, S) or (L, S), or None)
    returns (output (B, L, d_model), weights (B, h, L, S)).
    """

    def __init__(self, d_model, num_heads, num_kv_heads):
        super().__init__()
        if d_model % num_heads or num_heads % num_kv_heads:
            raise ValueError(f"num_heads={num_heads} must divide d_model={d_model}, and "
                             f"num_kv_heads={num_kv_heads} must divide num_heads")
        self.num_heads, self.num_kv_heads = num_heads, num_kv_heads
        self.d_head = d_model // num_heads                      # the width of every head
        shared_width = num_kv_heads * self.d_head               # g heads of d_head, not h
        self.query = nn.Linear(d_model, d_model)                # h query heads
        self.key = nn.Linear(d_model, shared_width)             # g key heads
        self.value = nn.Linear(d_model, shared_width)           # g value heads
        self.output_projection = nn.Linear(d_model, d_model)

    def forward(self, query_input, key_value_input=None, attention_mask=None):
        source = query_input if key_value_input is None else key_value_input
        groups = self.num_kv_heads
        per_group = self.num_heads // groups                    # query heads that share one key-value head
        queries = split_heads(self.query(query_input), self.d_head)     # (B, h, L, d_head)
        batch, _, length, d_head = queries.shape
        # query head i = group i // per_group, member i % per_group: (B, g, h/g, L, d_head)
        queries = queries.reshape(batch, groups, per_group, length, d_head)
        keys = split_heads(self.key(source), self.d_head)[:, :, None]           # (B, g, 1, S, d_head)
        values = split_heads(self.value(source), self.d_head)[:, :, None]       # (B, g, 1, S, d_head)
        if attention_mask is not None:                          # (B, L, S), (B, 1, S) or (L, S)
            attention_mask = attention_mask[:, None]                          # one head axis, as before
        mixed, weights = scaled_dot_product_attention(queries, keys, values, attention_mask)
        mixed = mixed.reshape(batch, self.num_heads, length, d_head)       # (B, h, L, d_head)
        weights = weights.reshape(batch, self.num_heads, length, -1)       # (B, h, L, S)
        return self.output_projection(merge_heads(mixed)), weights
