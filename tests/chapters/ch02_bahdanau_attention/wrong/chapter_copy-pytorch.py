# %% local_attention
# The chapter's additive attention layer, pasted under the asked name.
import torch
from torch import nn


def masked_softmax(scores, attention_mask):    # (B, S); True = real token
    """Softmax over the source positions with exactly zero weight on padding."""
    scores = scores.masked_fill(~attention_mask, float("-inf"))  # exp(-inf) = 0
    return torch.softmax(scores, dim=-1)


class Attention(nn.Module):
    """Score every position, masked softmax, weighted sum of the keys."""

    def prepare(self, keys):                           # what depends on the keys only
        return keys

    def forward(self, query, keys, attention_mask, prepared=None):  # (B,d_q), (B,S,d_k), (B,S)
        if prepared is None:
            prepared = self.prepare(keys)
        weights = masked_softmax(self.score(query, prepared), attention_mask)  # (B, S)
        context = torch.einsum("bs,bsk->bk", weights, keys)                   # (B, d_k)
        return context, weights


class local_attention(Attention):
    """e_{t,j} = v^T tanh(W s + U h_j + b)  (Bahdanau et al., 2015)."""

    def __init__(self, query_dim, key_dim, attention_dim):
        super().__init__()
        self.W = nn.Linear(query_dim, attention_dim, bias=False)
        self.U = nn.Linear(key_dim, attention_dim)
        self.v = nn.Linear(attention_dim, 1, bias=False)

    def prepare(self, keys):                           # U h_j + b, once per source
        return self.U(keys)                            # (B, S, d_a)

    def score(self, query, prepared):                  # (B, d_q), (B, S, d_a) -> (B, S)
        hidden = torch.tanh(self.W(query).unsqueeze(1) + prepared)   # (B, S, d_a)
        return self.v(hidden).squeeze(-1)
