"""Chapter 6's checks for Keras: the encoder layer (post-LN, pre-LN, parallel) and the caching
decoder layer against keras-hub's, padding, the causal mask and the cache, dropout and where it sits,
decoder_masks against its definition, and the layers whose parameters part 5's measurement counts.
Beam search: ch06."""
import warnings

import keras
import numpy as np
from keras import ops

from attention_course.data import BOS_ID, PAD_ID

from . import ch06, ch06_measure
from .ch06 import LAYOUTS, padded_token_batches  # noqa: F401 (the layouts; the mask test's inputs)
from .ch06_measure import PARAMETER_COUNT_CASES, PARAMETER_MEASUREMENT_CASES  # noqa: F401

NORM_FIRST = (False, True)         # post-LN, then pre-LN


def reference_masks_until_end_of_cell(namespace):
    """Lend the kernel (`namespace`: its globals()) the reference decoder_masks (NumPy) and ignore
    warnings, until the hidden region at the end of the cell calls `.end()` on the result."""
    return ch06.until_end_of_cell(namespace, decoder_masks=ch06.reference_decoder_masks)


def copy_attention(mine, theirs, width, heads):
    """Our query, key, value and output Dense layers (d, d) -> keras-hub's per-head kernels
    (d, h, d_k) and (h, d_k, d)."""
    d_k = width // heads
    for ours_dense, their_dense in ((mine.query, theirs._query_dense), (mine.key, theirs._key_dense),
                                    (mine.value, theirs._value_dense)):
        their_dense.kernel.assign(ops.reshape(ours_dense.kernel, (width, heads, d_k)))
        their_dense.bias.assign(ops.reshape(ours_dense.bias, (heads, d_k)))
    theirs._output_dense.kernel.assign(ops.reshape(mine.output_projection.kernel, (heads, d_k, width)))
    theirs._output_dense.bias.assign(mine.output_projection.bias)


def copy_layer(mine, theirs, attentions, norms, width, heads, seed):
    """Our layer's attentions (pairs: our name, keras-hub's) and feed-forward weights ->
    keras-hub's layer; random layer-norm weights (drawn with `seed`) into both (pairs of names)."""
    draw = np.random.default_rng(seed)
    for ours_name, their_name in attentions:
        copy_attention(getattr(mine, ours_name), getattr(theirs, their_name), width, heads)
    for ours_dense, their_dense in ((mine.feed_forward.hidden, theirs._feedforward_intermediate_dense),
                                    (mine.feed_forward.projection, theirs._feedforward_output_dense)):
        their_dense.kernel.assign(ours_dense.kernel)
        their_dense.bias.assign(ours_dense.bias)
    for ours_name, their_name in norms:                # random layer-norm weights, not the initial 1 and 0
        gamma = (draw.normal(size=width) * 0.5 + 1).astype("float32")
        beta = (draw.normal(size=width) * 0.5).astype("float32")
        for norm in (getattr(mine, ours_name), getattr(theirs, their_name)):
            norm.gamma.assign(gamma)
            norm.beta.assign(beta)


