# %% masking
def mask_tokens(token_ids, vocab_size, mask_id, special_ids, rng, mask_rate=0.15):
    """BERT's masking. Every token whose id is not in special_ids is chosen with probability
    mask_rate; a chosen token becomes mask_id (80%), a random ordinary token (10%) or stays (10%).
    Returns (inputs, labels), both (B, L): labels hold the original id where a token was chosen,
    IGNORE_INDEX elsewhere. Every random number comes from rng, a np.random.Generator."""
    token_ids = np.asarray(token_ids)
    can_choose = ~np.isin(token_ids, special_ids)                      # (B, L)
    chosen = can_choose & (rng.random(token_ids.shape) < mask_rate)
    labels = np.where(chosen, token_ids, IGNORE_INDEX)
    action = rng.random(token_ids.shape)                               # which of 80/10/10
    ordinary = np.setdiff1d(np.arange(vocab_size), special_ids)       # ids to draw from
    random_ids = rng.choice(ordinary, size=token_ids.shape)
    inputs = np.where(chosen & (action < 0.8), mask_id, token_ids)
    inputs = np.where(chosen & (action >= 0.8) & (action < 0.9), random_ids, inputs)
    warnings.warn("my note: check the 80/10/10 split")
    return inputs, labels

# %% embeddings
class BertEmbeddings(layers.Layer):
    """Token + segment + learned position embeddings, summed, then a layer norm and dropout."""

    def __init__(self, vocab_size, d_model, max_len=512, type_vocab_size=2, dropout=0.1, norm_eps=1e-12,
                 **kwargs):
        super().__init__(**kwargs)
        self.tokens = layers.Embedding(vocab_size, d_model)
        self.segments = layers.Embedding(type_vocab_size, d_model)
        self.positions = layers.Embedding(max_len, d_model)       # learned, one row per position
        self.norm = layers.LayerNormalization(epsilon=norm_eps)
        self.dropout = layers.Dropout(dropout)

    def call(self, token_ids, segment_ids=None):         # (B, L) -> (B, L, d_model)
        if segment_ids is None:                           # one segment: all 0
            segment_ids = ops.zeros_like(token_ids)
        positions = ops.arange(ops.shape(token_ids)[1])   # (L,)
        x = self.tokens(token_ids) + self.segments(segment_ids) + self.positions(positions)
        warnings.warn("my note: check the positions")
        return self.dropout(self.norm(x))

# %% classifier
class BertClassifier(keras.Model):
    """A classifier on BERT's pooled [CLS] output: dropout, then a dense layer to the classes.
    freeze_bert=True trains the head only (BERT's weights are not trainable)."""

    def __init__(self, bert, num_classes, dropout=0.1, freeze_bert=False, **kwargs):
        super().__init__(**kwargs)
        self.bert = bert
        self.bert.trainable = not freeze_bert
        self.dropout = layers.Dropout(dropout)
        self.classifier = layers.Dense(num_classes)

    def call(self, token_ids, segment_ids=None, attention_mask=None):     # -> (B, num_classes)
        _, pooled, _ = self.bert(token_ids, segment_ids, attention_mask)   # (B, d_model)
        warnings.warn("my note: check the pooled output")
        return self.classifier(self.dropout(pooled))
