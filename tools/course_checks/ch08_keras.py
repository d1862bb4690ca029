"""Chapter 08 (GPT-2), Keras: the checks of 08-gpt2-keras's hidden tests."""
import contextlib
import io

import keras
import numpy as np
from keras import ops

from attention_course import keras_gpt2
from attention_course.grading.hide import course_version

from . import ch08
from .ch08 import CAUSAL_CASES, LIBRARY_CASES, TOP_K_CASES, TOP_P_CASES  # noqa: F401 (the cells' cases)
from . import ch08_measure
from .ch08_measure import CACHE_MEASUREMENT_CASES, CACHE_SIZE_CASES  # noqa: F401 (part 5's cases)
from .ch08_measure import cache_size_prediction  # noqa: F401 (framework-free, called by the cells)
from . import ch08_window
from .ch08_window import WINDOW_CASES  # noqa: F401 (part 5's cases)
from .keras_reference import to_numpy


def reference_parts(*names):
    """The reference versions of the named functions, by name: the course's filters
    (attention_course.keras_gpt2; in the grading sandbox, the copies it keeps for these checks:
    attention_course.grading.hide), and a sample_next with the repetition penalty (ch08's)."""
    return {name: (ch08.reference_sample_next(to_numpy) if name == "sample_next"
                   else course_version(keras_gpt2, name)) for name in names}


def graded_cell(namespace, *names):
    """For a visible test cell: the reference versions of `names` in the kernel's namespace, and
    warnings ignored, until the returned object's restore()."""
    return ch08.GradedCell(namespace, reference_parts(*names))


# ---------------------------------------------------------------- part 1
def call_layer(what, layer, *args):
    """Call the student's layer; (output, weights, (k, v)) or a failure that says what came back."""
    try:
        result = layer(*args)
    except Exception as error:
        message = " ".join(str(error).split("Arguments received")[0].split())   # without Keras' call summary
        raise AssertionError(f"{what}: your layer raised {type(error).__name__}: {message}") from None
    assert (isinstance(result, tuple) and len(result) == 3
            and isinstance(result[2], tuple) and len(result[2]) == 2), (
        f"{what}: call should return (output, weights, (k, v))")
    return result


def known_layer(layer_class, d_model, num_heads, seed, *more):
    """The student's layer, built by a first call, with known weights (`more`: the constructor's
    further arguments)."""
    made = layer_class(d_model, num_heads, *more)
    call_layer(f"d_model={d_model}, h={num_heads}", made, np.zeros((1, 2, d_model), "float32"))   # builds it
    draw = np.random.default_rng(seed)
    for name in ("query", "key", "value", "output_projection"):
        dense = getattr(made, name)
        dense.kernel.assign(draw.normal(0.0, d_model ** -0.5, (d_model, d_model)).astype("float32"))
        dense.bias.assign(draw.normal(0.0, 0.1, d_model).astype("float32"))
    return made


def arrays(*tensors):
    """The tensors as NumPy arrays."""
    return [to_numpy(tensor) for tensor in tensors]


# ---------------------------------------------------------------- part 5, the variation
def window_maker(layer_class):
    """make(what, d_model, h, window, seed) for ch08_window's checks: the student's
    SlidingWindowAttention(d_model, h, window), built, with known weights, and those weights as
    NumPy {name: (W, b)} for x @ W + b; it returns call(x, cache) -> NumPy (output, weights, k, v)
    and the cache to pass on."""
    def make(what, d_model, num_heads, window, seed):
        try:
            layer = known_layer(layer_class, d_model, num_heads, seed, window)
        except AssertionError:
            raise
        except Exception as error:
            raise AssertionError(f"{what}: SlidingWindowAttention(d_model, num_heads, window) raised "
                                 f"{type(error).__name__}: {error}") from None
        weights = {name: tuple(arrays(getattr(layer, name).kernel, getattr(layer, name).bias))
                   for name in ("query", "key", "value", "output_projection")}

        def call(x, cache):
            out, attention, (k, v) = call_layer(what, layer, x, cache)
            return (*arrays(out, attention, k, v), (k, v))
        return call, weights
    return make


