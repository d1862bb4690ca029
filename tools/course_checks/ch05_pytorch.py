"""Chapter 5 (positional encodings), PyTorch: the checks that the hidden tests of
05-positional-encoding-pytorch call. The references and the checks on NumPy arrays are in ``ch05``.

The student's tensors are read with ``.numpy()`` (or ``.double().numpy()``), as the tests always
did: no detach, no move to the CPU, so that what failed before fails the same way.
"""
import warnings

import numpy as np
import torch

from . import ch05, ch05_alibi, ch05_measure, reference, torch_reference
from .ch05 import (EMBEDDING_CASES, ROPE_CASES, SINUSOIDAL_CASES,  # noqa: F401 (the cells' case tables)
                   SINUSOIDAL_LAYER_CASES, swap_in)
from .ch05_alibi import ATTENTION_CASES, BIAS_CASES, SLOPE_HEADS  # noqa: F401
from .ch05_measure import DISTANCE_CASES, MEASUREMENT_CASES, distance_prediction  # noqa: F401


def numpy_of(tensor):
    """The tensor as a NumPy array, by tensor.numpy()."""
    return tensor.numpy()


# ---------------------------------------------------------------- part 1: sinusoidal_encoding
def sinusoidal_against_formula(sinusoidal_encoding, first, n_pos, width, base, shuffled):
    """sinusoidal_encoding(positions, width, base=base), positions a tensor of a SINUSOIDAL_CASES
    case, is a tensor (n_pos, width) equal to the formula. Returns the observation."""
    positions = ch05.case_positions(first, n_pos, shuffled)
    what = ch05.sinusoidal_what(first, n_pos, width, base, shuffled)
    with torch.no_grad():
        got = reference.quietly(sinusoidal_encoding, torch.from_numpy(positions), width, base=base)
    assert isinstance(got, torch.Tensor) and tuple(got.shape) == (n_pos, width), (
        ch05.table_shape_message(got, what, n_pos, width))
    ch05.assert_table_matches_formula(got.double().numpy(), what, positions, width, base)
    return what, got


def sinusoidal_rotation(sinusoidal_encoding):
    """PE(p + k) = R_k PE(p) in the student's table of the positions 0 .. 39, d_model = 24. Returns
    the observation."""
    n_pos, width = ch05.ROTATION_TABLE
    with torch.no_grad():
        table = sinusoidal_encoding(torch.arange(n_pos), width).double().numpy()
    return ch05.table_rotation(table)


def sinusoidal_vectorised(sinusoidal_encoding):
    """sinusoidal_encoding runs about as many operations and lines of Python for a 300 x 64 table as
    for 4 x 6. Returns the observation."""
    return ch05.table_vectorised(sinusoidal_encoding, torch_reference.count_operations, torch.from_numpy)


# ---------------------------------------------------------------- part 2: SinusoidalEncoding
def reference_sinusoidal_encoding(positions, width, base=10000.0):
    """The rows (len(positions), width) by the formula, as a float32 tensor: swapped in for the
    student's."""
    return torch.tensor(ch05.sinusoidal_rows(np.asarray(positions), width, base), dtype=torch.float32)


def sinusoidal_layer_against_reference(SinusoidalEncoding, namespace, max_len, width, n_pos, start, seed):
    """With the reference sinusoidal_encoding in the kernel's `namespace`: SinusoidalEncoding(max_len,
    width) adds the rows start .. start + n_pos - 1 of the table to x (3, n_pos, width), has no
    parameters, and saves the table as the buffer 'encoding'. Returns the observations."""
    with ch05.swapped(namespace, "sinusoidal_encoding", reference_sinusoidal_encoding), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        layer = SinusoidalEncoding(max_len, width)
        x = ch05.layer_input(n_pos, width, seed)          # (3, L, d_model), the tensor's memory
        with torch.no_grad():
            y = layer(torch.from_numpy(x), start=start)
        ch05.assert_layer_adds_table(y, numpy_of, x, max_len, width, n_pos, start)
        parameters = [name for name, _ in layer.named_parameters()]
        assert parameters == [], (
            "the layer should have no parameters (a fixed table is a buffer, not an nn.Parameter), "
            f"found {parameters}")
        assert "encoding" in layer.state_dict(), (
            "the table should be a buffer named 'encoding' (saved with the layer)")
    return [(f"SinusoidalEncoding({max_len}, {width}) on L={n_pos} from {start}", y),
            (f"SinusoidalEncoding({max_len}, {width}) parameters", parameters)]


