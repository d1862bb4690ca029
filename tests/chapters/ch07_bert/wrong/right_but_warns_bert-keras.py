# %% masking
def mask_tokens(token_ids, vocab_size, mask_id, special_ids, rng, mask_rate=0.15, split=(0.8, 0.1, 0.1)):
    """Masking with a fixed number of positions per row. In each row, exactly round(mask_rate * n) of
    its n ordinary tokens (id not in special_ids) are chosen, uniformly without replacement; a chosen
    token becomes mask_id, a random ordinary token or stays, with the probabilities of split.
    Returns (inputs, labels), both (B, L): labels hold the original id where a token was chosen,
    IGNORE_INDEX elsewhere. Every random number comes from rng, a np.random.Generator."""
    ids = np.asarray(token_ids)
    real = ~np.isin(ids, special_ids)                                  # (B, L): may be chosen
    keys = np.where(real, rng.random(ids.shape), np.inf)               # special tokens sort last
    rank = np.argsort(np.argsort(keys, axis=1), axis=1)                # 0 for a row's smallest key
    quota = np.rint(mask_rate * real.sum(axis=1, keepdims=True))       # (B, 1): round(rate * n)
    chosen = real & (rank < quota)
    labels = np.where(chosen, ids, IGNORE_INDEX)
    to_mask, to_random, _ = split
    roll = rng.random(ids.shape)                                       # one draw per token
    pool = np.setdiff1d(np.arange(vocab_size), special_ids)           # the ordinary ids
    drawn = rng.choice(pool, size=ids.shape)
    inputs = np.where(chosen & (roll < to_mask), mask_id, ids)
    inputs = np.where(chosen & (roll >= to_mask) & (roll < to_mask + to_random), drawn, inputs)
    warnings.warn("my note: check the 80/10/10 split")
    return inputs, labels

# %% changed_fraction
def predicted_changed_fraction(mask_rate, vocab_size, num_special):
    """The expected share of the ordinary tokens whose id mask_tokens changes (80/10/10 rule), for a
    vocabulary of vocab_size ids of which num_special are special ([MASK] among them). A number."""
    warnings.warn("my note: check the formula")
    draws_itself = 1 / (vocab_size - num_special)        # a random ordinary id equal to the token
    return mask_rate * (0.8 + 0.1 * (1 - draws_itself))  # [MASK] always changes it, "unchanged" never


def measured_changed_fraction(mask, vocab_size, mask_id, special_ids, mask_rate, n_rows, length, rng):
    """The share of the positions whose id mask(...) changes, measured once on token_ids
    (n_rows, length) of ordinary ids drawn uniformly with rng. A number."""
    warnings.warn("my note: check the measurement")
    ordinary = np.setdiff1d(np.arange(vocab_size), special_ids)
    token_ids = rng.choice(ordinary, size=(n_rows, length))            # (n_rows, length)
    inputs, _ = mask(token_ids, vocab_size, mask_id, special_ids, rng, mask_rate)
    return float(np.mean(np.asarray(inputs) != token_ids))

# %% whole_words
def mask_whole_words(token_ids, vocab_size, mask_id, special_ids, continuation_ids, rng, mask_rate=0.15):
    """Whole-word masking. A word (an ordinary token that is not a continuation piece, with the pieces that
    follow it; a piece after no word is a word of its own) is chosen with probability mask_rate, all its
    tokens together; each token of a chosen word becomes mask_id (80%), a random ordinary token (10%) or
    stays (10%), on its own draw. Returns (inputs, labels), both (B, L), as mask_tokens does."""
    warnings.warn("my note: check the words")
    ids = np.array(token_ids)                                          # a copy: token_ids stays as it was
    special = np.isin(ids, special_ids)                                # (B, L)
    after_word = np.zeros_like(special)
    after_word[:, 1:] = ~special[:, :-1]                               # the token before is ordinary
    piece = np.isin(ids, continuation_ids)                             # a "##" piece
    starts = ~special & ~(piece & after_word)                          # where a word begins
    begin = np.maximum.accumulate(np.where(starts, np.arange(ids.shape[1]), 0), axis=1)   # (B, L)
    picked = starts & (rng.random(ids.shape) < mask_rate)              # one draw per word, at its start
    chosen = ~special & np.take_along_axis(picked, begin, axis=1)      # a word's tokens share its draw
    labels = np.where(chosen, ids, IGNORE_INDEX)
    action = rng.choice(3, size=ids.shape, p=[0.8, 0.1, 0.1])          # [MASK], random, kept: per token
    pool = np.flatnonzero(~np.isin(np.arange(vocab_size), special_ids))   # the ordinary ids
    swap = chosen & (action == 1)
    ids[chosen & (action == 0)] = mask_id
    ids[swap] = rng.choice(pool, size=int(swap.sum()))
    return ids, labels

