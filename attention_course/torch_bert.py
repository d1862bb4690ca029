"""BERT (Devlin et al. 2019) in PyTorch, from the course's parts; twin of keras_bert.py.

Token, segment and learned position embeddings with a layer norm, chapter 6's post-LN
encoder layers (GELU, layer-norm epsilon 1e-12), and the pooler tanh(W h_[CLS] + b).
``load_pretrained`` copies the weights of a Hugging Face BERT checkpoint (the
all-MiniLM-L6-v2 that installs with the course) into it, by name. Written before its
chapter and checked by tests/test_bert.py against transformers' BertModel and the Keras
twin; chapter 7 will export it from its cells.
"""
import torch
from torch import nn

from attention_course.torch_transformer import EncoderLayer, dense


class BertEmbeddings(nn.Module):
    """Token + segment (token type) + learned position embeddings, layer norm, dropout."""

    def __init__(self, vocab_size, d_model, max_len=512, type_vocab_size=2, dropout=0.1,
                 norm_eps=1e-12):
        super().__init__()
        self.tokens = nn.Embedding(vocab_size, d_model)
        self.segments = nn.Embedding(type_vocab_size, d_model)
        self.positions = nn.Embedding(max_len, d_model)
        self.norm = nn.LayerNorm(d_model, eps=norm_eps)
        self.dropout = nn.Dropout(dropout)

    def forward(self, token_ids, segment_ids=None):    # (B, L) -> (B, L, d_model)
        if segment_ids is None:                         # one segment: all 0
            segment_ids = torch.zeros_like(token_ids)
        positions = torch.arange(token_ids.shape[1], device=token_ids.device)   # (L,)
        x = self.tokens(token_ids) + self.segments(segment_ids) + self.positions(positions)
        return self.dropout(self.norm(x))


class Bert(nn.Module):
    """Embeddings, num_layers post-LN encoder layers with GELU, and the pooler.

    activation="gelu" is BERT's exact GELU (transformers' BertModel); keras-hub's
    BertBackbone uses its tanh approximation, activation="gelu_tanh"."""

    def __init__(self, vocab_size, d_model=384, num_heads=12, d_ff=1536, num_layers=6,
                 max_len=512, type_vocab_size=2, dropout=0.1, activation="gelu"):
        super().__init__()
        self.embeddings = BertEmbeddings(vocab_size, d_model, max_len, type_vocab_size,
                                         dropout)
        self.encoder_layers = nn.ModuleList([
            EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first=False,
                         activation=activation, norm_eps=1e-12) for _ in range(num_layers)])
        self.pooler = dense(d_model, d_model)

    def forward(self, token_ids, segment_ids=None, attention_mask=None):
        # token_ids, segment_ids: (B, L); attention_mask: (B, L), True (or 1) = real token
        if attention_mask is None:
            attention_mask = torch.ones_like(token_ids, dtype=torch.bool)
        mask = attention_mask.bool().unsqueeze(1)                   # (B, 1, L)
        x, weights = self.embeddings(token_ids, segment_ids), []
        for layer in self.encoder_layers:
            x, w = layer(x, mask)
            weights.append(w)                                       # (B, h, L, L) each
        pooled = torch.tanh(self.pooler(x[:, 0]))                   # from h_[CLS]: (B, d)
        return x, pooled, weights                                   # (B, L, d), (B, d)


def _linear(ours, weights, name):
    ours.weight.copy_(torch.from_numpy(weights[f"{name}.weight"]))
    ours.bias.copy_(torch.from_numpy(weights[f"{name}.bias"]))


@torch.no_grad()
def load_pretrained(model, weights):
    """Copy a Hugging Face BERT state ({name: NumPy array}) into ``model``, by name."""
    e = model.embeddings
    e.tokens.weight.copy_(torch.from_numpy(weights["embeddings.word_embeddings.weight"]))
    e.segments.weight.copy_(torch.from_numpy(weights["embeddings.token_type_embeddings.weight"]))
    e.positions.weight.copy_(torch.from_numpy(weights["embeddings.position_embeddings.weight"]))
    _linear(e.norm, weights, "embeddings.LayerNorm")
    for i, layer in enumerate(model.encoder_layers):
        hf = f"encoder.layer.{i}"
        attention = layer.self_attention
        _linear(attention.query, weights, f"{hf}.attention.self.query")
        _linear(attention.key, weights, f"{hf}.attention.self.key")
        _linear(attention.value, weights, f"{hf}.attention.self.value")
        _linear(attention.output_projection, weights, f"{hf}.attention.output.dense")
        _linear(layer.attention_norm, weights, f"{hf}.attention.output.LayerNorm")
        _linear(layer.feed_forward.hidden, weights, f"{hf}.intermediate.dense")
        _linear(layer.feed_forward.projection, weights, f"{hf}.output.dense")
        _linear(layer.feed_forward_norm, weights, f"{hf}.output.LayerNorm")
    _linear(model.pooler, weights, "pooler.dense")
    return model
