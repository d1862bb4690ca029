"""The Keras training loop of the course (twin of torch_training.py).

``train(model, batches, steps, loss_fn, ...)`` is the one loop every chapter
uses. The recipe is the same as in PyTorch, by construction: Adam
(epsilon 1e-8, PyTorch's default), the learning rate of every step taken from
``common.learning_rates`` (optional linear warm-up, then a cosine decay to
``final_lr_fraction * lr``), gradients clipped to a global norm, a progress bar
with the mean loss of the last 50 steps, and the loss of every step returned.

The step is a custom ``tf.function`` (``tf.GradientTape`` inside), not
``model.fit``: fit's per-batch machinery (callbacks, logs, the data adapter)
cost more than the step itself on these small models. Compiling (tracing) a
step takes seconds, so it is done as few times as the model allows. The
first batch shape gets a step of its own. At the second shape, the loop
traces one step for batches of any length (every dimension after the batch
size ``None``) and uses it for every shape after that: a Transformer (chapter 6)
is traced twice instead of once per bucket (about 7 s each on one CPU thread).
The batch size stays fixed: length-bucketed batches all have the same number
of rows, and with it known the traced step ran faster in our measurements
(chapter 2's decoder, which loops with ``ops.scan``: 16% less time per step than
with the batch size unknown too, with the same losses bit for bit). A batch of
another size (a student's last, smaller batch) goes to one more step, traced
once, for batches of any shape. A model whose ``call`` loops
over the target length in Python cannot be traced without knowing that length;
for it the loop keeps one step per batch shape (bucketed batches come in a
handful of shapes), each traced once and never retraced. The loss is a function
``loss_fn(model, batch)`` so that chapters 6-8 add classification, masked-LM
and next-token losses without touching the loop.
"""
from __future__ import annotations

import dataclasses
import logging
import weakref
from typing import Callable, Iterable

import keras
import numpy as np
import tensorflow as tf
from keras import ops

from . import evaluation
from .common import learning_rates
from .data import PAD_ID
from .progress import progress_bar

