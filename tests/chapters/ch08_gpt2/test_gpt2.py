"""GPT-2 of chapter 8, built from the course's parts, against the references.

No GPT-2 weights install offline, so the reference is transformers' GPT2LMHeadModel with
random weights (a small GPT2Config, eager attention); its state is copied into our PyTorch
and Keras models (Conv1D weights transposed for nn.Linear) and into keras-hub's
GPT2Backbone. Then the properties that generation relies on: the key-value cache gives
the logits of a full forward pass, a future token never changes a past logit, cached and
uncached generation give the same tokens, and the sampling filters keep what they say.
Tolerances: float32 through 3 layers of width 64 (observed differences about 3e-7 on
logits of order 1).
"""
import gc

import numpy as np
import pytest

from attention_course import common  # first: quiet TensorFlow
from attention_course import keras_gpt2, torch_gpt2

import keras  # noqa: E402
import torch  # noqa: E402

TOLERANCE = 1e-5
VOCAB, MAX_LEN, D_MODEL, HEADS, LAYERS = 97, 40, 64, 4, 3


@pytest.fixture(scope="module")
def reference():
    """transformers' GPT-2 with random weights, and its state as NumPy arrays."""
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    config = GPT2Config(vocab_size=VOCAB, n_positions=MAX_LEN, n_embd=D_MODEL,
                        n_layer=LAYERS, n_head=HEADS, bos_token_id=0, eos_token_id=0,
                        attn_implementation="eager")
    model = GPT2LMHeadModel(config).eval()
    return model, {k: v.detach().numpy() for k, v in model.state_dict().items()}


@pytest.fixture(scope="module")
def ids():
    return np.random.default_rng(0).integers(0, VOCAB, (2, 30))


@pytest.fixture(scope="module")
def ours(reference):
    _, weights = reference
    torch_model = torch_gpt2.load_hf_weights(
        torch_gpt2.GPT2(VOCAB, MAX_LEN, D_MODEL, HEADS, LAYERS, dropout=0.0), weights).eval()
    keras_model = keras_gpt2.load_hf_weights(
        keras_gpt2.GPT2(VOCAB, MAX_LEN, D_MODEL, HEADS, LAYERS, dropout=0.0), weights)
    return torch_model, keras_model


def _torch_logits(model, ids, cache=None):
    with torch.no_grad():
        logits, cache = model(torch.as_tensor(ids), cache)
    return logits.numpy(), cache


def _keras_logits(model, ids, cache=None):
    logits, cache = model(ids, cache)
    return keras.ops.convert_to_numpy(logits), cache


def test_both_frameworks_match_transformers(reference, ours, ids):
    model, _ = reference
    with torch.no_grad():
        expected = model(torch.as_tensor(ids)).logits.numpy()        # (B, L, V)
    torch_model, keras_model = ours
    np.testing.assert_allclose(_torch_logits(torch_model, ids)[0], expected, atol=TOLERANCE)
    np.testing.assert_allclose(_keras_logits(keras_model, ids)[0], expected, atol=TOLERANCE)


def test_keras_matches_keras_hub(reference, ours, ids):
    """keras-hub's GPT2Backbone with the same weights: its final hidden states times the
    token table are our logits. Its attention kernels are (d, h, d_k), ours (d, h d_k)."""
    import keras_hub

    _, weights = reference
    hub = keras_hub.models.GPT2Backbone(vocabulary_size=VOCAB, num_layers=LAYERS,
                                        num_heads=HEADS, hidden_dim=D_MODEL,
                                        intermediate_dim=4 * D_MODEL,
                                        max_sequence_length=MAX_LEN, dropout=0.0)
    d_k = D_MODEL // HEADS
    hub.get_layer("token_embedding").embeddings.assign(weights["transformer.wte.weight"])
    hub.get_layer("position_embedding").position_embeddings.assign(
        weights["transformer.wpe.weight"])
    for i in range(LAYERS):
        layer, hf = hub.get_layer(f"transformer_layer_{i}"), f"transformer.h.{i}"
        attention = layer._self_attention_layer
        w, b = weights[f"{hf}.attn.c_attn.weight"], weights[f"{hf}.attn.c_attn.bias"]
        for j, dense in enumerate((attention._query_dense, attention._key_dense,
                                   attention._value_dense)):
            dense.kernel.assign(w[:, j * D_MODEL:(j + 1) * D_MODEL].reshape(D_MODEL, HEADS, d_k))
            dense.bias.assign(b[j * D_MODEL:(j + 1) * D_MODEL].reshape(HEADS, d_k))
        attention._output_dense.kernel.assign(
            weights[f"{hf}.attn.c_proj.weight"].reshape(HEADS, d_k, D_MODEL))
        attention._output_dense.bias.assign(weights[f"{hf}.attn.c_proj.bias"])
        for norm, name in ((layer._self_attention_layer_norm, "ln_1"),
                           (layer._feedforward_layer_norm, "ln_2")):
            norm.gamma.assign(weights[f"{hf}.{name}.weight"])
            norm.beta.assign(weights[f"{hf}.{name}.bias"])
        for dense, name in ((layer._feedforward_intermediate_dense, "c_fc"),
                            (layer._feedforward_output_dense, "c_proj")):
            dense.kernel.assign(weights[f"{hf}.mlp.{name}.weight"])
            dense.bias.assign(weights[f"{hf}.mlp.{name}.bias"])
    hub.get_layer("layer_norm").gamma.assign(weights["transformer.ln_f.weight"])
    hub.get_layer("layer_norm").beta.assign(weights["transformer.ln_f.bias"])
    hidden = hub({"token_ids": ids, "padding_mask": np.ones_like(ids)})
    expected = keras.ops.convert_to_numpy(hidden) @ weights["transformer.wte.weight"].T
    np.testing.assert_allclose(_keras_logits(ours[1], ids)[0], expected, atol=TOLERANCE)


