"""Seeding, device and thread helpers shared by both frameworks.

Import this module (or the package) *before* TensorFlow/Keras: it sets the
environment variables that keep TensorFlow's start-up messages out of the
notebooks' outputs and selects the TensorFlow backend for Keras.
"""
from __future__ import annotations

import os
import random

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import numpy as np  # noqa: E402


def set_seed(seed: int = 0) -> None:
    """Seed Python, NumPy, and whichever of TensorFlow/Keras and PyTorch are installed,
    and ask both frameworks for deterministic kernels."""
    random.seed(seed)
    np.random.seed(seed)
    try:
        import torch
    except ImportError:  # pragma: no cover - both are in requirements.txt
        torch = None
    if torch is not None:
        torch.manual_seed(seed)
        torch.use_deterministic_algorithms(True, warn_only=True)
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    try:
        import keras
        import tensorflow as tf
    except ImportError:  # pragma: no cover
        return
    keras.utils.set_random_seed(seed)
    tf.config.experimental.enable_op_determinism()


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
