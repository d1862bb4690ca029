# %% classifier
class BertClassifier(nn.Module):
    """A classifier on one vector per input: dropout, then a linear layer to the classes.
    pooling="cls": BERT's pooled [CLS] output; "mean": the mean of the real tokens' final vectors;
    "max": their largest value per feature (max pooling over the real tokens).
    freeze_bert=True trains the head only (BERT's parameters get no gradients)."""

    def __init__(self, bert, num_classes, dropout=0.1, freeze_bert=False, pooling="cls"):
        super().__init__()
        self.bert = bert
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(bert.d_model, num_classes)
        self.pooling = pooling

    def forward(self, token_ids, segment_ids=None, attention_mask=None):   # -> (B, num_classes)
        hidden, pooled, _ = self.bert(token_ids, segment_ids, attention_mask)   # (B, L, d), (B, d)
        keep = (torch.ones_like(token_ids, dtype=torch.bool) if attention_mask is None
                else attention_mask.bool()).unsqueeze(-1)                   # (B, L, 1)
        if self.pooling == "mean":
            weights = keep.to(hidden.dtype)
            pooled = (hidden * weights).sum(dim=1) / weights.sum(dim=1)     # (B, d_model)
        elif self.pooling == "max":                                         # padding can never win
            pooled = hidden.masked_fill(~keep, float("-inf")).amax(dim=1)   # (B, d_model)
        return self.classifier(self.dropout(pooled))
