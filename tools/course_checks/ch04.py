"""Chapter 4 (multi-head attention): what the Keras and the PyTorch checks share, NumPy only.

The test cases (the same in both notebooks), the hints the feedback adds, the known weights and
inputs drawn from a seed, the swap of reference parts into the kernel while parts 2 to 5
are graded, the assertions that compare a layer with the library's multi-head attention, and
part 6's checks of the predicted and the measured number of parameters.
"""
import warnings

import numpy as np

from . import reference
from .reference import one_number   # the number a student's function returned, as a float

# Part 1: split_heads and merge_heads on other shapes; and no loop over the heads. split_heads takes
# the width of a head, split_heads(x, d_head) with h = d_model / d_head heads (the chapter's takes h).
# (B, L, d_model, h, seed): B = 1, L = 1, h = 1 and h = d_model among them; called with d_model // h
SPLIT_CASES = ((1, 4, 6, 3, 11), (3, 1, 5, 1, 12), (2, 5, 12, 12, 13), (4, 3, 16, 4, 14))
# (B, h, L, d_head, seed): B = 1, L = 1, h = 1 and d_head = 1 among them
MERGE_CASES = ((1, 3, 4, 2, 21), (3, 1, 5, 4, 22), (2, 6, 1, 3, 23), (4, 5, 3, 1, 24))
SPLIT_COUNT_SEED, MERGE_COUNT_SEED = 15, 25     # the inputs of the operation counts, (2, 5, 32) wide
FEW_HEADS, MANY_HEADS = 2, 16
EXTRA_OPERATIONS_LIMIT = 14                     # 16 heads may run fewer than this many more operations

# Part 2: the layer, without masks; and the ValueError.
INDIVISIBLE_SIZES = ((12, 5), (6, 4), (7, 2))   # (d_model, h): h does not divide d_model
# (B, L, d_model, h, seed): B = 1, L = 1, h = 1 and h = d_model among them
SELF_ATTENTION_CASES = ((3, 5, 12, 3, 31), (1, 1, 6, 6, 32), (2, 4, 8, 1, 33), (4, 7, 20, 5, 34))
SELF_ATTENTION_HINT = (": check how the heads get their columns of the projections, the scaling by "
                       "sqrt(d_head), and the output projection")
# With d_head given, MultiHeadAttention(d_model, h, d_head=d_head) has an inner width h d_head that need
# not be d_model (T5's d_kv, Keras' key_dim): (B, L, S or None for self-attention, d_model, h, d_head,
# seed). Wider than d_model, narrower, h not dividing d_model, one head, d_head = 1 among them; against
# the library's layer (PyTorch's between the query and the output projections, embed_dim = h d_head,
# kdim = vdim = d_model). (Keras' key_dim = 1 bug, see ch04_keras.library_layer: no L or S equals h there.)
DECOUPLED_CASES = ((2, 4, None, 8, 4, 6, 35), (3, 5, None, 12, 3, 2, 36), (1, 3, None, 10, 4, 3, 37),
                   (2, 2, None, 6, 1, 9, 38), (2, 5, None, 8, 4, 1, 39))
DECOUPLED_HINT = (": with d_head given, the query, key and value projections go from d_model to "
                  "num_heads * d_head numbers, the output projection back to d_model, the scores are "
                  "scaled by sqrt(d_head), and num_heads need not divide d_model")

# Part 3: masks of shapes (B, L, S), (B, 1, S) and (L, S).
MASK_CASES = (                                  # (B, L, d_model, h, real lengths, kind, seed)
    (3, 6, 12, 3, (6, 2, 4), "padding (B, 1, S)", 41),
    (2, 5, 6, 1, (5, 3), "padding and causal (B, L, S)", 42),
    (2, 4, 8, 8, (4, 4), "causal (L, S)", 43),
    (1, 7, 10, 2, (5,), "padding and causal (B, L, S)", 44),
    (4, 3, 16, 4, (3, 1, 2, 3), "padding (B, 1, S)", 45),
)
MASK_HINT = (": a mask of shape (B, L, S), (B, 1, S) or (L, S) (True = may attend) applies to every head of "
             "its batch row")

# Part 4: cross-attention, without and with padding masks on the source.
CROSS_ATTENTION_CASES = ((3, 4, 7, 12, 3, 51), (2, 6, 1, 8, 8, 52), (1, 1, 5, 6, 1, 53),
                         (4, 2, 9, 16, 4, 54))   # (B, L, S, d_model, h, seed)
