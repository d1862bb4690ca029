# %% classifier
from attention_course.keras_transformer import dense


class BertClassifier(keras.Model):
    """A classifier on one vector per input: dropout, then a dense layer to the classes.
    pooling="cls": BERT's pooled [CLS] vector; "mean": the mean of the real tokens' final
    vectors (Sentence-BERT's). freeze_bert=True trains the head only."""

    def __init__(self, bert, num_classes, dropout=0.1, freeze_bert=False, pooling="cls",
                 **kwargs):
        super().__init__(**kwargs)
        self.bert = bert
        self.bert.trainable = not freeze_bert
        self.dropout = layers.Dropout(dropout)
        self.classifier = dense(bert.d_model, num_classes)
        self.pooling = pooling

    def call(self, token_ids, segment_ids=None, attention_mask=None):
        if attention_mask is None:
            attention_mask = ops.ones_like(token_ids, dtype="bool")
        hidden, pooled, _ = self.bert(token_ids, segment_ids, attention_mask)
        if self.pooling == "mean":                                          # (B, d_model)
            real = ops.expand_dims(ops.cast(attention_mask, hidden.dtype), -1)
            pooled = ops.sum(hidden * real, axis=1) / ops.sum(real, axis=1)
        return self.classifier(self.dropout(pooled))                       # (B, classes)
