# %% np_scaled_dot_product_attention
def np_scaled_dot_product_attention(Q, K, V, mask=None):
    """Scaled dot-product attention for one sequence, in NumPy: softmax(Q K^T / sqrt(d_k)) V.

    Q: (L, d_k) queries; K: (S, d_k) keys; V: (S, d_v) values;
    mask: None, or a boolean array broadcastable to (L, S), True where query i may attend to key j.
    Returns (output (L, d_v), weights (L, S)); blocked positions get weight exactly 0.
    """
    d_k = Q.shape[1]
    raw = np.einsum("ld,sd->ls", Q, K) / np.sqrt(d_k)
    if mask is not None:
        allowed = np.broadcast_to(mask, raw.shape)
        raw = np.where(allowed, raw, -np.inf)
    top = np.max(raw, axis=1, keepdims=True)
    exps = np.exp(raw - top)
    attn = exps / np.sum(exps, axis=1, keepdims=True)
    result = np.einsum("ls,sv->lv", attn, V)
    return result, attn

# %% scaled_dot_product_attention
def scaled_dot_product_attention(q, k, v, mask=None):
    """Scaled dot-product attention for a batch: softmax(q k^T / sqrt(d_k)) v.

    q: (B, L, d_k) queries; k: (B, S, d_k) keys; v: (B, S, d_v) values (float tensors);
    mask: None, or a bool tensor broadcastable to (B, L, S), True where query i may attend to key j.
    Returns (output (B, L, d_v), weights (B, L, S)); blocked positions get weight exactly 0.
    """
    d_k = q.size(-1)
    raw = torch.einsum("bld,bsd->bls", q, k) / (d_k ** 0.5)
    if mask is not None:
        neg = torch.full_like(raw, float("-inf"))
        raw = torch.where(mask, raw, neg)
    attn = torch.nn.functional.softmax(raw, dim=2)
    result = torch.einsum("bls,bsv->blv", attn, v)
    return result, attn

# %% masks
def padding_mask(tokens, pad_id=PAD_ID):
    """Which keys are real tokens. tokens: (B, S) int64 ids, padded with pad_id.
    Returns a bool tensor of shape (B, 1, S): True at real tokens, False at padding.
    """
    real = tokens.ne(pad_id)
    return real[:, None, :]


def causal_mask(length):
    """Which positions each position may attend to when it must not look ahead.
    Returns a bool tensor of shape (length, length): [i, j] is True for j <= i.
    """
    rows = torch.arange(length).unsqueeze(1)
    cols = torch.arange(length).unsqueeze(0)
    return cols <= rows

# %% self_attention
class SelfAttention(nn.Module):
    """Single-head self-attention: x is projected to queries, keys and values, they go through
    your scaled_dot_product_attention, and the result is projected back to d_model.

    d_model: the width of x; d_k: the width of the queries, keys and values.
    """

    def __init__(self, d_model, d_k):
        super().__init__()
        self.query, self.key, self.value = (nn.Linear(d_model, d_k) for _ in range(3))
        self.output_projection = nn.Linear(d_k, d_model)

    def forward(self, x, attention_mask=None):
        """x: (B, L, d_model); attention_mask: None, or a bool tensor broadcastable to (B, L, L).
        Returns (output (B, L, d_model), weights (B, L, L)).
        """
        queries = self.query(x)
        keys = self.key(x)
        values = self.value(x)
        mixed, attn = scaled_dot_product_attention(queries, keys, values, mask=attention_mask)
        out = self.output_projection(mixed)
        return out, attn
