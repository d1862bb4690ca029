"""Train a chapter's sequence-to-sequence model and decode the test set, in either framework:
what measurements/ch01_seeds.py and ch02_seeds.py share (each passes its chapter's modules,
steps, batch size and recipe)."""
from __future__ import annotations

import importlib
import time

from attention_course import common, data

# The model class of each chapter's module: chapter 1's plain encoder-decoder, chapter 2's with
# attention.
CLASSES = {"seq2seq": "Seq2Seq", "attention": "AttentionSeq2Seq"}


def train_and_decode(framework: str, module: str, task, seed: int, steps: int, batch_size: int,
                     recipe: dict):
    """`module` is the chapter's model module without its prefix ("seq2seq" for keras_seq2seq
    and torch_seq2seq). Returns (greedy predictions of task.test.src, training seconds)."""
    prefix = "keras" if framework == "keras" else "torch"
    models = importlib.import_module(f"attention_course.{prefix}_{module}")
    training = importlib.import_module(f"attention_course.{prefix}_training")
    common.set_seed(seed)
    model = getattr(models, CLASSES[module])(len(task.src_vocab), len(task.tgt_vocab))
    if framework == "keras":
        model(task.train.src[:2], task.train.tgt_in[:2])       # build the embeddings too
    else:
        model = model.to(common.torch_device())
    start = time.perf_counter()
    training.train(model, data.bucketed_batches(task.train, batch_size, seed=seed), steps,
                   training.seq2seq_loss, **recipe,
                   desc=f"{'Keras' if framework == 'keras' else 'PyTorch'} seed {seed}")
    seconds = time.perf_counter() - start
    pred = training.predict(models.greedy_decode, model, task.test.src,
                            max_len=task.test.tgt_out.shape[1])
    return pred, seconds