def encoder_against_library(EncoderLayer, norm_first, parallel):
    """The student's layer with its weights copied into keras-hub's TransformerEncoder (random
    layer-norm weights) agrees on the real tokens of a padded batch; the parallel block agrees with
    x + keras-hub's own two sublayers (its self-attention and feed-forward layers, each after its
    norm), added. Returns (name, value)."""
    import keras_hub                                   # only here: slow to import

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        keras.utils.set_random_seed(21)
        draw = np.random.default_rng(21)
        x = draw.normal(size=(3, 6, 12)).astype("float32")                  # (B, S, d_model)
        real = np.arange(6)[None] < np.array([6, 4, 1])[:, None]             # (B, S)
        mine = EncoderLayer(12, 3, 20, 0.0, norm_first=norm_first, parallel=parallel)
        mine(x, real[:, None, :])                                            # build, then copy
        theirs = keras_hub.layers.TransformerEncoder(20, 3, dropout=0.0, activation="relu",
                                                     layer_norm_epsilon=1e-5, normalize_first=norm_first)
        theirs(x, padding_mask=real)
        copy_layer(mine, theirs, [("self_attention", "_self_attention_layer")],
                   [("attention_norm", "_self_attention_layer_norm"),
                    ("feed_forward_norm", "_feedforward_layer_norm")], 12, 3, 22)
        got = ops.convert_to_numpy(mine(x, real[:, None, :])[0])
        if parallel:                                   # both branches read x; their sum is added to x
            normed = theirs._self_attention_layer_norm(x)
            attended = theirs._self_attention_layer(
                query=normed, value=normed, attention_mask=np.broadcast_to(real[:, None, :], (3, 6, 6)))
            network = theirs._feedforward_output_dense(
                theirs._feedforward_intermediate_dense(theirs._feedforward_layer_norm(x)))
            want = ops.convert_to_numpy(x + attended + network)
        else:
            want = ops.convert_to_numpy(theirs(x, padding_mask=real))
        gap = np.abs(got - want)[real].max()
        library = ("x + the self-attention and the feed-forward network of keras-hub's "
                   "TransformerEncoder, each after its norm" if parallel
                   else "keras-hub's TransformerEncoder")
        assert gap < 1e-5, (
            f"with {ch06.layout_name(norm_first, parallel)}, your layer differs from {library} with "
            f"the same weights by up to {gap:.3g} on the real tokens: check the order of residual sum, "
            "dropout and layer norm, and what each sublayer reads")
        return f"encoder = keras-hub, {ch06.layout_name(norm_first, parallel)}", bool(gap < 1e-5)


