"""BERT of chapter 7, built from the course's parts, against the references.

With the real all-MiniLM-L6-v2 weights (they install with the course) loaded by name:
our PyTorch BERT against transformers' BertModel (eager attention), the Keras twin against
the PyTorch one and against keras-hub's BertBackbone (which uses the tanh approximation of
GELU: with the exact GELU the two differ by about 3e-3); hidden states of the real tokens, the pooled output and the attention
weights, on a padded batch with two segments. Tolerances: float32 through 6 layers of
width 384 (observed differences are about 1e-6 of values of order 1).
"""
import numpy as np
import pytest

from attention_course import bert_data, common, pretrained  # first: quiet TensorFlow
from attention_course import keras_bert, torch_bert

import torch  # noqa: E402

TOLERANCE = 1e-4


@pytest.fixture(scope="module")
def batch():
    """Two sentence pairs, [CLS] a [SEP] b [SEP], the second padded: ids, segments, mask."""
    tokenizer = pretrained.minilm().tokenizer
    pairs = [("The bank raised its interest rates.", "She sat on the river bank."),
             ("The animal didn't cross the street", "because it was too tired.")]
    encoded = [tokenizer.encode(a, b) for a, b in pairs]
    length = max(len(e.ids) for e in encoded) + 3                  # 3 pads at least
    ids = np.zeros((len(pairs), length), dtype=np.int64)           # [PAD] = 0
    segments = np.zeros_like(ids)
    for row, e in enumerate(encoded):
        ids[row, :len(e.ids)] = e.ids
        segments[row, :len(e.ids)] = e.type_ids
    return ids, segments, ids != 0


@pytest.fixture(scope="module")
def weights():
    return pretrained.minilm_weights()


def _ours_torch(weights):
    config = pretrained.minilm_config()
    model = torch_bert.Bert(config["vocab_size"], config["hidden_size"],
                            config["num_attention_heads"], config["intermediate_size"],
                            config["num_hidden_layers"], config["max_position_embeddings"],
                            config["type_vocab_size"])
    return torch_bert.load_pretrained(model, weights).eval()


def test_torch_bert_matches_transformers(batch, weights):
    from transformers import BertModel

    ids, segments, real = batch
    reference = BertModel.from_pretrained(str(pretrained.minilm_dir()),
                                          attn_implementation="eager").eval()
    ours = _ours_torch(weights)
    args = [torch.as_tensor(a) for a in (ids, segments, real)]
    with torch.no_grad():
        hidden, pooled, attention = ours(*args)
        theirs = reference(input_ids=args[0], token_type_ids=args[1],
                           attention_mask=args[2].long(), output_attentions=True)
    assert np.abs((hidden - theirs.last_hidden_state).numpy()[real]).max() < TOLERANCE
    assert np.abs((pooled - theirs.pooler_output).numpy()).max() < TOLERANCE
    for mine, their in zip(attention, theirs.attentions):
        assert np.abs((mine - their).numpy()).max() < TOLERANCE


def test_keras_bert_matches_torch_bert(batch, weights):
    ids, segments, real = batch
    ours = _ours_torch(weights)
    config = pretrained.minilm_config()
    keras_model = keras_bert.Bert(config["vocab_size"], config["hidden_size"],
                                  config["num_attention_heads"], config["intermediate_size"],
                                  config["num_hidden_layers"],
                                  config["max_position_embeddings"], config["type_vocab_size"])
    keras_bert.load_pretrained(keras_model, weights)
    with torch.no_grad():
        hidden, pooled, _ = ours(*[torch.as_tensor(a) for a in (ids, segments, real)])
    k_hidden, k_pooled, _ = keras_model(ids, segments, real)
    assert np.abs(np.asarray(k_hidden) - hidden.numpy())[real].max() < TOLERANCE
    assert np.abs(np.asarray(k_pooled) - pooled.numpy()).max() < TOLERANCE


