"""Chapter 08 (GPT-2), PyTorch: the checks of 08-gpt2-pytorch's hidden tests."""
import contextlib
import io

import numpy as np
import torch
from torch import nn

from attention_course import torch_gpt2
from attention_course.grading.hide import course_version

from . import ch08
from .ch08 import CAUSAL_CASES, LIBRARY_CASES, TOP_K_CASES, TOP_P_CASES  # noqa: F401 (the cells' cases)
from . import ch08_measure
from .ch08_measure import CACHE_MEASUREMENT_CASES, CACHE_SIZE_CASES  # noqa: F401 (part 5's cases)
from .ch08_measure import cache_size_prediction  # noqa: F401 (framework-free, called by the cells)
from . import ch08_window
from .ch08_window import WINDOW_CASES  # noqa: F401 (part 5's cases)
from .reference import quietly


def reference_parts(*names):
    """The reference versions of the named functions, by name: the course's filters
    (attention_course.torch_gpt2; in the grading sandbox, the copies it keeps for these checks:
    attention_course.grading.hide), and a sample_next with the repetition penalty (ch08's)."""
    return {name: (ch08.reference_sample_next(as_numpy) if name == "sample_next"
                   else course_version(torch_gpt2, name)) for name in names}


def as_numpy(tensor):
    """A tensor (or an array) as a NumPy array."""
    return tensor.detach().cpu().numpy() if isinstance(tensor, torch.Tensor) else np.asarray(tensor)


def graded_cell(namespace, *names):
    """For a visible test cell: the reference versions of `names` in the kernel's namespace, and
    warnings ignored, until the returned object's restore()."""
    return ch08.GradedCell(namespace, reference_parts(*names))


# ---------------------------------------------------------------- part 1
def known_layer(layer_class, d_model, num_heads, seed, *more):
    """The student's layer with known weights, in evaluation mode (`more`: the constructor's
    further arguments)."""
    made = layer_class(d_model, num_heads, *more)
    draw = np.random.default_rng(seed)
    with torch.no_grad():
        for name in ("query", "key", "value", "output_projection"):
            linear = getattr(made, name)
            linear.weight.copy_(torch.from_numpy(draw.normal(0.0, d_model ** -0.5, (d_model, d_model))
                                                 .astype("float32")))
            linear.bias.copy_(torch.from_numpy(draw.normal(0.0, 0.1, d_model).astype("float32")))
    return made.eval()


def call_layer(what, layer, *args):
    """Call the student's layer without gradients; (output, weights, (k, v)) or a failure that says
    what came back."""
    with torch.no_grad():
        try:
            result = layer(*args)
        except Exception as error:
            raise AssertionError(f"{what}: your layer raised {type(error).__name__}: {error}") from None
    assert (isinstance(result, tuple) and len(result) == 3
            and isinstance(result[2], tuple) and len(result[2]) == 2), (
        f"{what}: forward should return (output, weights, (k, v))")
    return result


def library_attention(layer, num_heads, x, allowed):
    """nn.MultiheadAttention with the weights of the student's `layer` and the mask `allowed`
    (B, L, L), True where attention is allowed, on x (B, L, d_model): (output (B, L, d_model),
    weights per head (B, h, L, L))."""
    d_model = x.shape[-1]
    library = nn.MultiheadAttention(d_model, num_heads, batch_first=True).eval()
    with torch.no_grad():
        library.in_proj_weight.copy_(torch.cat([layer.query.weight, layer.key.weight, layer.value.weight]))
        library.in_proj_bias.copy_(torch.cat([layer.query.bias, layer.key.bias, layer.value.bias]))
        library.out_proj.weight.copy_(layer.output_projection.weight)
        library.out_proj.bias.copy_(layer.output_projection.bias)
        blocked = torch.from_numpy(~np.repeat(allowed, num_heads, axis=0))  # (B h, L, L): True = blocked
        return library(x, x, x, attn_mask=blocked, average_attn_weights=False)


