"""Chapter 6's Transformer against the library layers, the other framework and its masks.

- our PyTorch EncoderLayer / DecoderLayer equal torch.nn.TransformerEncoderLayer /
  TransformerDecoderLayer with copied weights (post-LN and pre-LN, padding and causal masks);
- our Keras EncoderLayer / DecoderLayer equal keras-hub's TransformerEncoder /
  TransformerDecoder with copied weights (normalize_first False and True);
- the Keras and PyTorch Transformers agree with copied weights (logits, weights, greedy
  and beam decodes), with and without weight tying, post-LN and pre-LN;
- masks: a later target token never changes an earlier output, padding (source or target)
  never changes a real output;
- beam search: with a beam wide enough to keep every prefix it finds the exhaustive
  search's best sequence; with a beam of 1 it is greedy decoding; the returned beams are
  sorted by their length-normalised score.
"""
import itertools
import warnings

import numpy as np
import pytest

from attention_course import common, convert  # first: quiet TensorFlow, Keras on TensorFlow

import keras  # noqa: E402
import keras_hub  # noqa: E402
import torch  # noqa: E402
from attention_course import keras_transformer, torch_transformer  # noqa: E402
from torch_reference import copy_into_torch_mha  # noqa: E402
from attention_course.data import BOS_ID, EOS_ID, PAD_ID  # noqa: E402

B, S, T, D, H, FF = 3, 7, 5, 16, 4, 32
ATOL = 2e-5
SRC_LENGTHS = np.array([7, 4, 2])
TGT_LENGTHS = np.array([5, 3, 1])


def to_numpy(x):
    return x.detach().numpy() if isinstance(x, torch.Tensor) else keras.ops.convert_to_numpy(x)


def sequences(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(B, S, D)).astype("float32")              # encoder input / memory
    y = rng.normal(size=(B, T, D)).astype("float32")              # decoder input
    src_real = np.arange(S)[None] < SRC_LENGTHS[:, None]          # (B, S) True = real
    tgt_real = np.arange(T)[None] < TGT_LENGTHS[:, None]          # (B, T)
    return x, y, src_real, tgt_real


def tokens(seed=0, vocab=(11, 9)):
    rng = np.random.default_rng(seed)
    src = rng.integers(4, vocab[0], size=(B, S))
    tgt = rng.integers(4, vocab[1], size=(B, T))
    src[np.arange(S)[None] >= SRC_LENGTHS[:, None]] = PAD_ID
    tgt[np.arange(T)[None] >= TGT_LENGTHS[:, None]] = PAD_ID
    tgt[:, 0] = BOS_ID
    return src, tgt


# --- PyTorch against torch.nn -------------------------------------------------------------

def copy_into_torch_layer(ours, library, norms):
    """Our layer's weights into an nn.Transformer*Layer (norms: ours, in its order)."""
    with torch.no_grad():
        library.linear1.load_state_dict(ours.feed_forward.hidden.state_dict())
        library.linear2.load_state_dict(ours.feed_forward.projection.state_dict())
        for i, norm in enumerate(norms, start=1):
            getattr(library, f"norm{i}").load_state_dict(norm.state_dict())


def randomise_norms(module, seed):
    """Layer norms start at 1 and 0; give them other values so the copy is tested."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for norm in (m for m in module.modules() if isinstance(m, torch.nn.LayerNorm)):
            norm.weight.copy_(1 + 0.1 * torch.randn(norm.weight.shape, generator=generator))
            norm.bias.copy_(0.1 * torch.randn(norm.bias.shape, generator=generator))


@pytest.fixture(autouse=True, scope="module")
def no_fast_path():
    """nn.Transformer*Layer's inference fast path returns zeros at padded positions."""
    torch.backends.mha.set_fastpath_enabled(False)
    yield
    torch.backends.mha.set_fastpath_enabled(True)