@pytest.mark.parametrize("framework", ["torch", "keras"])
def test_cache_gives_the_full_forward_logits(ours, ids, framework):
    """The prompt at once, then one token at a time with the cache: the same logits."""
    model = ours[0] if framework == "torch" else ours[1]
    logits_of = _torch_logits if framework == "torch" else _keras_logits
    full, _ = logits_of(model, ids)
    prompt, cache = logits_of(model, ids[:, :7])
    steps = [prompt]
    for t in range(7, ids.shape[1]):
        logits, cache = logits_of(model, ids[:, t:t + 1], cache)
        steps.append(logits)
    assert cache[0][0].shape == (2, HEADS, ids.shape[1], D_MODEL // HEADS)
    np.testing.assert_allclose(np.concatenate(steps, axis=1), full, atol=TOLERANCE)


@pytest.mark.parametrize("framework", ["torch", "keras"])
def test_token_times_runs_the_model_with_the_garbage_collector_paused(ours, ids, framework,
                                                                      monkeypatch):
    """Chapter 8 times tokens of a millisecond or less; a full collection takes a third of a
    second after TensorFlow's tracing. Every model call of token_times must run with the
    collector off, and the collector must be on again afterwards."""
    states = []
    if framework == "torch":
        hook = ours[0].register_forward_pre_hook(lambda module, args: states.append(gc.isenabled()))
        try:
            times = torch_gpt2.token_times(ours[0], ids[:1, :5], 6)
        finally:
            hook.remove()
    else:
        forward = keras_gpt2._forward
        monkeypatch.setattr(keras_gpt2, "_forward",
                            lambda *args: states.append(gc.isenabled()) or forward(*args))
        times = keras_gpt2.token_times(ours[1], ids[:1, :5], 6)
    assert len(times) == 6 and states == [False] * 6
    assert gc.isenabled()


@pytest.mark.parametrize("framework", ["torch", "keras"])
def test_a_future_token_never_changes_a_past_logit(ours, ids, framework):
    model = ours[0] if framework == "torch" else ours[1]
    logits_of = _torch_logits if framework == "torch" else _keras_logits
    changed = ids.copy()
    changed[:, 20:] = (changed[:, 20:] + 1) % VOCAB
    before, after = logits_of(model, ids)[0], logits_of(model, changed)[0]
    np.testing.assert_allclose(after[:, :20], before[:, :20], atol=TOLERANCE)
    assert np.abs(after[:, 20:] - before[:, 20:]).max() > 1e-2


@pytest.mark.parametrize("options", [dict(temperature=0), dict(temperature=1.0, top_k=5),
                                     dict(temperature=0.8, top_p=0.9)])
def test_generation_with_and_without_cache_and_across_frameworks(ours, ids, options):
    torch_model, keras_model = ours
    prompt = ids[:, :4]
    runs = [torch_gpt2.generate(torch_model, prompt, 25, use_cache=True, seed=3, **options),
            torch_gpt2.generate(torch_model, prompt, 25, use_cache=False, seed=3, **options),
            keras_gpt2.generate(keras_model, prompt, 25, use_cache=True, seed=3, **options),
            keras_gpt2.generate(keras_model, prompt, 25, use_cache=False, seed=3, **options)]
    assert runs[0].shape == (2, 29)
    np.testing.assert_array_equal(runs[0][:, :4], prompt)
    for run in runs[1:]:
        np.testing.assert_array_equal(run, runs[0])


def test_generation_refuses_to_run_past_max_len(ours, ids):
    with pytest.raises(ValueError, match="max_len"):
        torch_gpt2.generate(ours[0], ids, MAX_LEN)
    with pytest.raises(ValueError, match="max_len"):
        keras_gpt2.generate(ours[1], ids, MAX_LEN)


def _filters(logits):
    """Both frameworks' filters on the same logits: NumPy results, torch's then Keras'."""
    t = torch.as_tensor(logits)
    return ((torch_gpt2.top_k_filter(t, 5).numpy(), torch_gpt2.top_p_filter(t, 0.7).numpy()),
            (keras.ops.convert_to_numpy(keras_gpt2.top_k_filter(logits, 5)),
             keras.ops.convert_to_numpy(keras_gpt2.top_p_filter(logits, 0.7))))


def test_top_k_and_top_p_keep_what_they_say():
    logits = np.random.default_rng(1).normal(size=(6, 50)).astype("float32") * 2
    probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    for top_k, top_p in _filters(logits):
        for row in range(len(logits)):
            order = np.argsort(-logits[row])
            kept_k = np.isfinite(top_k[row])
            assert set(np.flatnonzero(kept_k)) == set(order[:5])
            np.testing.assert_array_equal(top_k[row][kept_k], logits[row][kept_k])
            # smallest prefix of the sorted tokens whose mass reaches 0.7
            size = int(np.searchsorted(np.cumsum(probs[row][order]), 0.7) + 1)
            assert set(np.flatnonzero(np.isfinite(top_p[row]))) == set(order[:size])
            assert probs[row][order[:size - 1]].sum() < 0.7 <= probs[row][order[:size]].sum()


@pytest.mark.parametrize("framework", ["torch", "keras"])
def test_sampling_draws_tokens_with_their_probabilities(framework):
    """20,000 draws from softmax(logits / T): each token's count within 5 binomial sigma."""
    sample_next = torch_gpt2.sample_next if framework == "torch" else keras_gpt2.sample_next
    logits = np.array([[2.0, 1.0, 0.5, 0.0, -1.0, -3.0]], "float32")
    as_input = torch.as_tensor(logits) if framework == "torch" else logits
    n, temperature = 20_000, 0.7
    rng = np.random.default_rng(0)
    rows = np.repeat(as_input, n, axis=0) if framework == "keras" else as_input.repeat(n, 1)
    draws = sample_next(rows, rng, temperature=temperature)
    expected = np.exp(logits[0] / temperature) / np.exp(logits[0] / temperature).sum()
    counts = np.bincount(draws, minlength=logits.shape[1])
    sigma = np.sqrt(n * expected * (1 - expected))
    assert np.all(np.abs(counts - n * expected) < 5 * sigma + 1)
    greedy = sample_next(as_input, rng, temperature=0)
    assert greedy.tolist() == [0]


def test_initialisation_scales_the_residual_projections():
    torch.manual_seed(0)
    model = torch_gpt2.GPT2(VOCAB, MAX_LEN, 128, 4, 8)
    keras_model = keras_gpt2.GPT2(VOCAB, MAX_LEN, 128, 4, 8)
    scaled = 0.02 / np.sqrt(2 * 8)
    for block, keras_block in zip(model.blocks, keras_model.blocks):
        assert abs(block.attention.query.weight.std().item() - 0.02) < 0.002
        assert abs(block.feed_forward.projection.weight.std().item() - scaled) < 0.001
        assert abs(np.std(keras_block.attention.query.kernel.numpy()) - 0.02) < 0.002
        assert abs(np.std(keras_block.feed_forward.projection.kernel.numpy()) - scaled) < 0.001
        assert abs(np.std(keras_block.attention.output_projection.kernel.numpy())
                   - scaled) < 0.001
    assert not block.attention.query.bias.any()
    assert sum(p.numel() for p in model.parameters()) == keras_model.count_params()


def test_language_model_loss_matches_across_frameworks(ours, ids):
    batch = (ids[:, :-1], ids[:, 1:])
    torch_model, keras_model = ours
    with torch.no_grad():
        torch_loss = torch_gpt2.language_model_loss(torch_model, batch).item()
    keras_loss = float(keras_gpt2.language_model_loss(keras_model, batch))
    logits = _torch_logits(torch_model, ids[:, :-1])[0]
    log_probs = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    expected = -np.take_along_axis(log_probs, ids[:, 1:, None], -1).mean()
    assert abs(torch_loss - expected) < 1e-5 and abs(keras_loss - expected) < 1e-5


def test_saved_reference_is_what_transformers_gives():
    """Chapter 8 reads transformers' GPT-2 from attention_course/data/gpt2_reference.npz (so
    that its Keras notebook needs no PyTorch): the file must be that model, built again."""
    from attention_course import gpt2_reference

    saved_weights, saved_ids, saved_logits = gpt2_reference.load()
    weights, ids, logits = gpt2_reference.compute()
    assert set(saved_weights) == set(weights) - {"lm_head.weight"}
    np.testing.assert_array_equal(weights["lm_head.weight"], weights["transformer.wte.weight"])
    for name, value in saved_weights.items():
        np.testing.assert_array_equal(value, weights[name], err_msg=name)   # seeded: exact
    np.testing.assert_array_equal(saved_ids, ids)
    np.testing.assert_allclose(saved_logits, logits, atol=TOLERANCE)  # float sums may differ
