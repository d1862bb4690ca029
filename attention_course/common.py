"""Seeding, device, thread and timing helpers shared by both frameworks.

Import this module (or the package) *before* TensorFlow/Keras: it sets the
environment variables that keep TensorFlow's start-up messages out of the
notebooks' outputs and selects the TensorFlow backend for Keras.
"""
from __future__ import annotations

import contextlib
import gc
import os
import random

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")
# A Keras-only installation has transformers (tokenizers) without PyTorch; its import would
# print an advice that PyTorch was not found, which is expected there.
os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")

import numpy as np  # noqa: E402


def set_seed(seed: int = 0) -> None:
    """Seed Python, NumPy, and whichever of TensorFlow/Keras and PyTorch are installed,
    and ask both frameworks for deterministic kernels in full float32: on GPUs that have
    TF32 (NVIDIA Ampere and later), matrix products and cuDNN would otherwise round their
    inputs to 10-bit mantissas, and the course's checks hold to float32 rounding."""
    random.seed(seed)
    np.random.seed(seed)
    try:
        import torch
    except ImportError:  # pragma: no cover - both are in requirements.txt
        torch = None
    if torch is not None:
        torch.manual_seed(seed)
        torch.use_deterministic_algorithms(True, warn_only=True)
        # Deterministic mode also fills every new tensor with NaN before an op writes it, in
        # case the op reads memory it has not written: about 5% of a training step on a CPU
        # (chapter 6's Transformer, chapter 2's attention RNN). The course's ops write what
        # they read; losses are bit for bit the same without the fill (tests/test_common.py).
        torch.utils.deterministic.fill_uninitialized_memory = False
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    try:
        import keras
        import tensorflow as tf
    except ImportError:  # pragma: no cover
        return
    keras.utils.set_random_seed(seed)
    tf.config.experimental.enable_op_determinism()
    tf.config.experimental.enable_tensor_float_32_execution(False)


@contextlib.contextmanager
def garbage_collection_paused():
    """Collect garbage now, then keep Python's garbage collector off inside the block, as the
    standard library's ``timeit`` does while it times. Once TensorFlow has built its graphs, a
    full collection takes about a third of a second, and it would otherwise fall on whichever
    timed step happened to trigger it (chapter 8's per-token times)."""
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def torch_device():
    """CUDA when PyTorch sees a GPU, else the CPU."""
    import torch

    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def set_threads(n: int | None = None) -> int:
    """Limit both frameworks to ``n`` CPU threads (default: $COURSE_THREADS or all cores).

    The test suite runs two notebooks at once on two cores and sets
    COURSE_THREADS=1 so that they do not fight over the same cores.
    Call before any TensorFlow op runs.
    """
    n = n or int(os.environ.get("COURSE_THREADS", "0")) or os.cpu_count() or 1
    try:
        import torch

        torch.set_num_threads(n)
    except ImportError:  # pragma: no cover
        pass
    try:
        import tensorflow as tf

        tf.config.threading.set_intra_op_parallelism_threads(n)
        tf.config.threading.set_inter_op_parallelism_threads(n)
    except (ImportError, RuntimeError):  # RuntimeError: TF already initialised
        pass
    return n


def learning_rates(steps: int, lr: float = 3e-3, final_lr_fraction: float = 0.05,
                   warmup_steps: int = 0) -> np.ndarray:
    """The learning rate of every training step (both frameworks' loops use this table).

    A linear warm-up from lr / warmup_steps to lr over the first warmup_steps
    steps, then a cosine decay from lr to final_lr_fraction * lr:
    lr * (f + (1 - f) * (1 + cos(pi * progress)) / 2), progress going from 0 to 1.
    Without warm-up this is keras.optimizers.schedules.CosineDecay(lr, steps, alpha=f).
    """
    step = np.arange(steps, dtype=np.float64)
    decay_steps = max(steps - warmup_steps, 1)
    progress = np.clip((step - warmup_steps) / decay_steps, 0.0, 1.0)
    cosine = final_lr_fraction + (1 - final_lr_fraction) * 0.5 * (1 + np.cos(np.pi * progress))
    warmup = (step + 1) / max(warmup_steps, 1)
    return lr * np.where(step < warmup_steps, warmup, cosine)