# ---------------------------------------------------------------- part 3: PositionEmbedding and TokenAndPositionEmbedding
def embedding_with_known_weights(TokenAndPositionEmbedding, vocab_size, max_len, width, batch, n_pos, seed):
    """Known tables loaded into TokenAndPositionEmbedding(vocab_size, max_len, width), the positions'
    into its PositionEmbedding's `table`: the output for ids (batch, n_pos) is tokens[ids] +
    positions[:L]. Returns the observation."""
    rng = np.random.default_rng(seed)
    layer = TokenAndPositionEmbedding(vocab_size, max_len, width)
    tokens, positions = ch05.known_embedding_tables(rng, vocab_size, max_len, width)
    with torch.no_grad():
        layer.tokens.weight.copy_(torch.from_numpy(tokens))
        layer.positions.table.weight.copy_(torch.from_numpy(positions))
    ids = rng.integers(0, vocab_size, size=(batch, n_pos))   # (B, L)
    with torch.no_grad():
        got = layer(torch.from_numpy(ids))
    ch05.assert_embedding_output(got, numpy_of, tokens, positions, ids)
    return ch05.embedding_name(vocab_size, max_len, n_pos), got


def position_embedding_adds_table(PositionEmbedding):
    """PositionEmbedding(max_len, d_model) with a known table, called with start, adds its rows
    start .. start + L - 1 to x (B, L, d_model). Returns the observation."""
    max_len, width, n_pos, start = ch05.POSITION_LAYER
    x, positions = ch05.position_layer_inputs()
    layer = PositionEmbedding(max_len, width)
    with torch.no_grad():
        layer.table.weight.copy_(torch.from_numpy(positions))
        got = layer(torch.from_numpy(x), start=start)
    ch05.assert_position_layer_output(got, numpy_of, x, positions, start)
    return f"PositionEmbedding({max_len}, {width}) on L={n_pos} from {start}", got


def embedding_trainable_weights(TokenAndPositionEmbedding):
    """TokenAndPositionEmbedding(11, 16, 6) trains exactly its two tables, and one sequence of 5
    tokens sends gradients to both (to rows 0 to 4 of the positions). Returns the observations."""
    layer = TokenAndPositionEmbedding(*ch05.WEIGHTS_LAYER)
    shapes = sorted(tuple(p.shape) for p in layer.parameters() if p.requires_grad)
    ch05.assert_trains_two_tables(shapes)
    layer(torch.tensor(ch05.WEIGHTS_IDS)).sum().backward()
    used = layer.positions.table.weight.grad.abs().sum(dim=1) > 0   # (max_len,)
    ch05.assert_used_position_rows(used.tolist())
    ch05.assert_token_table_reached(layer.tokens.weight.grad is not None)
    return [("trainable shapes", shapes), ("position rows with a gradient", used.tolist())]


# ---------------------------------------------------------------- part 4: RoPE
def rope_against_definition(apply_rope, shape, start, seed):
    """apply_rope(x, start=start) on a tensor of `shape` (..., L, d_k) keeps the shape and equals the
    definition. Returns the observation."""
    x = ch05.rope_input(shape, seed)                      # shares its memory with the tensor
    with torch.no_grad():
        got = apply_rope(torch.from_numpy(x), start=start)
    assert isinstance(got, torch.Tensor) and tuple(got.shape) == shape, (
        f"apply_rope on a tensor of shape {shape} with start={start} should return the same shape, got "
        f"{tuple(getattr(got, 'shape', ()))}")
    ch05.assert_rope_matches_definition(got.double().numpy(), x, shape, start)
    return f"apply_rope {shape} from {start}", got


