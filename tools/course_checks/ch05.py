"""Chapter 5 (positional encodings): what the Keras and the PyTorch hidden tests share, in NumPy.

The references (the sinusoidal table and RoPE by their definitions, in float64), the test cases,
the checks on NumPy arrays with the messages that the students' feedback shows, and the counter
of the lines of Python that the vectorisation test runs. ``ch05_pytorch`` and ``ch05_keras`` call
the student's code, convert what it returns, and hand it to these.
"""
import contextlib
import sys
import sysconfig

import numpy as np

# Part 1, sinusoidal_encoding(positions, d_model, base) against the formula: (first position, number
# of positions, d_model, base, shuffled), the positions first .. first + L - 1, in a shuffled order
# if asked; odd d_model, d_model = 1, one position, offsets, shuffled positions, other bases (RoPE's
# 500,000 of Llama 3 among them), positions up to 1,000.
SINUSOIDAL_CASES = ((0, 1, 6, 10000, False), (3, 7, 1, 10000, False), (0, 20, 5, 100, False),
                    (100, 50, 16, 10000, True), (7, 9, 33, 500000, False), (0, 1000, 12, 10000, False),
                    (900, 100, 8, 10, True))
ROTATION_TABLE = (40, 24)             # (L, d_model) of the test PE(p + k) = R_k PE(p), positions 0 .. L-1
SMALL_TABLE, LARGE_TABLE = (4, 6), (300, 64)   # (L, d_model) whose costs the vectorisation test compares
# Part 2, SinusoidalEncoding with a reference table: (max_len, d_model, L, start, seed); odd d_model
# with L = max_len, L = 1 from a start, L < max_len from a start, start + L = max_len.
SINUSOIDAL_LAYER_CASES = ((12, 7, 12, 0, 1), (30, 16, 1, 17, 2), (64, 10, 37, 5, 3), (20, 6, 4, 16, 4))
# Part 3, TokenAndPositionEmbedding with known weights: (V, max_len, embed_dim, B, L, seed);
# B = 1 with L = max_len, L = 1, L = max_len - 1.
EMBEDDING_CASES = ((7, 9, 5, 1, 9, 31), (50, 20, 8, 4, 1, 32), (3, 12, 6, 3, 11, 33))
# Part 4, apply_rope(x, start) against its definition: (shape (..., L, d_k), start, seed); a heads axis,
# one position from a start (a cached generation's new token), d_k = 2 without a batch axis, 200
# positions, a start of 800.
ROPE_CASES = (((2, 3, 5, 8), 0, 41), ((4, 1, 6), 9, 42), ((7, 2), 3, 43), ((1, 200, 16), 0, 44),
              ((2, 2, 4, 12), 800, 45))
ROPE_OFFSET_SEED = 51                 # part 4: the query and key of the relative-offset test
POSITION_LAYER = (10, 6, 7, 3)        # part 3: PositionEmbedding(max_len, d_model) on L positions from start

# What the line counter leaves out: the standard library and the installed packages.
LIBRARIES = tuple(sorted({sysconfig.get_paths()[key]
                          for key in ("stdlib", "platstdlib", "purelib", "platlib")}))


# ---------------------------------------------------------------- swapping a reference in
def swap_in(namespace, name, replacement):
    """Put `replacement` in the kernel's `namespace` under `name`; returns what was there (or
    None), for the cell to put back."""
    previous = namespace.get(name)
    namespace[name] = replacement
    return previous


@contextlib.contextmanager
def swapped(namespace, name, replacement):
    """`replacement` under `name` in the kernel's `namespace` while the block runs; what was there
    before (or None) is put back in any case."""
    previous = swap_in(namespace, name, replacement)
    try:
        yield
    finally:
        namespace[name] = previous


# ---------------------------------------------------------------- part 1: the sinusoidal table
def sinusoidal_rows(positions, width, base=10000.0):
    """The formula, column by column, in float64: one row per position, (len(positions), width)."""
    where = np.asarray(positions, dtype=np.float64)[:, None]
    col = np.arange(width)
    angle = where / np.power(float(base), (col - col % 2) / width)
    return np.where(col % 2 == 0, np.sin(angle), np.cos(angle))