def attention_against_library(layer_class, B, L, d_model, h, seed, pads):
    """The student's layer with known weights on a left-padded batch (`pads` pads at the start of
    each row) against nn.MultiheadAttention with the same weights and the causal and padding masks
    combined: the same outputs and weights; the observation."""
    what = f"B={B}, L={L}, d_model={d_model}, h={h}, pads {list(pads)}"
    real = ch08.left_padded(pads, L)                                       # (B, L)
    with ch08.warnings_ignored():
        mine = known_layer(layer_class, d_model, h, seed)
        x = torch.from_numpy(np.random.default_rng(seed + 100).normal(size=(B, L, d_model))
                             .astype("float32"))                           # (B, L, d_model)
        want, want_weights = library_attention(mine, h, x, ch08.allowed_keys(real, L))
        got, got_weights, _ = call_layer(what, mine, x, None, torch.from_numpy(real))
    assert tuple(got.shape) == (B, L, d_model) and tuple(got_weights.shape) == (B, h, L, L), (
        f"{what}: expected an output (B, L, d_model) = {(B, L, d_model)} and weights (B, h, L, L) = "
        f"{(B, h, L, L)}; got {tuple(got.shape)} and {tuple(got_weights.shape)}")
    gap = (got_weights - want_weights).abs().max().item()
    ch08.padding_verdict(what, got_weights.numpy(), real)
    assert gap < 1e-5, (
        f"{what}: your weights differ from those of nn.MultiheadAttention with the causal and padding "
        f"masks (the same weights loaded) by up to {gap:.3g}: check the mask (position i sees the real "
        "tokens j <= i, a pad itself only), the heads, and the scaling by sqrt(d_k)")
    gap = (got - want).abs().max().item()
    assert gap < 1e-5, (
        f"{what}: the weights are right, but the output differs from nn.MultiheadAttention's by up to "
        f"{gap:.3g}: merge the heads, then apply the output projection")
    return f"causal attention = nn.MultiheadAttention, {what}", [got, got_weights]


def library_gpt2():
    """A small transformers GPT2LMHeadModel (vocabulary 40, d_model 16, 4 heads, 2 layers) with
    random weights, not the initial ones, in evaluation mode."""
    with ch08.warnings_ignored(), contextlib.redirect_stderr(io.StringIO()):
        import transformers
        transformers.logging.set_verbosity_error()
        torch.manual_seed(ch08.GPT2_WEIGHTS_SEED)
        model = transformers.GPT2LMHeadModel(transformers.GPT2Config(
            vocab_size=40, n_positions=16, n_embd=16, n_layer=2, n_head=4, bos_token_id=0, eos_token_id=0,
            attn_implementation="eager")).eval()
        with torch.no_grad():
            for name, weight in model.named_parameters():
                norm_scale = ".ln_" in name and name.endswith(".weight")
                weight.copy_(torch.randn_like(weight) * (0.2 if norm_scale else 0.3)
                             + (1.0 if norm_scale else 0.0))
    return model


def gpt2_against_transformers(layer_class):
    """The student's layer as the attention of both blocks of the course's GPT-2 with the weights of
    library_gpt2(): the same logits as that model; the observation."""
    library = library_gpt2()
    weights = {key: value.detach().numpy() for key, value in library.state_dict().items()}
    ids = torch.from_numpy(np.random.default_rng(ch08.GPT2_IDS_SEED).integers(0, 40, size=(3, 14)))
    with ch08.warnings_ignored():
        gpt = torch_gpt2.load_hf_weights(torch_gpt2.GPT2(40, 16, 16, 4, 2, dropout=0.0), weights).eval()
        for block in gpt.blocks:
            yours = layer_class(16, 4)
            yours.load_state_dict(block.attention.state_dict())
            block.attention = yours.eval()
        call_layer("in GPT-2", gpt.blocks[0].attention, torch.randn(3, 14, 16))
        with torch.no_grad():
            want = library(ids).logits
            got = gpt(ids)[0]
    gap = (got - want).abs().max().item()
    assert gap < 1e-5, (
        "as the attention of a small GPT-2 with the weights of transformers' GPT2LMHeadModel, your layer "
        f"gives logits that differ from that model's by up to {gap:.3g}")
    return "GPT-2 with your attention = transformers' GPT2LMHeadModel", got


def causal_check(layer_class, h, seed):
    """Changing the input at position 4 of 9 (B = 2, d_model = 12): the outputs at positions 0 to
    3 unchanged, every later one changed, no weight on a later position; the observation."""
    with ch08.warnings_ignored():
        mine = known_layer(layer_class, 12, h, seed)
        x = torch.from_numpy(np.random.default_rng(seed).normal(size=(2, 9, 12)).astype("float32"))
        changed = x.clone()
        changed[:, 4] += 3.0
        first, first_weights, _ = call_layer(f"h={h}", mine, x)
        second = call_layer(f"h={h}", mine, changed)[0]
        before = (first - second)[:, :4].abs().max().item()
        after = (first - second)[:, 4:].abs().amax(dim=-1).min().item()
        later = first_weights.triu(1).abs().max().item()
        return ch08.causal_verdict(h, before, after, later)