def test_padding_never_changes_real_outputs(batch, weights):
    ids, segments, real = batch
    ours = _ours_torch(weights)
    longer = np.pad(ids, ((0, 0), (0, 5)))                       # five more [PAD]s
    with torch.no_grad():
        short, _, _ = ours(torch.as_tensor(ids), torch.as_tensor(segments),
                           torch.as_tensor(real))
        long, _, _ = ours(torch.as_tensor(longer), torch.as_tensor(np.pad(segments, ((0, 0), (0, 5)))),
                          torch.as_tensor(longer != 0))
    assert np.abs((long[:, :ids.shape[1]] - short).numpy()[real]).max() < 1e-5


def test_segment_ids_matter(batch, weights):
    """The segment embedding is used: swapping the two segments changes the outputs."""
    ids, segments, real = batch
    ours = _ours_torch(weights)
    with torch.no_grad():
        same, _, _ = ours(torch.as_tensor(ids), torch.as_tensor(segments), torch.as_tensor(real))
        swapped, _, _ = ours(torch.as_tensor(ids), torch.as_tensor(1 - segments),
                             torch.as_tensor(real))
    assert np.abs((same - swapped).numpy()[real]).max() > 1e-2


def _ours_keras(weights, activation="gelu"):
    config = pretrained.minilm_config()
    model = keras_bert.Bert(config["vocab_size"], config["hidden_size"],
                            config["num_attention_heads"], config["intermediate_size"],
                            config["num_hidden_layers"], config["max_position_embeddings"],
                            config["type_vocab_size"], activation=activation)
    return keras_bert.load_pretrained(model, weights)


def test_keras_bert_matches_keras_hub(batch, weights):
    import keras_hub

    ids, segments, real = batch
    hub = keras_hub.models.BertBackbone.from_preset(str(pretrained.minilm_dir()))
    theirs = hub({"token_ids": ids, "segment_ids": segments, "padding_mask": real})
    gaps = {}
    for activation in ("gelu_tanh", "gelu"):
        hidden, pooled, _ = _ours_keras(weights, activation)(ids, segments, real)
        gaps[activation] = (
            np.abs(np.asarray(hidden) - np.asarray(theirs["sequence_output"]))[real].max(),
            np.abs(np.asarray(pooled) - np.asarray(theirs["pooled_output"])).max())
    assert max(gaps["gelu_tanh"]) < TOLERANCE
    assert gaps["gelu"][0] > 1e-3            # keras-hub's BERT uses the tanh approximation


def _tiny_pair(vocab_size=40):
    """A small random PyTorch BERT and its Keras twin with the same weights (through the
    Hugging Face names that load_pretrained reads)."""
    common.set_seed(5)
    sizes = dict(d_model=16, num_heads=2, d_ff=32, num_layers=2, max_len=12, dropout=0.0)
    ours = torch_bert.Bert(vocab_size, **sizes).eval()
    weights = _hugging_face_names(ours)
    twin = keras_bert.load_pretrained(keras_bert.Bert(vocab_size, **sizes), weights)
    return ours, twin


def _hugging_face_names(model):
    """Our PyTorch BERT's weights by the Hugging Face names (the inverse of load_pretrained)."""
    e = model.embeddings
    names = {"embeddings.word_embeddings.weight": e.tokens.weight,
             "embeddings.token_type_embeddings.weight": e.segments.weight,
             "embeddings.position_embeddings.weight": e.positions.weight,
             "embeddings.LayerNorm.weight": e.norm.weight, "embeddings.LayerNorm.bias": e.norm.bias,
             "pooler.dense.weight": model.pooler.weight, "pooler.dense.bias": model.pooler.bias}
    for i, layer in enumerate(model.encoder_layers):
        hf, a = f"encoder.layer.{i}", layer.self_attention
        parts = {"attention.self.query": a.query, "attention.self.key": a.key,
                 "attention.self.value": a.value, "attention.output.dense": a.output_projection,
                 "attention.output.LayerNorm": layer.attention_norm,
                 "intermediate.dense": layer.feed_forward.hidden,
                 "output.dense": layer.feed_forward.projection,
                 "output.LayerNorm": layer.feed_forward_norm}
        for name, part in parts.items():
            names[f"{hf}.{name}.weight"], names[f"{hf}.{name}.bias"] = part.weight, part.bias
    return {name: value.detach().numpy().copy() for name, value in names.items()}


