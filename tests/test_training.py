"""The one training loop of each framework: same recipe, same step, same schedule.

One step of keras_training.train and one of torch_training.train, on the same
model (PyTorch weights copied into Keras with attention_course.convert) and the
same batch, must give the same loss and the same updated weights.

Tolerances: the losses agree to 1e-5 (float32 rounding in two libraries).
Adam's first step moves a weight with gradient g by lr * g / (|g| + eps')
in both libraries, with eps' = eps in PyTorch and eps / sqrt(1 - beta_2) =
31.6 eps in Keras, which adds eps before its bias correction (eps = 1e-8 in
both). So the two updates may differ by up to lr * 31.6 eps / (|g| + 31.6 eps)
(tiny unless |g| is near eps); the test allows that plus 1e-3 * lr, with g
the (clipped) gradient computed independently in PyTorch.
"""
import itertools

import numpy as np
import pytest

from attention_course import common, convert, data  # first: quiet TensorFlow
from attention_course import keras_seq2seq, keras_training, torch_seq2seq, torch_training

import keras  # noqa: E402
import torch  # noqa: E402

LR = 1e-2


@pytest.fixture(scope="module")
def task():
    return data.number_task(n_train=3000, n_valid=10, n_test=10)


def _pair(task):
    common.set_seed(3)
    torch_model = torch_seq2seq.Seq2Seq(len(task.src_vocab), len(task.tgt_vocab), 16, 24)
    keras_model = keras_seq2seq.Seq2Seq(len(task.src_vocab), len(task.tgt_vocab), 16, 24)
    keras_model(task.train.src[:2], task.train.tgt_in[:2])
    convert.copy_seq2seq_torch_to_keras(torch_model, keras_model)
    return torch_model, keras_model


def _torch_as_keras(torch_model, task):
    """The PyTorch model's current weights, in Keras layout (one array per Keras variable)."""
    twin = keras_seq2seq.Seq2Seq(len(task.src_vocab), len(task.tgt_vocab), 16, 24)
    twin(task.train.src[:2], task.train.tgt_in[:2])
    convert.copy_seq2seq_torch_to_keras(torch_model, twin)
    return [v.numpy() for v in twin.trainable_variables]


def _gradients(torch_model, batch, task, clip_norm):
    """|clipped gradient| of the loss for every weight, in Keras layout."""
    torch_model.zero_grad()
    torch_training.seq2seq_loss(torch_model, batch).backward()
    norm = torch.sqrt(sum((p.grad ** 2).sum() for p in torch_model.parameters())).item()
    scale = 1.0 if clip_norm is None else min(1.0, clip_norm / norm)
    grads = type(torch_model)(len(task.src_vocab), len(task.tgt_vocab), 16, 24)
    with torch.no_grad():
        for g, p in zip(grads.parameters(), torch_model.parameters()):
            g.copy_(scale * p.grad.abs())
    torch_model.zero_grad()
    return _torch_as_keras(grads, task)


@pytest.mark.parametrize("clip_norm, weight_decay", [(None, 0.0), (0.5, 0.0), (0.5, 2.0)])
def test_one_step_gives_the_same_loss_and_weights(task, clip_norm, weight_decay):
    torch_model, keras_model = _pair(task)
    batch = next(data.bucketed_batches(task.train, 32, seed=1))
    before = _torch_as_keras(torch_model, task)
    gradient = _gradients(torch_model, batch, task, clip_norm)
    torch_loss = torch_training.train(torch_model, [batch], 1, torch_training.seq2seq_loss,
                                      lr=LR, clip_norm=clip_norm, weight_decay=weight_decay)
    keras_loss = keras_training.train(keras_model, [batch], 1, keras_training.seq2seq_loss,
                                      lr=LR, clip_norm=clip_norm, weight_decay=weight_decay)
    assert isinstance(torch_loss[0], float) and isinstance(keras_loss[0], float)
    assert abs(torch_loss[0] - keras_loss[0]) < 1e-5
    after_torch = _torch_as_keras(torch_model, task)
    after_keras = [v.numpy() for v in keras_model.trainable_variables]
    moved = 0
    for old, t, k, g, var in zip(before, after_torch, after_keras, gradient,
                                 keras_model.trainable_variables):
        gap = np.abs(t - k)
        eps = 1e-8 / np.sqrt(1 - 0.999)
        allowed = LR * eps / (g + eps) + 1e-3 * LR
        assert np.all(gap <= allowed), (var.path, (gap - allowed).max())
        moved += np.sum(np.abs(t - old) > 0.5 * LR)
    assert moved > 1000          # the step really moved the weights (by about lr each)


