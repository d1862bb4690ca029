"""Chapter 7 (BERT), Keras: the hidden tests of BertEmbeddings and BertClassifier.

The masking tests are framework-free (``ch07``). Each check takes the student's class, builds it
on the test's inputs (from ``ch07``), asserts with the message the student sees, and returns the
(name, value) pairs that its cell observes, in order. The classifier tests wrap the course's own
BERT (``attention_course.keras_bert.Bert``), whatever the notebook redefined.
"""
import contextlib
import io
import warnings

import keras
import numpy as np
from keras import ops

from attention_course import pretrained
from attention_course.keras_bert import Bert

from . import ch07

FREEZE_CASES = ch07.FREEZE_CASES          # the gradient test: freeze_bert True, then False


def max_gap(a, b):
    """The largest absolute difference of two NumPy arrays, as a float."""
    return float(np.abs(a - b).max())


# ----------------------------------------------------------------------------- embeddings
def minilm_library_embeddings():
    """The embedding layers of keras-hub's BertBackbone of all-MiniLM-L6-v2 (up to and with its
    dropout) as a model of {"token_ids", "segment_ids", "padding_mask"}, loaded quietly."""
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        import keras_hub
        hub = keras_hub.models.BertBackbone.from_preset(str(pretrained.minilm_dir()))
        return keras.Model(hub.inputs, hub.get_layer("embeddings_dropout").output)


def copy_minilm_weights(embeddings, state):
    """Copy MiniLM's three tables and layer norm (`state`: Hugging Face names) into the student's
    layer, which must be built."""
    for table, key in ((embeddings.tokens, "word_embeddings"),
                       (embeddings.segments, "token_type_embeddings"),
                       (embeddings.positions, "position_embeddings")):
        table.embeddings.assign(state[f"embeddings.{key}.weight"])
    embeddings.norm.gamma.assign(state["embeddings.LayerNorm.weight"])
    embeddings.norm.beta.assign(state["embeddings.LayerNorm.bias"])


def embeddings_match_minilm(BertEmbeddings):
    """MiniLM's weights in the student's layer against keras-hub's BERT embeddings, on
    ch07.MINILM_PAIRS (3, 20), with segment ids and with all 0 (segment_ids=None for the
    student's layer): tolerance 1e-5. 2 observations."""
    library = minilm_library_embeddings()
    state = pretrained.minilm_weights()
    ids, segments = ch07.minilm_batch("int32")                                          # (3, 20) each
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        want, want_plain = (ops.convert_to_numpy(library(
            {"token_ids": ids, "segment_ids": s, "padding_mask": (ids != 0).astype("int32")}))
            for s in (segments, np.zeros_like(segments)))
        mine = BertEmbeddings(30522, 384, 512, 2, 0.1)
        mine(ids[:, :2], segments[:, :2])                                  # build, then copy
        copy_minilm_weights(mine, state)
        got, got_plain = ops.convert_to_numpy(mine(ids, segments)), ops.convert_to_numpy(mine(ids))
    return ch07.minilm_verdict(got, want, got_plain, want_plain, max_gap, "keras-hub", "epsilon")


def embeddings_formula(BertEmbeddings):
    """Random tables and layer-norm weights (ch07.embedding_formula_case) in the student's layer,
    against the formula in NumPy; one token repeated in segments 0 and 1. 2 observations."""
    tables, scale, shift, ids, segments, expected = ch07.embedding_formula_case()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        mine = BertEmbeddings(12, 6, max_len=9, type_vocab_size=3, dropout=0.0)
        mine(ids, segments)                                                # build, then copy
        for name, values in tables.items():
            getattr(mine, name).embeddings.assign(values)
        mine.norm.gamma.assign(scale)
        mine.norm.beta.assign(shift)
        got = ops.convert_to_numpy(mine(ids, segments))                                 # (4, 9, 6)
        same = np.full((1, 4), 5)                                                       # token 5, 4 times
        in_zero = ops.convert_to_numpy(mine(same, np.zeros((1, 4), dtype="int32")))
        in_one = ops.convert_to_numpy(mine(same, np.ones((1, 4), dtype="int32")))
    return ch07.embedding_formula_verdict(got, expected, in_zero, in_one, "epsilon")