def sinusoidal_table(n_pos, width):
    """The rows of the positions 0 .. n_pos - 1, base 10,000: (n_pos, width)."""
    return sinusoidal_rows(np.arange(n_pos), width)


def case_positions(first, n_pos, shuffled):
    """The positions of a SINUSOIDAL_CASES case: first .. first + n_pos - 1, shuffled if asked (int64)."""
    positions = np.arange(first, first + n_pos)
    return np.random.default_rng(n_pos).permutation(positions) if shuffled else positions


def sinusoidal_what(first, n_pos, width, base, shuffled):
    """The name of a SINUSOIDAL_CASES case."""
    order = ", shuffled" if shuffled else ""
    return (f"sinusoidal_encoding(positions {first} .. {first + n_pos - 1}{order}, d_model={width}, "
            f"base={base})")


def table_shape_message(got, what, n_pos, width):
    """What the feedback says when a table is no tensor of shape (n_pos, width)."""
    return (f"{what} should be a tensor of shape (number of positions, d_model) = {(n_pos, width)}, got "
            f"{tuple(getattr(got, 'shape', ()))}")


def assert_table_matches_formula(table, what, positions, width, base):
    """The student's table (len(positions), width), in float64, equals the formula within
    1e-6 + 1e-7 max(positions)."""
    err = np.abs(table - sinusoidal_rows(positions, width, base)).max()
    assert err < 1e-6 + 1e-7 * max(positions), (
        f"{what} differs from the formula by up to {err:.3g}: row j is PE(positions[j]), for the position "
        "it is given, not j; check the base (omega_i = base^(-2i / d_model), the pair index divided by "
        "d_model itself), sines in even columns, cosines in odd ones, and, for an odd d_model, the sine "
        "of one more frequency in the last column")


def table_rotation(table):
    """PE(p + k) = R_k PE(p) for every offset k and position p of the student's table (L, d_model),
    in float64, R_k one 2x2 rotation per pair of columns. Returns the observation."""
    n_pos, width = ROTATION_TABLE
    for k in range(n_pos):
        turn = k * np.power(10000.0, -np.arange(0, width, 2) / width)          # (d_model / 2,)
        sin_part, cos_part = table[:n_pos - k, 0::2], table[:n_pos - k, 1::2]  # (L - k, d_model / 2)
        moved = np.empty((n_pos - k, width))
        moved[:, 0::2] = sin_part * np.cos(turn) + cos_part * np.sin(turn)
        moved[:, 1::2] = cos_part * np.cos(turn) - sin_part * np.sin(turn)
        err = np.abs(moved - table[k:]).max()
        assert err < 1e-5, (
            f"PE(p + {k}) should be PE(p) with every pair (sin, cos) rotated by the angle {k} * omega_i; "
            f"it differs by up to {err:.3g}")
    return "PE(p + k) = R_k PE(p) for every k", True


def python_lines_run(run):
    """The number of lines of Python that run() executes outside the libraries."""
    executed = [0]

    def in_frame(frame, event, arg):
        if event == "line":
            executed[0] += 1
        return in_frame

    def on_call(frame, event, arg):             # a library's own lines are not counted
        file = frame.f_code.co_filename
        return None if file.startswith(LIBRARIES) or file.startswith("<frozen") else in_frame

    previous = sys.gettrace()
    sys.settrace(on_call)
    try:
        run()
    finally:
        sys.settrace(previous)
    return executed[0]


