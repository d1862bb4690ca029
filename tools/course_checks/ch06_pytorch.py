"""Chapter 6's checks for PyTorch: the encoder layer (post-LN, pre-LN, parallel) and the caching
decoder layer against torch.nn's, padding, the causal mask and the cache, dropout and where it sits,
decoder_masks against its definition, and the layers whose parameters part 5's measurement counts.
Beam search: ch06."""
import contextlib
import warnings

import numpy as np
import torch
from torch import nn

from attention_course.data import BOS_ID, PAD_ID

from . import ch06, ch06_measure
from .ch06 import LAYOUTS, padded_token_batches  # noqa: F401 (the layouts; the mask test's inputs)
from .ch06_measure import PARAMETER_COUNT_CASES, PARAMETER_MEASUREMENT_CASES  # noqa: F401

NORM_FIRST = (False, True)         # post-LN, then pre-LN


def reference_decoder_masks(target_ids, source_ids):
    """The masks of part 3's tests (lent as decoder_masks there: part 2 is graded alone), one
    example per row: (B, T), (B, S) id tensors -> (B, T, T) causal and no padding, (B, 1, S) no
    padding; boolean, True = allowed."""
    steps = target_ids.shape[1]
    lower = torch.ones(steps, steps).tril().bool()
    return lower[None] & (target_ids != PAD_ID)[:, None, :], (source_ids != PAD_ID)[:, None, :]


def reference_masks_until_end_of_cell(namespace):
    """Lend the kernel (`namespace`: its globals()) the reference decoder_masks and ignore
    warnings, until the hidden region at the end of the cell calls `.end()` on the result."""
    return ch06.until_end_of_cell(namespace, decoder_masks=reference_decoder_masks)


def copy_attention(mine, theirs):
    """Our query, key, value and output Linear layers -> torch's in_proj and out_proj."""
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.cat([mine.query.weight, mine.key.weight, mine.value.weight]))
        theirs.in_proj_bias.copy_(torch.cat([mine.query.bias, mine.key.bias, mine.value.bias]))
        theirs.out_proj.weight.copy_(mine.output_projection.weight)
        theirs.out_proj.bias.copy_(mine.output_projection.bias)


def copy_layer(mine, theirs, attentions, norms):
    """Our layer's attentions (pairs: our name, torch's) and feed-forward weights -> torch's layer;
    random layer-norm weights (our names, in torch's order norm1, norm2, ...) into both."""
    for ours_name, their_name in attentions:
        copy_attention(getattr(mine, ours_name), getattr(theirs, their_name))
    with torch.no_grad():
        theirs.linear1.weight.copy_(mine.feed_forward.hidden.weight)
        theirs.linear1.bias.copy_(mine.feed_forward.hidden.bias)
        theirs.linear2.weight.copy_(mine.feed_forward.projection.weight)
        theirs.linear2.bias.copy_(mine.feed_forward.projection.bias)
        for index, ours_name in enumerate(norms, start=1):
            norm = getattr(theirs, f"norm{index}")
            norm.weight.copy_(torch.randn_like(norm.weight) * 0.5 + 1)   # not the initial 1 and 0
            norm.bias.copy_(torch.randn_like(norm.bias) * 0.5)
            getattr(mine, ours_name).weight.copy_(norm.weight)
            getattr(mine, ours_name).bias.copy_(norm.bias)


@contextlib.contextmanager
def library_without_fastpath():
    """torch.nn's attention without its fast path (which zeroes padded outputs), warnings ignored."""
    torch.backends.mha.set_fastpath_enabled(False)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")   # a warning is no failure
            yield
    finally:
        torch.backends.mha.set_fastpath_enabled(True)


