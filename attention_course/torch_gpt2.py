"""GPT-2 (Radford et al. 2019) in PyTorch, from the course's parts; twin of keras_gpt2.py.

A decoder-only Transformer: token and learned position embeddings, pre-LN blocks of
causal self-attention (chapter 4's multi-head attention with a key-value cache) and a
GELU feed-forward network (chapter 6's, with the tanh GELU), a final layer norm, and
logits from the token embedding table itself (weight tying). ``load_hf_weights`` copies
a Hugging Face GPT2LMHeadModel state into it (its Conv1D weights are stored (in, out),
the transpose of nn.Linear's). Written before its chapter and checked by
tests/test_gpt2.py against transformers and the Keras twin; chapter 8 will export it.
"""
import math

import numpy as np
import torch
from torch import nn

from attention_course.torch_multi_head import MultiHeadAttention, merge_heads, split_heads
from attention_course.torch_self_attention import causal_mask, scaled_dot_product_attention
from attention_course.torch_transformer import FeedForward


class CausalSelfAttention(MultiHeadAttention):
    """Multi-head self-attention in which position i sees positions j <= i only.

    cache: the keys and values of the P positions already seen, each (B, h, P, d_k); the
    new positions attend to those and to themselves, and the longer cache is returned,
    so that generating one more token computes one query, one key and one value."""

    def forward(self, x, cache=None):                # x: (B, L, d_model)
        q = split_heads(self.query(x), self.num_heads)            # (B, h, L, d_k)
        k = split_heads(self.key(x), self.num_heads)
        v = split_heads(self.value(x), self.num_heads)
        if cache is not None:                          # prepend the earlier positions
            k = torch.cat([cache[0], k], dim=2)        # (B, h, P + L, d_k)
            v = torch.cat([cache[1], v], dim=2)
        past = k.shape[2] - x.shape[1]                 # P
        mask = causal_mask(k.shape[2])[past:].to(x.device)  # (L, P + L): row i = position P + i
        attended, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.output_projection(merge_heads(attended)), weights, (k, v)


class Block(nn.Module):
    """GPT-2's pre-LN decoder block: x + attention(LN(x)), then x + MLP(LN(x)).
    No cross-attention: there is no encoder."""

    def __init__(self, d_model, num_heads, dropout=0.1, norm_eps=1e-5):
        super().__init__()
        self.attention_norm = nn.LayerNorm(d_model, eps=norm_eps)
        self.attention = CausalSelfAttention(d_model, num_heads)
        self.feed_forward_norm = nn.LayerNorm(d_model, eps=norm_eps)
        # d_ff = 4 d_model; GPT-2 applies dropout after each sublayer, not inside the MLP.
        self.feed_forward = FeedForward(d_model, 4 * d_model, 0.0, activation="gelu_tanh")
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, cache=None):                 # (B, L, d_model) -> same, weights, cache
        attended, weights, cache = self.attention(self.attention_norm(x), cache)
        x = x + self.dropout(attended)
        x = x + self.dropout(self.feed_forward(self.feed_forward_norm(x)))
        return x, weights, cache


class GPT2(nn.Module):
    """Token + position embeddings, num_layers blocks, a final layer norm, tied logits.

    forward(token_ids (B, L), cache) -> logits (B, L, V) and the new cache (a (k, v) pair
    per block). With a cache of P positions, token_ids are positions P, P + 1, ..."""

    def __init__(self, vocab_size=50257, max_len=1024, d_model=768, num_heads=12,
                 num_layers=12, dropout=0.1):
        super().__init__()
        self.max_len = max_len
        self.tokens = nn.Embedding(vocab_size, d_model)        # also the output layer
        self.positions = nn.Embedding(max_len, d_model)        # learned, as BERT's
        self.dropout = nn.Dropout(dropout)
        self.blocks = nn.ModuleList([Block(d_model, num_heads, dropout)
                                     for _ in range(num_layers)])
        self.final_norm = nn.LayerNorm(d_model, eps=1e-5)
        self._init_weights(num_layers)

    @torch.no_grad()
    def _init_weights(self, num_layers):
        """GPT-2's initialisation: N(0, 0.02) weights, zero biases, and the projections
        that add to the residual stream scaled by 1/sqrt(2 num_layers), so that the sum
        of 2 num_layers residual branches keeps the variance of one."""
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, std=0.02)
            if isinstance(module, nn.Linear):
                nn.init.zeros_(module.bias)
        for block in self.blocks:
            for linear in (block.attention.output_projection, block.feed_forward.projection):
                nn.init.normal_(linear.weight, std=0.02 / math.sqrt(2 * num_layers))

    def forward(self, token_ids, cache=None):
        past = 0 if cache is None else cache[0][0].shape[2]               # P
        positions = torch.arange(past, past + token_ids.shape[1], device=token_ids.device)
        x = self.dropout(self.tokens(token_ids) + self.positions(positions))  # (B, L, d)
        new_cache = []
        for i, block in enumerate(self.blocks):
            x, _, block_cache = block(x, None if cache is None else cache[i])
            new_cache.append(block_cache)
        x = self.final_norm(x)
        return x @ self.tokens.weight.T, new_cache      # (B, L, V): tied to the input table