def cached_calls_match(layer, x, real, full, how, pieces):
    """The student's layer on x (B, L, d_model), left-padded as `real` (B, L) says, in calls of
    `pieces` new positions, each with the cache that the previous one returned and the padding mask
    of the positions so far, against `full` = (output, weights, k, v) of one call on all positions;
    the observation."""
    full_out, full_weights, full_k, full_v = full
    cache = None
    for start, end, what in ch08.cache_pieces(pieces, how):
        out, weights, cache = call_layer(what, layer, x[:, start:end], cache, real[:, :end])
        shapes = (tuple(out.shape), tuple(weights.shape), tuple(cache[0].shape), tuple(cache[1].shape))
        ch08.assert_cache_shapes(what, shapes, start, end)
        output_gap = max((weights - full_weights[:, :, start:end, :end]).abs().max().item(),
                         (out - full_out[:, start:end]).abs().max().item())
        cache_gap = max((cache[0] - full_k[:, :, :end]).abs().max().item(),
                        (cache[1] - full_v[:, :, :end]).abs().max().item())
        ch08.assert_cache_gaps(what, output_gap, cache_gap)
    return f"cache, {how}", [out, weights, cache[0], cache[1]]


def cache_against_one_call(layer_class):
    """The key-value cache (B = 2, d_model = 12, h = 3; row 0 left-padded by 3): for every case of
    CACHE_CASES, the calls with a cache against one call on all 10 positions; the observations."""
    observations = []
    with ch08.warnings_ignored():
        mine = known_layer(layer_class, 12, 3, ch08.CACHE_SEED)
        x = torch.from_numpy(np.random.default_rng(ch08.CACHE_SEED).normal(size=(2, 10, 12))
                             .astype("float32"))                           # (B, L, d_model)
        real = torch.from_numpy(ch08.left_padded(ch08.CACHE_PADS, 10))   # (B, L)
        full, full_weights, (full_k, full_v) = call_layer("all 10 positions at once", mine, x, None, real)
        for how, pieces in ch08.CACHE_CASES:
            full_call = (full, full_weights, full_k, full_v)
            observations.append(cached_calls_match(mine, x, real, full_call, how, pieces))
    return observations


# ---------------------------------------------------------------- part 5, the variation
def window_maker(layer_class):
    """make(what, d_model, h, window, seed) for ch08_window's checks: the student's
    SlidingWindowAttention(d_model, h, window) with known weights, and those weights as NumPy
    {name: (W, b)} for x @ W + b; it returns call(x, cache) -> NumPy (output, weights, k, v) and the
    cache to pass on."""
    def make(what, d_model, num_heads, window, seed):
        try:
            layer = known_layer(layer_class, d_model, num_heads, seed, window)
        except Exception as error:
            raise AssertionError(f"{what}: SlidingWindowAttention(d_model, num_heads, window) raised "
                                 f"{type(error).__name__}: {error}") from None
        weights = {name: (getattr(layer, name).weight.detach().numpy().T,
                          getattr(layer, name).bias.detach().numpy())
                   for name in ("query", "key", "value", "output_projection")}

        def call(x, cache):
            out, attention, (k, v) = call_layer(what, layer, torch.from_numpy(x), cache)
            return out.numpy(), attention.numpy(), k.numpy(), v.numpy(), (k, v)
        return call, weights
    return make


# The cells' checks: window_against_reference(layer_class, *case) and rolling_cache(layer_class).
window_against_reference, rolling_cache = ch08_window.checks_for(window_maker)


# ---------------------------------------------------------------- part 2
def top_k_kept(top_k_filter, rows, k):
    """top_k_filter on random logits `rows` = (B, V): exactly the k largest kept, unchanged, the
    others -inf, the input left as it was; the observation."""
    logits = ch08.top_k_logits(rows, k)
    given = torch.from_numpy(logits.copy())
    got = quietly(top_k_filter, given, ch08.as_given(k))
    what = f"top_k_filter with B={rows[0]}, V={rows[1]}, k={ch08.shown(k)}"
    assert isinstance(got, torch.Tensor) and tuple(got.shape) == rows, (
        f"{what}: expected a tensor of shape {rows}, got {type(got).__name__} "
        f"{tuple(getattr(got, 'shape', ()))}")
    finite = ch08.kept_the_k_largest(what, got.numpy(), logits, k)
    assert np.array_equal(given.numpy(), logits), f"{what}: the input logits were changed in place"
    return what, finite


