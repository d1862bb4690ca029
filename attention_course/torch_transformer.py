"""The Transformer of chapter 6 (Vaswani et al. 2017) in PyTorch; twin of keras_transformer.py.

Encoder and decoder layers (post-LN by default, pre-LN with norm_first=True), the encoder,
the decoder, the whole model with scaled embeddings and sinusoidal positions, greedy decoding
and beam search. Written before its chapter and checked by tests/test_transformer.py against
torch.nn's and keras-hub's layers with copied weights; chapter 6 will export it from its cells.
"""
import math

import numpy as np
import torch
from torch import nn

from attention_course.data import BOS_ID, EOS_ID, PAD_ID
from attention_course.torch_multi_head import MultiHeadAttention
from attention_course.torch_positional import SinusoidalEncoding
from attention_course.torch_self_attention import causal_mask


def dense(in_features, out_features):
    """nn.Linear started as Keras' Dense: Glorot uniform weights, zero bias."""
    linear = nn.Linear(in_features, out_features)
    nn.init.xavier_uniform_(linear.weight)
    nn.init.zeros_(linear.bias)
    return linear


class FeedForward(nn.Module):
    """Position-wise feed-forward network: W_2 relu(W_1 x + b_1) + b_2, per position."""

    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.hidden = dense(d_model, d_ff)
        self.dropout = nn.Dropout(dropout)
        self.projection = dense(d_ff, d_model)

    def forward(self, x):                              # (B, L, d_model) -> (B, L, d_model)
        return self.projection(self.dropout(torch.relu(self.hidden(x))))
class EncoderLayer(nn.Module):
    """Self-attention, then a feed-forward network, each inside a residual connection
    with a layer norm: after the sum (post-LN, the paper) or before the sublayer (pre-LN)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.1, norm_first=False):
        super().__init__()
        self.self_attention = MultiHeadAttention(d_model, num_heads)    # chapter 4's
        self.attention_norm = nn.LayerNorm(d_model, eps=1e-5)
        self.feed_forward = FeedForward(d_model, d_ff, dropout)
        self.feed_forward_norm = nn.LayerNorm(d_model, eps=1e-5)
        self.dropout = nn.Dropout(dropout)
        self.norm_first = norm_first

    def forward(self, x, attention_mask=None):       # x: (B, S, d_model); mask (B, 1, S)
        z = self.attention_norm(x) if self.norm_first else x
        attended, weights = self.self_attention(z, z, attention_mask)  # weights (B,h,S,S)
        x = x + self.dropout(attended)
        if not self.norm_first:
            x = self.attention_norm(x)
        z = self.feed_forward_norm(x) if self.norm_first else x
        x = x + self.dropout(self.feed_forward(z))
        if not self.norm_first:
            x = self.feed_forward_norm(x)
        return x, weights                              # (B, S, d_model), (B, h, S, S)


class DecoderLayer(nn.Module):
    """Masked self-attention, cross-attention to the encoder's output, feed-forward;
    each inside a residual connection with a layer norm (post-LN or pre-LN)."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.1, norm_first=False):
        super().__init__()
        self.self_attention = MultiHeadAttention(d_model, num_heads)
        self.self_attention_norm = nn.LayerNorm(d_model, eps=1e-5)
        self.cross_attention = MultiHeadAttention(d_model, num_heads)
        self.cross_attention_norm = nn.LayerNorm(d_model, eps=1e-5)
        self.feed_forward = FeedForward(d_model, d_ff, dropout)
        self.feed_forward_norm = nn.LayerNorm(d_model, eps=1e-5)
        self.dropout = nn.Dropout(dropout)
        self.norm_first = norm_first

    def forward(self, y, memory, self_attention_mask=None, cross_attention_mask=None):
        # y: (B, T, d_model); memory: the encoder's output (B, S, d_model)
        # self_attention_mask: (B, T, T) causal and padding; cross_attention_mask: (B, 1, S)
        z = self.self_attention_norm(y) if self.norm_first else y
        attended, self_weights = self.self_attention(z, z, self_attention_mask)
        y = y + self.dropout(attended)
        if not self.norm_first:
            y = self.self_attention_norm(y)
        z = self.cross_attention_norm(y) if self.norm_first else y
        attended, cross_weights = self.cross_attention(z, memory, cross_attention_mask)
        y = y + self.dropout(attended)                 # queries z, keys and values memory
        if not self.norm_first:
            y = self.cross_attention_norm(y)
        z = self.feed_forward_norm(y) if self.norm_first else y
        y = y + self.dropout(self.feed_forward(z))
        if not self.norm_first:
            y = self.feed_forward_norm(y)
        return y, self_weights, cross_weights      # (B,T,d_model), (B,h,T,T), (B,h,T,S)


