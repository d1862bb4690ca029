"""Chapter 6's part 5 (predict, then measure, the parameters of an encoder and a decoder layer),
framework-free: the hidden cases, the formula and the checks; ch06_keras and ch06_pytorch build
the layers that the measurement is given."""
import math

from . import reference
from .reference import one_number   # the number a student's function returned, as a float

# Part 5, predict, then measure, the number of parameters.
# predicted_parameter_count at hidden sizes (d_model, h, d_ff, decoder): one d_model and d_ff
# with h = 1, 4 and d_model (the count does not depend on h), d_ff other than 4 d_model, and
# both layers at the same sizes. No constant matches them all, and no formula that drops the
# biases, the layer norms' shifts, d_ff or the decoder's second attention and third norm.
PARAMETER_COUNT_CASES = (
    (24, 1, 40, False), (24, 4, 40, False), (24, 24, 40, False), (24, 4, 40, True),
    (10, 5, 7, True), (512, 8, 2048, False), (512, 8, 2048, True), (6, 3, 30, False),
)
# measured_parameter_count, given a built layer: (which layer, d_model, h, d_ff). The library's
# attention without biases, and a feed-forward network whose first projection is frozen, hold
# other counts than the formula: a measurement must count what it is given, and only what trains.
ENCODER, DECODER = "the library's encoder layer", "the library's decoder layer"
ATTENTION_NO_BIAS = "the library's multi-head attention without biases"
FROZEN = "a FeedForward whose first projection is frozen"
PARAMETER_MEASUREMENT_CASES = (
    (ENCODER, 20, 4, 36), (DECODER, 12, 3, 20), (ATTENTION_NO_BIAS, 16, 2, 24), (FROZEN, 8, 1, 28),
)


# ---------------------------------------------------------------- part 5
def parameter_count(d_model, d_ff, decoder=False):
    """The trainable numbers of the chapter's encoder layer (decoder=False) or decoder layer: per
    attention, four d_model x d_model matrices and their biases, whatever the number of heads;
    the feed-forward network's d_model -> d_ff -> d_model, biases included; per layer norm a
    scale and a shift of d_model each (two norms in the encoder, three in the decoder)."""
    attentions, norms = (2, 3) if decoder else (1, 2)
    per_attention = 4 * d_model * (d_model + 1)
    network = d_ff * (d_model + 1) + d_model * (d_ff + 1)
    return attentions * per_attention + network + norms * 2 * d_model


def parameter_count_prediction(predict, d_model, num_heads, d_ff, decoder):
    """predicted_parameter_count(d_model, num_heads, d_ff, decoder) against parameter_count
    (exactly: it is a count), for a case of PARAMETER_COUNT_CASES; the observation."""
    what = (f"predicted_parameter_count(d_model={d_model}, num_heads={num_heads}, d_ff={d_ff}, "
            f"decoder={decoder})")
    predicted = one_number(reference.quietly(predict, d_model, num_heads, d_ff, decoder=decoder),
                           what)
    expected = parameter_count(d_model, d_ff, decoder)
    assert predicted == expected, (
        f"{what} returned {predicted:.10g}, which is not the number of trainable numbers of the "
        "layer: count each sublayer's matrices and biases (the attentions' four projections, the "
        "feed-forward network's two), and each layer norm's scale and shift")
    return what, predicted


def parameter_count_measurement(measure, layer, expected, which, d_model, num_heads, d_ff):
    """measured_parameter_count(layer) on a built layer (`which`, at these sizes), which holds
    `expected` trainable numbers: it must count them exactly; the observation."""
    what = (f"measured_parameter_count of {which}, d_model={d_model}, num_heads={num_heads}, "
            f"d_ff={d_ff}")
    measured = one_number(reference.quietly(measure, layer), what)
    assert measured == expected, (
        f"{what}: measured {measured:.10g}, but the layer holds {expected} trainable numbers: add "
        "up the sizes of the parameters it has, those that training updates, and no others")
    return what, measured


def total_size(shapes):
    """The number of elements of tensors of these shapes."""
    return sum(math.prod(tuple(shape)) for shape in shapes)
