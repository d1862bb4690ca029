"""Sandboxed, tamper-checked autograding of the course's nbgrader assignments.

nbgrader runs each student's notebook in a Jupyter kernel, and the student's code runs in that
kernel with whatever rights the grader has. This subpackage is what ``nbgrader_config.py`` plugs
into nbgrader so that a submission cannot hurt the batch, read what it must not read, or talk the
autograder into marks it did not earn. The threat model and the instructor's commands are in the
README's instructor guide; in short:

``kernelspec/kernel.json`` + ``launch``  (run by jupyter_client, as the grader)
    start each student kernel inside a bubblewrap sandbox (no network, only the Python install,
    the course package and the submission's own files visible), as a throw-away unprivileged
    user id, under ``prlimit`` limits (memory, processes, file size, CPU time) and a ``timeout``.
``sandbox.SandboxKernelManager``  (in the nbgrader process)
    the kernel manager nbgrader's executor uses: always the sandbox kernel, whatever the
    notebook's metadata says, talking over Unix sockets in a private folder.
``execute.SandboxedExecute``  (in the nbgrader process)
    nbgrader's ``Execute`` with a time budget per notebook, a cap on each cell's output, and a
    dead kernel, a hung cell or a flood of output turned into a failed cell with a clear message
    (the marks earned before stay, the batch goes on); then the out-of-kernel check of the tests'
    results against the reference solution's (``verify``).
``sanitize``  (in the nbgrader process)
    restores the tests' cells and metadata however a submission changed them, and grades a
    notebook that cannot be read (broken JSON) as blank, with a note, instead of failing.
``feedback.HideHiddenTestsInFeedback``
    keeps hidden tests out of the feedback.
``observe``  (in the student's kernel)
    the hidden tests report what they checked through it; nothing in it is trusted.

Only ``observe`` is imported here: the student's kernel imports this package, and must not pull
in nbgrader.
"""
from .observe import observe  # noqa: F401