@pytest.mark.parametrize("norm_first", [False, True], ids=["post-LN", "pre-LN"])
def test_torch_encoder_layer_matches_torch_nn(norm_first):
    common.set_seed(0)
    ours = torch_transformer.EncoderLayer(D, H, FF, dropout=0.0, norm_first=norm_first).eval()
    randomise_norms(ours, 1)
    library = torch.nn.TransformerEncoderLayer(D, H, FF, dropout=0.0, batch_first=True,
                                               norm_first=norm_first).eval()
    copy_into_torch_mha(ours.self_attention, library.self_attn)
    copy_into_torch_layer(ours, library, [ours.attention_norm, ours.feed_forward_norm])
    x, _, src_real, _ = sequences()
    with torch.no_grad():
        mine, weights = ours(torch.as_tensor(x), torch.as_tensor(src_real)[:, None, :])
        theirs = library(torch.as_tensor(x), src_key_padding_mask=~torch.as_tensor(src_real))
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), atol=ATOL)
    assert weights.shape == (B, H, S, S)
    assert np.all(weights.numpy()[~np.broadcast_to(src_real[:, None, None], weights.shape)] == 0)


@pytest.mark.parametrize("norm_first", [False, True], ids=["post-LN", "pre-LN"])
def test_torch_decoder_layer_matches_torch_nn(norm_first):
    common.set_seed(0)
    ours = torch_transformer.DecoderLayer(D, H, FF, dropout=0.0, norm_first=norm_first).eval()
    randomise_norms(ours, 2)
    library = torch.nn.TransformerDecoderLayer(D, H, FF, dropout=0.0, batch_first=True,
                                               norm_first=norm_first).eval()
    copy_into_torch_mha(ours.self_attention, library.self_attn)
    copy_into_torch_mha(ours.cross_attention, library.multihead_attn)
    copy_into_torch_layer(ours, library, [ours.self_attention_norm, ours.cross_attention_norm,
                                          ours.feed_forward_norm])
    memory, y, src_real, tgt_real = sequences(1)
    causal = np.tril(np.ones((T, T), dtype=bool))
    self_mask = causal[None] & tgt_real[:, None, :]                        # (B, T, T)
    with torch.no_grad():
        mine, self_weights, cross_weights = ours(
            torch.as_tensor(y), torch.as_tensor(memory), torch.as_tensor(self_mask),
            torch.as_tensor(src_real)[:, None, :])
        theirs = library(torch.as_tensor(y), torch.as_tensor(memory),
                         tgt_mask=~torch.as_tensor(causal),      # torch: True = blocked
                         tgt_key_padding_mask=~torch.as_tensor(tgt_real),
                         memory_key_padding_mask=~torch.as_tensor(src_real))
    np.testing.assert_allclose(mine.numpy(), theirs.numpy(), atol=ATOL)
    assert self_weights.shape == (B, H, T, T) and cross_weights.shape == (B, H, T, S)
    assert np.all(np.triu(self_weights.numpy(), k=1) == 0)               # no future
    assert np.all(cross_weights.numpy()[~np.broadcast_to(src_real[:, None, None],
                                                           cross_weights.shape)] == 0)


# --- Keras against keras-hub --------------------------------------------------------------

def copy_into_keras_mha(ours, library):
    """Our Keras MultiHeadAttention (Dense d_model -> d_model) into keras' per-head one."""
    d_k = D // H
    for mine, theirs in ((ours.query, library._query_dense), (ours.key, library._key_dense),
                         (ours.value, library._value_dense)):
        theirs.kernel.assign(keras.ops.reshape(mine.kernel, (D, H, d_k)))
        theirs.bias.assign(keras.ops.reshape(mine.bias, (H, d_k)))
    library._output_dense.kernel.assign(
        keras.ops.reshape(ours.output_projection.kernel, (H, d_k, D)))
    library._output_dense.bias.assign(ours.output_projection.bias)


def copy_norm(mine, theirs):
    theirs.gamma.assign(mine.gamma)
    theirs.beta.assign(mine.beta)


def randomise_keras_norms(layer, seed):
    rng = np.random.default_rng(seed)
    norms = [x for x in layer._flatten_layers() if isinstance(x, keras.layers.LayerNormalization)]
    for norm in norms:
        norm.gamma.assign(1 + 0.1 * rng.normal(size=norm.gamma.shape).astype("float32"))
        norm.beta.assign(0.1 * rng.normal(size=norm.beta.shape).astype("float32"))