def encoder_padding_ignored(EncoderLayer, norm_first, parallel):
    """Changing the input at padded positions changes no output at a real position.
    Returns (name, value)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        keras.utils.set_random_seed(31)
        draw = np.random.default_rng(31)
        layer = EncoderLayer(8, 4, 16, 0.0, norm_first=norm_first, parallel=parallel)
        x = draw.normal(size=(2, 7, 8)).astype("float32")                    # (B, S, d_model)
        real = np.arange(7)[None] < np.array([5, 2])[:, None]                # (B, S)
        other = x.copy()
        other[~real] = draw.normal(size=(int((~real).sum()), 8)) * 10         # other padding
        a, b = (ops.convert_to_numpy(layer(v, real[:, None, :])[0]) for v in (x, other))
        gap = np.abs(a - b)[real].max()
        return ch06.padding_verdict(gap, norm_first, parallel)


def encoder_dropout(EncoderLayer):
    """In each layout: with dropout=0.5, two calls with training=True differ and two calls without
    it are equal; with dropout=0.0 training and inference agree; and where dropout sits. Returns
    the observations (name, value)."""
    return ch06.dropout_observations(EncoderLayer, dropout_modes, dropout_placement, branch_masks)


def dropout_modes(EncoderLayer, norm_first, parallel):
    """training=True drops (two calls differ), inference does not (two calls agree, and agree
    with training at dropout=0.0), in one layout. An observation (name, True)."""
    layout = ch06.layout_name(norm_first, parallel)
    keras.utils.set_random_seed(41)
    x = np.random.default_rng(41).normal(size=(2, 4, 8)).astype("float32")   # (B, S, d_model)
    layer = EncoderLayer(8, 2, 16, 0.5, norm_first=norm_first, parallel=parallel)
    first, second = (ops.convert_to_numpy(layer(x, training=True)[0]) for _ in range(2))
    third, fourth = (ops.convert_to_numpy(layer(x)[0]) for _ in range(2))
    assert np.abs(first - second).max() > 1e-3, (
        f"{layout}: with training=True, dropout=0.5 should make two calls differ")
    assert np.array_equal(third, fourth), (
        f"{layout}: without training=True the layer should give the same output every time")
    quiet = EncoderLayer(8, 2, 16, 0.0, norm_first=norm_first, parallel=parallel)
    train_out = ops.convert_to_numpy(quiet(x, training=True)[0])
    eval_out = ops.convert_to_numpy(quiet(x)[0])
    assert np.allclose(train_out, eval_out, atol=1e-6), (
        f"{layout}: with dropout=0.0, training and inference should agree")
    return (f"dropout only in training mode, {layout}", True)


def dropout_placement(EncoderLayer, norm_first, parallel):
    """Where dropout sits: with dropout=1.0 every dropped value is zero, so with training=True the
    layer reduces to its norms (post-LN) or to its input (pre-LN, parallel) when, and only when,
    dropout is on each sublayer's output before the residual sum. The weights, biases included,
    are random, so a dropout on a sublayer's input or on the attention weights leaves a bias behind.
    Returns the observation (ch06.placement_observation)."""
    keras.utils.set_random_seed(43)
    rng = np.random.default_rng(43)
    layer = EncoderLayer(8, 2, 16, 1.0, norm_first=norm_first, parallel=parallel)
    x = rng.normal(size=(2, 5, 8)).astype("float32")                      # (B, S, d_model)
    layer(x)                                                            # build the weights
    for part in ch06.ENCODER_PARTS:
        for weight in getattr(layer, part).weights:
            weight.assign(rng.normal(size=weight.shape).astype("float32"))
    out = ops.convert_to_numpy(layer(x, training=True)[0])
    norms = ops.convert_to_numpy(layer.feed_forward_norm(layer.attention_norm(x)))
    ch06.placement_verdict(np.abs(out - x).max(), np.abs(out - norms).max(), norm_first, parallel)
    return ch06.placement_observation(out, norm_first, parallel)


def branch_masks(EncoderLayer):
    """The parallel block at dropout=0.5 with training=True, the feed-forward network's inner
    dropout off: each branch is dropped on its own mask (ch06.branch_masks_verdict).
    Returns (name, value)."""
    keras.utils.set_random_seed(47)
    x = np.random.default_rng(47).normal(size=(2, 5, 8)).astype("float32")   # (B, S, d_model)
    layer = EncoderLayer(8, 2, 16, 0.5, norm_first=True, parallel=True)
    layer(x)                                                            # build the weights
    layer.feed_forward.dropout.rate = 0.0             # the hidden activations' dropout: off
    out = ops.convert_to_numpy(layer(x, training=True)[0])
    normed = layer.attention_norm(x)
    attention = ops.convert_to_numpy(layer.self_attention(normed, normed)[0])
    feed_forward = ops.convert_to_numpy(layer.feed_forward(layer.feed_forward_norm(x)))
    return ch06.branch_masks_verdict(out - x, attention, feed_forward)


def masks_against_definition(decoder_masks, B, T, S, tgt, src, tgt_segments, src_segments):
    """decoder_masks on target ids `tgt` (B, T) and source ids `src` (B, S) (NumPy), without
    segments and with them (ch06.masks_with_and_without_segments). Returns two observations."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        as_given = (lambda ids: ids)                                            # NumPy, as given
        to_numpy = ops.convert_to_numpy
        return ch06.masks_with_and_without_segments(
            decoder_masks, as_given, to_numpy, B, T, S, tgt, src, tgt_segments, src_segments)