def albert_library_embeddings(tables, scale, shift, kernel, bias, ids, segments):
    """keras-hub's AlbertBackbone (vocabulary 12, d_e 4, d_model 6, 9 positions, 3 segment types,
    no dropout) with the given weights, up to its embedding_projection, on ids and segments, as
    NumPy (4, 9, 6)."""
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        import keras_hub
        hub = keras_hub.models.AlbertBackbone(
            vocabulary_size=12, num_layers=1, num_heads=2, embedding_dim=4, hidden_dim=6,
            intermediate_dim=8, max_sequence_length=9, num_segments=3, dropout=0.0)
        for name, values in (("token_embedding", [tables["tokens"]]),
                             ("segment_embedding", [tables["segments"]]),
                             ("position_embedding", [tables["positions"]]),
                             ("embeddings_layer_norm", [scale, shift]),
                             ("embedding_projection", [kernel, bias])):
            hub.get_layer(name).set_weights(values)
        library = keras.Model(hub.inputs, hub.get_layer("embedding_projection").output)
        return ops.convert_to_numpy(library({"token_ids": ids.astype("int32"),
                                             "segment_ids": segments.astype("int32"),
                                             "padding_mask": np.ones(ids.shape, dtype="int32")}))


def embeddings_albert(BertEmbeddings):
    """ALBERT's factorised embedding: random tables of width d_e = 4, layer norm and projection
    (ch07.albert_formula_case) in the student's layer with embed_dim=4, d_model=6 and in
    keras-hub's AlbertBackbone, compared, and the student's parameter count for
    ch07.ALBERT_COUNT_CASES. 2 observations."""
    tables, scale, shift, kernel, bias, ids, segments, expected = ch07.albert_formula_case()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        mine = BertEmbeddings(**ch07.ALBERT_SIZES, dropout=0.0)
        mine(ids, segments)                                                # build, then copy
        ch07.albert_shapes(tuple(mine.tokens.embeddings.shape), tuple(mine.norm.gamma.shape),
                           getattr(mine, "projection", None) is not None)
        for name, values in tables.items():
            getattr(mine, name).embeddings.assign(values)
        mine.norm.gamma.assign(scale)
        mine.norm.beta.assign(shift)
        mine.projection.kernel.assign(kernel)                              # Dense: (in, out)
        mine.projection.bias.assign(bias)
        got = ops.convert_to_numpy(mine(ids, segments))                                 # (4, 9, 6)
        want = albert_library_embeddings(tables, scale, shift, kernel, bias, ids, segments)
        counts = []
        for vocab, width, length, kinds, narrow in ch07.ALBERT_COUNT_CASES:
            layer = BertEmbeddings(vocab, width, length, kinds, embed_dim=narrow)
            layer(np.zeros((1, 2), dtype="int32"))                          # build
            counts.append(int(layer.count_params()))
    return ch07.albert_verdict(got, want, counts, "keras-hub's AlbertBackbone")


