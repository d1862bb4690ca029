"""Kernel side of the out-of-kernel check: the tests report the values they checked.

A test cell runs in the student's kernel, next to the student's code, so its verdict (an error
or none) can be forged by that code: it can redefine ``assert``'s helpers, patch ``torch.allclose``,
or switch off the kernel's error reporting. So each test cell also *observes* the values that
decide its verdict (the student's outputs on the test's inputs): ``observe(name, value)`` sends
them to the grader as a display output with a private MIME type. The grader
(``attention_course.grading.verify``, outside the kernel) compares them with the reference
solution's observations and fails the cell if they differ or are missing. Nothing here is
trusted: a student's code may replace this function, and then the observations are wrong or
missing and the cell fails, which is the point.

A measurement that depends on the seed or the processor (a variance estimated from random
draws) cannot equal the reference's within 1e-4; its test observes it with a declared range,
``observe(name, value, within=(low, high))``, and the grader accepts any value in the range.
The range that counts is the one the *reference* run recorded (the instructor's solution, run
by the grader): a range that a student's run reports is ignored, since the student's code may
have replaced this function.

Outside grading (``ATTENTION_COURSE_GRADING`` unset: a student's or instructor's own Jupyter)
``observe`` does nothing.
"""
import math
import os

MIME = "application/vnd.attention-course.observation+json"
# Arrays are compared by kind, not exact dtype (a test that does not assert float32 accepts
# float64); tests that assert a dtype observe str(x.dtype) separately.
KINDS = {"f": "float", "i": "int", "u": "int", "b": "bool", "c": "complex"}


def encode(value):
    """A JSON-able description of a value: arrays and tensors with kind (float, int, bool),
    shape and the flat data; numbers, strings, None; lists and tuples element by element."""
    if value is None or isinstance(value, (bool, str)):
        return {"py": value}
    if isinstance(value, int):
        return {"py": int(value)}
    if isinstance(value, float):
        return {"py": _number(value)}
    if isinstance(value, (list, tuple)):
        return {"list": [encode(item) for item in value]}
    import numpy as np

    if hasattr(value, "detach"):                     # torch: no autograd, on the CPU
        value = value.detach().cpu()
    array = np.asarray(value)
    kind = KINDS.get(array.dtype.kind)
    if kind is None:
        return {"repr": repr(value)[:200]}
    return {"kind": kind, "shape": list(array.shape), "data": [_number(x) for x in array.ravel().tolist()]}


def _number(x):
    if isinstance(x, float) and not math.isfinite(x):
        return repr(x)                               # "nan", "inf", "-inf": JSON has no such numbers
    return x


def observe(name, value, within=None):
    """Report `value` (the student's result that a test checks) under `name`. `within`: None
    (the grader compares the value with the reference's, within 1e-4), or the (low, high)
    range, ends included, that a measured number must lie in (the grader uses the range of the
    reference run)."""
    if os.environ.get("ATTENTION_COURSE_GRADING") != "1":
        return
    from IPython.display import display

    report = {"name": str(name), "value": encode(value)}
    if within is not None:
        low, high = within
        report["within"] = [float(low), float(high)]
    display({MIME: report}, raw=True)
