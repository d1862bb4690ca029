"""Seeding, device, thread and timing helpers."""
import gc
import os
import random

# First, before Keras: common quiets TensorFlow.
from attention_course.common import garbage_collection_paused, set_seed, set_threads, torch_device

import keras  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402


def random_draws():
    dense = keras.layers.Dense(2)
    dense.build((None, 4))
    return [random.random(),
            np.random.rand(3),
            torch.rand(3).numpy(),
            torch.nn.Linear(4, 2).weight.detach().numpy(),
            keras.ops.convert_to_numpy(keras.random.normal((3,))),
            dense.kernel.numpy()]


def test_set_seed_repeats_every_framework():
    set_seed(11)
    first = random_draws()
    set_seed(11)
    again = random_draws()
    set_seed(12)
    other = random_draws()
    for a, b, c in zip(first, again, other):
        np.testing.assert_array_equal(a, b)
        assert not np.array_equal(a, c)


def test_set_seed_asks_for_full_float32_on_gpus():
    """TF32 (on NVIDIA Ampere and later) would round matrix products' inputs to 10-bit
    mantissas; the checks of the course hold to float32 rounding. Settable without a GPU."""
    import tensorflow as tf

    set_seed(0)
    assert not torch.backends.cuda.matmul.allow_tf32 and not torch.backends.cudnn.allow_tf32
    assert not tf.config.experimental.tensor_float_32_execution_enabled()


def test_draws_continue_after_seeding():
    set_seed(5)
    a, b = torch.rand(2), torch.rand(2)
    assert not torch.equal(a, b)            # seeding once does not freeze the generator


def test_torch_device_is_cpu_without_cuda():
    device = torch_device()
    assert isinstance(device, torch.device)
    assert device.type == ("cuda" if torch.cuda.is_available() else "cpu")


def test_set_threads(monkeypatch):
    before = torch.get_num_threads()
    try:
        assert set_threads(2) == 2
        assert torch.get_num_threads() == 2
        monkeypatch.setenv("COURSE_THREADS", "1")
        assert set_threads() == 1
        assert torch.get_num_threads() == 1
        monkeypatch.delenv("COURSE_THREADS")
        assert set_threads() == (os.cpu_count() or 1)
    finally:
        torch.set_num_threads(before)


def test_garbage_collection_is_paused_inside_the_block_and_restored_after():
    assert gc.isenabled()
    with garbage_collection_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()                       # off before: stays off after
    try:
        with garbage_collection_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
    try:                               # on again after an error inside the block
        with garbage_collection_paused():
            raise KeyError
    except KeyError:
        pass
    assert gc.isenabled()


def _tiny_transformer_losses(fill: bool) -> list[float]:
    from attention_course import data, torch_training, torch_transformer

    set_seed(0)
    torch.utils.deterministic.fill_uninitialized_memory = fill
    model = torch_transformer.Transformer(12, 12, d_model=16, num_heads=4, d_ff=32, dropout=0.1)
    rng = np.random.default_rng(0)

    def batches():
        while True:
            src = rng.integers(4, 12, size=(8, int(rng.integers(3, 9))))
            tgt = src[:, ::-1]
            bos = np.full((8, 1), data.BOS_ID)
            eos = np.full((8, 1), data.EOS_ID)
            yield data.Arrays(src, np.concatenate([bos, tgt], 1), np.concatenate([tgt, eos], 1))

    return torch_training.train(model, batches(), 30, torch_training.seq2seq_loss, lr=1e-2,
                                desc="fill" if fill else "no fill")


def test_set_seed_keeps_determinism_without_filling_new_tensors():
    """set_seed turns PyTorch's deterministic mode on and its NaN fill of new tensors off (5% of a
    step): training gives the same losses, bit for bit, with the fill and without it."""
    set_seed(0)
    assert torch.are_deterministic_algorithms_enabled()
    assert not torch.utils.deterministic.fill_uninitialized_memory
    try:
        with_fill = _tiny_transformer_losses(fill=True)
        without = _tiny_transformer_losses(fill=False)
    finally:
        set_seed(0)
    assert with_fill == without
    assert with_fill[-1] < with_fill[0]           # it trained: the comparison means something
