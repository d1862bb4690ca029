"""The checks that the assignments' hidden tests call: grading only, never in a student's install.

A hidden-test cell of ``solutions/<assignment>/<assignment>.ipynb`` is its inputs, one call of a
check function from this package, and the observation that the grader confirms::

    ### BEGIN HIDDEN TESTS
    from course_checks import ch03_pytorch as checks
    checks.attention_against_formula(scaled_dot_product_attention)
    ### END HIDDEN TESTS

A check function takes the student's function or class (or the kernel's ``globals()``, where it
must swap a reference in for a name the student's code looks up), runs it on the test's inputs,
asserts with the message the student's feedback shows, and reports the values it checked through
``attention_course.grading.observe``. Modules: ``reference`` (framework-free references in float64,
used by every chapter), ``torch_reference`` and ``keras_reference`` (the same for tensors), and one
module per chapter and framework (``chNN_pytorch``, ``chNN_keras``, with what both share in
``chNN``). A Keras notebook never imports a PyTorch module here, and the other way round.

Secrecy is not what protects a grade. The grading sandbox mounts this package read-only, so the
code being graded can read it, as it can read everything its kernel mounts. What protects the
grade is the out-of-kernel verification (``attention_course.grading.verify``): the values each
test cell observes are compared, outside the kernel, with those of the reference solution, so a
submission that reads or patches these checks still has to produce the right values. Each grade
records a hash of this package (``checks_digest``), so that a regrade says when the checks have
changed since.
"""
import hashlib
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def checks_digest() -> str:
    """SHA-256 (first 16 hex digits) of every module of this package, in name order."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]