def table_vectorised(sinusoidal_encoding, operations_run, positions_of):
    """The operations (counted by the framework's `operations_run(run)`) and the lines of Python
    that sinusoidal_encoding runs for a 300 x 64 table are about those for 4 x 6 (the positions
    0 .. L - 1 made by positions_of(NumPy array), outside the counts). Returns the observation."""
    (few, narrow), (many, wide) = SMALL_TABLE, LARGE_TABLE
    few_positions, many_positions = positions_of(np.arange(few)), positions_of(np.arange(many))
    small = operations_run(lambda: sinusoidal_encoding(few_positions, narrow))
    large = operations_run(lambda: sinusoidal_encoding(many_positions, wide))
    assert large - small < 8, (
        f"sinusoidal_encoding on 300 positions, d_model = 64, ran {large} operations, and on 4 positions, "
        f"d_model = 6, {small}: "
        "it does some work once per position or per column (a loop?); compute all the angles at once")
    small_lines = python_lines_run(lambda: sinusoidal_encoding(few_positions, narrow))
    large_lines = python_lines_run(lambda: sinusoidal_encoding(many_positions, wide))
    assert large_lines - small_lines < 8, (
        f"sinusoidal_encoding on 300 positions, d_model = 64, ran {large_lines} lines of Python, and on 4 "
        f"positions, d_model = 6, {small_lines}: it does some work once per position or per column (a loop?); compute all the "
        "angles at once with tensor operations")
    return "sinusoidal_encoding is vectorised", True


# ---------------------------------------------------------------- part 2: the layer
def layer_input(n_pos, width, seed):
    """The embeddings x (3, n_pos, width), float32, that SinusoidalEncoding gets."""
    return np.random.default_rng(seed).normal(size=(3, n_pos, width)).astype("float32")


def assert_layer_adds_table(y, numpy_of, x, max_len, width, n_pos, start):
    """The layer's output y (3, L, d_model) is x plus the rows start .. start + L - 1 of the table,
    within 1e-5; numpy_of(y) is y as a NumPy array (called only once the shape is right)."""
    expected = x + sinusoidal_table(start + n_pos, width)[start:]       # (3, L, d_model)
    assert tuple(y.shape) == expected.shape and np.abs(numpy_of(y) - expected).max() < 1e-5, (
        f"SinusoidalEncoding({max_len}, {width}) on x of shape {x.shape} with start={start} should return "
        "x plus the rows start, ..., start + L - 1 of the table")


# ---------------------------------------------------------------- part 3: token and position embedding
def known_embedding_tables(rng, vocab_size, max_len, width):
    """The token table (V, d_e) and the position table (max_len, d_e) loaded into the layer."""
    tokens = rng.normal(size=(vocab_size, width)).astype("float32")
    positions = rng.normal(size=(max_len, width)).astype("float32")
    return tokens, positions


def assert_embedding_output(got, numpy_of, tokens, positions, ids):
    """The layer's output (B, L, d_e) for `ids` (B, L) is tokens[ids] + positions[:L], within 1e-6;
    numpy_of(got) is got as a NumPy array (called only once the shape is right)."""
    (vocab_size, width), max_len = tokens.shape, len(positions)
    expected = tokens[ids] + positions[:ids.shape[1]]    # (B, L, d_e)
    assert tuple(got.shape) == expected.shape, (
        f"with V={vocab_size}, max_len={max_len}, embed_dim={width} and ids of shape {ids.shape}: "
        f"expected shape {expected.shape}, got {tuple(got.shape)}")
    err = np.abs(numpy_of(got) - expected).max()
    assert err < 1e-6, (
        f"with V={vocab_size}, max_len={max_len}, embed_dim={width} and ids of shape {ids.shape}: "
        f"the output differs from tokens[ids] + positions[:L] by up to {err:.3g}")


def position_layer_inputs():
    """x (2, L, d_model) and a known table (max_len, d_model) for PositionEmbedding, float32."""
    max_len, width, n_pos, _ = POSITION_LAYER
    rng = np.random.default_rng(35)
    return (rng.normal(size=(2, n_pos, width)).astype("float32"),
            rng.normal(size=(max_len, width)).astype("float32"))


