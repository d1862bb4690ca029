"""Keras references that several chapters' checks share (computed in float64 with NumPy)."""
import numpy as np
from keras import ops
from tensorflow.python.framework import op_callbacks

from . import reference


def to_numpy(x):
    """A tensor or anything array-like, as a NumPy array."""
    return np.asarray(ops.convert_to_numpy(x))


def attention(q, k, v, mask=None):
    """Scaled dot-product attention in float64, returned as float32 tensors (output, weights);
    mask: True = may attend, broadcastable to (..., L, S)."""
    output, weights = reference.attention(*(to_numpy(t) for t in (q, k, v)),
                                          None if mask is None else to_numpy(mask))
    return (ops.convert_to_tensor(output.astype("float32")),
            ops.convert_to_tensor(weights.astype("float32")))


def split_heads(x, num_heads):
    """(B, L, d) -> (B, h, L, d / h)."""
    b, length, d = ops.shape(x)
    return ops.transpose(ops.reshape(x, (b, length, num_heads, d // num_heads)), (0, 2, 1, 3))


def merge_heads(x):
    """(B, h, L, d_head) -> (B, L, h * d_head)."""
    b, h, length, d = ops.shape(x)
    return ops.reshape(ops.transpose(x, (0, 2, 1, 3)), (b, length, h * d))


def count_operations(run):
    """How many TensorFlow operations run() executes (a check that code is batched counts
    operations for two sizes rather than timing it)."""
    executed = []

    def record(op_type, inputs, attrs, outputs, op_name=None, graph=None):
        executed.append(op_type)

    op_callbacks.add_op_callback(record)
    try:
        run()
    finally:
        op_callbacks.remove_op_callback(record)
    return len(executed)
