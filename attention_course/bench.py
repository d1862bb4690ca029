"""Milliseconds per training step of every chapter's models, in both frameworks.

    python -m attention_course.bench            (or: make bench)
    python -m attention_course.bench --rounds 5 --models "ch2 additive"

For each registered model and framework this times, side by side in one run
(the variants take turns, so a busy machine slows them alike; the medians of
the rounds are printed):

- ``before``: the step the chapters used before the shared loop: Keras
  ``train_on_batch`` (fit's machinery) and PyTorch's eager step with
  ``loss.item()``, both on full-width padded batches (S = 44, T = 30);
- ``padded``: the course's step (``keras_training`` / ``torch_training``) on the
  same full-width batches: what compiling the step gains;
- ``after``: the course's step on length-bucketed batches (``data.bucketed_batches``):
  what the chapters run now;
- ``forward``: the forward pass alone on the bucketed batches (the rest of a
  step is the backward pass and the optimizer).

Chapters 4-8 add their models with ``register`` (a name, the two model
builders, and the two loss functions; batches default to the number task).
Absolute times vary by 2x between machines of the same kind: compare ratios.
"""
from __future__ import annotations

import argparse
import dataclasses
import importlib
import itertools
import time
from typing import Callable

import numpy as np

from . import common, data


@dataclasses.dataclass
class Entry:
    name: str                       # e.g. "ch2 additive"
    keras_model: Callable           # () -> a built Keras model
    torch_model: Callable           # () -> a PyTorch model
    keras_loss: Callable            # loss_fn(model, batch) for keras_training.train
    torch_loss: Callable            # loss_fn(model, batch) for torch_training.train
    padded_batches: Callable        # () -> iterator of full-width batches ("before")
    bucketed_batches: Callable      # () -> iterator of bucketed batches ("after")
    batch_size: int                 # rows per batch, as its chapter trains it


REGISTRY: dict[str, Entry] = {}
BATCH_SIZE = 64           # chapter 1's batch size, the default


def register(name, keras_model, torch_model, keras_loss, torch_loss, padded_batches=None,
             bucketed_batches=None, batch_size=BATCH_SIZE) -> None:
    """Add a model to the benchmark (chapters 4-8 call this for theirs)."""
    task = data.number_task
    REGISTRY[name] = Entry(
        name, keras_model, torch_model, keras_loss, torch_loss,
        padded_batches or (lambda: data.endless_batches(task().train, batch_size, seed=1)),
        bucketed_batches or (lambda: data.bucketed_batches(task().train, batch_size, seed=1)),
        batch_size)


def _modules(*names: str) -> list:
    """The course modules of one framework, or Nones where that framework is not installed
    (a student may install one only): its models are then never built."""
    try:
        return [importlib.import_module(f"{__package__}.{name}") for name in names]
    except ImportError:
        return [None] * len(names)


def _loss(training) -> Callable | None:
    return training.seq2seq_loss if training is not None else None


def _register_chapters_1_and_2() -> None:
    keras_attention, keras_seq2seq, keras_training = _modules(
        "keras_attention", "keras_seq2seq", "keras_training")
    torch_attention, torch_seq2seq, torch_training = _modules(
        "torch_attention", "torch_seq2seq", "torch_training")

    task = data.number_task()
    sizes = (len(task.src_vocab), len(task.tgt_vocab))

    def built(model):
        model(task.train.src[:2], task.train.tgt_in[:2])
        return model

    register("ch1 seq2seq", lambda: built(keras_seq2seq.Seq2Seq(*sizes)),
             lambda: torch_seq2seq.Seq2Seq(*sizes),
             _loss(keras_training), _loss(torch_training))
    for score in ("additive", "multiplicative"):
        register(f"ch2 {score}",
                 lambda score=score: built(keras_attention.AttentionSeq2Seq(*sizes, score)),
                 lambda score=score: torch_attention.AttentionSeq2Seq(*sizes, score),
                 _loss(keras_training), _loss(torch_training),
                 batch_size=32)                # chapter 2 trains on batches of 32