CROSS_ATTENTION_HINT = ": the queries come from query_input, the keys and values from key_value_input"
PADDED_CROSS_ATTENTION_CASES = (
    # (B, L, S, d_model, h, real lengths of the source, a (B, L, S) mask rather than (B, 1, S), seed)
    (3, 4, 7, 12, 3, (7, 2, 5), False, 61), (2, 5, 3, 16, 8, (1, 3), True, 62),
    (1, 3, 5, 6, 6, (4,), False, 63), (4, 2, 5, 8, 1, (5, 1, 3, 2), False, 64),
)
PADDING_HINT = (": a padding mask on the source (True = may attend) applies to every head of its "
                "batch row")

# Part 5: the number of operations of one forward pass must not grow with the number of heads.
BATCHED_SEED = 71                               # draws target (3, 4, 48), source (3, 6, 48), x (1, 6, 32)
BATCHED_CASES = (                               # (what, d_model, few heads, many heads, forward pass)
    ("cross-attention (B=3, L=4, S=6, d_model=48)", 48, 3, 24, "cross-attention"),
    ("self-attention with a causal mask (B=1, L=6, d_model=32)", 32, 1, 32, "causal self-attention"),
)
PROJECTIONS = ("query", "key", "value", "output_projection")

# Part 6: predict, then measure, the number of parameters.
# predicted_parameter_count on hidden sizes (d_model, h): one d_model with h = 1, 4 and d_model
# (the count does not depend on h), and others. No constant matches them all, and no formula
# that drops the biases or the output projection, or multiplies by h or d_head.
PARAMETER_COUNT_CASES = ((24, 1), (24, 4), (24, 24), (10, 5), (512, 8), (7, 7), (36, 6))
# measured_parameter_count: (the layer class it is given, d_model, h). The library's layer
# without biases holds 4 d_model^2 numbers: a measurement that computes the formula instead of
# counting what it is given fails there.
WITH_BIASES, WITHOUT_BIASES = "the library's layer", "the library's layer without biases"
PARAMETER_MEASUREMENT_CASES = ((WITH_BIASES, 24, 4), (WITHOUT_BIASES, 20, 5),
                               (WITH_BIASES, 12, 12))


class ReferenceParts:
    """The reference split_heads, merge_heads and attention in the kernel's namespace, and warnings
    ignored (a warning is no failure), between install() and restore(), or inside a `with` block:
    part 1 is graded on its own, so parts 2 to 5 grade the layer with parts that are right.

    A visible test cell installs them in the hidden region above its tests and restores the
    student's in the one below (if a visible test fails, they stay installed, as they always did)."""

    def __init__(self, namespace, parts):
        self.namespace = namespace              # the kernel's globals()
        self.parts = parts                      # {name: reference function}
        self.yours = None
        self.quiet = warnings.catch_warnings()

    def install(self):
        """Keep the student's parts, put the references in their place, silence warnings."""
        self.yours = {name: self.namespace.get(name) for name in self.parts}
        self.namespace.update(self.parts)
        self.quiet.__enter__()
        warnings.simplefilter("ignore")
        return self

    def restore(self):
        """Warnings as before, and the student's parts back."""
        try:
            self.quiet.__exit__(None, None, None)
        finally:
            self.namespace.update(self.yours)

    def __enter__(self):
        return self.install()

    def __exit__(self, *exception):
        self.restore()
        return False


def normal_inputs(seed, *shapes):
    """Standard normal float32 arrays of these shapes, drawn in turn from one generator."""
    rng = np.random.default_rng(seed)
    return [rng.normal(size=shape).astype("float32") for shape in shapes]


def known_projections(d_model, seed, identity_output=False):
    """{projection name: (weight (d_model, d_model), bias (d_model,))}, float32, in the order
    PROJECTIONS, drawn from `seed` (the output projection the identity if asked, without draws)."""
    rng = np.random.default_rng(seed)
    projections = {}
    for name in PROJECTIONS:
        if name == "output_projection" and identity_output:
            projections[name] = (np.eye(d_model, dtype="float32"), np.zeros(d_model, dtype="float32"))
        else:
            weight = rng.normal(0.0, d_model ** -0.5, size=(d_model, d_model)).astype("float32")
            projections[name] = (weight, rng.normal(0.0, 0.1, size=d_model).astype("float32"))
    return projections


def layer_widths(d_model, num_heads, d_head):
    """{projection: (in, out)} of MultiHeadAttention(d_model, h, d_head=d_head): h d_head wide inside."""
    inner = num_heads * d_head
    return dict(query=(d_model, inner), key=(d_model, inner), value=(d_model, inner),
                output_projection=(inner, d_model))


