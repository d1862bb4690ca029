# %% classifier
from attention_course.torch_transformer import dense


class BertClassifier(nn.Module):
    """A classifier on one vector per input: dropout, then a dense layer to the classes.
    pooling="cls": BERT's pooled [CLS] vector; "mean": the mean of the real tokens' final
    vectors (Sentence-BERT's). freeze_bert=True trains the head only."""

    def __init__(self, bert, num_classes, dropout=0.1, freeze_bert=False, pooling="cls"):
        super().__init__()
        self.bert = bert
        self.bert.requires_grad_(not freeze_bert)
        self.dropout = nn.Dropout(dropout)
        self.classifier = dense(bert.d_model, num_classes)
        self.pooling = pooling

    def forward(self, token_ids, segment_ids=None, attention_mask=None):
        if attention_mask is None:
            attention_mask = torch.ones_like(token_ids, dtype=torch.bool)
        hidden, pooled, _ = self.bert(token_ids, segment_ids, attention_mask)
        if self.pooling == "mean":                                          # (B, d_model)
            real = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * real).sum(1) / real.sum(1)
        return self.classifier(self.dropout(pooled))                       # (B, classes)