def embeddings_dropout(BertEmbeddings):
    """dropout=0.5: two calls with training=True differ and about half the outputs are 0; two
    without it agree; with dropout=0.0 training and inference agree. 2 observations."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        keras.utils.set_random_seed(41)
        ids = ch07.embedding_dropout_ids()                                              # (4, 16)
        mine = BertEmbeddings(50, 32, max_len=16, dropout=0.5)
        first, second = (ops.convert_to_numpy(mine(ids, training=True)) for _ in range(2))
        third, fourth = (ops.convert_to_numpy(mine(ids)) for _ in range(2))
        quiet = BertEmbeddings(50, 32, max_len=16, dropout=0.0)
        train_out = ops.convert_to_numpy(quiet(ids, training=True))
        eval_out = ops.convert_to_numpy(quiet(ids))
    assert np.abs(first - second).max() > 1e-3, (
        "with training=True, dropout=0.5 should make two calls differ")
    zeros = float(np.mean(first == 0))
    assert 0.4 < zeros < 0.6, (
        f"with dropout=0.5 and training=True about half the outputs should be exactly 0, got {zeros:.1%}: "
        "dropout comes last, after the layer norm")
    assert np.array_equal(third, fourth), (
        "without training=True the layer should give the same output every time")
    assert np.allclose(train_out, eval_out, atol=1e-6), (
        "with dropout=0.0, training and inference should agree")
    return [("embedding dropout in training mode, after the norm", True),
            ("embeddings deterministic in evaluation mode", True)]


# ----------------------------------------------------------------------------- classifier
def classifier_logits(BertClassifier):
    """A given BERT (2 layers of width 24, no dropout) in the student's classifier, without
    training=True, on ch07.classifier_batch: logits = classifier(pooled), with and without
    segment ids and mask; with pooling="mean", classifier(the mean of the real tokens' final
    vectors); with pooling="max", classifier(the largest value per feature over the real tokens);
    tolerance 1e-5. 6 observations."""
    ids, segments = ch07.classifier_batch()                                             # (6, 12) each
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        keras.utils.set_random_seed(111)
        encoder = Bert(40, 24, 4, 48, 2, 16, 2, 0.0)
        model = BertClassifier(encoder, 5)
        got = ops.convert_to_numpy(model(ids, segments, ids != 0))
        want = ops.convert_to_numpy(model.classifier(encoder(ids, segments, ids != 0)[1]))
        got_plain = ops.convert_to_numpy(model(ids))
        want_plain = ops.convert_to_numpy(model.classifier(encoder(ids)[1]))
        averaged = BertClassifier(encoder, 5, pooling="mean")
        real = (ids != 0)[..., None].astype("float32")                                # (6, 12, 1)
        hidden = ops.convert_to_numpy(encoder(ids, segments, ids != 0)[0])             # (6, 12, 24)
        got_mean = ops.convert_to_numpy(averaged(ids, segments, ids != 0))
        want_mean = ops.convert_to_numpy(averaged.classifier((hidden * real).sum(1) / real.sum(1)))
        got_mean_plain = ops.convert_to_numpy(averaged(ids))
        want_mean_plain = ops.convert_to_numpy(
            averaged.classifier(ops.convert_to_numpy(encoder(ids)[0]).mean(1)))
        peaked = BertClassifier(encoder, 5, pooling="max")
        got_max = ops.convert_to_numpy(peaked(ids, segments, ids != 0))
        highest = np.where(real > 0, hidden, np.finfo("float32").min).max(axis=1)      # (6, 24)
        want_max = ops.convert_to_numpy(peaked.classifier(highest))
        got_max_plain = ops.convert_to_numpy(peaked(ids))
        want_max_plain = ops.convert_to_numpy(
            peaked.classifier(ops.convert_to_numpy(encoder(ids)[0]).max(axis=1)))
    return (ch07.classifier_logits_verdict(got, want, got_plain, want_plain, max_gap)
            + ch07.classifier_mean_verdict(got_mean, want_mean, got_mean_plain, want_mean_plain, max_gap)
            + ch07.classifier_max_verdict(got_max, want_max, got_max_plain, want_max_plain, max_gap))


def classifier_gradients(BertClassifier, freeze_bert):
    """The gradients of the cross-entropy on ch07.gradient_batch with respect to the model's
    trainable_variables: with freeze_bert only the classifier's kernel and bias (both moved);
    without, also BERT's token embeddings and every encoder layer. 1 observation."""
    import tensorflow as tf   # the TensorFlow backend's tape; imported here, not at the module's import

    ids, targets = ch07.gradient_batch()                                                # (8, 10), (8,)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        keras.utils.set_random_seed(121)
        encoder = Bert(40, 24, 4, 48, 2, 16, 2, 0.0)
        model = BertClassifier(encoder, 3, dropout=0.0, freeze_bert=freeze_bert)
        model(ids)                                                         # build
        trained = list(model.trainable_variables)
        with tf.GradientTape() as tape:
            loss = ops.mean(keras.losses.sparse_categorical_crossentropy(
                targets, model(ids, training=True), from_logits=True))
        slopes = tape.gradient(loss, trained)
        moved = {id(v) for v, g in zip(trained, slopes)
                 if g is not None and np.abs(ops.convert_to_numpy(tf.convert_to_tensor(g))).sum() > 0}
    head = {id(model.classifier.kernel), id(model.classifier.bias)}
    if freeze_bert:
        assert {id(v) for v in trained} == head and moved == head, (
            "with freeze_bert=True only the classifier's kernel and bias should be trainable and get "
            f"gradients; found {len(trained)} trainable variables, {len(moved)} with gradients")
    else:
        reached = [id(encoder.embeddings.tokens.embeddings) in moved] + [
            any(id(w) in moved for w in layer.trainable_weights) for layer in encoder.encoder_layers]
        assert head <= moved and all(reached), (
            "with freeze_bert=False the gradients should reach the classifier, BERT's token embeddings and "
            f"every encoder layer (embeddings, layer 0, layer 1 reached: {reached})")
    return f"gradients, freeze_bert={freeze_bert}", True


def classifier_dropout(BertClassifier):
    """dropout=0.5 on a BERT without dropout: two calls with training=True differ and no logit is
    exactly 0; two calls without it agree. 2 observations."""
    ids = ch07.classifier_dropout_ids()                                                 # (16, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        keras.utils.set_random_seed(131)
        model = BertClassifier(Bert(40, 24, 4, 48, 1, 16, 2, 0.0), 4, dropout=0.5)
        first, second = (ops.convert_to_numpy(model(ids, training=True)) for _ in range(2))
        third, fourth = (ops.convert_to_numpy(model(ids)) for _ in range(2))
    assert np.abs(first - second).max() > 1e-3, (
        "with training=True, dropout=0.5 should make two calls differ")
    zeros = int((first == 0).sum())
    assert zeros == 0, (
        f"{zeros} logits were exactly 0 with training=True: apply the dropout to the pooled vector, before "
        "the classifier, not to the logits")
    assert np.array_equal(third, fourth), (
        "without training=True the classifier should give the same logits every time")
    return [("classifier dropout on the pooled vector", True),
            ("classifier deterministic in evaluation mode", True)]