def decoupled_projections(d_model, num_heads, d_head, seed):
    """{projection: (kernel (in, out), bias (out,))}, float32, drawn from `seed` in the order
    PROJECTIONS, for the widths layer_widths gives."""
    rng = np.random.default_rng(seed)
    drawn = {}
    for name, (fan_in, fan_out) in layer_widths(d_model, num_heads, d_head).items():
        kernel = rng.normal(0.0, fan_in ** -0.5, size=(fan_in, fan_out)).astype("float32")
        drawn[name] = (kernel, rng.normal(0.0, 0.1, size=fan_out).astype("float32"))
    return drawn


def decoupled_what(B, L, S, d_model, num_heads, d_head):
    """The name of a case of DECOUPLED_CASES."""
    which = "self-attention" if S is None else f"cross-attention with S={S}"
    return f"MultiHeadAttention({d_model}, {num_heads}, d_head={d_head}), {which}, B={B}, L={L}"


def build_decoupled(MultiHeadAttention, what, d_model, num_heads, d_head):
    """MultiHeadAttention(d_model, num_heads, d_head=d_head), or the AssertionError that says why not."""
    try:
        return reference.quietly(MultiHeadAttention, d_model, num_heads, d_head=d_head)
    except Exception as error:
        raise AssertionError(f"{what}: MultiHeadAttention({d_model}, {num_heads}, d_head={d_head}) raised "
                             f"{type(error).__name__}: {error}{DECOUPLED_HINT}") from None


def assert_decoupled_projection(what, d_model, num_heads, d_head, name, found_in_out, has_bias):
    """One projection's (in, out) widths, with a bias; found_in_out None: not a dense layer."""
    fan_in, fan_out = layer_widths(d_model, num_heads, d_head)[name]
    assert found_in_out == (fan_in, fan_out) and has_bias, (
        f"{what}: layer.{name} should be a dense layer from {fan_in} to {fan_out} numbers, with a bias, "
        f"found {found_in_out}{DECOUPLED_HINT}")


def refuses_indivisible_heads(MultiHeadAttention):
    """MultiHeadAttention(d_model, h) must raise ValueError when h does not divide d_model."""
    for d_model, num_heads in INDIVISIBLE_SIZES:
        try:
            MultiHeadAttention(d_model, num_heads)
        except ValueError:
            pass
        else:
            raise AssertionError(f"MultiHeadAttention({d_model}, {num_heads}) should raise ValueError: "
                                 f"{num_heads} heads do not divide d_model = {d_model}")


def self_attention_what(B, L, d_model, num_heads):
    """The name of a case of SELF_ATTENTION_CASES."""
    return f"self-attention with B={B}, L={L}, d_model={d_model}, h={num_heads}"


def masked_self_attention_what(kind, mask_shape, B, L, d_model, num_heads):
    """The name of a case of MASK_CASES, with its mask's shape."""
    return (f"self-attention with a {kind} mask of shape {tuple(mask_shape)}, B={B}, L={L}, "
            f"d_model={d_model}, h={num_heads}")


def cross_attention_what(B, L, S, d_model, num_heads):
    """The name of a case of CROSS_ATTENTION_CASES."""
    return f"cross-attention with B={B}, L={L}, S={S}, d_model={d_model}, h={num_heads}"


def padded_cross_attention_what(mask_shape, B, L, S, d_model, num_heads):
    """The name of a case of PADDED_CROSS_ATTENTION_CASES, with its mask's shape."""
    return (f"cross-attention with a padding mask of shape {tuple(mask_shape)}, B={B}, L={L}, S={S}, "
            f"d_model={d_model}, h={num_heads}")


def assert_output_and_weights(what, result):
    """The layer's result must be a pair (output, weights)."""
    assert isinstance(result, tuple) and len(result) == 2, (
        f"{what}: the layer should return (output, weights)")


def assert_layer_shapes(what, output_shape, weights_shape, B, L, S, d_model, num_heads):
    """output (B, L, d_model) and weights (B, h, L, S)."""
    assert output_shape == (B, L, d_model) and weights_shape == (B, num_heads, L, S), (
        f"{what}: expected an output of shape (B, L, d_model) = {(B, L, d_model)} and weights of shape "
        f"(B, h, L, S) = {(B, num_heads, L, S)}, got {output_shape} and {weights_shape}")


def assert_weights_agree(what, hint, library, weights_err):
    """The weights within 1e-5 of the library's (`library`: its name; weights_err: the largest gap)."""
    assert weights_err < 1e-5, (
        f"{what}: the weights differ from {library}'s (with the same weights loaded) by up to "
        f"{weights_err:.3g}{hint}")


def assert_output_agrees(what, hint, library, output_err):
    """The output within 1e-5 of the library's, once the weights agree."""
    assert output_err < 1e-5, (
        f"{what}: the weights are right, but the output differs from {library}'s by up to "
        f"{output_err:.3g}{hint}")


