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
        hidden, _, _ = self.bert(token_ids, segment_ids, attention_mask)
        pooled = ops.mean(hidden, axis=1)           # the average of the final vectors   # (B, d_model)
        return self.classifier(self.dropout(pooled))
