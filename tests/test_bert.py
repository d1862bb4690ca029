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

from attention_course import common, pretrained  # first: quiet TensorFlow
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