def test_weight_decay_shrinks_matrices_not_biases(task):
    """AdamW (weight_decay > 0) shrinks every weight matrix by lr * weight_decay of itself,
    and leaves biases and vectors alone, in both frameworks: compared with a step without
    decay from the same start on the same batch."""
    batch = next(data.bucketed_batches(task.train, 32, seed=1))
    for framework in ("torch", "keras"):
        steps = {}
        for decay in (0.0, 5.0):
            torch_model, keras_model = _pair(task)
            if framework == "torch":
                torch_training.train(torch_model, [batch], 1, torch_training.seq2seq_loss,
                                     lr=LR, weight_decay=decay)
                steps[decay] = _torch_as_keras(torch_model, task)
            else:
                keras_training.train(keras_model, [batch], 1, keras_training.seq2seq_loss,
                                     lr=LR, weight_decay=decay)
                steps[decay] = [v.numpy() for v in keras_model.trainable_variables]
        torch_model, keras_model = _pair(task)
        before = _torch_as_keras(torch_model, task)
        names = [v.name for v in keras_model.trainable_variables]
        for start, name, plain, decayed in zip(before, names, steps[0.0], steps[5.0]):
            # Keras' GRU keeps its two bias vectors in one (2, 3 units) variable: not decayed
            if start.ndim >= 2 and name != "bias":    # decayed by lr * 5 = 5% of the weight
                np.testing.assert_allclose(plain - decayed, 0.05 * start, atol=1e-6)
            else:
                np.testing.assert_array_equal(plain, decayed)


def test_same_loss_function_in_both_frameworks(task):
    torch_model, keras_model = _pair(task)
    batch = next(data.bucketed_batches(task.train, 16, seed=2))
    with torch.no_grad():
        torch_loss = torch_training.seq2seq_loss(torch_model, batch).item()
    keras_loss = float(keras_training.seq2seq_loss(keras_model, batch))
    # Reference: the mean cross-entropy over real target tokens, in NumPy.
    with torch.no_grad():
        logits = torch_model(torch.as_tensor(batch.src), torch.as_tensor(batch.tgt_in)).numpy()
    logp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    picked = np.take_along_axis(logp, batch.tgt_out[..., None], -1)[..., 0]
    real = batch.tgt_out != data.PAD_ID
    expected = -picked[real].mean()
    assert abs(torch_loss - expected) < 1e-5 and abs(keras_loss - expected) < 1e-5


def test_learning_rates_schedule():
    rates = common.learning_rates(100, lr=2e-3, final_lr_fraction=0.1)
    cosine = keras.optimizers.schedules.CosineDecay(2e-3, decay_steps=100, alpha=0.1)
    np.testing.assert_allclose(rates, [float(cosine(i)) for i in range(100)], rtol=1e-6)
    warm = common.learning_rates(100, lr=1.0, final_lr_fraction=0.0, warmup_steps=10)
    np.testing.assert_allclose(warm[:10], np.arange(1, 11) / 10)
    assert warm[10] == 1.0 and np.all(np.diff(warm[10:]) < 0) and warm[-1] < 1e-3