def decoder_against_library(DecoderLayer, norm_first):
    """The student's caching layer with its weights copied into keras-hub's TransformerDecoder
    (random layer-norm weights) agrees on the real tokens of padded batches, on a call that takes
    the keys and values of memory from the cache (through_cache). Returns (name, value)."""
    import keras_hub                                   # only here: slow to import

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        keras.utils.set_random_seed(61)
        draw = np.random.default_rng(61)
        tgt = np.array([[BOS_ID, 4, 5, 6, 7], [BOS_ID, 4, 5, PAD_ID, PAD_ID],
                        [BOS_ID, PAD_ID, PAD_ID, PAD_ID, PAD_ID]])                         # (B, T)
        src = np.array([[4, 5, 6, 7, 8, 9], [4, 5, 6, PAD_ID, PAD_ID, PAD_ID],
                        [4, PAD_ID, PAD_ID, PAD_ID, PAD_ID, PAD_ID]])                      # (B, S)
        self_mask, cross_mask = ch06.reference_decoder_masks(tgt, src)
        y = draw.normal(size=(3, 5, 12)).astype("float32")                     # (B, T, d_model)
        memory = draw.normal(size=(3, 6, 12)).astype("float32")                # (B, S, d_model)
        mine = DecoderLayer(12, 4, 24, 0.0, norm_first)
        mine(y, memory, self_mask, cross_mask)                                 # build, then copy
        theirs = keras_hub.layers.TransformerDecoder(24, 4, dropout=0.0, activation="relu",
                                                     layer_norm_epsilon=1e-5, normalize_first=norm_first)
        pads = dict(decoder_padding_mask=tgt != PAD_ID, encoder_padding_mask=src != PAD_ID)
        theirs(y, memory, **pads)                                              # causal by default
        copy_layer(mine, theirs, [("self_attention", "_self_attention_layer"),
                                  ("cross_attention", "_cross_attention_layer")],
                   [("self_attention_norm", "_self_attention_layer_norm"),
                    ("cross_attention_norm", "_cross_attention_layer_norm"),
                    ("feed_forward_norm", "_feedforward_layer_norm")], 12, 4, 62)
        got = ops.convert_to_numpy(ch06.through_cache(mine, y, memory, self_mask, cross_mask)[0])
        want = ops.convert_to_numpy(theirs(y, memory, **pads))
        real = tgt != PAD_ID
        gap = np.abs(got - want)[real].max()
        assert gap < 1e-5, (
            f"with norm_first={norm_first}, your layer differs from keras-hub's TransformerDecoder with the "
            f"same weights by up to {gap:.3g}: check the three sublayers' order, the queries and keys of "
            "the cross-attention (queries from the decoder, keys and values from memory) and where the "
            "norms go")
        return f"decoder = keras-hub, norm_first={norm_first}", bool(gap < 1e-5)


def decoder_is_causal(DecoderLayer, norm_first):
    """Through two stacked caching layers (each called through its cache), changing the target
    input at position 3 changes no output at positions 0 to 2, and does change position 3.
    Returns (name, value)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        keras.utils.set_random_seed(71)
        draw = np.random.default_rng(71)
        stack = [DecoderLayer(8, 2, 16, 0.0, norm_first) for _ in range(2)]
        tgt = np.array([[BOS_ID, 4, 5, 6, 7, 8]])                              # (1, T)
        src = np.array([[4, 5, 6]])                                            # (1, S)
        self_mask, cross_mask = ch06.reference_decoder_masks(tgt, src)
        y = draw.normal(size=(1, 6, 8)).astype("float32")                      # (1, T, d_model)
        memory = draw.normal(size=(1, 3, 8)).astype("float32")                 # (1, S, d_model)
        changed = y.copy()
        changed[0, 3] += 5.0
        outs = []
        for inp in (y, changed):
            for layer in stack:
                inp = ch06.through_cache(layer, inp, memory, self_mask, cross_mask)[0]
            outs.append(ops.convert_to_numpy(inp))
        before = np.abs(outs[0] - outs[1])[0, :3].max()
        at = np.abs(outs[0] - outs[1])[0, 3].max()
        assert before < 1e-6 and at > 1e-3, (
            f"with norm_first={norm_first}: changing position 3 changed positions 0-2 by {before:.3g} "
            f"(should be 0) and position 3 by {at:.3g} (should change): pass the self-attention mask to "
            "the self-attention")
        return f"causal, norm_first={norm_first}", bool(before < 1e-6 and at > 1e-3)


def projected_heads(dense, memory, heads):
    """memory (B, S, d_model) through one projection, as heads (B, h, S, d_k) (NumPy)."""
    batch, length, width = memory.shape
    projected = ops.convert_to_numpy(dense(memory)).reshape(batch, length, heads, width // heads)
    return projected.transpose(0, 2, 1, 3)


def decoder_cache_steps(CachedDecoderLayer, norm_first):
    """Decoding step by step (prefixes of length 1 to T, each call with the cache of one pass over
    the target and memory=None) gives, at each step's last position, what that pass gives; the
    cache holds memory's keys and values, projected and split into heads (B, h, S, d_k).
    Returns (name, value)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        keras.utils.set_random_seed(65)
        draw = np.random.default_rng(65)
        layer = CachedDecoderLayer(8, 2, 16, 0.0, norm_first)
        tgt = np.array([[BOS_ID, 4, 5, 6, 7], [BOS_ID, 4, 5, PAD_ID, PAD_ID]])          # (B, T)
        src = np.array([[4, 5, 6], [4, 5, PAD_ID]])                                     # (B, S)
        self_mask, cross_mask = ch06.reference_decoder_masks(tgt, src)
        y = draw.normal(size=(2, 5, 8)).astype("float32")                      # (B, T, d_model)
        memory = draw.normal(size=(2, 3, 8)).astype("float32")                 # (B, S, d_model)
        whole = ch06.four_results(layer(y, memory, self_mask, cross_mask),
                             "layer(y, memory, self_attention_mask, cross_attention_mask)")
        cache = whole[3]
        assert isinstance(cache, (tuple, list)) and len(cache) == 2, (
            "memory_cache should be a pair (keys, values)")
        keys, values = (ops.convert_to_numpy(c) for c in cache)
        assert keys.shape == values.shape == (2, 2, 3, 4), (
            f"the cached keys and values should each be (B, h, S, d_k) = (2, 2, 3, 4), got "
            f"{keys.shape} and {values.shape}")
        want = [projected_heads(getattr(layer.cross_attention, name), memory, 2)
                for name in ("key", "value")]
        cached = max(np.abs(keys - want[0]).max(), np.abs(values - want[1]).max())
        assert cached < 1e-5, (
            "the cache should hold memory through cross_attention.key and cross_attention.value, "
            f"split into heads; it is off by {cached:.3g}")
        full = ops.convert_to_numpy(whole[0])
        gaps = []
        for steps in range(1, 6):
            step = ch06.four_results(layer(y[:, :steps], None, self_mask[:, :steps, :steps], cross_mask,
                                      memory_cache=cache), "layer(y, None, ..., memory_cache=cache)")
            gaps.append(np.abs(ops.convert_to_numpy(step[0])[:, -1] - full[:, steps - 1]).max())
        assert max(gaps) < 1e-5, (
            f"with norm_first={norm_first}, decoding step by step with the cache (memory=None) "
            f"differs from one pass over the whole target by up to {max(gaps):.3g}")
        return f"cached steps = one pass, norm_first={norm_first}", bool(max(gaps) < 1e-5)


