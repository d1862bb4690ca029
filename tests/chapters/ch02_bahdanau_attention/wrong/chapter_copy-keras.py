# %% local_attention
# The chapter's additive attention layer, pasted under the asked name.
from keras import layers, ops


def masked_softmax(scores, attention_mask):    # (B, S); True = real token
    """Softmax over the source positions with exactly zero weight on padding."""
    scores = ops.where(attention_mask, scores, float("-inf"))    # exp(-inf) = 0
    return ops.softmax(scores, axis=-1)


class Attention(layers.Layer):
    """Score every position, masked softmax, weighted sum of the keys."""

    def prepare(self, keys):                           # what depends on the keys only
        return keys

    def call(self, query, keys, attention_mask, prepared=None):  # (B,d_q), (B,S,d_k), (B,S)
        if prepared is None:
            prepared = self.prepare(keys)
        weights = masked_softmax(self.score(query, prepared), attention_mask)  # (B, S)
        context = ops.einsum("bs,bsk->bk", weights, keys)                     # (B, d_k)
        return context, weights


class local_attention(Attention):
    """e_{t,j} = v^T tanh(W s + U h_j + b)  (Bahdanau et al., 2015)."""

    def __init__(self, query_dim, key_dim, attention_dim, **kwargs):
        super().__init__(**kwargs)
        self.W = layers.Dense(attention_dim, use_bias=False)
        self.U = layers.Dense(attention_dim)
        self.v = layers.Dense(1, use_bias=False)
        self.W.build((None, query_dim))                # sizes known: weights now
        self.U.build((None, None, key_dim))
        self.v.build((None, None, attention_dim))

    def prepare(self, keys):                           # U h_j + b, once per source
        return self.U(keys)                            # (B, S, d_a)

    def score(self, query, prepared):                  # (B, d_q), (B, S, d_a) -> (B, S)
        hidden = ops.tanh(ops.expand_dims(self.W(query), 1) + prepared)  # (B, S, d_a)
        return ops.squeeze(self.v(hidden), -1)