def encoder_against_library(EncoderLayer, norm_first, parallel):
    """The student's layer with its weights copied into torch.nn.TransformerEncoderLayer (random
    layer-norm weights) agrees on the real tokens of a padded batch; the parallel block agrees with
    x + the library layer's own two sublayers (its _sa_block and _ff_block, each after its norm),
    added. Returns (name, value)."""
    with library_without_fastpath():
        torch.manual_seed(21)
        mine = EncoderLayer(12, 3, 20, 0.0, norm_first=norm_first, parallel=parallel).eval()
        theirs = nn.TransformerEncoderLayer(12, 3, 20, 0.0, batch_first=True, norm_first=norm_first).eval()
        copy_layer(mine, theirs, [("self_attention", "self_attn")], ["attention_norm", "feed_forward_norm"])
        x = torch.randn(3, 6, 12)                                             # (B, S, d_model)
        real = torch.arange(6)[None] < torch.tensor([6, 4, 1])[:, None]       # (B, S)
        with torch.no_grad():
            got = mine(x, real[:, None, :])[0]
            if parallel:                             # both branches read x; their sum is added to x
                want = (x + theirs._sa_block(theirs.norm1(x), None, ~real)
                        + theirs._ff_block(theirs.norm2(x)))
            else:
                want = theirs(x, src_key_padding_mask=~real)
        gap = (got - want).abs()[real].max().item()
        library = ("x + the self-attention and the feed-forward network of "
                   "torch.nn.TransformerEncoderLayer, each after its norm" if parallel
                   else "torch.nn.TransformerEncoderLayer")
        assert gap < 1e-5, (
            f"with {ch06.layout_name(norm_first, parallel)}, your layer differs from {library} with "
            f"the same weights by up to {gap:.3g} on the real tokens: check the order of residual sum, "
            "dropout and layer norm, and what each sublayer reads")
        return f"encoder = torch.nn, {ch06.layout_name(norm_first, parallel)}", bool(gap < 1e-5)