class _ExpectedRetracing(logging.Filter):
    """Drops TensorFlow's "triggered tf.function retracing" warning: train may compile one
    step per batch shape on purpose (a handful of buckets), and the warning would
    otherwise land in the notebooks' outputs."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "triggered tf.function retracing" not in record.getMessage()


tf.get_logger().addFilter(_ExpectedRetracing())

LOSS_WINDOW = 50          # the progress bar shows the mean loss of the last 50 steps
REFRESH_EVERY = 25        # ... updated every 25 steps

_compiled_methods = weakref.WeakKeyDictionary()     # layer -> {method name: compiled}


def compiled(layer, method: str = "__call__") -> Callable:
    """layer.method compiled by TensorFlow, traced once per layer and then reused (the
    cache forgets a layer when it is deleted). Called eagerly, a Keras layer runs Python
    bookkeeping at every call, which costs more than a small model's arithmetic; the
    decoding and generation loops of chapters 1, 2, 6 and 8 call their models through
    this. reduce_retracing: one graph serves every batch size and length."""
    methods = _compiled_methods.setdefault(layer, {})
    if method not in methods:
        methods[method] = tf.function(getattr(layer, method), reduce_retracing=True)
    return methods[method]


def seq2seq_loss(model, batch):
    """Teacher-forced cross-entropy per target token, padding ignored.

    batch: data.Arrays with src (B, S), tgt_in (B, T), tgt_out (B, T).
    """
    logits = model(batch.src, batch.tgt_in, training=True)              # (B, T, V)
    token_loss = keras.losses.sparse_categorical_crossentropy(
        batch.tgt_out, logits, from_logits=True)                          # (B, T)
    real = ops.cast(batch.tgt_out != PAD_ID, token_loss.dtype)
    return ops.sum(token_loss * real) / ops.sum(real)


class _Schedule(keras.optimizers.schedules.LearningRateSchedule):
    """Looks up the rate of each step in the table of common.learning_rates."""

    def __init__(self, rates: np.ndarray):
        self.rates = tf.constant(rates, dtype="float32")

    def __call__(self, step):
        last = tf.shape(self.rates)[0] - 1
        return tf.gather(self.rates, tf.minimum(tf.cast(step, "int32"), last))


def _flatten(batch):
    """A batch (tuple, dict, or dataclass such as data.Arrays) -> (tensors, rebuild)."""
    if dataclasses.is_dataclass(batch):
        kind = type(batch)
        names = [field.name for field in dataclasses.fields(batch)]
        return (tuple(tf.convert_to_tensor(getattr(batch, n)) for n in names),
                lambda tensors: kind(*tensors))
    return tf.nest.map_structure(tf.convert_to_tensor, batch), lambda tensors: tensors


def _make_step(model, optimizer, loss_fn, rebuild, signature):
    """One compiled training step for batches of one shape."""

    @tf.function(input_signature=[signature])
    def step(tensors):
        with tf.GradientTape() as tape:
            loss = loss_fn(model, rebuild(tensors))
        variables = model.trainable_variables
        # Embedding gradients come as IndexedSlices, with which Keras' Adam would update
        # a row once per occurrence in the batch: made dense, Adam is PyTorch's Adam.
        # A variable that the loss does not use (BERT's pooler in masked-LM training) gets
        # no gradient and is left alone, as PyTorch leaves a parameter whose grad is None.
        used = [(tf.convert_to_tensor(g), v)
                for g, v in zip(tape.gradient(loss, variables), variables) if g is not None]
        optimizer.apply_gradients(used)                         # clips by global norm first
        return loss

    return step


def _signature(tensors, any_length=False, any_rows=False):
    """The TensorSpecs of a batch: its exact shapes; with any_length, its batch size and
    every other dimension None; with any_rows as well, every dimension None (any shape)."""
    def spec(t):
        shape = list(t.shape)
        if any_length:
            shape[1:] = [None] * len(shape[1:])
        if any_rows:
            shape[:1] = [None] * len(shape[:1])
        return tf.TensorSpec(shape, t.dtype)
    return tf.nest.map_structure(spec, tensors)


def _batch_sizes(tensors):
    """The first dimension of every tensor of a batch: what a step for any length keeps."""
    return tuple(tuple(t.shape[:1]) for t in tf.nest.flatten(tensors))


def _step_for_any_length(model, optimizer, loss_fn, rebuild, tensors, any_rows=False):
    """One compiled step for batches of this batch size (or any, with any_rows) and any
    lengths, or None when the model needs to know its lengths while it is traced (a Python
    loop over the target length)."""
    signature = _signature(tensors, any_length=True, any_rows=any_rows)
    step = _make_step(model, optimizer, loss_fn, rebuild, signature)
    try:
        step.get_concrete_function()                   # trace now, train nothing
    except (TypeError, ValueError):                     # e.g. range(None)
        return None
    return step


def train(model, batches: Iterable, steps: int, loss_fn: Callable, lr: float = 3e-3,
          final_lr_fraction: float = 0.05, clip_norm: float | None = 1.0,
          warmup_steps: int = 0, desc: str = "train",
          callback: Callable | None = None, weight_decay: float = 0.0) -> list[float]:
    """Train for a fixed number of steps; return the loss of every step (Python floats).

    batches: an iterator of NumPy batches (e.g. data.bucketed_batches);
    loss_fn(model, batch) -> scalar loss tensor;
    callback(steps_done), if given, runs after every step (chapter 6 measures
    held-out accuracy during training with it);
    weight_decay > 0: AdamW (decoupled weight decay, Loshchilov and Hutter 2019) on the
    weight matrices and embedding tables, not on biases and layer-norm weights (as BERT).
    Layers with trainable=False (a frozen encoder) are not trained.
    """
    batches = iter(batches)
    first = next(batches)
    if not model.built:                       # create the weights outside the compiled step
        loss_fn(model, first)
    schedule = _Schedule(learning_rates(steps, lr, final_lr_fraction, warmup_steps))
    if weight_decay:
        optimizer = keras.optimizers.AdamW(learning_rate=schedule, weight_decay=weight_decay,
                                           epsilon=1e-8, global_clipnorm=clip_norm)
        # Not decayed: vectors (biases, layer-norm weights) and Keras' GRU biases, which
        # it keeps as one (2, 3 units) matrix where PyTorch has two bias vectors.
        optimizer.exclude_from_weight_decay(var_list=[
            v for v in model.trainable_variables if len(v.shape) < 2 or v.name == "bias"])
    else:
        optimizer = keras.optimizers.Adam(learning_rate=schedule, epsilon=1e-8,
                                          global_clipnorm=clip_norm)
    optimizer.build(model.trainable_variables)
    compiled = {}                             # batch shapes -> compiled step
    any_length = None                         # the step for any length, if the model allows
    any_length_sizes = None                   # ... and the batch size it was traced for
    any_shape = None                          # the step for other batch sizes, if needed
    losses = []                               # loss tensors; converted every REFRESH_EVERY
    with progress_bar(steps, desc=desc) as bar:
        for i in range(steps):
            batch = first if i == 0 else next(batches)
            tensors, rebuild = _flatten(batch)
            shapes = tuple(tuple(t.shape) for t in tf.nest.flatten(tensors))
            if shapes not in compiled and compiled and any_length_sizes is None:
                any_length = _step_for_any_length(model, optimizer, loss_fn, rebuild, tensors)
                any_length_sizes = _batch_sizes(tensors)          # tried once, at shape two
            if shapes in compiled:
                step = compiled[shapes]
            elif any_length is None:                              # a Python loop over T
                step = compiled[shapes] = _make_step(model, optimizer, loss_fn, rebuild,
                                                     _signature(tensors))
            elif _batch_sizes(tensors) == any_length_sizes:
                step = any_length
            else:                                                 # another number of rows
                if any_shape is None:
                    any_shape = _step_for_any_length(model, optimizer, loss_fn, rebuild,
                                                     tensors, any_rows=True)
                step = any_shape
            losses.append(step(tensors))
            if (i + 1) % REFRESH_EVERY == 0 or i + 1 == steps:
                recent = ops.convert_to_numpy(ops.stack(losses[-LOSS_WINDOW:]))
                bar.set_postfix(loss=f"{recent.mean():.4f}", refresh=False)
            bar.update()
            if callback is not None:
                callback(i + 1)
    return [float(x) for x in ops.convert_to_numpy(ops.stack(losses))]


def predict(decode: Callable, model, src: np.ndarray, max_len: int,
            batch_size: int = 1000) -> np.ndarray:
    """Run a decoding function (e.g. greedy_decode) over a NumPy source array.

    The rows are decoded in order of length, in batches cut to their longest
    source (less padding to encode and attend over), and returned in the
    original order: (N, max_len) (evaluation.decode_in_length_order).
    """
    return evaluation.decode_in_length_order(decode, model, src, max_len, batch_size)