def measurement_layer(which, d_model, num_heads, d_ff):
    """A built layer for part 5's measurement, for a case of PARAMETER_MEASUREMENT_CASES, and the
    number of trainable numbers it holds."""
    import keras_hub                                   # only here: slow to import

    from attention_course.keras_transformer import FeedForward

    keras.utils.set_random_seed(d_model)
    sequence = np.zeros((1, 2, d_model), dtype="float32")                # (1, 2, d_model)
    if which == ch06_measure.FROZEN:
        layer = FeedForward(d_model, d_ff, 0.0)
        layer(sequence)
        layer.hidden.trainable = False
    elif which == ch06_measure.ATTENTION_NO_BIAS:
        layer = keras.layers.MultiHeadAttention(num_heads, d_model // num_heads, use_bias=False)
        layer(sequence, sequence)
    elif which == ch06_measure.DECODER:
        layer = keras_hub.layers.TransformerDecoder(d_ff, num_heads)
        layer(sequence, sequence)
    else:
        layer = keras_hub.layers.TransformerEncoder(d_ff, num_heads)
        layer(sequence)
    trains = ch06_measure.total_size(variable.shape for variable in layer.trainable_variables)
    if which in (ch06_measure.ENCODER, ch06_measure.DECODER):   # the library's: the formula
        assert trains == ch06_measure.parameter_count(d_model, d_ff, which == ch06_measure.DECODER)
    return layer, trains


def parameter_count_measurement(measure, which, d_model, num_heads, d_ff):
    """measured_parameter_count on a layer of a case of PARAMETER_MEASUREMENT_CASES (ch06_measure
    checks it); the observation."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        layer, trains = measurement_layer(which, d_model, num_heads, d_ff)
    return ch06_measure.parameter_count_measurement(measure, layer, trains, which, d_model,
                                                    num_heads, d_ff)


def parameter_count_prediction(predict, d_model, num_heads, d_ff, decoder):
    """predicted_parameter_count at a case of PARAMETER_COUNT_CASES (ch06_measure checks it)."""
    return ch06_measure.parameter_count_prediction(predict, d_model, num_heads, d_ff, decoder)
