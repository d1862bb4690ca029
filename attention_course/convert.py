"""Copy weights from a PyTorch model into the same Keras model.

Both frameworks compute the same functions, but they store the weights
differently.  Copying one model's weights into the other and comparing their
outputs is the strongest check that two implementations agree; the chapters
use it to show that the PyTorch and the Keras code are the same model.

The layout differences, layer by layer:

================  =============================  ===================================
layer             PyTorch                        Keras
================  =============================  ===================================
embedding         ``weight`` (V, E)              ``embeddings`` (V, E)  (same)
dense / linear    ``weight`` (out, in)           ``kernel`` (in, out)   (transposed)
                  ``bias`` (out,)                ``bias`` (out,)
GRU               gates stacked r, z, n          gates stacked z, r, h
                  ``weight_ih_l0`` (3H, in)      ``kernel`` (in, 3H)
                  ``weight_hh_l0`` (3H, H)       ``recurrent_kernel`` (H, 3H)
                  ``bias_ih_l0``, ``bias_hh_l0`` ``bias`` (2, 3H) = [input; recurrent]
                  (3H,) each
bidirectional     suffix ``_reverse``            ``backward_layer``
================  =============================  ===================================

Both GRUs compute the same cell (Keras with ``reset_after=True``, its default)::

    r  = sigmoid(W_r x + b_ir + U_r h + b_hr)
    z  = sigmoid(W_z x + b_iz + U_z h + b_hz)
    n  = tanh(W_n x + b_in + r * (U_n h + b_hn))
    h' = z * h + (1 - z) * n

so copying is only a matter of transposing and reordering the gate blocks.

Every function takes the PyTorch module first and the Keras layer second;
the Keras layer must already be built (call the model once on a dummy batch).
"""
from __future__ import annotations

import numpy as np


def _numpy(tensor) -> np.ndarray:
    """A PyTorch parameter as a NumPy array (float32, on the CPU, no gradient)."""
    return tensor.detach().cpu().numpy()


def _assign(variable, value: np.ndarray) -> None:
    """Assign with a shape check, so that a layout mistake fails loudly."""
    if tuple(variable.shape) != value.shape:
        raise ValueError(f"{variable.path}: Keras shape {tuple(variable.shape)}, "
                         f"converted PyTorch shape {value.shape}")
    variable.assign(value)


def copy_embedding(torch_embedding, keras_embedding) -> None:
    """nn.Embedding -> keras.layers.Embedding: both store a (vocab, embed) table."""
    _assign(keras_embedding.embeddings, _numpy(torch_embedding.weight))  # (V, E)


def copy_dense(torch_linear, keras_dense) -> None:
    """nn.Linear -> keras.layers.Dense.

    PyTorch computes ``x @ weight.T + bias`` with weight (out, in);
    Keras computes ``x @ kernel + bias`` with kernel (in, out).  So kernel = weight.T.
    """
    _assign(keras_dense.kernel, _numpy(torch_linear.weight).T)  # (out, in) -> (in, out)
    if torch_linear.bias is not None:
        _assign(keras_dense.bias, _numpy(torch_linear.bias))    # (out,)


def gru_gates_torch_to_keras(stacked: np.ndarray) -> np.ndarray:
    """Reorder gate blocks along axis 0 from PyTorch's (r, z, n) to Keras' (z, r, h).

    ``stacked`` has 3H rows (a weight matrix) or 3H entries (a bias).
    """
    r, z, n = np.split(stacked, 3, axis=0)       # three blocks of H rows
    return np.concatenate([z, r, n], axis=0)     # (3H, ...)


def _copy_gru_weights(w_ih, w_hh, b_ih, b_hh, keras_cell) -> None:
    """PyTorch GRU weights (gates r, z, n) -> a Keras GRUCell(reset_after=True) (gates z, r, h).

    w_ih (3H, in) -> kernel (in, 3H); w_hh (3H, H) -> recurrent_kernel (H, 3H);
    b_ih, b_hh (3H,) each -> bias (2, 3H): row 0 input, row 1 recurrent.
    """
    if not keras_cell.reset_after:
        raise ValueError("PyTorch's GRU applies the reset gate after the recurrent "
                         "matmul: the Keras GRU needs reset_after=True")
    _assign(keras_cell.kernel, gru_gates_torch_to_keras(w_ih).T)            # (in, 3H)
    _assign(keras_cell.recurrent_kernel, gru_gates_torch_to_keras(w_hh).T)  # (H, 3H)
    if b_ih is not None:
        _assign(keras_cell.bias, np.stack([gru_gates_torch_to_keras(b_ih),
                                           gru_gates_torch_to_keras(b_hh)]))  # (2, 3H)