class Embedding(nn.Module):
    """Token embedding times sqrt(d_model), plus chapter 5's sinusoidal encoding, dropout."""

    def __init__(self, vocab_size, d_model, max_len=256, dropout=0.1):
        super().__init__()
        self.tokens = nn.Embedding(vocab_size, d_model)
        nn.init.normal_(self.tokens.weight, std=d_model ** -0.5)  # scaled: N(0, 1) entries
        self.positions = SinusoidalEncoding(max_len, d_model)
        self.dropout = nn.Dropout(dropout)
        self.scale = math.sqrt(d_model)

    def forward(self, token_ids):                      # (B, L) -> (B, L, d_model)
        return self.dropout(self.positions(self.tokens(token_ids) * self.scale))


class Encoder(nn.Module):
    """Embedding, then num_layers encoder layers (a final layer norm when pre-LN)."""

    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, dropout=0.1,
                 norm_first=False, max_len=256):
        super().__init__()
        self.embedding = Embedding(vocab_size, d_model, max_len, dropout)
        self.layers = nn.ModuleList([EncoderLayer(d_model, num_heads, d_ff, dropout,
                                                  norm_first) for _ in range(num_layers)])
        self.final_norm = nn.LayerNorm(d_model, eps=1e-5) if norm_first else nn.Identity()

    def forward(self, src):                            # (B, S) -> (B, S, d_model), weights
        attention_mask = (src != PAD_ID).unsqueeze(1)  # (B, 1, S): real tokens
        x, weights = self.embedding(src), []
        for layer in self.layers:
            x, w = layer(x, attention_mask)
            weights.append(w)                          # num_layers x (B, h, S, S)
        return self.final_norm(x), weights


class Decoder(nn.Module):
    """Embedding, num_layers decoder layers, the projection to the vocabulary."""

    def __init__(self, vocab_size, d_model, num_heads, d_ff, num_layers, dropout=0.1,
                 norm_first=False, max_len=256, tie_weights=True):
        super().__init__()
        self.embedding = Embedding(vocab_size, d_model, max_len, dropout)
        self.layers = nn.ModuleList([DecoderLayer(d_model, num_heads, d_ff, dropout,
                                                  norm_first) for _ in range(num_layers)])
        self.final_norm = nn.LayerNorm(d_model, eps=1e-5) if norm_first else nn.Identity()
        self.tie_weights = tie_weights
        self.output_projection = None if tie_weights else dense(d_model, vocab_size)

    def forward(self, tgt_in, memory, src):            # (B, T), (B, S, d), (B, S)
        length = tgt_in.shape[1]
        causal = causal_mask(length).to(tgt_in.device)                   # (T, T)
        self_mask = causal & (tgt_in != PAD_ID).unsqueeze(1)               # (B, T, T)
        cross_mask = (src != PAD_ID).unsqueeze(1)                          # (B, 1, S)
        y, self_weights, cross_weights = self.embedding(tgt_in), [], []
        for layer in self.layers:
            y, w_self, w_cross = layer(y, memory, self_mask, cross_mask)
            self_weights.append(w_self)
            cross_weights.append(w_cross)
        y = self.final_norm(y)
        if self.tie_weights:                           # the embedding matrix, transposed
            logits = y @ self.embedding.tokens.weight.T
        else:
            logits = self.output_projection(y)
        return logits, self_weights, cross_weights     # (B, T, V), per layer (B,h,T,T|S)


