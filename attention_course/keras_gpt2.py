"""GPT-2 (Radford et al. 2019) in Keras, from the course's parts; twin of torch_gpt2.py.

A decoder-only Transformer: token and learned position embeddings, pre-LN blocks of
causal self-attention (chapter 4's multi-head attention with a key-value cache) and a
GELU feed-forward network (chapter 6's, with the tanh GELU), a final layer norm, and
logits from the token embedding table itself (weight tying). ``load_hf_weights`` copies
a Hugging Face GPT2LMHeadModel state into it (its Conv1D weights are stored (in, out),
as a Dense kernel is). Written before its chapter and checked by tests/test_gpt2.py
against transformers, keras-hub and the PyTorch twin; chapter 8 will export it.
"""
import math
import warnings

import keras
import numpy as np
from keras import layers, ops

from attention_course.keras_multi_head import MultiHeadAttention, merge_heads, split_heads
from attention_course.keras_self_attention import causal_mask, scaled_dot_product_attention
from attention_course.keras_transformer import FeedForward


def _normal(stddev=0.02):
    return keras.initializers.RandomNormal(stddev=stddev)


class CausalSelfAttention(MultiHeadAttention):
    """Multi-head self-attention in which position i sees positions j <= i only.

    cache: the keys and values of the P positions already seen, each (B, h, P, d_k); the
    new positions attend to those and to themselves, and the longer cache is returned,
    so that generating one more token computes one query, one key and one value."""

    def call(self, x, cache=None):                   # x: (B, L, d_model)
        q = split_heads(self.query(x), self.num_heads)            # (B, h, L, d_k)
        k = split_heads(self.key(x), self.num_heads)
        v = split_heads(self.value(x), self.num_heads)
        if cache is not None:                          # prepend the earlier positions
            k = ops.concatenate([cache[0], k], axis=2)  # (B, h, P + L, d_k)
            v = ops.concatenate([cache[1], v], axis=2)
        total = ops.shape(k)[2]
        past = total - ops.shape(x)[1]                 # P
        mask = causal_mask(total)[past:]               # (L, P + L): row i = position P + i
        with warnings.catch_warnings():   # Keras warns on the softmax over a single key
            warnings.filterwarnings("ignore", "You are using a softmax over axis")
            attended, weights = scaled_dot_product_attention(q, k, v, mask)
        return self.output_projection(merge_heads(attended)), weights, (k, v)


