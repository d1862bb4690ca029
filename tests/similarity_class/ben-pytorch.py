# %% np_scaled_dot_product_attention
def np_scaled_dot_product_attention(Q, K, V, mask=None):
    """Scaled dot-product attention for one sequence, in NumPy: softmax(Q K^T / sqrt(d_k)) V.

    Q: (L, d_k) queries; K: (S, d_k) keys; V: (S, d_v) values;
    mask: None, or a boolean array broadcastable to (L, S), True where query i may attend to key j.
    Returns (output (L, d_v), weights (L, S)); blocked positions get weight exactly 0.
    """
    L, S = Q.shape[0], K.shape[0]
    logits = np.zeros((L, S))
    for i in range(L):
        for j in range(S):
            logits[i, j] = np.dot(Q[i], K[j]) / math.sqrt(len(Q[i]))
    if mask is not None:
        logits[~np.broadcast_to(mask, (L, S))] = -np.inf
    shifted = logits - logits.max(-1)[:, None]
    w = np.exp(shifted)
    w /= w.sum(-1)[:, None]
    return np.matmul(w, V), w

# %% scaled_dot_product_attention
def scaled_dot_product_attention(q, k, v, mask=None):
    """Scaled dot-product attention for a batch: softmax(q k^T / sqrt(d_k)) v.

    q: (B, L, d_k) queries; k: (B, S, d_k) keys; v: (B, S, d_v) values (float tensors);
    mask: None, or a bool tensor broadcastable to (B, L, S), True where query i may attend to key j.
    Returns (output (B, L, d_v), weights (B, L, S)); blocked positions get weight exactly 0.
    """
    logits = torch.bmm(q, k.permute(0, 2, 1)) * q.shape[2] ** -0.5
    if mask is not None:
        logits = logits.masked_fill(mask.logical_not(), -math.inf)
    w = logits.softmax(-1)
    return torch.matmul(w, v), w

# %% masks
def padding_mask(tokens, pad_id=PAD_ID):
    """Which keys are real tokens. tokens: (B, S) int64 ids, padded with pad_id.
    Returns a bool tensor of shape (B, 1, S): True at real tokens, False at padding.
    """
    B, S = tokens.shape
    return (tokens != pad_id).reshape(B, 1, S)


def causal_mask(length):
    """Which positions each position may attend to when it must not look ahead.
    Returns a bool tensor of shape (length, length): [i, j] is True for j <= i.
    """
    upper = torch.triu(torch.ones((length, length)), diagonal=1)
    return upper == 0

# %% self_attention
class SelfAttention(nn.Module):
    """Single-head self-attention: x is projected to queries, keys and values, they go through
    your scaled_dot_product_attention, and the result is projected back to d_model.

    d_model: the width of x; d_k: the width of the queries, keys and values.
    """

    def __init__(self, d_model, d_k):
        super().__init__()
        self.d_k = d_k
        self.qkv = nn.Linear(d_model, 3 * d_k)
        self.output_projection = nn.Linear(d_k, d_model)

    def forward(self, x, attention_mask=None):
        """x: (B, L, d_model); attention_mask: None, or a bool tensor broadcastable to (B, L, L).
        Returns (output (B, L, d_model), weights (B, L, L)).
        """
        q, k, v = self.qkv(x).split(self.d_k, dim=-1)
        h, w = scaled_dot_product_attention(q, k, v, attention_mask)
        return self.output_projection(h), w