def split_heads_count_observation(counts):
    """The assertion on split_heads' operation counts ({heads: operations}, for FEW_HEADS and
    MANY_HEADS heads, split_heads(x, d_head) with d_head = 32 / heads); returns the observation."""
    few, many = counts[FEW_HEADS], counts[MANY_HEADS]
    assert many - few < EXTRA_OPERATIONS_LIMIT, (
        f"split_heads(x, d_head) ran {many} operations for {MANY_HEADS} heads (d_head = {32 // MANY_HEADS}) "
        f"and {few} for {FEW_HEADS} heads (d_head = {32 // FEW_HEADS}): it does "
        "some work once per head (a loop, or per-head pieces?); a reshape and a transpose run the same "
        "operations for any h")
    return f"split_heads runs the same operations for {FEW_HEADS} and {MANY_HEADS} heads", True


def merge_heads_count_observation(counts):
    """The assertion on merge_heads' operation counts ({heads: operations}, for FEW_HEADS and
    MANY_HEADS); returns the observation."""
    few, many = counts[FEW_HEADS], counts[MANY_HEADS]
    assert many - few < EXTRA_OPERATIONS_LIMIT, (
        f"merge_heads ran {many} operations for {MANY_HEADS} heads and {few} for {FEW_HEADS}: it does some "
        "work once per head (a loop, or per-head pieces?); a transpose and a reshape run the same "
        "operations for any h")
    return f"merge_heads runs the same operations for {FEW_HEADS} and {MANY_HEADS} heads", True


def no_work_per_head(MultiHeadAttention, what, d_model, few, many, run, count_operations):
    """One forward pass run(layer) with `many` heads must run fewer than many - few operations
    more than one with `few` heads (count_operations: the framework's counter; the first call of
    each layer, which builds a Keras layer, is not counted); returns the observation."""
    counts = {}
    for num_heads in (few, many):
        layer = MultiHeadAttention(d_model, num_heads)
        run(layer)                                              # a first call, not counted
        counts[num_heads] = count_operations(lambda: run(layer))
    assert counts[many] - counts[few] < many - few, (
        f"{what}: one forward pass ran {counts[many]} operations with {many} heads and "
        f"{counts[few]} with {few}: your layer does some work once per head (a loop over the heads, "
        "or per-head pieces?). A batched layer runs the same operations whatever the number of heads")
    return f"{what}: no work per head", True


# ---- part 6: predict, then measure, the number of parameters


def parameter_count(d_model, bias=True):
    """The trainable numbers of multi-head attention: four d_model x d_model projections (the h
    heads' d_model x d_head blocks side by side), with a d_model bias each where `bias`; h does
    not appear."""
    return 4 * d_model * d_model + (4 * d_model if bias else 0)


def parameter_count_prediction(predict, d_model, num_heads):
    """predicted_parameter_count(d_model, num_heads) against parameter_count (exactly: it is a
    count), for a case of PARAMETER_COUNT_CASES; returns the observation."""
    what = f"predicted_parameter_count(d_model={d_model}, num_heads={num_heads})"
    predicted = one_number(reference.quietly(predict, d_model, num_heads), what)
    assert predicted == parameter_count(d_model), (
        f"{what} returned {predicted:.10g}, which is not the number of parameters of the layer: "
        "count the weights and the biases of each of the four projections, and ask how the h "
        "heads share a projection's d_model x d_model matrix")
    return what, predicted


def parameter_count_measurement(measure, library_layer, which, d_model, num_heads):
    """measured_parameter_count(layer_class, d_model, num_heads) for a case of
    PARAMETER_MEASUREMENT_CASES: layer_class(d_model, h) builds the library's multi-head
    attention (library_layer(d_model, h, bias): the framework's wrapper, callable as
    layer(query_input)), with biases or without. The measurement must build the layer it is given
    with these sizes and return the number of trainable numbers it holds. A count does not depend
    on the seed or the processor, so it is observed as a value (compared with the reference run's
    within 1e-4 outside the kernel), not with a range."""
    bias = which == WITH_BIASES
    built = []

    def layer_class(d_model, num_heads):
        built.append((d_model, num_heads))
        return library_layer(d_model, num_heads, bias)
    what = f"measured_parameter_count with {which}, d_model={d_model}, num_heads={num_heads}"
    result = reference.quietly(measure, layer_class, d_model, num_heads)
    measured = one_number(result, what)
    assert (d_model, num_heads) in built, (
        f"{what}: it never built the layer class it was given with these sizes "
        f"(built: {built}); measure that layer")
    assert measured == parameter_count(d_model, bias), (
        f"{what}: measured {measured:.10g}, which is not the number of trainable numbers that "
        "layer holds: build it, call it once (Keras creates the weights then), and add up the "
        "sizes of its trainable weights (every element, biases included)")
    return what, measured
