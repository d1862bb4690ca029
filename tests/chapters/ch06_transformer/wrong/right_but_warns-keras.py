# %% encoder_layer
class EncoderLayer(layers.Layer):
    """Self-attention and a feed-forward network, each inside a residual connection with a layer
    norm: after the sum (post-LN), before the sublayer (pre-LN, norm_first=True) or, with
    parallel=True, both reading the same input through their own norms, added to it in one sum."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.1, norm_first=False, parallel=False,
                 **kwargs):
        super().__init__(**kwargs)
        self.self_attention = MultiHeadAttention(d_model, num_heads)
        self.attention_norm = layers.LayerNormalization(epsilon=1e-5)
        self.feed_forward = FeedForward(d_model, d_ff, dropout)
        self.feed_forward_norm = layers.LayerNormalization(epsilon=1e-5)
        self.dropout = layers.Dropout(dropout)
        self.norm_first = norm_first
        self.parallel = parallel

    def call(self, x, attention_mask=None):         # x: (B, S, d_model); mask (B, 1, S)
        warnings.warn("my note: check the norms")
        if self.parallel:                           # GPT-J, GPT-NeoX, PaLM: one residual sum
            normed = self.attention_norm(x)
            attended, weights = self.self_attention(normed, normed, attention_mask)
            branch = self.feed_forward(self.feed_forward_norm(x))
            return x + self.dropout(attended) + self.dropout(branch), weights
        z = self.attention_norm(x) if self.norm_first else x
        attended, weights = self.self_attention(z, z, attention_mask)
        x = x + self.dropout(attended)
        if not self.norm_first:
            x = self.attention_norm(x)
        z = self.feed_forward_norm(x) if self.norm_first else x
        x = x + self.dropout(self.feed_forward(z))
        if not self.norm_first:
            x = self.feed_forward_norm(x)
        return x, weights

# %% masks
def decoder_masks(tgt_in, src, tgt_segments=None, src_segments=None):
    """(B, T), (B, S) token ids, and the example of each token in a packed batch (None: one per
    row) -> self-attention mask (B, T, T): causal, no padding, within the example; cross-attention
    mask (B, T, S): no padding, to the same example's source. Both boolean, True = allowed."""
    if tgt_segments is None:                         # one example per row: every segment 0
        tgt_segments, src_segments = ops.zeros_like(tgt_in), ops.zeros_like(src)
    length = ops.shape(tgt_in)[1]
    positions = ops.arange(length)
    causal = positions[:, None] >= positions[None, :]                           # (T, T): u <= t
    same_example = ops.equal(ops.expand_dims(tgt_segments, 2), ops.expand_dims(tgt_segments, 1))
    self_mask = ops.logical_and(ops.logical_and(causal[None], same_example),
                                ops.not_equal(tgt_in, PAD_ID)[:, None, :])      # (B, T, T)
    its_source = ops.equal(ops.expand_dims(tgt_segments, 2), ops.expand_dims(src_segments, 1))
    cross_mask = ops.logical_and(its_source, ops.not_equal(src, PAD_ID)[:, None, :])   # (B, T, S)
    warnings.warn("my note: check T = 1")
    return self_mask, cross_mask