@pytest.mark.parametrize("norm_first", [False, True], ids=["post-LN", "pre-LN"])
def test_keras_encoder_layer_matches_keras_hub(norm_first):
    common.set_seed(0)
    x, _, src_real, _ = sequences()
    ours = keras_transformer.EncoderLayer(D, H, FF, dropout=0.0, norm_first=norm_first)
    ours(x, src_real[:, None, :])                                          # build
    randomise_keras_norms(ours, 1)
    hub = keras_hub.layers.TransformerEncoder(FF, H, dropout=0.0, activation="relu",
                                              layer_norm_epsilon=1e-5,
                                              normalize_first=norm_first)
    hub(x, padding_mask=src_real)                                          # build
    copy_into_keras_mha(ours.self_attention, hub._self_attention_layer)
    copy_norm(ours.attention_norm, hub._self_attention_layer_norm)
    copy_norm(ours.feed_forward_norm, hub._feedforward_layer_norm)
    for mine, theirs in ((ours.feed_forward.hidden, hub._feedforward_intermediate_dense),
                         (ours.feed_forward.projection, hub._feedforward_output_dense)):
        theirs.kernel.assign(mine.kernel)
        theirs.bias.assign(mine.bias)
    mine, _ = ours(x, src_real[:, None, :])
    np.testing.assert_allclose(to_numpy(mine), to_numpy(hub(x, padding_mask=src_real)),
                               atol=ATOL)


@pytest.mark.parametrize("norm_first", [False, True], ids=["post-LN", "pre-LN"])
def test_keras_decoder_layer_matches_keras_hub(norm_first):
    common.set_seed(0)
    memory, y, src_real, tgt_real = sequences(1)
    self_mask = np.tril(np.ones((T, T), dtype=bool))[None] & tgt_real[:, None, :]
    ours = keras_transformer.DecoderLayer(D, H, FF, dropout=0.0, norm_first=norm_first)
    ours(y, memory, self_mask, src_real[:, None, :])
    randomise_keras_norms(ours, 2)
    hub = keras_hub.layers.TransformerDecoder(FF, H, dropout=0.0, activation="relu",
                                              layer_norm_epsilon=1e-5,
                                              normalize_first=norm_first)
    kwargs = dict(decoder_padding_mask=tgt_real, encoder_padding_mask=src_real)
    hub(y, memory, **kwargs)
    copy_into_keras_mha(ours.self_attention, hub._self_attention_layer)
    copy_into_keras_mha(ours.cross_attention, hub._cross_attention_layer)
    copy_norm(ours.self_attention_norm, hub._self_attention_layer_norm)
    copy_norm(ours.cross_attention_norm, hub._cross_attention_layer_norm)
    copy_norm(ours.feed_forward_norm, hub._feedforward_layer_norm)
    for mine, theirs in ((ours.feed_forward.hidden, hub._feedforward_intermediate_dense),
                         (ours.feed_forward.projection, hub._feedforward_output_dense)):
        theirs.kernel.assign(mine.kernel)
        theirs.bias.assign(mine.bias)
    mine, _, _ = ours(y, memory, self_mask, src_real[:, None, :])
    theirs = hub(y, memory, **kwargs)                       # causal mask by default
    np.testing.assert_allclose(to_numpy(mine), to_numpy(theirs), atol=ATOL)


# --- Keras against PyTorch ----------------------------------------------------------------

def copy_norm_torch_to_keras(torch_norm, keras_norm):
    keras_norm.gamma.assign(torch_norm.weight.detach().numpy())
    keras_norm.beta.assign(torch_norm.bias.detach().numpy())