# The cells' checks: window_against_reference(layer_class, *case) and rolling_cache(layer_class).
window_against_reference, rolling_cache = ch08_window.checks_for(window_maker)


def library_attention(layer, num_heads, x, allowed):
    """layers.MultiHeadAttention with the weights of the student's `layer` and the attention_mask
    `allowed` (B, L, L), True where attention is allowed, on x (B, L, d_model): NumPy (output
    (B, L, d_model), weights (B, h, L, L))."""
    d_model = x.shape[-1]
    d_k = d_model // num_heads
    library = keras.layers.MultiHeadAttention(num_heads=num_heads, key_dim=d_k)
    library(x, x)                                              # builds it
    for dense, theirs in ((layer.query, library.query_dense), (layer.key, library.key_dense),
                          (layer.value, library.value_dense)):
        theirs.kernel.assign(ops.reshape(dense.kernel, (d_model, num_heads, d_k)))
        theirs.bias.assign(ops.reshape(dense.bias, (num_heads, d_k)))
    projection = layer.output_projection
    library.output_dense.kernel.assign(ops.reshape(projection.kernel, (num_heads, d_k, d_model)))
    library.output_dense.bias.assign(projection.bias)
    return arrays(*library(x, x, attention_mask=allowed, return_attention_scores=True))


def attention_against_library(layer_class, B, L, d_model, h, seed, pads):
    """The student's layer with known weights on a left-padded batch (`pads` pads at the start of
    each row) against layers.MultiHeadAttention with the same weights and the causal and padding
    masks combined as its attention_mask: the same outputs and weights; the observation."""
    what = f"B={B}, L={L}, d_model={d_model}, h={h}, pads {list(pads)}"
    real = ch08.left_padded(pads, L)                                       # (B, L)
    # (A warning is no failure: Keras warns about a softmax over one key. Keras 3.15 on TensorFlow:
    # with key_dim = 1 the library adds its (h, 1) biases along the wrong axis when L equals h: the
    # cases avoid that.)
    with ch08.warnings_ignored():
        mine = known_layer(layer_class, d_model, h, seed)
        x = np.random.default_rng(seed + 100).normal(size=(B, L, d_model)).astype("float32")
        want, want_weights = library_attention(mine, h, x, ch08.allowed_keys(real, L))
        got, got_weights = arrays(*call_layer(what, mine, x, None, real)[:2])
    assert got.shape == (B, L, d_model) and got_weights.shape == (B, h, L, L), (
        f"{what}: expected an output (B, L, d_model) = {(B, L, d_model)} and weights (B, h, L, L) = "
        f"{(B, h, L, L)}; got {got.shape} and {got_weights.shape}")
    ch08.padding_verdict(what, got_weights, real)
    gap = float(np.abs(got_weights - want_weights).max())
    assert gap < 1e-5, (
        f"{what}: your weights differ from those of layers.MultiHeadAttention with the causal and padding "
        f"masks (the same weights loaded) by up to {gap:.3g}: check the mask (position i sees the real "
        "tokens j <= i, a pad itself only), the heads, and the scaling by sqrt(d_k)")
    gap = float(np.abs(got - want).max())
    assert gap < 1e-5, (
        f"{what}: the weights are right, but the output differs from layers.MultiHeadAttention's by up to "
        f"{gap:.3g}: merge the heads, then apply the output projection")
    return f"causal attention = layers.MultiHeadAttention, {what}", [got, got_weights]


def library_gpt2():
    """A small keras-hub GPT2Backbone (vocabulary 40, d_model 16, 4 heads, 2 layers) with random
    weights, not the initial ones."""
    with ch08.warnings_ignored(), contextlib.redirect_stderr(io.StringIO()):
        import keras_hub
        backbone = keras_hub.models.GPT2Backbone(vocabulary_size=40, num_layers=2, num_heads=4,
                                                 hidden_dim=16, intermediate_dim=64, max_sequence_length=16,
                                                 dropout=0.0)
        draw = np.random.default_rng(ch08.GPT2_WEIGHTS_SEED)
        for weight in backbone.weights:
            norm_scale = weight.path.endswith("gamma")
            weight.assign((draw.normal(size=tuple(weight.shape)) * (0.2 if norm_scale else 0.3)
                           + (1.0 if norm_scale else 0.0)).astype("float32"))
    return backbone