def _register_chapter_6() -> None:
    keras_training, keras_transformer = _modules("keras_training", "keras_transformer")
    torch_training, torch_transformer = _modules("torch_training", "torch_transformer")

    task = data.number_task()
    sizes = (len(task.src_vocab), len(task.tgt_vocab))
    size = dict(d_model=64, num_heads=4, d_ff=128, num_layers=2, dropout=0.0)   # chapter 6's

    def built(model):
        model(task.train.src[:2], task.train.tgt_in[:2])
        return model

    register("ch6 Transformer", lambda: built(keras_transformer.Transformer(*sizes, **size)),
             lambda: torch_transformer.Transformer(*sizes, **size),
             _loss(keras_training), _loss(torch_training))


# ---------------------------------------------------------------- the steps timed
def _keras_steps(entry: Entry) -> dict[str, Callable]:
    import keras
    import tensorflow as tf

    from . import keras_training

    def course_step(model):
        optimizer = keras.optimizers.Adam(1e-4, epsilon=1e-8, global_clipnorm=1.0)
        optimizer.build(model.trainable_variables)
        compiled = {}

        def step(batch):
            tensors, rebuild = keras_training._flatten(batch)
            shapes = tuple(tuple(t.shape) for t in tf.nest.flatten(tensors))
            if shapes not in compiled:
                signature = tf.nest.map_structure(
                    lambda t: tf.TensorSpec(t.shape, t.dtype), tensors)
                compiled[shapes] = keras_training._make_step(model, optimizer, entry.keras_loss,
                                                             rebuild, signature)
            float(compiled[shapes](tensors))
        return step

    class Packed(keras.Model):        # fit() passes one input: (src, tgt_in)
        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def call(self, inputs):
            return self.inner(*inputs)

    def fit_step(model):
        packed = Packed(model)
        packed.compile(optimizer=keras.optimizers.Adam(1e-4, global_clipnorm=1.0),
                       loss=keras.losses.SparseCategoricalCrossentropy(
                           from_logits=True, ignore_class=data.PAD_ID))

        def step(batch):
            packed.train_on_batch((batch.src, batch.tgt_in), batch.tgt_out)
        return step

    def forward(model):
        compiled = {}

        def step(batch):
            tensors, rebuild = keras_training._flatten(batch)
            key = tuple(tuple(t.shape) for t in tf.nest.flatten(tensors))
            if key not in compiled:
                compiled[key] = tf.function(lambda t: entry.keras_loss(model, rebuild(t)))
            float(compiled[key](tensors))
        return step

    return {"before": fit_step, "padded": course_step, "after": course_step,
            "forward": forward}


def _torch_steps(entry: Entry) -> dict[str, Callable]:
    import torch

    def course_step(model, item=False):
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)

        def step(batch):
            loss = entry.torch_loss(model, batch)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            if item:
                loss.item()                       # the old loop's per-step host sync
        return step

    def forward(model):
        def step(batch):
            with torch.no_grad():
                entry.torch_loss(model, batch)
        return step

    return {"before": lambda m: course_step(m, item=True), "padded": course_step,
            "after": course_step, "forward": forward}


def _runners(entry: Entry, frameworks, variants, steps: int) -> dict:
    """(framework, variant) -> (a step function on a fresh model, the batches it times)."""
    padded = list(itertools.islice(entry.padded_batches(), 4))
    bucketed_iter = entry.bucketed_batches()
    bucketed = {}                                   # one batch of every shape there is
    for batch in itertools.islice(bucketed_iter, 3000):
        bucketed.setdefault((batch.src.shape, batch.tgt_in.shape), batch)
    bucketed = list(bucketed.values())
    mix = list(itertools.islice(bucketed_iter, steps))   # the shapes in their real mixture
    makers = {"Keras": (_keras_steps, entry.keras_model),
              "PyTorch": (_torch_steps, entry.torch_model)}
    runners = {}
    for framework in frameworks:
        make, build = makers[framework]
        for variant, factory in make(entry).items():
            if variant not in variants:
                continue
            common.set_seed(0)
            step = factory(build())
            warm = bucketed if variant in ("after", "forward") else padded[:1]
            for batch in warm:                      # compile every shape: not timed
                step(batch)
            runners[framework, variant] = (step, mix if variant in ("after", "forward")
                                           else padded)
    return runners