def _copy(ours, weights, name, transpose=False):   # a Linear or a LayerNorm, from HF names
    weight = torch.from_numpy(weights[f"{name}.weight"])
    ours.weight.copy_(weight.T if transpose else weight)
    ours.bias.copy_(torch.from_numpy(weights[f"{name}.bias"]))


@torch.no_grad()
def load_hf_weights(model, weights):
    """Copy a Hugging Face GPT2LMHeadModel state ({name: NumPy array}) into ``model``.
    HF's Conv1D keeps weights as (in, out): nn.Linear's transpose. Its c_attn holds W_Q,
    W_K and W_V side by side: (d, 3d), split in three."""
    model.tokens.weight.copy_(torch.from_numpy(weights["transformer.wte.weight"]))
    model.positions.weight.copy_(torch.from_numpy(weights["transformer.wpe.weight"]))
    for i, block in enumerate(model.blocks):
        hf = f"transformer.h.{i}"
        d = block.attention_norm.weight.shape[0]
        w, b = weights[f"{hf}.attn.c_attn.weight"], weights[f"{hf}.attn.c_attn.bias"]
        for j, linear in enumerate((block.attention.query, block.attention.key,
                                    block.attention.value)):
            linear.weight.copy_(torch.from_numpy(w[:, j * d:(j + 1) * d].T))
            linear.bias.copy_(torch.from_numpy(b[j * d:(j + 1) * d]))
        _copy(block.attention.output_projection, weights, f"{hf}.attn.c_proj", transpose=True)
        _copy(block.attention_norm, weights, f"{hf}.ln_1")
        _copy(block.feed_forward_norm, weights, f"{hf}.ln_2")
        _copy(block.feed_forward.hidden, weights, f"{hf}.mlp.c_fc", transpose=True)
        _copy(block.feed_forward.projection, weights, f"{hf}.mlp.c_proj", transpose=True)
    _copy(model.final_norm, weights, "transformer.ln_f")
    return model


def language_model_loss(model, batch):
    """Mean cross-entropy of the next token at every position.
    batch: (inputs, targets), both (B, L); targets are the inputs shifted by one."""
    device = next(model.parameters()).device
    inputs, targets = (torch.as_tensor(a, device=device) for a in batch)
    logits, _ = model(inputs)                                          # (B, L, V)
    return nn.functional.cross_entropy(logits.flatten(0, 1), targets.flatten())


def top_k_filter(logits, k):
    """(B, V) -> (B, V): the k largest logits of each row kept, the others -inf."""
    kth_largest = torch.topk(logits, k, dim=-1).values[:, -1:]          # (B, 1)
    return logits.masked_fill(logits < kth_largest, float("-inf"))


def top_p_filter(logits, p):
    """(B, V) -> (B, V): keep the smallest set of most probable tokens whose probability
    reaches p (nucleus sampling, Holtzman et al. 2020); the others -inf."""
    sorted_logits, order = torch.sort(logits, dim=-1, descending=True)
    probs = torch.softmax(sorted_logits, dim=-1)
    mass_before = probs.cumsum(dim=-1) - probs         # of the tokens ranked above each
    drop_sorted = mass_before >= p                     # p reached without this token
    drop = torch.zeros_like(drop_sorted).scatter(-1, order, drop_sorted)
    return logits.masked_fill(drop, float("-inf"))


def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None):
    """One token per row of logits (B, V): NumPy (B,). temperature=0 is greedy.
    The draw uses NumPy's rng, so both frameworks draw the same tokens from the same
    probabilities: the first token whose cumulative probability exceeds a uniform u."""
    if temperature == 0:
        return logits.argmax(dim=-1).cpu().numpy()
    logits = logits / temperature
    if top_k is not None:
        logits = top_k_filter(logits, top_k)
    if top_p is not None:
        logits = top_p_filter(logits, top_p)
    probs = torch.softmax(logits.double(), dim=-1).cpu().numpy()          # (B, V)
    cumulative = probs.cumsum(axis=-1)
    u = rng.random((len(probs), 1)) * cumulative[:, -1:]
    return (cumulative <= u).sum(axis=-1)


@torch.no_grad()
def generate(model, prompt_ids, max_new_tokens, temperature=1.0, top_k=None, top_p=None,
             use_cache=True, seed=0):
    """Continue prompt_ids (B, P) by max_new_tokens tokens: NumPy (B, P + max_new_tokens).
    With use_cache, the prompt runs once and each new token alone after it; without, the
    whole sequence runs again for every token. The two give the same tokens."""
    model.eval()
    device = next(model.parameters()).device
    rng = np.random.default_rng(seed)
    tokens = np.asarray(prompt_ids)
    if tokens.shape[1] + max_new_tokens > model.max_len:
        raise ValueError(f"{tokens.shape[1]} + {max_new_tokens} tokens: over max_len")
    logits, cache = model(torch.as_tensor(tokens, device=device))
    for _ in range(max_new_tokens):
        next_token = sample_next(logits[:, -1], rng, temperature, top_k, top_p)  # (B,)
        tokens = np.concatenate([tokens, next_token[:, None]], axis=1)
        if use_cache:                                  # the new token only: (B, 1)
            logits, cache = model(torch.as_tensor(next_token[:, None], device=device), cache)
        else:                                          # everything again: (B, P + t)
            logits, _ = model(torch.as_tensor(tokens, device=device))
    return tokens