def copy_dense(dense, theirs, shape=None):
    """Load a keras-hub dense layer's kernel and bias into `dense`, the kernel reshaped to `shape`
    (d_in, d_out) where given, the bias to (d_out,)."""
    if shape is None:
        dense.kernel.assign(theirs.kernel)
        dense.bias.assign(theirs.bias)
    else:
        dense.kernel.assign(ops.reshape(theirs.kernel, shape))
        dense.bias.assign(ops.reshape(theirs.bias, shape[-1:]))


def take_hub_block(block, hub_layer, layer_class):
    """A block of the course's GPT-2 with the weights of a keras-hub transformer layer, and the
    student's layer as its attention."""
    theirs = hub_layer._self_attention_layer
    yours = layer_class(16, 4)
    call_layer("in GPT-2", yours, np.zeros((1, 2, 16), "float32"))   # builds it
    for dense, hub_dense in ((yours.query, theirs._query_dense), (yours.key, theirs._key_dense),
                             (yours.value, theirs._value_dense)):
        copy_dense(dense, hub_dense, (16, 16))
    yours.output_projection.kernel.assign(ops.reshape(theirs._output_dense.kernel, (16, 16)))
    yours.output_projection.bias.assign(theirs._output_dense.bias)
    object.__setattr__(block, "attention", yours)   # (Keras tracks no new layer in a built one)
    for norm, hub_norm in ((block.attention_norm, hub_layer._self_attention_layer_norm),
                           (block.feed_forward_norm, hub_layer._feedforward_layer_norm)):
        norm.gamma.assign(hub_norm.gamma)
        norm.beta.assign(hub_norm.beta)
    for dense, hub_dense in ((block.feed_forward.hidden, hub_layer._feedforward_intermediate_dense),
                             (block.feed_forward.projection, hub_layer._feedforward_output_dense)):
        copy_dense(dense, hub_dense)


def gpt2_against_keras_hub(layer_class):
    """The student's layer as the attention of both blocks of the course's GPT-2 with the weights of
    library_gpt2(): the same logits as that model; the observation."""
    hub = library_gpt2()
    ids = np.random.default_rng(ch08.GPT2_IDS_SEED).integers(0, 40, size=(3, 14))
    with ch08.warnings_ignored():
        gpt = keras_gpt2.GPT2(vocab_size=40, max_len=16, d_model=16, num_heads=4, num_layers=2, dropout=0.0)
        gpt.tokens.embeddings.assign(hub.get_layer("token_embedding").embeddings)
        gpt.positions.embeddings.assign(hub.get_layer("position_embedding").position_embeddings)
        for i, block in enumerate(gpt.blocks):
            take_hub_block(block, hub.get_layer(f"transformer_layer_{i}"), layer_class)
        gpt.final_norm.gamma.assign(hub.get_layer("layer_norm").gamma)
        gpt.final_norm.beta.assign(hub.get_layer("layer_norm").beta)
        hidden = to_numpy(hub({"token_ids": ids, "padding_mask": np.ones_like(ids)}))
        want = hidden @ to_numpy(hub.get_layer("token_embedding").embeddings).T
        got = to_numpy(gpt(ids)[0])
    gap = float(np.abs(got - want).max())
    assert gap < 1e-5, (
        "as the attention of a small GPT-2 with the weights of keras-hub's GPT2Backbone, your layer gives "
        f"logits that differ from that model's by up to {gap:.3g}")
    return "GPT-2 with your attention = keras-hub's GPT2Backbone", got


