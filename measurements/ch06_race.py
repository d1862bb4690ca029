"""Chapter 6, §6.6 and §6.7 over several seeds, in both frameworks, as the chapter runs them.

    python -m measurements.ch06_race [--seeds 0 1 2] [--frameworks keras pytorch]

For every seed and framework, on one thread (COURSE_THREADS=1), three runs with the chapter's
settings and code:

- arm "<framework> transformer": §6.6's Transformer, 1,200 steps of 64 pairs, its recipe;
  exact match by source length on the chapter's 4,000 test pairs;
- arm "<framework> race rnn": chapter 2's attention RNN, §6.7's budget (RACE_STEPS steps of
  RACE_BATCH_SIZE pairs) with chapter 2's recipe, a full schedule;
- arm "<framework> race transformer": §6.6's Transformer on the same budget with §6.6's
  recipe, a full schedule of its own.

The race arms record the exact match on the 500 validation pairs of the chapter's probe at the
end of training and the seconds of training (decoding not counted). Seed s sets the initial
weights (common.set_seed) and the order of the batches; seed 0 is the chapter's own run.
"""
import argparse
import fcntl
import tempfile
import time
from pathlib import Path

from attention_course import common, data, evaluation, measured

SIZE = dict(d_model=64, num_heads=4, d_ff=128, num_layers=2, dropout=0.0)    # §6.6's
RECIPE = dict(lr=5e-3, warmup_steps=100, final_lr_fraction=0.05, clip_norm=1.0)
BATCH_SIZE, STEPS = 64, 1200
RACE_STEPS, RACE_BATCH_SIZE = 300, 32                                        # §6.7's
RNN_RECIPE = dict(lr=6e-3, final_lr_fraction=0.05, clip_norm=1.0)           # chapter 2's
PROBE_PAIRS, TEST_PAIRS, DECODE_BATCH = slice(0, 500), slice(0, 4000), 125


def framework(name):
    """The framework's modules (Transformer, attention RNN, training loop) and smoothed loss."""
    if name == "keras":
        from keras import ops

        from attention_course import keras_attention, keras_training, keras_transformer

        def smoothed_loss(model, batch, smoothing=0.1):      # the chapter's keras_smoothed_loss
            logits = model(batch.src, batch.tgt_in, training=True)
            log_probs = ops.log_softmax(logits, axis=-1)
            picked = ops.take_along_axis(log_probs, ops.expand_dims(batch.tgt_out, -1), -1)[..., 0]
            token_loss = -(1 - smoothing) * picked - smoothing * ops.mean(log_probs, axis=-1)
            real = ops.cast(batch.tgt_out != data.PAD_ID, token_loss.dtype)
            return ops.sum(token_loss * real) / ops.sum(real)

        return (keras_transformer, keras_attention, keras_training, smoothed_loss)
    import torch
    from torch import nn

    from attention_course import torch_attention, torch_training, torch_transformer

    def smoothed_loss(model, batch, smoothing=0.1):          # the chapter's torch_smoothed_loss
        src, tgt_in, tgt_out = (torch.as_tensor(a) for a in (batch.src, batch.tgt_in, batch.tgt_out))
        logits = model(src, tgt_in)
        return nn.functional.cross_entropy(logits.flatten(0, 1), tgt_out.flatten(),
                                           ignore_index=data.PAD_ID, label_smoothing=smoothing)

    return (torch_transformer, torch_attention, torch_training, smoothed_loss)


def runs_of(task, name, seed):
    transformer, attention, training, smoothed_loss = framework(name)
    max_len = task.test.tgt_out.shape[1]
    vocab = (len(task.src_vocab), len(task.tgt_vocab))

    def trained(model, batch_size, steps, loss, recipe):
        start = time.perf_counter()
        training.train(model, data.bucketed_batches(task.train, batch_size, seed=seed), steps,
                       loss, **recipe, desc=f"{name} seed {seed}")
        return time.perf_counter() - start

    def exact(decode, model, split, pairs):
        predicted = training.predict(decode, model, split.src[pairs], max_len,
                                     batch_size=DECODE_BATCH)
        return evaluation.exact_match(predicted, split.tgt_out[pairs])

    results = []
    common.set_seed(seed)                                      # §6.6
    model = transformer.Transformer(*vocab, **SIZE)
    seconds = trained(model, BATCH_SIZE, STEPS, smoothed_loss, RECIPE)
    correct = exact(transformer.greedy_decode, model, task.test, TEST_PAIRS)
    rows = evaluation.accuracy_by_length(task.test.src_lengths[TEST_PAIRS], correct)
    run = {"arm": f"{name} transformer", "training_seconds": round(seconds, 1),
           "exact_match": float(correct.mean())}
    results.append(run | {f"accuracy_{row['bin']}": row["accuracy"] for row in rows})

    common.set_seed(seed)                                      # §6.7: the RNN
    rnn = attention.AttentionSeq2Seq(*vocab)
    seconds = trained(rnn, RACE_BATCH_SIZE, RACE_STEPS, training.seq2seq_loss, RNN_RECIPE)
    accuracy = exact(attention.greedy_decode, rnn, task.valid, PROBE_PAIRS).mean()
    results.append({"arm": f"{name} race rnn", "training_seconds": round(seconds, 1),
                    "exact_match": float(accuracy)})

    common.set_seed(seed)                                      # §6.7: the Transformer
    model = transformer.Transformer(*vocab, **SIZE)
    seconds = trained(model, RACE_BATCH_SIZE, RACE_STEPS, smoothed_loss, RECIPE)
    accuracy = exact(transformer.greedy_decode, model, task.valid, PROBE_PAIRS).mean()
    results.append({"arm": f"{name} race transformer", "training_seconds": round(seconds, 1),
                    "exact_match": float(accuracy)})
    return [{"seed": seed, "framework": name} | run for run in results]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--frameworks", nargs="+", default=["keras", "pytorch"])
    args = parser.parse_args()
    common.set_threads()
    task = data.number_task()
    for seed in args.seeds:
        for name in args.frameworks:
            results = runs_of(task, name, seed)
            print(results, flush=True)
            with open(Path(tempfile.gettempdir()) / "ch06_race.lock", "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)               # several scripts may record at once
                measured.record("ch06_race", "measurements/ch06_race.py",
                                "§6.6's Transformer (1,200 steps of 64) and §6.7's race (the "
                                f"attention RNN and the Transformer, {RACE_STEPS} steps of "
                                f"{RACE_BATCH_SIZE}, each a full schedule of its recipe), one "
                                "thread", results)


if __name__ == "__main__":
    main()