def _measure(runners: dict, rounds: int, steps: int) -> dict:
    """Median ms per step of each runner, the runners taking turns in every round."""
    times = {key: [] for key in runners}
    for _ in range(rounds):
        for key, (step, batches) in runners.items():
            start = time.perf_counter()
            for i in range(steps):
                step(batches[i % len(batches)])
            times[key].append(1000 * (time.perf_counter() - start) / steps)
    return {key: float(np.median(t)) for key, t in times.items()}


def _time(entry: Entry, rounds: int, steps: int) -> dict[tuple[str, str], float]:
    """Median ms per step for every (framework, variant), variants taking turns."""
    runners = _runners(entry, ("Keras", "PyTorch"), ("before", "padded", "after", "forward"),
                       steps)
    return _measure(runners, rounds, steps)


def step_ms(names: list[str], framework: str, batch, rounds: int = 3,
            steps: int = 4) -> dict:
    """ms per training step of the course's loop on one batch, for registered models of
    one framework, timed in turns after a warm-up step: {name: ms}.

    One batch (one shape) keeps the compilation short; chapters use this for their
    speed tables, where the ratios between models are what matters.
    """
    if not REGISTRY:
        _register_chapters_1_and_2()
        _register_chapter_6()
    makers = {"Keras": _keras_steps, "PyTorch": _torch_steps}
    runners = {}
    for name in names:
        entry = REGISTRY[name]
        build = entry.keras_model if framework == "Keras" else entry.torch_model
        common.set_seed(0)
        step = makers[framework](entry)["after"](build())
        step(batch)                                 # compile / warm up: not timed
        runners[name] = (step, [batch])
    return _measure(runners, rounds, steps)


def table(results: dict[str, dict]) -> str:
    """The markdown table of ms per step, speed-ups and Keras/PyTorch ratios."""
    lines = ["| model | batch | framework | before (ms) | padded (ms) | after (ms) "
             "| forward (ms) | before / after | Keras / PyTorch (after) |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    for name, ms in results.items():
        batch_size = REGISTRY[name].batch_size if name in REGISTRY else "?"
        for framework in ("Keras", "PyTorch"):
            ratio = ms["Keras", "after"] / ms["PyTorch", "after"]
            lines.append(
                f"| {name} | {batch_size} | {framework} | {ms[framework, 'before']:.0f} "
                f"| {ms[framework, 'padded']:.0f} | {ms[framework, 'after']:.0f} "
                f"| {ms[framework, 'forward']:.0f} "
                f"| {ms[framework, 'before'] / ms[framework, 'after']:.1f}x "
                f"| {ratio:.2f} |")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=6, help="steps per timing")
    parser.add_argument("--models", nargs="*", help="names to run (default: all)")
    args = parser.parse_args(argv)
    threads = common.set_threads()
    if not REGISTRY:
        _register_chapters_1_and_2()
        _register_chapter_6()
    names = args.models or list(REGISTRY)
    results = {}
    for name in names:
        results[name] = _time(REGISTRY[name], args.rounds, args.steps)
        print(f"{name}: done", flush=True)
    print(f"\nms per training step, batches as the chapters train them, {threads} thread(s) "
          f"per framework, "
          f"median of {args.rounds} rounds of {args.steps} steps:\n")
    print(table(results))


if __name__ == "__main__":
    main()
