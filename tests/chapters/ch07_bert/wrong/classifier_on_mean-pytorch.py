# %% classifier
class BertClassifier(nn.Module):
    """A classifier on BERT's pooled [CLS] output: dropout, then a linear layer to the classes.
    freeze_bert=True trains the head only (BERT's parameters get no gradients)."""

    def __init__(self, bert, num_classes, dropout=0.1, freeze_bert=False):
        super().__init__()
        self.bert = bert
        self.bert.requires_grad_(not freeze_bert)
        self.dropout = nn.Dropout(dropout)
        self.classifier = nn.Linear(bert.d_model, num_classes)

    def forward(self, token_ids, segment_ids=None, attention_mask=None):   # -> (B, num_classes)
        hidden, _, _ = self.bert(token_ids, segment_ids, attention_mask)
        pooled = hidden.mean(dim=1)                 # the average of the final vectors   # (B, d_model)
        return self.classifier(self.dropout(pooled))