def _mlm_pair():
    """Masked-LM models on _tiny_pair, with the Keras head's weights copied from PyTorch."""
    ours, twin = _tiny_pair()
    torch_mlm = torch_bert.MaskedLanguageModel(ours).eval()
    keras_mlm = keras_bert.MaskedLanguageModel(twin)
    keras_mlm(np.array([[5, 6]]))                                        # create the weights
    keras_mlm.transform.kernel.assign(torch_mlm.transform.weight.detach().numpy().T)
    keras_mlm.transform.bias.assign(torch_mlm.transform.bias.detach().numpy())
    with torch.no_grad():
        torch_mlm.bias.copy_(torch.randn_like(torch_mlm.bias))          # not all zeros
    keras_mlm.bias.assign(torch_mlm.bias.detach().numpy())
    return torch_mlm, keras_mlm


def test_masked_lm_scores_only_the_chosen_positions():
    """With positions, the masked-LM head returns exactly the rows of the full (B, L, V)
    scores at those positions, in both frameworks; the two frameworks agree."""
    torch_mlm, keras_mlm = _mlm_pair()
    rng = np.random.default_rng(0)
    ids = rng.integers(5, 40, size=(3, 10))
    chosen = rng.random((3, 10)) < 0.3
    with torch.no_grad():
        full = torch_mlm(torch.as_tensor(ids)).numpy()                    # (B, L, V)
        some = torch_mlm(torch.as_tensor(ids), positions=torch.as_tensor(chosen)).numpy()
    k_full = np.asarray(keras_mlm(ids))
    k_some = np.asarray(keras_mlm(ids, positions=chosen))
    np.testing.assert_allclose(some, full[chosen], atol=1e-6)
    np.testing.assert_allclose(k_some, k_full[chosen], atol=1e-6)
    np.testing.assert_allclose(k_full, full, atol=1e-4)


def test_masked_lm_loss_is_the_cross_entropy_at_chosen_positions():
    torch_mlm, keras_mlm = _mlm_pair()
    rng = np.random.default_rng(1)
    ids = rng.integers(5, 40, size=(4, 10))
    inputs, labels = bert_data.mask_tokens(ids, 40, 4, [0, 1, 2, 3, 4], rng, 0.3)
    with torch.no_grad():
        logits = torch_mlm(torch.as_tensor(inputs)).numpy()
        torch_loss = torch_bert.masked_lm_loss(torch_mlm, (inputs, labels)).item()
    keras_loss = float(keras_bert.masked_lm_loss(keras_mlm, (inputs, labels)))
    chosen = labels != bert_data.IGNORE_INDEX
    log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    expected = -np.take_along_axis(log_p[chosen], labels[chosen][:, None], 1).mean()
    assert abs(torch_loss - expected) < 1e-5 and abs(keras_loss - expected) < 1e-4


@pytest.mark.parametrize("pooling", ["cls", "mean"])
def test_classifier_reads_the_pooled_or_the_mean_vector(pooling):
    """BertClassifier's logits are its dense layer on the pooled [CLS] vector, or on the
    mean of the real tokens (padding excluded); Keras and PyTorch agree; freezing the
    encoder leaves only the head trainable."""
    ours, twin = _tiny_pair()
    torch_head = torch_bert.BertClassifier(ours, 3, pooling=pooling).eval()
    keras_head = keras_bert.BertClassifier(twin, 3, pooling=pooling)
    ids = np.array([[2, 7, 8, 9, 3, 0, 0], [2, 11, 12, 13, 14, 15, 3]])
    real = ids != 0
    keras_head(ids, attention_mask=real)
    keras_head.classifier.kernel.assign(torch_head.classifier.weight.detach().numpy().T)
    keras_head.classifier.bias.assign(torch_head.classifier.bias.detach().numpy())
    with torch.no_grad():
        logits = torch_head(torch.as_tensor(ids), attention_mask=torch.as_tensor(real)).numpy()
        hidden, pooled, _ = ours(torch.as_tensor(ids), attention_mask=torch.as_tensor(real))
    vector = (pooled.numpy() if pooling == "cls" else
              (hidden.numpy() * real[..., None]).sum(1) / real.sum(1, keepdims=True))
    expected = vector @ torch_head.classifier.weight.detach().numpy().T + \
        torch_head.classifier.bias.detach().numpy()
    np.testing.assert_allclose(logits, expected, atol=1e-5)
    np.testing.assert_allclose(np.asarray(keras_head(ids, attention_mask=real)), logits,
                               atol=1e-4)
    frozen_torch = torch_bert.BertClassifier(ours, 3, freeze_bert=True)
    assert [n for n, p in frozen_torch.named_parameters() if p.requires_grad] == [
        "classifier.weight", "classifier.bias"]
    frozen_keras = keras_bert.BertClassifier(twin, 3, freeze_bert=True)
    frozen_keras(ids)
    assert len(frozen_keras.trainable_variables) == 2


