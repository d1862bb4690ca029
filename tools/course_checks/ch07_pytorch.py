"""Chapter 7 (BERT), PyTorch: the hidden tests of BertEmbeddings and BertClassifier.

The masking tests are framework-free (``ch07``). Each check takes the student's class, builds it
on the test's inputs (from ``ch07``), asserts with the message the student sees, and returns the
(name, value) pairs that its cell observes, in order. The classifier tests wrap the course's own
BERT (``attention_course.torch_bert.Bert``), whatever the notebook redefined.
"""
import contextlib
import io
import warnings

import torch

from attention_course import pretrained
from attention_course.torch_bert import Bert

from . import ch07

FREEZE_CASES = ch07.FREEZE_CASES          # the gradient test: freeze_bert True, then False


def max_gap(a, b):
    """The largest absolute difference of two tensors, as a float."""
    return (a - b).abs().max().item()


# ----------------------------------------------------------------------------- embeddings
def minilm_library_embeddings():
    """transformers' BertModel of all-MiniLM-L6-v2 (eager attention), in evaluation mode, loaded
    with its warnings, messages and progress bars silenced."""
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        import transformers
        transformers.logging.set_verbosity_error()
        transformers.logging.disable_progress_bar()
        return transformers.BertModel.from_pretrained(str(pretrained.minilm_dir()),
                                                      attn_implementation="eager").eval()


def copy_minilm_weights(embeddings, state):
    """Copy MiniLM's three tables and layer norm (`state`: Hugging Face names) into the student's
    layer; under torch.no_grad()."""
    for table, key in ((embeddings.tokens, "word_embeddings"),
                       (embeddings.segments, "token_type_embeddings"),
                       (embeddings.positions, "position_embeddings")):
        table.weight.copy_(torch.from_numpy(state[f"embeddings.{key}.weight"]))
    embeddings.norm.weight.copy_(torch.from_numpy(state["embeddings.LayerNorm.weight"]))
    embeddings.norm.bias.copy_(torch.from_numpy(state["embeddings.LayerNorm.bias"]))


def embeddings_match_minilm(BertEmbeddings):
    """MiniLM's weights in the student's layer against transformers' BERT embeddings, on
    ch07.MINILM_PAIRS (3, 20), with segment ids and without: tolerance 1e-5. 2 observations."""
    library = minilm_library_embeddings()
    state = pretrained.minilm_weights()
    ids, segments = (torch.from_numpy(x) for x in ch07.minilm_batch("int64"))     # (3, 20) each
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        mine = BertEmbeddings(30522, 384, 512, 2, 0.1).eval()
        with torch.no_grad():
            copy_minilm_weights(mine, state)
            got, got_plain = mine(ids, segments), mine(ids)
            want = library.embeddings(input_ids=ids, token_type_ids=segments)
            want_plain = library.embeddings(input_ids=ids)
    return ch07.minilm_verdict(got, want, got_plain, want_plain, max_gap, "transformers", "eps")


def embeddings_formula(BertEmbeddings):
    """Random tables and layer-norm weights (ch07.embedding_formula_case) in the student's layer,
    against the formula in NumPy; one token repeated in segments 0 and 1. 2 observations."""
    tables, scale, shift, ids, segments, expected = ch07.embedding_formula_case()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        mine = BertEmbeddings(12, 6, max_len=9, type_vocab_size=3, dropout=0.0).eval()
        with torch.no_grad():
            for name, values in tables.items():
                getattr(mine, name).weight.copy_(torch.from_numpy(values))
            mine.norm.weight.copy_(torch.from_numpy(scale))
            mine.norm.bias.copy_(torch.from_numpy(shift))
            got = mine(torch.from_numpy(ids), torch.from_numpy(segments)).numpy()      # (4, 9, 6)
            same = torch.full((1, 4), 5)                                                # token 5, 4 times
            in_zero = mine(same, torch.zeros(1, 4, dtype=torch.long)).numpy()
            in_one = mine(same, torch.ones(1, 4, dtype=torch.long)).numpy()
    return ch07.embedding_formula_verdict(got, expected, in_zero, in_one, "eps")