def causal_check(layer_class, h, seed):
    """Changing the input at position 4 of 9 (B = 2, d_model = 12): the outputs at positions 0 to
    3 unchanged, every later one changed, no weight on a later position; the observation."""
    with ch08.warnings_ignored():
        mine = known_layer(layer_class, 12, h, seed)
        x = np.random.default_rng(seed).normal(size=(2, 9, 12)).astype("float32")
        changed = x.copy()
        changed[:, 4] += 3.0
        first, first_weights = arrays(*call_layer(f"h={h}", mine, x)[:2])
        second = arrays(call_layer(f"h={h}", mine, changed)[0])[0]
        before = float(np.abs(first - second)[:, :4].max())
        after = float(np.abs(first - second)[:, 4:].max(axis=-1).min())
        later = float(np.abs(np.triu(first_weights, 1)).max())
        return ch08.causal_verdict(h, before, after, later)


def cached_calls_match(layer, x, real, full, how, pieces):
    """The student's layer on x (B, L, d_model), left-padded as `real` (B, L) says, in calls of
    `pieces` new positions, each with the cache that the previous one returned and the padding mask
    of the positions so far, against `full` = NumPy (output, weights, k, v) of one call on all
    positions; the observation."""
    full_out, full_weights, full_k, full_v = full
    cache = None
    for start, end, what in ch08.cache_pieces(pieces, how):
        out, weights, cache = call_layer(what, layer, x[:, start:end], cache, real[:, :end])
        out, weights, keys, values = arrays(out, weights, cache[0], cache[1])
        ch08.assert_cache_shapes(what, (out.shape, weights.shape, keys.shape, values.shape), start, end)
        output_gap = max(float(np.abs(weights - full_weights[:, :, start:end, :end]).max()),
                         float(np.abs(out - full_out[:, start:end]).max()))
        cache_gap = max(float(np.abs(keys - full_k[:, :, :end]).max()),
                        float(np.abs(values - full_v[:, :, :end]).max()))
        ch08.assert_cache_gaps(what, output_gap, cache_gap)
    return f"cache, {how}", [out, weights, keys, values]


def cache_against_one_call(layer_class):
    """The key-value cache (B = 2, d_model = 12, h = 3; row 0 left-padded by 3): for every case of
    CACHE_CASES, the calls with a cache against one call on all 10 positions; the observations."""
    observations = []
    with ch08.warnings_ignored():
        mine = known_layer(layer_class, 12, 3, ch08.CACHE_SEED)
        x = np.random.default_rng(ch08.CACHE_SEED).normal(size=(2, 10, 12)).astype("float32")
        real = ch08.left_padded(ch08.CACHE_PADS, 10)                       # (B, L)
        full, full_weights, (full_k, full_v) = call_layer("all 10 positions at once", mine, x, None, real)
        full = arrays(full, full_weights, full_k, full_v)
        for how, pieces in ch08.CACHE_CASES:
            observations.append(cached_calls_match(mine, x, real, full, how, pieces))
    return observations


# ---------------------------------------------------------------- part 2
def filtered(filter_function, logits, parameter):
    """The student's filter on NumPy logits given as a tensor, back as NumPy; warnings ignored."""
    with ch08.warnings_ignored():
        return ops.convert_to_numpy(filter_function(ops.convert_to_tensor(logits), ch08.as_given(parameter)))


def top_k_kept(top_k_filter, rows, k):
    """top_k_filter on random logits `rows` = (B, V): exactly the k largest kept, unchanged, the
    others -inf; the observation."""
    logits = ch08.top_k_logits(rows, k)
    got = filtered(top_k_filter, logits, k)
    what = f"top_k_filter with B={rows[0]}, V={rows[1]}, k={ch08.shown(k)}"
    assert got.shape == rows, f"{what}: expected a tensor of shape {rows}, got {got.shape}"
    return what, ch08.kept_the_k_largest(what, got, logits, k)


def top_p_kept(top_p_filter, scale, mass, after_top_k):
    """top_p_filter on random logits (8, 40): each row's smallest set of most probable tokens that
    reaches p kept, unchanged; the observation."""
    logits = ch08.top_p_logits(scale, after_top_k)
    got = filtered(top_p_filter, logits, mass)
    what = ch08.top_p_label(scale, mass, after_top_k)
    assert got.shape == (8, 40), f"{what}: expected a tensor of shape (8, 40), got {got.shape}"
    return what, ch08.kept_the_nucleus(what, got, logits, mass)


