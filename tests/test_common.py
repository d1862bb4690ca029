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