def test_both_loops_use_the_schedule_at_every_step(task, monkeypatch):
    steps, lr = 7, 1e-3
    expected = common.learning_rates(steps, lr, 0.05, warmup_steps=3)
    seen_torch = []
    original = torch.optim.Adam.step

    def recording_step(self, *args, **kwargs):
        seen_torch.append(self.param_groups[0]["lr"])
        return original(self, *args, **kwargs)

    monkeypatch.setattr(torch.optim.Adam, "step", recording_step)
    torch_model, keras_model = _pair(task)
    batches = list(data.batches(task.train, 8))[:steps]
    torch_training.train(torch_model, batches, steps, torch_training.seq2seq_loss, lr=lr,
                         warmup_steps=3)
    np.testing.assert_allclose(seen_torch, expected, rtol=1e-12)

    seen_keras = []
    original_apply = keras.optimizers.Adam.apply

    def recording_apply(self, grads, variables=None):
        seen_keras.append(self.learning_rate)       # a tensor inside the compiled step
        return original_apply(self, grads, variables)

    monkeypatch.setattr(keras.optimizers.Adam, "apply", recording_apply)
    keras_training.train(keras_model, batches, steps, keras_training.seq2seq_loss, lr=lr,
                         warmup_steps=3)
    schedule = keras_training._Schedule(expected)
    np.testing.assert_allclose([float(schedule(i)) for i in range(steps)], expected, rtol=1e-6)
    assert seen_keras, "the Keras optimizer never applied a step"


def test_losses_fall_on_a_learnable_task(task):
    """Both loops, 100 bucketed steps: the loss on a fixed batch goes down in both."""
    fixed = next(data.batches(task.train, 256))
    for framework in ("keras", "torch"):
        common.set_seed(0)
        module = {"keras": keras_seq2seq, "torch": torch_seq2seq}[framework]
        loop = {"keras": keras_training, "torch": torch_training}[framework]
        model = module.Seq2Seq(len(task.src_vocab), len(task.tgt_vocab), 16, 32)
        before = float(np.asarray(loop.seq2seq_loss(model, fixed).detach()
                                  if framework == "torch" else loop.seq2seq_loss(model, fixed)))
        losses = loop.train(model, data.bucketed_batches(task.train, 32), 100,
                            loop.seq2seq_loss, lr=1e-2)
        after = loop.seq2seq_loss(model, fixed)
        after = float(after.detach() if framework == "torch" else after)
        assert len(losses) == 100
        assert after < before - 0.3, (framework, before, after)