def copy_gru(torch_gru, keras_gru, suffix: str = "") -> None:
    """One direction of an nn.GRU (one layer) -> keras.layers.GRU(reset_after=True).

    ``suffix`` picks the direction of a bidirectional nn.GRU: "" for forward,
    "_reverse" for backward.

    PyTorch                                  Keras (layer.cell)
    weight_ih_l0 (3H, in), gates r,z,n  ->   kernel (in, 3H), gates z,r,h
    weight_hh_l0 (3H, H)                ->   recurrent_kernel (H, 3H)
    bias_ih_l0 (3H,), bias_hh_l0 (3H,)  ->   bias (2, 3H): row 0 input, row 1 recurrent
    """
    if torch_gru.num_layers != 1:
        raise ValueError("copy_gru handles one-layer GRUs only")

    def param(name):
        return _numpy(getattr(torch_gru, f"{name}_l0{suffix}"))

    biases = (param("bias_ih"), param("bias_hh")) if torch_gru.bias else (None, None)
    _copy_gru_weights(param("weight_ih"), param("weight_hh"), *biases, keras_gru.cell)


def copy_gru_cell(torch_cell, keras_cell) -> None:
    """nn.GRUCell -> keras.layers.GRUCell: the same layout as copy_gru, without ``_l0``."""
    biases = ((_numpy(torch_cell.bias_ih), _numpy(torch_cell.bias_hh)) if torch_cell.bias
              else (None, None))
    _copy_gru_weights(_numpy(torch_cell.weight_ih), _numpy(torch_cell.weight_hh), *biases,
                      keras_cell)


def copy_bidirectional_gru(torch_gru, keras_bidirectional) -> None:
    """nn.GRU(bidirectional=True) -> keras.layers.Bidirectional(GRU(...)).

    PyTorch keeps both directions in one module (names ending in ``_reverse``
    for the backward one); Keras wraps two GRU layers.
    """
    if not torch_gru.bidirectional:
        raise ValueError("expected an nn.GRU with bidirectional=True")
    copy_gru(torch_gru, keras_bidirectional.forward_layer)
    copy_gru(torch_gru, keras_bidirectional.backward_layer, suffix="_reverse")


def copy_encoder(torch_encoder, keras_encoder) -> None:
    """torch_seq2seq.Encoder -> keras_seq2seq.Encoder."""
    copy_embedding(torch_encoder.embedding, keras_encoder.embedding)
    copy_bidirectional_gru(torch_encoder.rnn, keras_encoder.rnn)


def copy_decoder(torch_decoder, keras_decoder) -> None:
    """torch_seq2seq.Decoder -> keras_seq2seq.Decoder."""
    copy_embedding(torch_decoder.embedding, keras_decoder.embedding)
    copy_dense(torch_decoder.init_state, keras_decoder.init_state)
    copy_gru(torch_decoder.rnn, keras_decoder.rnn)
    copy_dense(torch_decoder.out, keras_decoder.out)


def copy_seq2seq_torch_to_keras(torch_model, keras_model) -> None:
    """Copy every weight of torch_seq2seq.Seq2Seq into keras_seq2seq.Seq2Seq.

    Build the Keras model first, e.g. ``keras_model((src, tgt_in))`` on a
    dummy batch: Keras creates its weights on the first call.
    """
    if not keras_model.built or not keras_model.decoder.out.built:
        raise ValueError("build the Keras model first: call it once on a dummy batch")
    copy_encoder(torch_model.encoder, keras_model.encoder)
    copy_decoder(torch_model.decoder, keras_model.decoder)


def copy_attention(torch_attention, keras_attention) -> None:
    """torch_attention.AdditiveAttention / MultiplicativeAttention -> the Keras twin.

    Both hold dense layers under the same names (W, U, v or W alone).
    """
    for name in ("W", "U", "v"):
        if hasattr(torch_attention, name):
            copy_dense(getattr(torch_attention, name), getattr(keras_attention, name))


def copy_attention_decoder(torch_decoder, keras_decoder) -> None:
    """torch_attention.AttentionDecoder -> keras_attention.AttentionDecoder."""
    copy_embedding(torch_decoder.embedding, keras_decoder.embedding)
    copy_dense(torch_decoder.init_state, keras_decoder.init_state)
    copy_attention(torch_decoder.attention, keras_decoder.attention)
    copy_gru_cell(torch_decoder.cell, keras_decoder.cell)
    copy_dense(torch_decoder.out, keras_decoder.out)


def copy_attention_seq2seq_torch_to_keras(torch_model, keras_model) -> None:
    """Copy every weight of torch_attention.AttentionSeq2Seq into the Keras twin.

    Build the Keras model first (call it once on a dummy batch).
    """
    if not keras_model.built or not keras_model.decoder.out.built:
        raise ValueError("build the Keras model first: call it once on a dummy batch")
    copy_encoder(torch_model.encoder, keras_model.encoder)
    copy_attention_decoder(torch_model.decoder, keras_model.decoder)


def copy_self_attention(torch_layer, keras_layer) -> None:
    """torch_self_attention.SelfAttention -> keras_self_attention.SelfAttention
    (four dense layers with the same names). Build the Keras layer first."""
    for name in ("query", "key", "value", "output_projection"):
        copy_dense(getattr(torch_layer, name), getattr(keras_layer, name))