def encoder_padding_ignored(EncoderLayer, norm_first, parallel):
    """Changing the input at padded positions changes no output at a real position.
    Returns (name, value)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        torch.manual_seed(31)
        layer = EncoderLayer(8, 4, 16, 0.0, norm_first=norm_first, parallel=parallel).eval()
        x = torch.randn(2, 7, 8)                                               # (B, S, d_model)
        real = torch.arange(7)[None] < torch.tensor([5, 2])[:, None]           # (B, S)
        other = x.clone()
        other[~real] = torch.randn(int((~real).sum()), 8) * 10                 # other padding
        with torch.no_grad():
            a, b = (layer(v, real[:, None, :])[0] for v in (x, other))
        gap = (a - b).abs()[real].max().item()
        return ch06.padding_verdict(gap, norm_first, parallel)


def encoder_dropout(EncoderLayer):
    """In each layout: with dropout=0.5, two calls in training mode differ and two in evaluation
    mode are equal; with dropout=0.0 both modes agree; and where dropout sits. Returns
    the observations (name, value)."""
    return ch06.dropout_observations(EncoderLayer, dropout_modes, dropout_placement, branch_masks)


def dropout_modes(EncoderLayer, norm_first, parallel):
    """Training mode drops (two calls differ), evaluation mode does not (two calls agree, and
    agree with training mode at dropout=0.0), in one layout. An observation (name, True)."""
    layout = ch06.layout_name(norm_first, parallel)
    torch.manual_seed(41)
    layer = EncoderLayer(8, 2, 16, 0.5, norm_first=norm_first, parallel=parallel)
    x = torch.randn(2, 4, 8)                                               # (B, S, d_model)
    with torch.no_grad():
        first, second = layer.train()(x)[0], layer(x)[0]
        third, fourth = layer.eval()(x)[0], layer(x)[0]
    assert (first - second).abs().max() > 1e-3, (
        f"{layout}: in training mode, dropout=0.5 should make two calls differ")
    assert torch.equal(third, fourth), (
        f"{layout}: in evaluation mode the layer should give the same output every time")
    quiet = EncoderLayer(8, 2, 16, 0.0, norm_first=norm_first, parallel=parallel)
    with torch.no_grad():
        train_out, eval_out = quiet.train()(x)[0], quiet.eval()(x)[0]
    assert torch.allclose(train_out, eval_out, atol=1e-6), (
        f"{layout}: with dropout=0.0, training and evaluation modes should agree")
    return (f"dropout only in training mode, {layout}", True)


def dropout_placement(EncoderLayer, norm_first, parallel):
    """Where dropout sits: with dropout=1.0 every dropped value is zero, so in training mode the
    layer reduces to its norms (post-LN) or to its input (pre-LN, parallel) when, and only when,
    dropout is on each sublayer's output before the residual sum. The weights, biases included,
    are random, so a dropout on a sublayer's input or on the attention weights leaves a bias behind.
    Returns the observation (ch06.placement_observation)."""
    torch.manual_seed(43)
    layer = EncoderLayer(8, 2, 16, 1.0, norm_first=norm_first, parallel=parallel).train()
    generator = torch.Generator().manual_seed(43)
    with torch.no_grad():
        for part in ch06.ENCODER_PARTS:
            for weight in getattr(layer, part).parameters():
                weight.copy_(torch.randn(weight.shape, generator=generator))
        x = torch.randn(2, 5, 8, generator=generator)                        # (B, S, d_model)
        out = layer(x)[0]
        norms = layer.feed_forward_norm(layer.attention_norm(x))
    ch06.placement_verdict((out - x).abs().max().item(), (out - norms).abs().max().item(),
                           norm_first, parallel)
    return ch06.placement_observation(out, norm_first, parallel)


def branch_masks(EncoderLayer):
    """The parallel block at dropout=0.5 in training, the feed-forward network's inner dropout
    off: each branch is dropped on its own mask (ch06.branch_masks_verdict). Returns (name, value)."""
    torch.manual_seed(47)
    layer = EncoderLayer(8, 2, 16, 0.5, norm_first=True, parallel=True).train()
    for module in layer.feed_forward.modules():      # the hidden activations' dropout: off
        if isinstance(module, nn.Dropout):
            module.p = 0.0
    x = torch.randn(2, 5, 8)                                                  # (B, S, d_model)
    with torch.no_grad():
        out = layer(x)[0]
        normed = layer.attention_norm(x)
        attention = layer.self_attention(normed, normed)[0]
        feed_forward = layer.feed_forward(layer.feed_forward_norm(x))
    return ch06.branch_masks_verdict((out - x).numpy(), attention.numpy(), feed_forward.numpy())


def masks_against_definition(decoder_masks, B, T, S, tgt, src, tgt_segments, src_segments):
    """decoder_masks on target ids `tgt` (B, T) and source ids `src` (B, S) (NumPy, given as
    tensors), without
    segments and with them (ch06.masks_with_and_without_segments). Returns two observations."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        as_given = torch.from_numpy                                             # tensors
        to_numpy = (lambda mask: mask.numpy())
        return ch06.masks_with_and_without_segments(
            decoder_masks, as_given, to_numpy, B, T, S, tgt, src, tgt_segments, src_segments)