class Transformer(nn.Module):
    """The encoder-decoder Transformer (Vaswani et al., 2017), small by default."""

    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=64, num_heads=4, d_ff=256,
                 num_layers=2, dropout=0.1, norm_first=False, max_len=256, tie_weights=True):
        super().__init__()
        self.encoder = Encoder(src_vocab_size, d_model, num_heads, d_ff, num_layers,
                               dropout, norm_first, max_len)
        self.decoder = Decoder(tgt_vocab_size, d_model, num_heads, d_ff, num_layers,
                               dropout, norm_first, max_len, tie_weights)

    def forward(self, src, tgt_in, return_weights=False):  # teacher forcing, every prefix
        memory, encoder_weights = self.encoder(src)        # (B, S, d_model)
        logits, self_weights, cross_weights = self.decoder(tgt_in, memory, src)
        if return_weights:
            return logits, encoder_weights, self_weights, cross_weights
        return logits                                      # (B, T, V)

    def next_log_probs(self, tgt_in, memory, src):     # log p(next token | prefix): (B, V)
        logits, _, _ = self.decoder(tgt_in, memory, src)
        return torch.log_softmax(logits[:, -1], dim=-1)
@torch.no_grad()
def greedy_decode(model, src, max_len):
    """Append the most likely next token, max_len times (every row of the batch at once).

    src: (B, S) NumPy ids -> (B, max_len) NumPy ids, <pad> after every row's <eos>.
    """
    src = torch.as_tensor(src, device=next(model.parameters()).device)
    memory, _ = model.encoder(src)                                 # once per source
    tokens = np.full((src.shape[0], 1), BOS_ID, dtype=np.int64)    # (B, t + 1)
    done = np.zeros(src.shape[0], dtype=bool)
    for _ in range(max_len):
        prefix = torch.as_tensor(tokens, device=src.device)
        best = model.next_log_probs(prefix, memory, src).argmax(-1).cpu().numpy()  # (B,)
        best[done] = PAD_ID                                        # after <eos>: <pad>
        tokens = np.concatenate([tokens, best[:, None]], axis=1)
        done |= best == EOS_ID
        if done.all():
            break
    out = np.full((src.shape[0], max_len), PAD_ID, dtype=np.int64)
    out[:, :tokens.shape[1] - 1] = tokens[:, 1:]
    return out


@torch.no_grad()
def beam_search(model, src, max_len, beam_size=4, num_beams=1, alpha=0.6):
    """Keep the beam_size most likely prefixes of every source; return the num_beams best
    finished ones by log-probability / length**alpha (length normalisation).

    src: (B, S) NumPy ids -> tokens (B, num_beams, max_len), scores (B, num_beams) NumPy.
    """
    src = torch.as_tensor(src, device=next(model.parameters()).device)
    batch, k = src.shape[0], beam_size
    src = src.repeat_interleave(k, dim=0)                          # (B k, S): k copies
    memory, _ = model.encoder(src)
    tokens = np.full((batch * k, 1), BOS_ID, dtype=np.int64)       # (B k, t + 1)
    scores = np.full((batch, k), -np.inf)                          # sum of log-probs
    scores[:, 0] = 0.0                                             # one live beam to start
    done = np.zeros((batch, k), dtype=bool)
    lengths = np.zeros((batch, k))
    for _ in range(max_len):
        prefix = torch.as_tensor(tokens, device=src.device)
        log_probs = model.next_log_probs(prefix, memory, src).double().cpu().numpy()
        log_probs = log_probs.reshape(batch, k, -1)                # (B, k, V)
        vocab_size = log_probs.shape[-1]
        log_probs[done] = -np.inf                                  # a finished beam
        log_probs[done, PAD_ID] = 0.0                              # only pads, for free
        candidates = (scores[..., None] + log_probs).reshape(batch, k * vocab_size)
        best = np.argsort(-candidates, axis=1, kind="stable")[:, :k]   # (B, k)
        scores = np.take_along_axis(candidates, best, axis=1)
        beam, token = best // vocab_size, best % vocab_size       # where from, what
        rows = (beam + k * np.arange(batch)[:, None]).reshape(-1)
        tokens = np.concatenate([tokens[rows], token.reshape(-1, 1)], axis=1)
        was_done = np.take_along_axis(done, beam, axis=1)
        lengths = np.take_along_axis(lengths, beam, axis=1) + ~was_done
        done = was_done | (token == EOS_ID)
        if done.all():
            break
    normalised = scores / lengths ** alpha                         # (B, k)
    order = np.argsort(-normalised, axis=1, kind="stable")[:, :num_beams]
    out = np.full((batch, num_beams, max_len), PAD_ID, dtype=np.int64)
    picked = tokens.reshape(batch, k, -1)[np.arange(batch)[:, None], order]
    out[..., :picked.shape[-1] - 1] = picked[..., 1:]
    return out, np.take_along_axis(normalised, order, axis=1)