def top_p_kept(top_p_filter, scale, mass, after_top_k):
    """top_p_filter on random logits (8, 40): each row's smallest set of most probable tokens that
    reaches p kept, unchanged, the input left as it was; the observation."""
    logits = ch08.top_p_logits(scale, after_top_k)
    given = torch.from_numpy(logits.copy())
    got = quietly(top_p_filter, given, ch08.as_given(mass))
    what = ch08.top_p_label(scale, mass, after_top_k)
    assert isinstance(got, torch.Tensor) and tuple(got.shape) == (8, 40), (
        f"{what}: expected a tensor of shape (8, 40), got {type(got).__name__} "
        f"{tuple(getattr(got, 'shape', ()))}")
    finite = ch08.kept_the_nucleus(what, got.numpy(), logits, mass)
    assert np.array_equal(given.numpy(), logits), f"{what}: the input logits were changed in place"
    return what, finite


# ---------------------------------------------------------------- part 3
def sampling_draws(sample_next, namespace):
    """sample_next's draws (ch08.sampling_draws) with the reference filters in the kernel's
    namespace; the observations."""
    with ch08.references_in(namespace, reference_parts("top_k_filter", "top_p_filter")):
        return ch08.sampling_draws(sample_next, torch.from_numpy)


# ---------------------------------------------------------------- part 4
# The stops of ch08.GENERATE_CASES on small_gpt2(GENERATE_SEED): 22 ends rows 2 and 0 after 1 and 2
# tokens and never row 1 (8 tokens); 13 (seed 22) ends rows 1, 0 and 2 after 1, 4 and 6 tokens. CALLS_STOP
# on small_gpt2(CALLS_SEED) ends the two rows after 3 and 6 tokens.
GENERATE_STOPS = ({"stop_id": 22}, {"stop_id": 13, "seed": 22})
CALLS_STOP = {"stop_id": 40, "seed": 1}


def small_gpt2(seed):
    """The course's GPT-2, small, with logits larger than at initialisation."""
    torch.manual_seed(seed)
    built = torch_gpt2.GPT2(vocab_size=60, max_len=40, d_model=16, num_heads=2, num_layers=1,
                            dropout=0.0).eval()
    with torch.no_grad():
        built.tokens.weight.mul_(25)
    return built


def reference(model):
    """reference(prompt, count, **settings): ch08's reference generation on the model, the whole
    sequence at every step."""
    def last_logits(sequence):
        with torch.no_grad():
            return model(torch.from_numpy(sequence))[0][:, -1]

    def tokens(prompt, count, **settings):
        return ch08.reference_tokens(last_logits, ch08.reference_sample_next(as_numpy), prompt, count,
                                     **settings)
    return tokens


def generated_tokens(generate, namespace):
    """generate's tokens (ch08.generated_tokens) with the reference sample_next and filters in the
    kernel's namespace; the observations."""
    parts = reference_parts("top_k_filter", "top_p_filter", "sample_next")
    model = small_gpt2(ch08.GENERATE_SEED)
    with ch08.references_in(namespace, parts), ch08.warnings_ignored():
        return ch08.generated_tokens(generate, model, reference(model), GENERATE_STOPS)


def model_calls(generate, namespace):
    """How generate calls the model, with and without the cache (ch08.calls_verdict), with the
    reference sample_next and filters in the kernel's namespace; the observations."""
    parts = reference_parts("top_k_filter", "top_p_filter", "sample_next")
    model = small_gpt2(ch08.CALLS_SEED)
    with ch08.references_in(namespace, parts), ch08.warnings_ignored():
        calls, new_tokens = ch08.recorded_calls(generate, model, lambda token_ids: tuple(token_ids.shape),
                                                reference(model), CALLS_STOP)
    return ch08.calls_verdict(calls, new_tokens)


# ---------------------------------------------------------------- part 5
def cache_gpt2(num_layers, d_model, num_heads, seed):
    """The course's GPT-2, small (vocabulary 30, max_len 16), in evaluation mode."""
    torch.manual_seed(seed)
    return torch_gpt2.GPT2(ch08_measure.CACHE_VOCABULARY, ch08_measure.CACHE_MAX_LEN, d_model, num_heads,
                           num_layers, dropout=0.0).eval()


def cache_size_measurement(measure, case):
    """measured_cache_entries on a course GPT-2 (ch08_measure.cache_size_measurement), without
    gradients; the observation."""
    with torch.no_grad():
        return ch08_measure.cache_size_measurement(measure, cache_gpt2, torch_shape, case)


def torch_shape(token_ids):
    """The shape of a tensor, as a tuple of ints."""
    return tuple(token_ids.shape)