def test_sentence_vectors_agree_across_frameworks_and_with_padding():
    """The three sentence vectors of a row do not depend on the batch's padding, and the
    Keras and PyTorch functions give the same arrays."""
    ours, twin = _tiny_pair()
    rng = np.random.default_rng(2)
    ids = np.zeros((5, 12), dtype=np.int64)
    for row, length in enumerate([3, 12, 7, 5, 9]):
        ids[row, :length] = rng.integers(5, 40, size=length)
    torch_vectors = torch_bert.sentence_vectors(ours, ids, batch_size=2)
    keras_vectors = keras_bert.sentence_vectors(twin, ids, batch_size=2)
    alone = torch_bert.sentence_vectors(ours, ids[:1, :3])
    for mine, theirs, single in zip(torch_vectors, keras_vectors, alone):
        np.testing.assert_allclose(mine, theirs, atol=1e-4)
        np.testing.assert_allclose(mine[:1], single, atol=1e-5)


def test_pair_classification_agrees_across_frameworks_and_reads_the_segments():
    """On next-sentence pairs, with the same weights: classification_loss and
    predict_classes give the same loss and classes in Keras and PyTorch, the loss is the
    cross-entropy of the logits computed with the segment ids, and the segment ids change
    the logits (the pair's second array reaches the embeddings)."""
    ours, twin = _tiny_pair()
    torch_head = torch_bert.BertClassifier(ours, 2, dropout=0.0).eval()
    keras_head = keras_bert.BertClassifier(twin, 2, dropout=0.0)
    rng = np.random.default_rng(3)
    firsts, seconds = rng.integers(5, 40, size=(6, 4)), rng.integers(5, 40, size=(6, 5))
    ids, segments, labels = bert_data.next_sentence_pairs(firsts, seconds, 2, 3, rng)
    assert ids.shape == segments.shape == (6, 12) and set(labels) <= {0, 1}
    assert (segments[:, :6] == 0).all() and (segments[:, 6:] == 1).all()
    keras_head(ids, segments, attention_mask=ids != 0)                   # create the weights
    keras_head.classifier.kernel.assign(torch_head.classifier.weight.detach().numpy().T)
    keras_head.classifier.bias.assign(torch_head.classifier.bias.detach().numpy())
    with torch.no_grad():
        logits = torch_head(torch.as_tensor(ids), torch.as_tensor(segments)).numpy()
        one_segment = torch_head(torch.as_tensor(ids)).numpy()
        torch_loss = torch_bert.classification_loss(torch_head, (ids, segments, labels)).item()
    keras_loss = float(keras_bert.classification_loss(keras_head, (ids, segments, labels)))
    log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    expected = -log_p[np.arange(6), labels].mean()
    assert abs(torch_loss - expected) < 1e-5 and abs(keras_loss - expected) < 1e-4
    assert np.abs(logits - one_segment).max() > 1e-3                     # segments matter
    torch_classes = torch_bert.predict_classes(torch_head, ids, batch_size=4,
                                               segment_ids=segments)
    keras_classes = keras_bert.predict_classes(keras_head, ids, batch_size=4,
                                               segment_ids=segments)
    np.testing.assert_array_equal(torch_classes, logits.argmax(-1))
    np.testing.assert_array_equal(keras_classes, torch_classes)
