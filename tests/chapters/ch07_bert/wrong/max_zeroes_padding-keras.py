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
            pooled = ops.max(hidden * ops.cast(keep, hidden.dtype), axis=1)   # padding set to 0
        return self.classifier(self.dropout(pooled))