# ---------------------------------------------------------------- part 3
def sampling_draws(sample_next, namespace):
    """sample_next's draws (ch08.sampling_draws) with the reference filters in the kernel's
    namespace; the observations."""
    with ch08.references_in(namespace, reference_parts("top_k_filter", "top_p_filter")):
        return ch08.sampling_draws(sample_next, ops.convert_to_tensor)


# ---------------------------------------------------------------- part 4
# The stops of ch08.GENERATE_CASES on small_gpt2(GENERATE_SEED) (ch08_pytorch's play the same roles on
# its model): 42 ends rows 2 and 0 after 1 and 5 tokens and never row 1 (8 tokens); 1 (seed 13) ends rows
# 1, 0 and 2 after 2, 5 and 6 tokens. CALLS_STOP (seed 9) ends the two rows of the calls test after 5 and
# 6 tokens.
GENERATE_STOPS = ({"stop_id": 42}, {"stop_id": 1, "seed": 13})
CALLS_STOP = {"stop_id": 4, "seed": 9}
_SMALL_GPT2 = {}


def small_gpt2(seed):
    """The course's GPT-2, small, with logits larger than at initialisation; built once per seed
    in a kernel: both hidden tests of part 4 use it (the calls test records shapes only), since
    building a Keras GPT-2 (it traces itself) takes longer than the generation it serves."""
    if seed not in _SMALL_GPT2:
        keras.utils.set_random_seed(seed)
        built = keras_gpt2.GPT2(vocab_size=60, max_len=40, d_model=16, num_heads=2, num_layers=1,
                                dropout=0.0)
        built.tokens.embeddings.assign(built.tokens.embeddings * 25)
        _SMALL_GPT2[seed] = built
    return _SMALL_GPT2[seed]


def reference(model):
    """reference(prompt, count, **settings): ch08's reference generation on the model, the whole
    sequence at every step."""
    def tokens(prompt, count, **settings):
        return ch08.reference_tokens(lambda sequence: model(sequence)[0][:, -1],
                                     ch08.reference_sample_next(to_numpy), prompt, count, **settings)
    return tokens


def generated_tokens(generate, namespace):
    """generate's tokens (ch08.generated_tokens) with the reference sample_next and filters in the
    kernel's namespace; the observations."""
    parts = reference_parts("top_k_filter", "top_p_filter", "sample_next")
    model = small_gpt2(ch08.GENERATE_SEED)
    with ch08.references_in(namespace, parts), ch08.warnings_ignored():
        return ch08.generated_tokens(generate, model, reference(model), GENERATE_STOPS)


def shape_of(token_ids):
    """The shape of a tensor or array, as a tuple of ints."""
    return tuple(int(size) for size in ops.shape(token_ids))


def model_calls(generate, namespace):
    """How generate calls the model, with and without the cache (ch08.calls_verdict), with the
    reference sample_next and filters in the kernel's namespace; the observations."""
    parts = reference_parts("top_k_filter", "top_p_filter", "sample_next")
    model = small_gpt2(ch08.GENERATE_SEED)
    with ch08.references_in(namespace, parts), ch08.warnings_ignored():
        calls, new_tokens = ch08.recorded_calls(generate, model, shape_of, reference(model), CALLS_STOP)
    return ch08.calls_verdict(calls, new_tokens)


# ---------------------------------------------------------------- part 5
def cache_gpt2(num_layers, d_model, num_heads, seed):
    """The course's GPT-2, small (vocabulary 30, max_len 16)."""
    keras.utils.set_random_seed(seed)
    return keras_gpt2.GPT2(ch08_measure.CACHE_VOCABULARY, ch08_measure.CACHE_MAX_LEN, d_model, num_heads,
                           num_layers, dropout=0.0)


def cache_size_measurement(measure, case):
    """measured_cache_entries on a course GPT-2 (ch08_measure.cache_size_measurement); the
    observation."""
    return ch08_measure.cache_size_measurement(measure, cache_gpt2, shape_of, case)