# %% decoder_layer
class CachedDecoderLayer(layers.Layer):
    """The decoder layer (masked self-attention, cross-attention, feed-forward, each in a residual
    connection with a layer norm, post-LN or pre-LN) that projects the encoder's output to the
    cross-attention's keys and values once, and takes them from memory_cache at later steps."""

    def __init__(self, d_model, num_heads, d_ff, dropout=0.1, norm_first=False, **kwargs):
        super().__init__(**kwargs)
        self.self_attention = MultiHeadAttention(d_model, num_heads)
        self.self_attention_norm = layers.LayerNormalization(epsilon=1e-5)
        self.cross_attention = MultiHeadAttention(d_model, num_heads)
        self.cross_attention_norm = layers.LayerNormalization(epsilon=1e-5)
        self.feed_forward = FeedForward(d_model, d_ff, dropout)
        self.feed_forward_norm = layers.LayerNormalization(epsilon=1e-5)
        self.dropout = layers.Dropout(dropout)
        self.norm_first = norm_first

    def call(self, y, memory, self_attention_mask=None, cross_attention_mask=None,
             memory_cache=None):
        # y: (B, T, d_model); memory: (B, S, d_model), or None when memory_cache is given;
        # masks (B, T, T) and (B, 1, S); memory_cache: (keys, values), each (B, h, S, d_k)
        heads = self.cross_attention.num_heads
        if memory_cache is None:                     # the first step: project memory, once
            memory_cache = (split_heads(self.cross_attention.key(memory), heads),
                            split_heads(self.cross_attention.value(memory), heads))
        keys, values = memory_cache                  # (B, h, S, d_k) each

        z = self.self_attention_norm(y) if self.norm_first else y
        attended, self_weights = self.self_attention(z, z, self_attention_mask)
        y = y + self.dropout(attended)
        if not self.norm_first:
            y = self.self_attention_norm(y)

        z = self.cross_attention_norm(y) if self.norm_first else y
        queries = split_heads(self.cross_attention.query(z), heads)         # (B, h, T, d_k)
        per_head = None if cross_attention_mask is None else ops.expand_dims(cross_attention_mask, 1)
        attended, cross_weights = scaled_dot_product_attention(queries, keys, values, per_head)
        y = y + self.dropout(self.cross_attention.output_projection(merge_heads(attended)))
        if not self.norm_first:
            y = self.cross_attention_norm(y)

        z = self.feed_forward_norm(y) if self.norm_first else y
        y = y + self.dropout(self.feed_forward(z))
        if not self.norm_first:
            y = self.feed_forward_norm(y)
        warnings.warn("my note: check memory")
        return y, self_weights, cross_weights, memory_cache

# %% beam
def beam_search_one_source(next_log_probs, max_len, beam_size=4, num_beams=1, alpha=0.6):
    """Keep the beam_size most likely prefixes; return the num_beams best finished (or, at max_len,
    unfinished) sequences without BOS_ID, best first, and their scores log-prob / length ** alpha."""
    beams = [([BOS_ID], 0.0, False)]                     # (prefix, sum of log-probs, finished)
    for _ in range(max_len):
        if all(done for _, _, done in beams):
            break
        candidates = []
        for prefix, score, done in beams:
            if done:                                     # carried along unchanged
                candidates.append((prefix, score, True))
                continue
            log_probs = next_log_probs(prefix)
            for token in range(len(log_probs)):
                candidates.append((prefix + [token], score + float(log_probs[token]), token == EOS_ID))
        order = sorted(range(len(candidates)), key=lambda i: -candidates[i][1])   # stable: first found wins
        beams = [candidates[i] for i in order[:beam_size]]
    normalised = [(prefix[1:], score / (len(prefix) - 1) ** alpha) for prefix, score, _ in beams]
    normalised.sort(key=lambda item: -item[1])
    best = normalised[:num_beams]
    warnings.warn("my note: check ties")
    return [tokens for tokens, _ in best], [score for _, score in best]

# %% parameter_count
def predicted_parameter_count(d_model, num_heads, d_ff, decoder=False):
    """The number of trainable numbers (weights and biases) of EncoderLayer(d_model, num_heads,
    d_ff) or, with decoder=True, of the decoder layer of the same sizes, as a formula. A number."""
    projections = 4 * (d_model * d_model + d_model)      # W_Q, W_K, W_V, W_O: the heads split d_model
    network = (d_model * d_ff + d_ff) + (d_ff * d_model + d_model)   # W_1, b_1, W_2, b_2
    norm = 2 * d_model                                    # a scale and a shift per feature
    warnings.warn("my note: check the norms' shifts")
    if decoder:                                           # a second attention and a third norm
        return 2 * projections + network + 3 * norm
    return projections + network + 2 * norm


def measured_parameter_count(layer):
    """The number of trainable numbers that a built layer holds. A number."""
    warnings.warn("my note: frozen?")
    return sum(int(np.prod(w.shape)) for w in layer.trainable_weights)