def assert_position_layer_output(got, numpy_of, x, table, start):
    """PositionEmbedding's output from `start` is x + table[start:start + L], within 1e-6;
    numpy_of(got) is got as a NumPy array (called only once the shape is right)."""
    max_len, width = table.shape
    expected = x + table[start:start + x.shape[1]]
    assert tuple(got.shape) == x.shape and np.abs(numpy_of(got) - expected).max() < 1e-6, (
        f"PositionEmbedding({max_len}, {width}) on x of shape {x.shape} with start={start} should "
        "return x plus the rows start, ..., start + L - 1 of its table, self.table")


def embedding_name(vocab_size, max_len, n_pos):
    """The name under which an output of TokenAndPositionEmbedding is observed."""
    return f"TokenAndPositionEmbedding V={vocab_size} max_len={max_len} L={n_pos}"


WEIGHTS_LAYER = (11, 16, 6)                # (V, max_len, embed_dim) of the test of the trainable weights
WEIGHTS_IDS = [[3, 1, 4, 1, 5]]            # (1, 5): one sequence of 5 tokens


def assert_trains_two_tables(shapes):
    """The trainable weights of TokenAndPositionEmbedding(11, 16, 6), shapes sorted, are the two tables."""
    assert shapes == [(11, 6), (16, 6)], (
        "TokenAndPositionEmbedding(11, 16, 6) should train exactly a (11, 6) and a (16, 6) table, "
        f"found {shapes}")


def assert_used_position_rows(used):
    """After one sequence of 5 tokens, the gradient reaches rows 0 to 4 of the position table only."""
    assert used == [True] * 5 + [False] * 11, (
        "after one sequence of 5 tokens, the gradient should reach rows 0 to 4 of the position table "
        "and no others")


def assert_token_table_reached(reached):
    """The gradient reaches the token table."""
    assert reached, "the gradient should reach the token table"


# ---------------------------------------------------------------- part 4: RoPE
def rope_by_definition(a, start=0):
    """RoPE by its definition, in float64, the positions start .. start + L - 1: (..., L, d_k) ->
    (..., L, d_k)."""
    a = np.asarray(a, dtype=np.float64)
    n_pos, width = a.shape[-2], a.shape[-1]
    theta = np.power(10000.0, -np.arange(0, width, 2) / width)   # (d_k / 2,)
    turn = np.arange(start, start + n_pos)[:, None] * theta[None, :]   # (L, d_k / 2)
    c, s = np.cos(turn), np.sin(turn)
    out = np.empty_like(a)
    out[..., 0::2] = a[..., 0::2] * c - a[..., 1::2] * s
    out[..., 1::2] = a[..., 0::2] * s + a[..., 1::2] * c
    return out


def rope_input(shape, seed):
    """The float32 input of apply_rope, of `shape`."""
    return np.random.default_rng(seed).normal(size=shape).astype("float32")


def assert_rope_matches_definition(rotated, x, shape, start):
    """apply_rope(x, start=start) (the student's, in float64) equals the definition within 1e-4."""
    err = np.abs(rotated - rope_by_definition(x, start)).max()
    assert err < 1e-4, (
        f"apply_rope on shape {shape} with start={start} differs from the definition by up to {err:.3g}: "
        "pair (x_2i, x_2i+1) of row j (the second-to-last axis) stands at position p = start + j and turns "
        "by p * 10000^(-2i / d_k)")


def rope_offset_inputs():
    """One query and one key (16,), float32."""
    one_q, one_k = np.random.default_rng(ROPE_OFFSET_SEED).normal(size=(2, 16)).astype("float32")
    return one_q, one_k


def same_at_every_position(one):
    """(30, 16): the same vector at 30 positions."""
    return np.tile(one, (30, 1))


def scores_depend_on_offset(scores):
    """The scores (30, 30) of the same query and key at every position are constant along every
    diagonal n - m, within 1e-4. Returns the observation."""
    drift = np.abs(scores[1:, 1:] - scores[:-1, :-1]).max()
    assert drift < 1e-4, (
        "with the same query and the same key at every position, the scores of the rotated vectors, "
        "apply_rope(q) . apply_rope(k), should depend only on n - m; "
        f"along a diagonal they change by up to {drift:.3g}")
    return "RoPE scores depend only on n - m", bool(drift < 1e-4)