def copy_transformer_torch_to_keras(mine, yours):
    """Every weight of a torch_transformer.Transformer into a keras_transformer one."""
    for t_part, k_part in ((mine.encoder, yours.encoder), (mine.decoder, yours.decoder)):
        convert.copy_embedding(t_part.embedding.tokens, k_part.embedding.tokens)
        k_layers = getattr(k_part, "encoder_layers", None) or k_part.decoder_layers
        for t_layer, k_layer in zip(t_part.layers, k_layers):
            for name in ("self_attention", "cross_attention"):
                if hasattr(t_layer, name):
                    for proj in ("query", "key", "value", "output_projection"):
                        convert.copy_dense(getattr(getattr(t_layer, name), proj),
                                           getattr(getattr(k_layer, name), proj))
            convert.copy_dense(t_layer.feed_forward.hidden, k_layer.feed_forward.hidden)
            convert.copy_dense(t_layer.feed_forward.projection,
                               k_layer.feed_forward.projection)
            for t_norm in (m for m in t_layer.children() if isinstance(m, torch.nn.LayerNorm)):
                name = next(n for n, m in t_layer.named_children() if m is t_norm)
                copy_norm_torch_to_keras(t_norm, getattr(k_layer, name))
        if isinstance(t_part.final_norm, torch.nn.LayerNorm):
            copy_norm_torch_to_keras(t_part.final_norm, k_part.final_norm)
    if mine.decoder.output_projection is not None:
        convert.copy_dense(mine.decoder.output_projection, yours.decoder.output_projection)


def twin_models(norm_first=False, tie_weights=True, vocab=(11, 9), seed=0):
    common.set_seed(seed)
    src, tgt = tokens(seed, vocab)
    mine = torch_transformer.Transformer(*vocab, d_model=D, num_heads=H, d_ff=FF,
                                         dropout=0.0, norm_first=norm_first,
                                         tie_weights=tie_weights).eval()
    randomise_norms(mine, seed + 3)
    yours = keras_transformer.Transformer(*vocab, d_model=D, num_heads=H, d_ff=FF,
                                          dropout=0.0, norm_first=norm_first,
                                          tie_weights=tie_weights)
    yours(src, tgt)
    copy_transformer_torch_to_keras(mine, yours)
    return mine, yours, src, tgt


@pytest.mark.parametrize("norm_first, tie_weights",
                         [(False, True), (True, True), (False, False)],
                         ids=["post-LN tied", "pre-LN tied", "post-LN untied"])
def test_keras_and_pytorch_transformers_agree(norm_first, tie_weights):
    mine, yours, src, tgt = twin_models(norm_first, tie_weights)
    with torch.no_grad():
        torch_out = mine(torch.as_tensor(src), torch.as_tensor(tgt), return_weights=True)
    keras_out = yours(src, tgt, return_weights=True)
    np.testing.assert_allclose(to_numpy(keras_out[0]), to_numpy(torch_out[0]), atol=1e-4)
    for keras_list, torch_list in zip(keras_out[1:], torch_out[1:]):
        for k, t in zip(keras_list, torch_list):
            np.testing.assert_allclose(to_numpy(k), to_numpy(t), atol=1e-5)
    np.testing.assert_array_equal(keras_transformer.greedy_decode(yours, src, 6),
                                  torch_transformer.greedy_decode(mine, src, 6))
    keras_beams, keras_scores = keras_transformer.beam_search(yours, src, 6, 3, 2)
    torch_beams, torch_scores = torch_transformer.beam_search(mine, src, 6, 3, 2)
    np.testing.assert_array_equal(keras_beams, torch_beams)
    np.testing.assert_allclose(keras_scores, torch_scores, atol=1e-4)


def test_parameter_counts_and_tying():
    for tie in (True, False):
        mine, yours, _, _ = twin_models(tie_weights=tie)
        count = sum(p.numel() for p in mine.parameters())
        assert count == sum(int(np.prod(w.shape)) for w in yours.trainable_weights)
    tied = torch_transformer.Transformer(11, 9, d_model=D, num_heads=H, d_ff=FF)
    untied = torch_transformer.Transformer(11, 9, d_model=D, num_heads=H, d_ff=FF,
                                           tie_weights=False)
    assert (sum(p.numel() for p in untied.parameters())
            - sum(p.numel() for p in tied.parameters())) == 9 * D + 9   # W and b of 9 x D


# --- masks --------------------------------------------------------------------------------

def logits_of(model, src, tgt):
    if isinstance(model, torch.nn.Module):
        with torch.no_grad():
            return model(torch.as_tensor(src), torch.as_tensor(tgt)).numpy()
    with warnings.catch_warnings():              # Keras warns on a softmax over 1 key
        warnings.filterwarnings("ignore", "You are using a softmax over axis")
        return to_numpy(model(src, tgt))