def albert_library_embeddings(tables, scale, shift, kernel, bias, ids, segments):
    """transformers' AlbertModel (random configuration: vocabulary 12, d_e 4, d_model 6, 9
    positions, 3 segment types) with the given weights, in evaluation mode: its embeddings and
    its encoder's embedding_hidden_mapping_in on ids and segments, as NumPy (4, 9, 6)."""
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        import transformers
        transformers.logging.set_verbosity_error()
        config = transformers.AlbertConfig(
            vocab_size=12, embedding_size=4, hidden_size=6, num_hidden_layers=1, num_attention_heads=2,
            intermediate_size=8, max_position_embeddings=9, type_vocab_size=3, layer_norm_eps=1e-12,
            hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
        library = transformers.AlbertModel(config).eval()
        parts = library.embeddings
        with torch.no_grad():
            parts.word_embeddings.weight.copy_(torch.from_numpy(tables["tokens"]))
            parts.token_type_embeddings.weight.copy_(torch.from_numpy(tables["segments"]))
            parts.position_embeddings.weight.copy_(torch.from_numpy(tables["positions"]))
            parts.LayerNorm.weight.copy_(torch.from_numpy(scale))
            parts.LayerNorm.bias.copy_(torch.from_numpy(shift))
            library.encoder.embedding_hidden_mapping_in.weight.copy_(torch.from_numpy(kernel.T.copy()))
            library.encoder.embedding_hidden_mapping_in.bias.copy_(torch.from_numpy(bias))
            narrow = parts(input_ids=torch.from_numpy(ids), token_type_ids=torch.from_numpy(segments))
            return library.encoder.embedding_hidden_mapping_in(narrow).numpy()


def embeddings_albert(BertEmbeddings):
    """ALBERT's factorised embedding: random tables of width d_e = 4, layer norm and projection
    (ch07.albert_formula_case) in the student's layer with embed_dim=4, d_model=6 and in
    transformers' AlbertModel, compared, and the student's parameter count for
    ch07.ALBERT_COUNT_CASES. 2 observations."""
    tables, scale, shift, kernel, bias, ids, segments, expected = ch07.albert_formula_case()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        mine = BertEmbeddings(**ch07.ALBERT_SIZES, dropout=0.0).eval()
        ch07.albert_shapes(tuple(mine.tokens.weight.shape), tuple(mine.norm.weight.shape),
                           getattr(mine, "projection", None) is not None)
        with torch.no_grad():
            for name, values in tables.items():
                getattr(mine, name).weight.copy_(torch.from_numpy(values))
            mine.norm.weight.copy_(torch.from_numpy(scale))
            mine.norm.bias.copy_(torch.from_numpy(shift))
            mine.projection.weight.copy_(torch.from_numpy(kernel.T.copy()))       # nn.Linear: (out, in)
            mine.projection.bias.copy_(torch.from_numpy(bias))
            got = mine(torch.from_numpy(ids), torch.from_numpy(segments)).numpy()      # (4, 9, 6)
        want = albert_library_embeddings(tables, scale, shift, kernel, bias, ids, segments)
        counts = []
        for vocab, width, length, kinds, narrow in ch07.ALBERT_COUNT_CASES:
            layer = BertEmbeddings(vocab, width, length, kinds, embed_dim=narrow)
            counts.append(sum(weight.numel() for weight in layer.parameters()))
    return ch07.albert_verdict(got, want, counts, "transformers' AlbertModel")


def embeddings_dropout(BertEmbeddings):
    """dropout=0.5: two calls in training mode differ and about half the outputs are 0; two in
    evaluation mode agree; with dropout=0.0 both modes agree. 2 observations."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        torch.manual_seed(41)
        ids = torch.from_numpy(ch07.embedding_dropout_ids())                            # (4, 16)
        mine = BertEmbeddings(50, 32, max_len=16, dropout=0.5)
        with torch.no_grad():
            mine.train()
            first, second = mine(ids), mine(ids)
            mine.eval()
            third, fourth = mine(ids), mine(ids)
            quiet = BertEmbeddings(50, 32, max_len=16, dropout=0.0)
            train_out, eval_out = quiet.train()(ids), quiet.eval()(ids)
    assert (first - second).abs().max() > 1e-3, "in training mode, dropout=0.5 should make two calls differ"
    zeros = float((first == 0).float().mean())
    assert 0.4 < zeros < 0.6, (
        f"with dropout=0.5 in training mode about half the outputs should be exactly 0, got {zeros:.1%}: "
        "dropout comes last, after the layer norm")
    assert torch.equal(third, fourth), "in evaluation mode the layer should give the same output every time"
    assert torch.allclose(train_out, eval_out, atol=1e-6), (
        "with dropout=0.0, training and evaluation modes should agree")
    return [("embedding dropout in training mode, after the norm", True),
            ("embeddings deterministic in evaluation mode", True)]


# ----------------------------------------------------------------------------- classifier
def classifier_logits(BertClassifier):
    """A given BERT (2 layers of width 24, no dropout) in the student's classifier, evaluation
    mode, on ch07.classifier_batch: logits = classifier(pooled), with and without segment ids
    and mask; with pooling="mean", classifier(the mean of the real tokens' final vectors);
    with pooling="max", classifier(the largest value per feature over the real tokens);
    tolerance 1e-5. 6 observations."""
    ids, segments = (torch.from_numpy(x) for x in ch07.classifier_batch())              # (6, 12) each
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        torch.manual_seed(111)
        encoder = Bert(40, 24, 4, 48, 2, 16, 2, 0.0).eval()
        model = BertClassifier(encoder, 5).eval()
        with torch.no_grad():
            got = model(ids, segments, ids != 0)
            want = model.classifier(encoder(ids, segments, ids != 0)[1])
            got_plain = model(ids)
            want_plain = model.classifier(encoder(ids)[1])
            averaged = BertClassifier(encoder, 5, pooling="mean").eval()
            real = (ids != 0).unsqueeze(-1).float()                                    # (6, 12, 1)
            hidden = encoder(ids, segments, ids != 0)[0]                               # (6, 12, 24)
            got_mean = averaged(ids, segments, ids != 0)
            want_mean = averaged.classifier((hidden * real).sum(1) / real.sum(1))
            got_mean_plain = averaged(ids)
            want_mean_plain = averaged.classifier(encoder(ids)[0].mean(1))
            peaked = BertClassifier(encoder, 5, pooling="max").eval()
            lowest = torch.finfo(hidden.dtype).min
            got_max = peaked(ids, segments, ids != 0)
            want_max = peaked.classifier(torch.where(real.bool(), hidden, lowest).max(dim=1).values)
            got_max_plain = peaked(ids)
            want_max_plain = peaked.classifier(encoder(ids)[0].max(dim=1).values)
    return (ch07.classifier_logits_verdict(got, want, got_plain, want_plain, max_gap)
            + ch07.classifier_mean_verdict(got_mean, want_mean, got_mean_plain, want_mean_plain, max_gap)
            + ch07.classifier_max_verdict(got_max, want_max, got_max_plain, want_max_plain, max_gap))


def classifier_gradients(BertClassifier, freeze_bert):
    """One backward pass of the cross-entropy on ch07.gradient_batch: with freeze_bert only the
    classifier gets gradients; without, also BERT's token embeddings and every encoder layer.
    1 observation."""
    ids, targets = (torch.from_numpy(x) for x in ch07.gradient_batch())                 # (8, 10), (8,)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        torch.manual_seed(121)
        encoder = Bert(40, 24, 4, 48, 2, 16, 2, 0.0)
        model = BertClassifier(encoder, 3, dropout=0.0, freeze_bert=freeze_bert).train()
        torch.nn.functional.cross_entropy(model(ids), targets).backward()
    moved = {id(p) for p in model.parameters() if p.grad is not None and p.grad.abs().sum() > 0}
    head = {id(p) for p in model.classifier.parameters()}
    if freeze_bert:
        names = sorted(n for n, p in model.named_parameters() if id(p) in moved - head)
        assert moved == head, (
            "with freeze_bert=True only the classifier's weight and bias should get gradients; these got "
            f"some too: {names[:4]}")
    else:
        reached = [id(encoder.embeddings.tokens.weight) in moved] + [
            any(id(p) in moved for p in layer.parameters()) for layer in encoder.encoder_layers]
        assert head <= moved and all(reached), (
            "with freeze_bert=False the gradients should reach the classifier, BERT's token embeddings and "
            f"every encoder layer (embeddings, layer 0, layer 1 reached: {reached})")
    return f"gradients, freeze_bert={freeze_bert}", True


def classifier_dropout(BertClassifier):
    """dropout=0.5 on a BERT without dropout: two calls in training mode differ and no logit is
    exactly 0; two calls in evaluation mode agree. 2 observations."""
    ids = torch.from_numpy(ch07.classifier_dropout_ids())                               # (16, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # a warning is no failure
        torch.manual_seed(131)
        model = BertClassifier(Bert(40, 24, 4, 48, 1, 16, 2, 0.0), 4, dropout=0.5)
        with torch.no_grad():
            model.train()
            first, second = model(ids), model(ids)
            model.eval()
            third, fourth = model(ids), model(ids)
    assert (first - second).abs().max() > 1e-3, "in training mode, dropout=0.5 should make two calls differ"
    zeros = int((first == 0).sum())
    assert zeros == 0, (
        f"{zeros} logits were exactly 0 in training mode: apply the dropout to the pooled vector, before "
        "the classifier, not to the logits")
    assert torch.equal(third, fourth), (
        "in evaluation mode the classifier should give the same logits every time")
    return [("classifier dropout on the pooled vector", True),
            ("classifier deterministic in evaluation mode", True)]
