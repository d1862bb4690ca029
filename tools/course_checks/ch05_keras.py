"""Chapter 5 (positional encodings), Keras (TensorFlow backend): the checks that the hidden tests of
05-positional-encoding-keras call. The references and the checks on NumPy arrays are in ``ch05``.
"""
import warnings

import numpy as np
import tensorflow as tf
from keras import ops

from . import ch05, keras_reference
from .ch05 import (EMBEDDING_CASES, ROPE_CASES, SINUSOIDAL_CASES,  # noqa: F401 (the cells' case tables)
                   SINUSOIDAL_LAYER_CASES, swap_in)


# ---------------------------------------------------------------- part 1: sinusoidal_encoding
def sinusoidal_against_formula(sinusoidal_encoding, n_pos, width):
    """sinusoidal_encoding(n_pos, width) is a tensor (n_pos, width) equal to the formula. Returns the
    observation (the table as a NumPy array)."""
    got = sinusoidal_encoding(n_pos, width)
    assert ops.is_tensor(got) and tuple(got.shape) == (n_pos, width), (
        ch05.table_shape_message(got, n_pos, width))
    got = ops.convert_to_numpy(got)
    ch05.assert_table_matches_formula(got.astype(np.float64), n_pos, width)
    return f"sinusoidal_encoding({n_pos}, {width})", got


def sinusoidal_rotation(sinusoidal_encoding):
    """PE(p + k) = R_k PE(p) in the student's table (40, 24). Returns the observation."""
    table = ops.convert_to_numpy(sinusoidal_encoding(*ch05.ROTATION_TABLE)).astype(np.float64)
    return ch05.table_rotation(table)


def sinusoidal_vectorised(sinusoidal_encoding):
    """sinusoidal_encoding runs about as many operations and lines of Python for a 300 x 64 table as
    for 4 x 6. Returns the observation."""
    return ch05.table_vectorised(sinusoidal_encoding, keras_reference.count_operations)


# ---------------------------------------------------------------- part 2: SinusoidalEncoding
def reference_sinusoidal_encoding(n_pos, width):
    """The table (n_pos, width) by the formula, as a float32 tensor: swapped in for the student's."""
    return ops.convert_to_tensor(ch05.sinusoidal_table(n_pos, width).astype("float32"))


def sinusoidal_layer_against_reference(SinusoidalEncoding, namespace, max_len, width, n_pos, seed):
    """With the reference sinusoidal_encoding in the kernel's `namespace`: SinusoidalEncoding(max_len,
    width) adds the table to x (3, n_pos, width), trains nothing, and holds the table as one
    non-trainable weight. Returns the observations."""
    with ch05.swapped(namespace, "sinusoidal_encoding", reference_sinusoidal_encoding), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        layer = SinusoidalEncoding(max_len, width)
        x = ch05.layer_input(n_pos, width, seed)          # (3, L, d_model)
        y = ops.convert_to_numpy(layer(x))
        ch05.assert_layer_adds_table(y, np.asarray, x, max_len, width, n_pos)
        assert layer.trainable_weights == [], "nothing of the layer should be trainable"
        fixed = [tuple(w.shape) for w in layer.non_trainable_weights]
        assert fixed == [(max_len, width)], (
            f"the table should be one non-trainable weight of shape {(max_len, width)}, found {fixed}")
    return [(f"SinusoidalEncoding({max_len}, {width}) on L={n_pos}", y),
            (f"SinusoidalEncoding({max_len}, {width}) fixed weights", fixed)]


# ---------------------------------------------------------------- part 3: TokenAndPositionEmbedding
def embedding_with_known_weights(TokenAndPositionEmbedding, vocab_size, max_len, width, batch, n_pos, seed):
    """Known tables loaded into TokenAndPositionEmbedding(vocab_size, max_len, width): the output for
    ids (batch, n_pos) is tokens[ids] + positions[:L]. Returns the observation (a NumPy array)."""
    rng = np.random.default_rng(seed)
    layer = TokenAndPositionEmbedding(vocab_size, max_len, width)
    ids = rng.integers(0, vocab_size, size=(batch, n_pos))   # (B, L)
    layer(ids)                                     # build, then load known weights
    tokens, positions = ch05.known_embedding_tables(rng, vocab_size, max_len, width)
    layer.tokens.embeddings.assign(tokens)
    layer.positions.embeddings.assign(positions)
    got = ops.convert_to_numpy(layer(ids))
    ch05.assert_embedding_output(got, np.asarray, tokens, positions, ids)
    return ch05.embedding_name(vocab_size, max_len, n_pos), got


def embedding_trainable_weights(TokenAndPositionEmbedding):
    """TokenAndPositionEmbedding(11, 16, 6) trains exactly its two tables, and one sequence of 5
    tokens sends gradients to both (to rows 0 to 4 of the positions). Returns the observations."""
    layer = TokenAndPositionEmbedding(*ch05.WEIGHTS_LAYER)
    ids = np.array(ch05.WEIGHTS_IDS)               # (1, 5)
    layer(ids)
    shapes = sorted(tuple(w.shape) for w in layer.trainable_weights)
    ch05.assert_trains_two_tables(shapes)
    with tf.GradientTape() as tape:
        total = ops.sum(layer(ids))
    grads = tape.gradient(total, [layer.positions.embeddings, layer.tokens.embeddings])
    ch05.assert_token_table_reached(grads[1] is not None)
    position_grads = ops.convert_to_numpy(tf.convert_to_tensor(grads[0]))   # (max_len, d_e)
    used = (np.abs(position_grads).sum(axis=1) > 0).tolist()
    ch05.assert_used_position_rows(used)
    return [("trainable shapes", shapes), ("position rows with a gradient", used)]


# ---------------------------------------------------------------- parts 4 and 5: RoPE
def rope_against_definition(apply_rope, shape, seed):
    """apply_rope on an array of `shape` (..., L, d_k) keeps the shape and equals the definition.
    Returns the observation (a NumPy array)."""
    x = ch05.rope_input(shape, seed)
    got = ops.convert_to_numpy(apply_rope(x))
    assert got.shape == shape, (
        f"apply_rope on an array of shape {shape} should return the same shape, got {got.shape}")
    ch05.assert_rope_matches_definition(got.astype(np.float64), x, shape)
    return f"apply_rope {shape}", got


def reference_apply_rope(a):
    """RoPE by its definition, as a float32 tensor: swapped in for the student's apply_rope."""
    return ops.convert_to_tensor(ch05.rope_by_definition(ops.convert_to_numpy(a)).astype("float32"))


def rope_scores_against_reference(rope_scores, namespace):
    """With the reference apply_rope in the kernel's `namespace`: rope_scores equals the reference
    scores, and for the same query and key at every position depends only on n - m. Returns the
    observations."""
    with ch05.swapped(namespace, "apply_rope", reference_apply_rope), warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        q, k, one_q, one_k = ch05.rope_scores_inputs()    # (3, 2, 6, 4), (3, 2, 9, 4), (16,), (16,)
        got = ops.convert_to_numpy(rope_scores(q, k))
        ch05.assert_scores_match_reference(got, np.asarray, q, k)
        scores = ops.convert_to_numpy(rope_scores(ch05.same_at_every_position(one_q),
                                                  ch05.same_at_every_position(one_k)))
        offset_only = ch05.scores_depend_on_offset(scores)
    return [("rope_scores with a reference apply_rope", got), offset_only]