def decoder_against_library(DecoderLayer, norm_first):
    """The student's caching layer with its weights copied into torch.nn.TransformerDecoderLayer
    (random layer-norm weights) agrees on the real tokens of padded batches, on a call that takes
    the keys and values of memory from the cache (through_cache). Returns (name, value)."""
    with library_without_fastpath():
        torch.manual_seed(61)
        mine = DecoderLayer(12, 4, 24, 0.0, norm_first).eval()
        theirs = nn.TransformerDecoderLayer(12, 4, 24, 0.0, batch_first=True, norm_first=norm_first).eval()
        copy_layer(mine, theirs, [("self_attention", "self_attn"), ("cross_attention", "multihead_attn")],
                   ["self_attention_norm", "cross_attention_norm", "feed_forward_norm"])
        tgt = torch.tensor([[BOS_ID, 4, 5, 6, 7], [BOS_ID, 4, 5, PAD_ID, PAD_ID],
                            [BOS_ID, PAD_ID, PAD_ID, PAD_ID, PAD_ID]])                    # (B, T)
        src = torch.tensor([[4, 5, 6, 7, 8, 9], [4, 5, 6, PAD_ID, PAD_ID, PAD_ID],
                            [4, PAD_ID, PAD_ID, PAD_ID, PAD_ID, PAD_ID]])                 # (B, S)
        self_mask, cross_mask = reference_decoder_masks(tgt, src)
        y, memory = torch.randn(3, 5, 12), torch.randn(3, 6, 12)
        with torch.no_grad():
            got = ch06.through_cache(mine, y, memory, self_mask, cross_mask)[0]
            want = theirs(y, memory, tgt_mask=~torch.ones(5, 5).tril().bool(),
                          tgt_key_padding_mask=tgt == PAD_ID, memory_key_padding_mask=src == PAD_ID)
        real = tgt != PAD_ID
        gap = (got - want).abs()[real].max().item()
        assert gap < 1e-5, (
            f"with norm_first={norm_first}, your layer differs from torch.nn.TransformerDecoderLayer with "
            f"the same weights by up to {gap:.3g}: check the three sublayers' order, the queries and keys "
            "of the cross-attention (queries from the decoder, keys and values from memory) and where the "
            "norms go")
        return f"decoder = torch.nn, norm_first={norm_first}", bool(gap < 1e-5)


def decoder_is_causal(DecoderLayer, norm_first):
    """Through two stacked caching layers (each called through its cache), changing the target
    input at position 3 changes no output at positions 0 to 2, and does change position 3.
    Returns (name, value)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        torch.manual_seed(71)
        stack = [DecoderLayer(8, 2, 16, 0.0, norm_first).eval() for _ in range(2)]
        tgt = torch.tensor([[BOS_ID, 4, 5, 6, 7, 8]])                          # (1, T)
        src = torch.tensor([[4, 5, 6]])                                        # (1, S)
        self_mask, cross_mask = reference_decoder_masks(tgt, src)
        y, memory = torch.randn(1, 6, 8), torch.randn(1, 3, 8)
        changed = y.clone()
        changed[0, 3] += 5.0
        outs = []
        with torch.no_grad():
            for inp in (y, changed):
                for layer in stack:
                    inp = ch06.through_cache(layer, inp, memory, self_mask, cross_mask)[0]
                outs.append(inp)
        before = (outs[0] - outs[1])[0, :3].abs().max().item()
        at = (outs[0] - outs[1])[0, 3].abs().max().item()
        assert before < 1e-6 and at > 1e-3, (
            f"with norm_first={norm_first}: changing position 3 changed positions 0-2 by {before:.3g} "
            f"(should be 0) and position 3 by {at:.3g} (should change): pass the self-attention mask to "
            "the self-attention")
        return f"causal, norm_first={norm_first}", bool(before < 1e-6 and at > 1e-3)


def projected_heads(linear, memory, heads):
    """memory (B, S, d_model) through one projection, as heads (B, h, S, d_k)."""
    batch, length, width = memory.shape
    return linear(memory).reshape(batch, length, heads, width // heads).permute(0, 2, 1, 3)


def decoder_cache_steps(CachedDecoderLayer, norm_first):
    """Decoding step by step (prefixes of length 1 to T, each call with the cache of one pass over
    the target and memory=None) gives, at each step's last position, what that pass gives; the
    cache holds memory's keys and values, projected and split into heads (B, h, S, d_k).
    Returns (name, value)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        torch.manual_seed(65)
        layer = CachedDecoderLayer(8, 2, 16, 0.0, norm_first).eval()
        tgt = torch.tensor([[BOS_ID, 4, 5, 6, 7], [BOS_ID, 4, 5, PAD_ID, PAD_ID]])      # (B, T)
        src = torch.tensor([[4, 5, 6], [4, 5, PAD_ID]])                                 # (B, S)
        self_mask, cross_mask = reference_decoder_masks(tgt, src)
        y, memory = torch.randn(2, 5, 8), torch.randn(2, 3, 8)
        with torch.no_grad():
            whole = ch06.four_results(layer(y, memory, self_mask, cross_mask),
                                 "layer(y, memory, self_attention_mask, cross_attention_mask)")
            cache = whole[3]
            assert isinstance(cache, (tuple, list)) and len(cache) == 2, (
                "memory_cache should be a pair (keys, values)")
            keys, values = cache
            assert tuple(keys.shape) == tuple(values.shape) == (2, 2, 3, 4), (
                f"the cached keys and values should each be (B, h, S, d_k) = (2, 2, 3, 4), got "
                f"{tuple(keys.shape)} and {tuple(values.shape)}")
            want = [projected_heads(getattr(layer.cross_attention, name), memory, 2)
                    for name in ("key", "value")]
            cached = max((keys - want[0]).abs().max().item(), (values - want[1]).abs().max().item())
            assert cached < 1e-5, (
                "the cache should hold memory through cross_attention.key and cross_attention.value, "
                f"split into heads; it is off by {cached:.3g}")
            gaps = []
            for steps in range(1, 6):
                step = ch06.four_results(layer(y[:, :steps], None, self_mask[:, :steps, :steps],
                                          cross_mask, memory_cache=cache),
                                    "layer(y, None, ..., memory_cache=cache)")
                gaps.append((step[0][:, -1] - whole[0][:, steps - 1]).abs().max().item())
        assert max(gaps) < 1e-5, (
            f"with norm_first={norm_first}, decoding step by step with the cache (memory=None) "
            f"differs from one pass over the whole target by up to {max(gaps):.3g}")
        return f"cached steps = one pass, norm_first={norm_first}", bool(max(gaps) < 1e-5)