def rope_relative_offset(apply_rope):
    """The scores of the same query rotated at every position and the same key rotated at every
    position, (R_m q) . (R_n k), depend only on n - m. Returns the observation."""
    one_q, one_k = ch05.rope_offset_inputs()             # (16,), (16,)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        q = apply_rope(torch.from_numpy(ch05.same_at_every_position(one_q)))   # (30, 16)
        k = apply_rope(torch.from_numpy(ch05.same_at_every_position(one_k)))
    return ch05.scores_depend_on_offset((q.double() @ k.double().T).numpy())


# ---------------------------------------------------------------- part 5 (the variation): ALiBi
def as_array(got):
    """A student's tensor as a float64 NumPy array (anything else as an empty one)."""
    return got.detach().double().numpy() if isinstance(got, torch.Tensor) else np.zeros(0)


def alibi_slopes_values(alibi_slopes, num_heads):
    """alibi_slopes(num_heads) is a tensor of the paper's slopes. Returns the observation."""
    got = reference.quietly(alibi_slopes, num_heads)
    assert isinstance(got, torch.Tensor), (
        f"alibi_slopes({num_heads}) should return a torch.Tensor, got {type(got).__name__}")
    ch05_alibi.assert_slopes(as_array(got), num_heads)
    return f"alibi_slopes({num_heads})", got


def alibi_bias_values(alibi_bias, n_pos, num_heads):
    """alibi_bias(n_pos, num_heads) is a tensor (h, L, L) of -slope_h |i - j|. Returns the observation."""
    got = reference.quietly(alibi_bias, n_pos, num_heads)
    assert isinstance(got, torch.Tensor), (
        f"alibi_bias({n_pos}, {num_heads}) should return a torch.Tensor, got {type(got).__name__}")
    ch05_alibi.assert_bias(as_array(got), n_pos, num_heads)
    return f"alibi_bias({n_pos}, {num_heads})", got


def reference_alibi_bias(n_pos, num_heads):
    """The bias (h, L, L) by its definition, as a float32 tensor: swapped in for the student's."""
    return torch.tensor(ch05_alibi.bias(n_pos, num_heads), dtype=torch.float32)


def alibi_attention_against_reference(alibi_attention, namespace, shape, seed):
    """With the reference alibi_bias in the kernel's `namespace`: alibi_attention(q, k, v) on
    (B, h, L, d_k) is causal and equals the reference. Returns the observations."""
    q, k, v = ch05_alibi.attention_inputs(shape, seed)
    with ch05.swapped(namespace, "alibi_bias", reference_alibi_bias), torch.no_grad():
        got = reference.quietly(alibi_attention, *(torch.from_numpy(a) for a in (q, k, v)))
    assert isinstance(got, tuple) and len(got) == 2, (
        f"alibi_attention should return (attended, weights), got {type(got).__name__}")
    attended, weights = got
    ch05_alibi.assert_attention(as_array(attended), as_array(weights), q, k, v)
    return [(f"alibi_attention {shape}: attended", attended),
            (f"alibi_attention {shape}: weights", weights)]


# ---------------------------------------------------------------- part 6: predict, then measure
def distance_measurement(measured_encoding_distance, which, k, d_model, positions):
    """measured_encoding_distance(encoding, k, d_model, positions), given the sinusoidal or a
    learned table as tensors, returns the squared distances of that table's rows. Returns the
    observation."""
    encoding, calls = ch05_measure.recording_encoding(which, torch.from_numpy)
    with torch.no_grad():
        result = reference.quietly(measured_encoding_distance, encoding, k, d_model, list(positions))
    if isinstance(result, torch.Tensor):
        result = result.detach()
    return ch05_measure.assert_measurement(result, calls, which, k, d_model, positions)
