"""BERT (Devlin et al. 2019) in Keras, from the course's parts; twin of torch_bert.py.

Token, segment and learned position embeddings with a layer norm, chapter 6's post-LN
encoder layers (GELU, layer-norm epsilon 1e-12), and the pooler tanh(W h_[CLS] + b).
``load_pretrained`` copies the weights of a Hugging Face BERT checkpoint (the
all-MiniLM-L6-v2 that installs with the course) into it, by name (a Dense kernel is the
transposed PyTorch weight). Written before its chapter and checked by tests/test_bert.py
against transformers' BertModel and the PyTorch twin; chapter 7 will export it from its
cells.
"""
import keras
from keras import layers, ops

from attention_course.keras_transformer import EncoderLayer, dense


class BertEmbeddings(layers.Layer):
    """Token + segment (token type) + learned position embeddings, layer norm, dropout."""

    def __init__(self, vocab_size, d_model, max_len=512, type_vocab_size=2, dropout=0.1,
                 norm_eps=1e-12, **kwargs):
        super().__init__(**kwargs)
        self.tokens = layers.Embedding(vocab_size, d_model)
        self.segments = layers.Embedding(type_vocab_size, d_model)
        self.positions = layers.Embedding(max_len, d_model)
        self.norm = layers.LayerNormalization(epsilon=norm_eps)
        self.dropout = layers.Dropout(dropout)

    def call(self, token_ids, segment_ids=None):        # (B, L) -> (B, L, d_model)
        if segment_ids is None:                          # one segment: all 0
            segment_ids = ops.zeros_like(token_ids)
        positions = ops.arange(ops.shape(token_ids)[1])  # (L,)
        x = self.tokens(token_ids) + self.segments(segment_ids) + self.positions(positions)
        return self.dropout(self.norm(x))


class Bert(keras.Model):
    """Embeddings, num_layers post-LN encoder layers with GELU, and the pooler.

    activation="gelu" is BERT's exact GELU (transformers' BertModel); keras-hub's
    BertBackbone uses its tanh approximation, activation="gelu_tanh"."""

    def __init__(self, vocab_size, d_model=384, num_heads=12, d_ff=1536, num_layers=6,
                 max_len=512, type_vocab_size=2, dropout=0.1, activation="gelu",
                 **kwargs):
        super().__init__(**kwargs)
        self.embeddings = BertEmbeddings(vocab_size, d_model, max_len, type_vocab_size,
                                         dropout)
        self.encoder_layers = [
            EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first=False,
                         activation=activation, norm_eps=1e-12) for _ in range(num_layers)]
        self.pooler = dense(d_model, d_model)

    def call(self, token_ids, segment_ids=None, attention_mask=None):
        # token_ids, segment_ids: (B, L); attention_mask: (B, L), True (or 1) = real token
        if attention_mask is None:
            attention_mask = ops.ones_like(token_ids, dtype="bool")
        mask = ops.expand_dims(ops.cast(attention_mask, "bool"), 1)  # (B, 1, L)
        x, weights = self.embeddings(token_ids, segment_ids), []
        for layer in self.encoder_layers:
            x, w = layer(x, mask)
            weights.append(w)                                       # (B, h, L, L) each
        pooled = ops.tanh(self.pooler(x[:, 0]))                     # from h_[CLS]: (B, d)
        return x, pooled, weights                                   # (B, L, d), (B, d)


def _dense(ours, weights, name):
    ours.kernel.assign(weights[f"{name}.weight"].T)     # PyTorch (out, in) -> (in, out)
    ours.bias.assign(weights[f"{name}.bias"])


def _norm(ours, weights, name):
    ours.gamma.assign(weights[f"{name}.weight"])
    ours.beta.assign(weights[f"{name}.bias"])


def load_pretrained(model, weights):
    """Copy a Hugging Face BERT state ({name: NumPy array}) into ``model``, by name."""
    if not model.built:                                  # create the weights first
        model(ops.zeros((1, 2), dtype="int32"))
    e = model.embeddings
    e.tokens.embeddings.assign(weights["embeddings.word_embeddings.weight"])
    e.segments.embeddings.assign(weights["embeddings.token_type_embeddings.weight"])
    e.positions.embeddings.assign(weights["embeddings.position_embeddings.weight"])
    _norm(e.norm, weights, "embeddings.LayerNorm")
    for i, layer in enumerate(model.encoder_layers):
        hf = f"encoder.layer.{i}"
        attention = layer.self_attention
        _dense(attention.query, weights, f"{hf}.attention.self.query")
        _dense(attention.key, weights, f"{hf}.attention.self.key")
        _dense(attention.value, weights, f"{hf}.attention.self.value")
        _dense(attention.output_projection, weights, f"{hf}.attention.output.dense")
        _norm(layer.attention_norm, weights, f"{hf}.attention.output.LayerNorm")
        _dense(layer.feed_forward.hidden, weights, f"{hf}.intermediate.dense")
        _dense(layer.feed_forward.projection, weights, f"{hf}.output.dense")
        _norm(layer.feed_forward_norm, weights, f"{hf}.output.LayerNorm")
    _dense(model.pooler, weights, "pooler.dense")
    return model