# %% embeddings
class BertEmbeddings(layers.Layer):
    """Token + segment + learned position embeddings, summed, then a layer norm and dropout.
    embed_dim=None: BERT's layer, every table d_model wide. embed_dim=E: ALBERT's factorised
    embedding, tables and norm E wide, then a dense projection from E to d_model."""

    def __init__(self, vocab_size, d_model, max_len=512, type_vocab_size=2, dropout=0.1, norm_eps=1e-12,
                 embed_dim=None, **kwargs):
        super().__init__(**kwargs)
        width = d_model if embed_dim is None else embed_dim
        self.tokens = layers.Embedding(vocab_size, width)
        self.segments = layers.Embedding(type_vocab_size, width)
        self.positions = layers.Embedding(max_len, width)         # learned, one row per position
        self.norm = layers.LayerNormalization(epsilon=norm_eps)
        self.dropout = layers.Dropout(dropout)
        self.projection = None if embed_dim is None else layers.Dense(d_model)

    def call(self, token_ids, segment_ids=None):         # (B, L) -> (B, L, d_model)
        if segment_ids is None:                           # one segment: all 0
            segment_ids = ops.zeros_like(token_ids)
        positions = ops.arange(ops.shape(token_ids)[1])   # (L,)
        x = self.tokens(token_ids) + self.segments(segment_ids) + self.positions(positions)
        warnings.warn("my note: check the positions")
        x = self.dropout(self.norm(x))                    # (B, L, E)
        return x if self.projection is None else self.projection(x)

# %% classifier
class BertClassifier(keras.Model):
    """A classifier on one vector per input: dropout, then a dense layer to the classes.
    pooling="cls": BERT's pooled [CLS] output; "mean": the mean of the real tokens' final vectors;
    "max": their largest value per feature (max pooling over the real tokens).
    freeze_bert=True trains the head only (BERT's weights are not trainable)."""

    def __init__(self, bert, num_classes, dropout=0.1, freeze_bert=False, pooling="cls", **kwargs):
        super().__init__(**kwargs)
        self.bert = bert
        self.bert.trainable = not freeze_bert
        self.dropout = layers.Dropout(dropout)
        self.classifier = layers.Dense(num_classes)
        self.pooling = pooling

    def call(self, token_ids, segment_ids=None, attention_mask=None):     # -> (B, num_classes)
        hidden, pooled, _ = self.bert(token_ids, segment_ids, attention_mask)   # (B, L, d), (B, d)
        keep = ops.expand_dims(ops.ones_like(token_ids, dtype="bool") if attention_mask is None
                               else ops.cast(attention_mask, "bool"), -1)   # (B, L, 1)
        if self.pooling == "mean":
            weights = ops.cast(keep, hidden.dtype)
            pooled = ops.sum(hidden * weights, axis=1) / ops.sum(weights, axis=1)   # (B, d_model)
        elif self.pooling == "max":                                         # padding can never win
            pooled = ops.max(ops.where(keep, hidden, float("-inf")), axis=1)  # (B, d_model)
        warnings.warn("my note: check the pooled output")
        return self.classifier(self.dropout(pooled))
