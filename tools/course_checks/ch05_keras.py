"""Chapter 5 (positional encodings), Keras (TensorFlow backend): the checks that the hidden tests of
05-positional-encoding-keras call. The references and the checks on NumPy arrays are in ``ch05``.
"""
import warnings

import numpy as np
import tensorflow as tf
from keras import ops

from . import ch05, ch05_alibi, ch05_measure, keras_reference, reference
from .ch05 import (EMBEDDING_CASES, ROPE_CASES, SINUSOIDAL_CASES,  # noqa: F401 (the cells' case tables)
                   SINUSOIDAL_LAYER_CASES, swap_in)
from .ch05_alibi import ATTENTION_CASES, BIAS_CASES, SLOPE_HEADS  # noqa: F401
from .ch05_measure import DISTANCE_CASES, MEASUREMENT_CASES, distance_prediction  # noqa: F401


# ---------------------------------------------------------------- part 1: sinusoidal_encoding
def sinusoidal_against_formula(sinusoidal_encoding, first, n_pos, width, base, shuffled):
    """sinusoidal_encoding(positions, width, base=base), positions a tensor of a SINUSOIDAL_CASES
    case, is a tensor (n_pos, width) equal to the formula. Returns the observation (the table as a
    NumPy array)."""
    positions = ch05.case_positions(first, n_pos, shuffled)
    what = ch05.sinusoidal_what(first, n_pos, width, base, shuffled)
    got = reference.quietly(sinusoidal_encoding, ops.convert_to_tensor(positions), width, base=base)
    assert ops.is_tensor(got) and tuple(got.shape) == (n_pos, width), (
        ch05.table_shape_message(got, what, n_pos, width))
    got = ops.convert_to_numpy(got)
    ch05.assert_table_matches_formula(got.astype(np.float64), what, positions, width, base)
    return what, got


def sinusoidal_rotation(sinusoidal_encoding):
    """PE(p + k) = R_k PE(p) in the student's table of the positions 0 .. 39, d_model = 24. Returns
    the observation."""
    n_pos, width = ch05.ROTATION_TABLE
    table = ops.convert_to_numpy(sinusoidal_encoding(ops.arange(n_pos), width)).astype(np.float64)
    return ch05.table_rotation(table)


def sinusoidal_vectorised(sinusoidal_encoding):
    """sinusoidal_encoding runs about as many operations and lines of Python for a 300 x 64 table as
    for 4 x 6. Returns the observation."""
    return ch05.table_vectorised(sinusoidal_encoding, keras_reference.count_operations, ops.convert_to_tensor)


# ---------------------------------------------------------------- part 2: SinusoidalEncoding
def reference_sinusoidal_encoding(positions, width, base=10000.0):
    """The rows (len(positions), width) by the formula, as a float32 tensor: swapped in for the
    student's."""
    rows = ch05.sinusoidal_rows(ops.convert_to_numpy(positions), width, base)
    return ops.convert_to_tensor(rows.astype("float32"))


def sinusoidal_layer_against_reference(SinusoidalEncoding, namespace, max_len, width, n_pos, start, seed):
    """With the reference sinusoidal_encoding in the kernel's `namespace`: SinusoidalEncoding(max_len,
    width) adds the rows start .. start + n_pos - 1 of the table to x (3, n_pos, width), trains
    nothing, and holds the table as one non-trainable weight. Returns the observations."""
    with ch05.swapped(namespace, "sinusoidal_encoding", reference_sinusoidal_encoding), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        layer = SinusoidalEncoding(max_len, width)
        x = ch05.layer_input(n_pos, width, seed)          # (3, L, d_model)
        y = ops.convert_to_numpy(layer(x, start=start))
        ch05.assert_layer_adds_table(y, np.asarray, x, max_len, width, n_pos, start)
        assert layer.trainable_weights == [], "nothing of the layer should be trainable"
        fixed = [tuple(w.shape) for w in layer.non_trainable_weights]
        assert fixed == [(max_len, width)], (
            f"the table should be one non-trainable weight of shape {(max_len, width)}, found {fixed}")
    return [(f"SinusoidalEncoding({max_len}, {width}) on L={n_pos} from {start}", y),
            (f"SinusoidalEncoding({max_len}, {width}) fixed weights", fixed)]


# ---------------------------------------------------------------- part 3: PositionEmbedding and TokenAndPositionEmbedding
def embedding_with_known_weights(TokenAndPositionEmbedding, vocab_size, max_len, width, batch, n_pos, seed):
    """Known tables loaded into TokenAndPositionEmbedding(vocab_size, max_len, width), the positions'
    into its PositionEmbedding's `table`: the output for ids (batch, n_pos) is tokens[ids] +
    positions[:L]. Returns the observation (a NumPy array)."""
    rng = np.random.default_rng(seed)
    layer = TokenAndPositionEmbedding(vocab_size, max_len, width)
    ids = rng.integers(0, vocab_size, size=(batch, n_pos))   # (B, L)
    layer(ids)                                     # build, then load known weights
    tokens, positions = ch05.known_embedding_tables(rng, vocab_size, max_len, width)
    layer.tokens.embeddings.assign(tokens)
    layer.positions.table.embeddings.assign(positions)
    got = ops.convert_to_numpy(layer(ids))
    ch05.assert_embedding_output(got, np.asarray, tokens, positions, ids)
    return ch05.embedding_name(vocab_size, max_len, n_pos), got


