"""Chapter 1's Keras greedy decoding, eager against through `compiled` (§1.6's note).

    python -m measurements.ch01_decode_speed [--seeds 0]

Chapter 1's Keras encoder-decoder (keras_seq2seq.Seq2Seq, the chapter's sizes, random weights:
the cost of decoding does not depend on what the model learned, since greedy decoding runs
every step) decodes the chapter's 20,000 test sources with keras_training.predict and
keras_seq2seq.greedy_decode, as §1.9 does: once as the chapter's code runs it (the encoder and
decoder called through keras_training.compiled, traced into TensorFlow graphs; the tracing is
included) and once with `compiled` replaced by plain eager calls. Both give the same tokens
(checked). A measurement of speed on this machine's processor, one thread ($OMP_NUM_THREADS,
$COURSE_THREADS); about 30 s.
"""
from __future__ import annotations

import argparse
import time
from unittest import mock

import numpy as np

from attention_course import common, data, measured


def eager(layer, method: str = "__call__"):
    """What keras_training.compiled hands back, without the tracing: the method itself."""
    return getattr(layer, method)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = parser.parse_args()
    common.set_threads()
    from attention_course import keras_seq2seq, keras_training
    task = data.number_task()
    max_len = task.test.tgt_out.shape[1]
    runs = []
    for seed in args.seeds:
        common.set_seed(seed)
        model = keras_seq2seq.Seq2Seq(len(task.src_vocab), len(task.tgt_vocab))
        model(task.train.src[:2], task.train.tgt_in[:2])          # build
        timed = {}
        for mode in ("compiled", "eager"):
            patch = (mock.patch.object(keras_seq2seq, "compiled", eager) if mode == "eager"
                     else mock.patch.object(keras_seq2seq, "compiled", keras_training.compiled))
            with patch:
                start = time.perf_counter()
                tokens = keras_training.predict(keras_seq2seq.greedy_decode, model,
                                                task.test.src, max_len=max_len)
                timed[mode] = (time.perf_counter() - start, tokens)
        assert np.array_equal(timed["eager"][1], timed["compiled"][1]), "eager and compiled differ"
        run = {"seed": seed, "sources": int(len(task.test.src)),
               "eager_seconds": round(timed["eager"][0], 1),
               "compiled_seconds": round(timed["compiled"][0], 1)}
        print(run, flush=True)
        runs.append(run)
    path = measured.record(
        "ch01_decode_speed", "measurements/ch01_decode_speed.py",
        "Chapter 1's Keras greedy decoding of the 20,000 test sources (random weights, batches "
        "of 1,000 by length, one thread): seconds with the encoder and decoder called eagerly "
        "and through keras_training.compiled (tracing included).", runs)
    print("recorded in", path)


if __name__ == "__main__":
    main()