class Block(layers.Layer):
    """GPT-2's pre-LN decoder block: x + attention(LN(x)), then x + MLP(LN(x)).
    No cross-attention: there is no encoder."""

    def __init__(self, d_model, num_heads, dropout=0.1, norm_eps=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.attention_norm = layers.LayerNormalization(epsilon=norm_eps)
        self.attention = CausalSelfAttention(d_model, num_heads)
        self.feed_forward_norm = layers.LayerNormalization(epsilon=norm_eps)
        # d_ff = 4 d_model; GPT-2 applies dropout after each sublayer, not inside the MLP.
        self.feed_forward = FeedForward(d_model, 4 * d_model, 0.0, activation="gelu_tanh")
        self.dropout = layers.Dropout(dropout)

    def call(self, x, cache=None):                    # (B, L, d_model) -> same, weights, cache
        attended, weights, cache = self.attention(self.attention_norm(x), cache)
        x = x + self.dropout(attended)
        x = x + self.dropout(self.feed_forward(self.feed_forward_norm(x)))
        return x, weights, cache


class GPT2(keras.Model):
    """Token + position embeddings, num_layers blocks, a final layer norm, tied logits.

    call(token_ids (B, L), cache) -> logits (B, L, V) and the new cache (a (k, v) pair
    per block). With a cache of P positions, token_ids are positions P, P + 1, ..."""

    def __init__(self, vocab_size=50257, max_len=1024, d_model=768, num_heads=12,
                 num_layers=12, dropout=0.1, **kwargs):
        super().__init__(**kwargs)
        self.max_len = max_len
        self.tokens = layers.Embedding(vocab_size, d_model,          # also the output layer
                                       embeddings_initializer=_normal())
        self.positions = layers.Embedding(max_len, d_model, embeddings_initializer=_normal())
        self.dropout = layers.Dropout(dropout)
        self.blocks = [Block(d_model, num_heads, dropout) for _ in range(num_layers)]
        self.final_norm = layers.LayerNormalization(epsilon=1e-5)
        self._set_initializers(num_layers)
        self(np.zeros((1, 1), "int32"))                # create the weights now, as PyTorch

    def _set_initializers(self, num_layers):
        """GPT-2's initialisation: N(0, 0.02) weights, zero biases, and the projections
        that add to the residual stream scaled by 1/sqrt(2 num_layers), so that the sum
        of 2 num_layers residual branches keeps the variance of one."""
        for block in self.blocks:
            a, f = block.attention, block.feed_forward
            for dense in (a.query, a.key, a.value, f.hidden):
                dense.kernel_initializer = _normal()
            for dense in (a.output_projection, f.projection):
                dense.kernel_initializer = _normal(0.02 / math.sqrt(2 * num_layers))

    def call(self, token_ids, cache=None):
        past = 0 if cache is None else ops.shape(cache[0][0])[2]             # P
        positions = ops.arange(past, past + ops.shape(token_ids)[1])
        x = self.dropout(self.tokens(token_ids) + self.positions(positions))  # (B, L, d)
        new_cache = []
        for i, block in enumerate(self.blocks):
            x, _, block_cache = block(x, None if cache is None else cache[i])
            new_cache.append(block_cache)
        x = self.final_norm(x)
        logits = ops.matmul(x, ops.transpose(self.tokens.embeddings))  # tied: (B, L, V)
        return logits, new_cache


def _copy(ours, weights, name):                  # a Dense or a LayerNorm, from HF names
    if isinstance(ours, layers.Dense):            # Conv1D's (in, out) is a Dense kernel
        ours.kernel.assign(weights[f"{name}.weight"])
        ours.bias.assign(weights[f"{name}.bias"])
    else:
        ours.gamma.assign(weights[f"{name}.weight"])
        ours.beta.assign(weights[f"{name}.bias"])


def load_hf_weights(model, weights):
    """Copy a Hugging Face GPT2LMHeadModel state ({name: NumPy array}) into ``model``.
    HF's Conv1D keeps weights as (in, out), a Dense kernel's layout. Its c_attn holds W_Q,
    W_K and W_V side by side: (d, 3d), split in three."""
    model.tokens.embeddings.assign(weights["transformer.wte.weight"])
    model.positions.embeddings.assign(weights["transformer.wpe.weight"])
    for i, block in enumerate(model.blocks):
        hf = f"transformer.h.{i}"
        d = block.attention_norm.gamma.shape[0]
        w, b = weights[f"{hf}.attn.c_attn.weight"], weights[f"{hf}.attn.c_attn.bias"]
        for j, dense in enumerate((block.attention.query, block.attention.key,
                                   block.attention.value)):
            dense.kernel.assign(w[:, j * d:(j + 1) * d])
            dense.bias.assign(b[j * d:(j + 1) * d])
        _copy(block.attention.output_projection, weights, f"{hf}.attn.c_proj")
        _copy(block.attention_norm, weights, f"{hf}.ln_1")
        _copy(block.feed_forward_norm, weights, f"{hf}.ln_2")
        _copy(block.feed_forward.hidden, weights, f"{hf}.mlp.c_fc")
        _copy(block.feed_forward.projection, weights, f"{hf}.mlp.c_proj")
    _copy(model.final_norm, weights, "transformer.ln_f")
    return model


def language_model_loss(model, batch):
    """Mean cross-entropy of the next token at every position.
    batch: (inputs, targets), both (B, L); targets are the inputs shifted by one."""
    inputs, targets = batch
    logits, _ = model(inputs, training=True)                           # (B, L, V)
    losses = keras.losses.sparse_categorical_crossentropy(targets, logits, from_logits=True)
    return ops.mean(losses)


def top_k_filter(logits, k):
    """(B, V) -> (B, V): the k largest logits of each row kept, the others -inf."""
    kth_largest = ops.top_k(logits, k)[0][:, -1:]                      # (B, 1)
    return ops.where(logits < kth_largest, float("-inf"), logits)


def top_p_filter(logits, p):
    """(B, V) -> (B, V): keep the smallest set of most probable tokens whose probability
    reaches p (nucleus sampling, Holtzman et al. 2020); the others -inf."""
    order = ops.flip(ops.argsort(logits, axis=-1), axis=-1)            # descending
    sorted_logits = ops.take_along_axis(logits, order, axis=-1)
    probs = ops.softmax(sorted_logits, axis=-1)
    mass_before = ops.cumsum(probs, axis=-1) - probs   # of the tokens ranked above each
    drop_sorted = mass_before >= p                     # p reached without this token
    drop = ops.take_along_axis(drop_sorted, ops.argsort(order, axis=-1), axis=-1)
    return ops.where(drop, float("-inf"), logits)


def sample_next(logits, rng, temperature=1.0, top_k=None, top_p=None):
    """One token per row of logits (B, V): NumPy (B,). temperature=0 is greedy.
    The draw uses NumPy's rng, so both frameworks draw the same tokens from the same
    probabilities: the first token whose cumulative probability exceeds a uniform u."""
    if temperature == 0:
        return ops.convert_to_numpy(ops.argmax(logits, axis=-1))
    logits = logits / temperature
    if top_k is not None:
        logits = top_k_filter(logits, top_k)
    if top_p is not None:
        logits = top_p_filter(logits, p=top_p)
    probs = ops.convert_to_numpy(ops.softmax(ops.cast(logits, "float64"), axis=-1))
    cumulative = probs.cumsum(axis=-1)
    u = rng.random((len(probs), 1)) * cumulative[:, -1:]
    return (cumulative <= u).sum(axis=-1)


def generate(model, prompt_ids, max_new_tokens, temperature=1.0, top_k=None, top_p=None,
             use_cache=True, seed=0):
    """Continue prompt_ids (B, P) by max_new_tokens tokens: NumPy (B, P + max_new_tokens).
    With use_cache, the prompt runs once and each new token alone after it; without, the
    whole sequence runs again for every token. The two give the same tokens."""
    rng = np.random.default_rng(seed)
    tokens = np.asarray(prompt_ids)
    if tokens.shape[1] + max_new_tokens > model.max_len:
        raise ValueError(f"{tokens.shape[1]} + {max_new_tokens} tokens: over max_len")
    logits, cache = model(tokens)
    for _ in range(max_new_tokens):
        next_token = sample_next(logits[:, -1], rng, temperature, top_k, top_p)  # (B,)
        tokens = np.concatenate([tokens, next_token[:, None]], axis=1)
        if use_cache:                                  # the new token only: (B, 1)
            logits, cache = model(next_token[:, None], cache)
        else:                                          # everything again: (B, P + t)
            logits, _ = model(tokens)
    return tokens