def position_embedding_adds_table(PositionEmbedding):
    """PositionEmbedding(max_len, d_model) with a known table, called with start, adds its rows
    start .. start + L - 1 to x (B, L, d_model). Returns the observation (a NumPy array)."""
    max_len, width, n_pos, start = ch05.POSITION_LAYER
    x, positions = ch05.position_layer_inputs()
    layer = PositionEmbedding(max_len, width)
    layer(x)                                       # build, then load a known table
    layer.table.embeddings.assign(positions)
    got = ops.convert_to_numpy(layer(x, start=start))
    ch05.assert_position_layer_output(got, np.asarray, x, positions, start)
    return f"PositionEmbedding({max_len}, {width}) on L={n_pos} from {start}", got


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
    grads = tape.gradient(total, [layer.positions.table.embeddings, layer.tokens.embeddings])
    ch05.assert_token_table_reached(grads[1] is not None)
    position_grads = ops.convert_to_numpy(tf.convert_to_tensor(grads[0]))   # (max_len, d_e)
    used = (np.abs(position_grads).sum(axis=1) > 0).tolist()
    ch05.assert_used_position_rows(used)
    return [("trainable shapes", shapes), ("position rows with a gradient", used)]


# ---------------------------------------------------------------- part 4: RoPE
def rope_against_definition(apply_rope, shape, start, seed):
    """apply_rope(x, start=start) on an array of `shape` (..., L, d_k) keeps the shape and equals the
    definition. Returns the observation (a NumPy array)."""
    x = ch05.rope_input(shape, seed)
    got = ops.convert_to_numpy(apply_rope(x, start=start))
    assert got.shape == shape, (
        f"apply_rope on an array of shape {shape} with start={start} should return the same shape, got "
        f"{got.shape}")
    ch05.assert_rope_matches_definition(got.astype(np.float64), x, shape, start)
    return f"apply_rope {shape} from {start}", got


def rope_relative_offset(apply_rope):
    """The scores of the same query rotated at every position and the same key rotated at every
    position, (R_m q) . (R_n k), depend only on n - m. Returns the observation."""
    one_q, one_k = ch05.rope_offset_inputs()             # (16,), (16,)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        q = ops.convert_to_numpy(apply_rope(ch05.same_at_every_position(one_q))).astype(np.float64)
        k = ops.convert_to_numpy(apply_rope(ch05.same_at_every_position(one_k))).astype(np.float64)
    return ch05.scores_depend_on_offset(q @ k.T)


# ---------------------------------------------------------------- part 5 (the variation): ALiBi
def as_array(got):
    """A student's tensor as a float64 NumPy array (anything else as an empty one)."""
    return ops.convert_to_numpy(got).astype(np.float64) if ops.is_tensor(got) else np.zeros(0)


def alibi_slopes_values(alibi_slopes, num_heads):
    """alibi_slopes(num_heads) is a tensor of the paper's slopes. Returns the observation."""
    got = reference.quietly(alibi_slopes, num_heads)
    assert ops.is_tensor(got), (
        f"alibi_slopes({num_heads}) should return a tensor, got {type(got).__name__}")
    got = as_array(got)
    ch05_alibi.assert_slopes(got, num_heads)
    return f"alibi_slopes({num_heads})", got


def alibi_bias_values(alibi_bias, n_pos, num_heads):
    """alibi_bias(n_pos, num_heads) is a tensor (h, L, L) of -slope_h |i - j|. Returns the observation."""
    got = reference.quietly(alibi_bias, n_pos, num_heads)
    assert ops.is_tensor(got), (
        f"alibi_bias({n_pos}, {num_heads}) should return a tensor, got {type(got).__name__}")
    got = as_array(got)
    ch05_alibi.assert_bias(got, n_pos, num_heads)
    return f"alibi_bias({n_pos}, {num_heads})", got


def reference_alibi_bias(n_pos, num_heads):
    """The bias (h, L, L) by its definition, as a float32 tensor: swapped in for the student's."""
    return ops.convert_to_tensor(ch05_alibi.bias(n_pos, num_heads).astype("float32"))


def alibi_attention_against_reference(alibi_attention, namespace, shape, seed):
    """With the reference alibi_bias in the kernel's `namespace`: alibi_attention(q, k, v) on
    (B, h, L, d_k) is causal and equals the reference. Returns the observations."""
    q, k, v = ch05_alibi.attention_inputs(shape, seed)
    with ch05.swapped(namespace, "alibi_bias", reference_alibi_bias):
        got = reference.quietly(alibi_attention, q, k, v)
    assert isinstance(got, tuple) and len(got) == 2, (
        f"alibi_attention should return (attended, weights), got {type(got).__name__}")
    attended, weights = as_array(got[0]), as_array(got[1])
    ch05_alibi.assert_attention(attended, weights, q, k, v)
    return [(f"alibi_attention {shape}: attended", attended),
            (f"alibi_attention {shape}: weights", weights)]


# ---------------------------------------------------------------- part 6: predict, then measure
def distance_measurement(measured_encoding_distance, which, k, d_model, positions):
    """measured_encoding_distance(encoding, k, d_model, positions), given the sinusoidal or a
    learned table as Keras tensors, returns the squared distances of that table's rows. Returns
    the observation."""
    encoding, calls = ch05_measure.recording_encoding(which, ops.convert_to_tensor)
    result = reference.quietly(measured_encoding_distance, encoding, k, d_model, list(positions))
    measured = ops.convert_to_numpy(result) if ops.is_tensor(result) else result
    return ch05_measure.assert_measurement(measured, calls, which, k, d_model, positions)