def test_bucketed_batches_cut_padding_and_weigh_tokens_like_random_batches(task):
    arrays = task.train
    width = 8
    # Buckets of 8 tokens, except that the 103 sources of 41-44 tokens (under 1% of the rows)
    # join the 33-40 bucket: 1-8, 9-16, 17-24, 25-32, 33-44.
    bucket_of = np.minimum((arrays.src_lengths - 1) // width, 4)
    tgt_lengths = (arrays.tgt_out != data.PAD_ID).sum(1)
    full = {tuple(r[r != data.PAD_ID]) + ("|",) + tuple(t[t != data.PAD_ID])
            for r, t in zip(arrays.src, arrays.tgt_out)}
    generator = data.bucketed_batches(arrays, 32, seed=0, bucket_width=width)
    shapes, drawn = set(), []
    for _ in range(3000):
        batch = next(generator)
        assert len(batch) == 32
        lengths = batch.src_lengths
        bucket = np.minimum((lengths - 1) // width, 4)
        assert np.all(bucket == bucket[0])                     # one bucket per batch
        in_bucket = bucket_of == bucket[0]
        # cut to the bucket's widths: its longest source and target, not the full arrays'
        assert batch.src.shape[1] == arrays.src_lengths[in_bucket].max()
        assert batch.tgt_out.shape[1] == tgt_lengths[in_bucket].max()
        shapes.add((batch.src.shape, batch.tgt_in.shape))
        drawn.append(bucket[0])
        for r, t in zip(batch.src, batch.tgt_out):             # rows copied whole
            assert tuple(r[r != data.PAD_ID]) + ("|",) + tuple(t[t != data.PAD_ID]) in full
    # One shape per bucket.
    buckets = np.unique(bucket_of)
    assert len(shapes) == len(buckets) == 5
    # Buckets come up in proportion to the target tokens they hold.
    tokens = np.array([tgt_lengths[bucket_of == b].sum() for b in buckets], dtype=float)
    counts = np.array([np.sum(np.array(drawn) == b) for b in buckets])
    np.testing.assert_allclose(counts / counts.sum(), tokens / tokens.sum(), atol=0.03)
    again = data.bucketed_batches(arrays, 32, seed=0, bucket_width=width)
    first = data.bucketed_batches(arrays, 32, seed=0, bucket_width=width)
    assert np.array_equal(next(again).src, next(first).src)    # deterministic for a seed


def _arrays_with_lengths(src_lengths, width=44):
    """Arrays whose row i has a source of src_lengths[i] tokens, all equal to i + 4 (ids above
    the specials), and a target of half that length (at least 1), right-padded."""
    src_lengths = np.asarray(src_lengths)
    n = len(src_lengths)
    ids = np.arange(n)[:, None] + 4
    columns = np.arange(width)[None, :]
    src = np.where(columns < src_lengths[:, None], ids, data.PAD_ID)
    tgt_lengths = np.maximum(src_lengths // 2, 1)
    tgt = np.where(columns[:, :width // 2 + 1] < tgt_lengths[:, None], ids, data.PAD_ID)
    return data.Arrays(src, tgt, tgt)


def test_a_rare_length_joins_the_bucket_below():
    # 1,000 sources of 9-16 tokens, 5 of 41-44: those 5 are under 1% (and under a batch), so
    # they are batched with the 9-16 ones (width 44) rather than getting a shape of their own.
    lengths = np.r_[np.full(995, 12), [41, 42, 43, 44, 44]]
    arrays = _arrays_with_lengths(lengths)
    widths, seen = set(), set()
    for batch in itertools.islice(data.bucketed_batches(arrays, 32, seed=0), 300):
        widths.add(batch.src.shape[1])
        seen.update(batch.src[:, 0] - 4)
    assert widths == {44}
    assert {995, 996, 997, 998, 999} <= seen                         # the long rows are trained on
    # ... and with min_share=0 a bucket of at least batch_size rows keeps its own width
    lengths = np.r_[np.full(900, 12), np.full(100, 42)]
    arrays = _arrays_with_lengths(lengths)
    widths = {b.src.shape[1] for b in itertools.islice(
        data.bucketed_batches(arrays, 32, seed=0, min_share=0), 100)}
    assert widths == {12, 42}


def test_bucketed_batches_refuse_a_batch_larger_than_the_data():
    with pytest.raises(ValueError, match="smaller batch_size"):
        next(data.bucketed_batches(_arrays_with_lengths(np.full(10, 5)), 16))


def test_bucketed_batches_go_through_a_bucket_before_repeating_a_row(task):
    arrays = task.train
    generator = data.bucketed_batches(arrays, 16, seed=1, bucket_width=44)   # one bucket
    rows = [tuple(r) for _ in range(len(arrays) // 16) for r in next(generator).src]
    assert len(set(rows)) == len(rows)


def test_the_pytorch_loop_flushes_denormals_to_zero():
    """Denormal floats make x86 CPUs up to 100x slower; torch_training turns them off like TF."""
    import torch

    from attention_course import torch_training  # noqa: F401  (sets the flag on import)

    tiny = torch.tensor([1e-30], dtype=torch.float32) * torch.tensor([1e-10])   # 1e-40: denormal
    assert tiny.item() == 0.0
    assert torch.tensor([1e-30]).item() > 0          # normal numbers are untouched


def test_both_loops_call_back_after_every_step_and_keep_training_mode(task):
    """callback(steps_done) runs after each step; an evaluation inside it (which puts a PyTorch
    model in eval mode) does not leave the next steps without dropout."""
    torch_model, keras_model = _pair(task)
    batches = list(itertools.islice(data.bucketed_batches(task.train, 8, seed=4), 3))
    seen = {"Keras": [], "PyTorch": []}
    modes = []

    def torch_callback(steps_done):
        modes.append(torch_model.training)
        seen["PyTorch"].append(steps_done)
        torch_model.eval()                       # as torch_training.predict does

    torch_training.train(torch_model, batches, 3, torch_training.seq2seq_loss,
                         callback=torch_callback)
    keras_training.train(keras_model, batches, 3, keras_training.seq2seq_loss,
                         callback=seen["Keras"].append)
    assert seen == {"Keras": [1, 2, 3], "PyTorch": [1, 2, 3]}
    assert modes == [True, True, True]


def _traces_and_losses(model, task):
    """Train a Keras model 12 bucketed steps; count how often its loss is traced."""
    traced = []

    def counting_loss(model, batch):
        traced.append(tuple(batch.src.shape))       # runs when a step is traced, not per step
        return keras_training.seq2seq_loss(model, batch)

    model(task.train.src[:2], task.train.tgt_in[:2])          # built outside the count
    batches = list(itertools.islice(data.bucketed_batches(task.train, 16, seed=2), 12))
    shapes = {(b.src.shape, b.tgt_in.shape) for b in batches}
    losses = keras_training.train(model, iter(batches), 12, counting_loss, lr=LR)
    return traced, shapes, losses


class PythonLoopModel(keras.Model):
    """Loops over the target length in Python, as a student's decoder may: it cannot be
    traced without knowing that length (range(None))."""

    def __init__(self, vocab_size):
        super().__init__()
        self.embedding = keras.layers.Embedding(vocab_size, 8)
        self.out = keras.layers.Dense(vocab_size)

    def call(self, src, tgt_in):
        return keras.ops.stack([self.out(self.embedding(tgt_in[:, t]))
                                for t in range(tgt_in.shape[1])], axis=1)


def test_keras_loop_traces_twice_for_any_number_of_shapes(task, monkeypatch):
    """A model that can be traced without knowing its lengths (chapters 1 and 2's) gets a
    step for the first shape and one for all the others, with the same losses as one step
    per shape; a model whose call loops over the target length in Python gets one step
    per shape (after one failed attempt at a step for any length)."""
    from attention_course import keras_attention

    models = {"chapter 1": lambda: keras_seq2seq.Seq2Seq(len(task.src_vocab),
                                                         len(task.tgt_vocab), 16, 24),
              "chapter 2": lambda: keras_attention.AttentionSeq2Seq(
                  len(task.src_vocab), len(task.tgt_vocab), embed_dim=8, hidden_dim=16)}
    for name, build in models.items():
        common.set_seed(0)
        traced, shapes, relaxed = _traces_and_losses(build(), task)
        assert len(shapes) >= 3
        assert len(traced) == 2, (name, traced)

        monkeypatch.setattr(keras_training, "_step_for_any_length", lambda *args: None)
        common.set_seed(0)
        traced, _, per_shape = _traces_and_losses(build(), task)
        assert len(traced) == len(shapes)
        np.testing.assert_allclose(relaxed, per_shape, rtol=1e-5, err_msg=name)
        monkeypatch.undo()

    common.set_seed(0)
    traced, shapes, losses = _traces_and_losses(PythonLoopModel(len(task.tgt_vocab)), task)
    assert len(traced) == len(shapes) + 1
    assert np.isfinite(losses).all()


def test_keras_step_for_any_length_keeps_the_batch_size(task):
    """The step for any length is traced for the batch size of the batches so far; batches
    with other numbers of rows share one more step, for any shape, traced once."""
    batches = list(itertools.islice(data.bucketed_batches(task.train, 16, seed=2), 12))
    second = next(i for i, b in enumerate(batches) if b.src.shape != batches[0].src.shape)
    last = batches[-1]
    fewer = [data.Arrays(b.src[:rows], b.tgt_in[:rows], b.tgt_out[:rows])
             for b, rows in ((last, 5), (batches[0], 7))]               # 5 and 7 rows, not 16
    traced = []

    def counting_loss(model, batch):
        traced.append(tuple(batch.src.shape))         # runs when a step is traced
        return keras_training.seq2seq_loss(model, batch)

    common.set_seed(0)
    model = keras_seq2seq.Seq2Seq(len(task.src_vocab), len(task.tgt_vocab), 16, 24)
    model(task.train.src[:2], task.train.tgt_in[:2])            # built outside the count
    steps = batches[:second + 1] + fewer + [batches[-2]]
    losses = keras_training.train(model, iter(steps), len(steps), counting_loss, lr=LR)
    assert traced == [batches[0].src.shape, (16, None), (None, None)]
    assert np.isfinite(losses).all()