@pytest.mark.parametrize("framework", ["pytorch", "keras"])
def test_a_later_token_never_changes_an_earlier_output(framework):
    mine, yours, src, tgt = twin_models(seed=4)
    model = mine if framework == "pytorch" else yours
    tgt = tgt.copy()
    tgt[:, 1:] = np.random.default_rng(5).integers(4, 9, size=(B, T - 1))   # no padding
    before = logits_of(model, src, tgt)
    for t in range(1, T):
        changed = tgt.copy()
        changed[:, t] = 4 + (changed[:, t] - 3) % 5                        # another token
        after = logits_of(model, src, changed)
        np.testing.assert_allclose(after[:, :t], before[:, :t], atol=1e-5)
        assert not np.allclose(after[:, t:], before[:, t:], atol=1e-5)     # it is seen


@pytest.mark.parametrize("framework", ["pytorch", "keras"])
def test_padding_never_changes_a_real_output(framework):
    mine, yours, src, tgt = twin_models(seed=6)
    model = mine if framework == "pytorch" else yours
    before = logits_of(model, src, tgt)
    more = logits_of(model, np.pad(src, ((0, 0), (0, 5))), np.pad(tgt, ((0, 0), (0, 4))))
    real = np.arange(T)[None] < TGT_LENGTHS[:, None]
    np.testing.assert_allclose(more[:, :T][real], before[real], atol=1e-5)
    other = src.copy()
    other[src == PAD_ID] = 5                                         # garbage under padding
    garbage = logits_of(model, np.where(src == PAD_ID, PAD_ID, other), tgt)
    np.testing.assert_allclose(garbage, before, atol=1e-6)


# --- decoding -----------------------------------------------------------------------------

def exhaustive_search(model, src_row, max_len, alpha):
    """Score every sequence of at most max_len tokens (ending at <eos> or at max_len)."""
    vocab_size = logits_of(model, src_row[None], np.array([[BOS_ID]])).shape[-1]
    best, best_score = None, -np.inf
    for length in range(1, max_len + 1):
        bodies = [body for body in itertools.product(range(vocab_size), repeat=length)
                  if EOS_ID not in body[:-1] and (length == max_len or body[-1] == EOS_ID)]
        prefixes = np.array([(BOS_ID,) + body[:-1] for body in bodies])    # (n, length)
        src = np.repeat(src_row[None], len(bodies), axis=0)
        logits = logits_of(model, src, prefixes).astype(np.float64)        # (n, length, V)
        log_probs = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
        picked = np.take_along_axis(log_probs, np.array(bodies)[..., None], -1)[..., 0]
        scores = picked.sum(axis=1) / length ** alpha
        if scores.max() > best_score:
            best, best_score = list(bodies[int(scores.argmax())]), float(scores.max())
    return best, best_score


@pytest.mark.parametrize("framework", ["pytorch", "keras"])
def test_beam_search_finds_the_exhaustive_best(framework):
    vocab = (8, 5)                                   # 5 target tokens, 3 steps: 125 prefixes
    mine, yours, src, _ = twin_models(vocab=vocab, seed=7)
    model = mine if framework == "pytorch" else yours
    module = torch_transformer if framework == "pytorch" else keras_transformer
    max_len, alpha = 3, 0.6
    beams, scores = module.beam_search(model, src, max_len, beam_size=5 ** 3, num_beams=3,
                                       alpha=alpha)
    assert beams.shape == (B, 3, max_len) and scores.shape == (B, 3)
    assert np.all(np.diff(scores, axis=1) <= 0)                    # best first
    for row in range(B):
        body, score = exhaustive_search(model, src[row], max_len, alpha)
        found = [int(t) for t in beams[row, 0]]
        assert found[:len(body)] == body and all(t == PAD_ID for t in found[len(body):])
        assert scores[row, 0] == pytest.approx(score, abs=1e-5)
    greedy = module.greedy_decode(model, src, 6)
    one, _ = module.beam_search(model, src, 6, beam_size=1)
    np.testing.assert_array_equal(one[:, 0], greedy)               # a beam of 1 is greedy
