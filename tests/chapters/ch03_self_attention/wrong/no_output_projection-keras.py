# %% self_attention
class SelfAttention(layers.Layer):
    """Single-head self-attention: x is projected to queries, keys and values, they go through
    your scaled_dot_product_attention, and the result is projected back to d_model.

    d_model: the width of x; d_k: the width of the queries, keys and values.
    """

    def __init__(self, d_model, d_k):
        super().__init__()
        self.query = layers.Dense(d_k)                   # x -> Q
        self.key = layers.Dense(d_k)                     # x -> K
        self.value = layers.Dense(d_k)                   # x -> V
        self.output_projection = layers.Dense(d_model)   # back to d_model

    def call(self, x, attention_mask=None):
        """x: (B, L, d_model); attention_mask: None, or boolean, broadcastable to (B, L, L).
        Returns (output (B, L, d_model), weights (B, L, L)).
        """
        q, k, v = self.query(x), self.key(x), self.value(x)
        context, weights = scaled_dot_product_attention(q, k, v, attention_mask)
        return context, weights