def measurement_layer(which, d_model, num_heads, d_ff):
    """A built layer for part 5's measurement, for a case of PARAMETER_MEASUREMENT_CASES, and the
    number of trainable numbers it holds."""
    from attention_course.torch_transformer import FeedForward

    torch.manual_seed(d_model)
    if which == ch06_measure.FROZEN:
        layer = FeedForward(d_model, d_ff, 0.0)
        layer.hidden.requires_grad_(False)
    elif which == ch06_measure.ATTENTION_NO_BIAS:
        layer = nn.MultiheadAttention(d_model, num_heads, bias=False, batch_first=True)
    else:
        kind = (nn.TransformerDecoderLayer if which == ch06_measure.DECODER
                else nn.TransformerEncoderLayer)
        layer = kind(d_model, num_heads, d_ff, 0.0, batch_first=True)
    trains = ch06_measure.total_size(tensor.shape for tensor in layer.parameters()
                                     if tensor.requires_grad)
    if which in (ch06_measure.ENCODER, ch06_measure.DECODER):   # the library's: the formula
        assert trains == ch06_measure.parameter_count(d_model, d_ff, which == ch06_measure.DECODER)
    return layer, trains


def parameter_count_measurement(measure, which, d_model, num_heads, d_ff):
    """measured_parameter_count on a layer of a case of PARAMETER_MEASUREMENT_CASES (ch06_measure
    checks it); the observation."""
    layer, trains = measurement_layer(which, d_model, num_heads, d_ff)
    return ch06_measure.parameter_count_measurement(measure, layer, trains, which, d_model,
                                                    num_heads, d_ff)


def parameter_count_prediction(predict, d_model, num_heads, d_ff, decoder):
    """predicted_parameter_count at a case of PARAMETER_COUNT_CASES (ch06_measure checks it)."""
    return ch06_measure.parameter_count_prediction(predict, d_model, num_heads, d_ff, decoder)
