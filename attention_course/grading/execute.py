"""nbgrader's ``Execute`` for untrusted notebooks: bounded, and never fatal to the batch.

``nbgrader_config.py`` puts ``SandboxedExecute`` in place of ``Execute`` in
``Autograde.autograde_preprocessors``. It runs the notebook in the sandbox kernel
(``sandbox.SandboxKernelManager``) and, all enforced here in the grader's process where the
student's code cannot reach:

* each cell gets at most ``Execute.timeout`` seconds and the whole notebook at most
  ``notebook_timeout``; a cell over its budget is interrupted and fails with
  ``CellTimeoutError``; a cell that ignores the interrupt has its kernel stopped;
* a cell that prints more than ``max_output_bytes`` (text, images, tracebacks together) fails
  with ``OutputLimitExceeded``, and the rest of its output is dropped (a cell that prints
  forever runs into its time limit);
* a kernel that dies (``os._exit``, a crash, a memory, CPU-time or process limit of the sandbox)
  fails the cell it was running with ``KernelDied``;
* after a stopped or dead kernel, the remaining code cells are not run and fail with ``NotRun``.

Cells that ran before keep their results, so the submission gets the marks it earned before the
problem, and nbgrader goes on with the next submission. Finally the test cells' results are
checked against the reference solution's outside the kernel (``verify``).
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import nbformat
from jupyter_core.utils import run_sync
from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbconvert.preprocessors.execute import NotebookClient
from nbformat.notebooknode import NotebookNode
from nbgrader.preprocessors import Execute
from traitlets import Bool, Integer, Type

from . import verify
from .sandbox import SandboxKernelManager

SIGNALS = {9: "SIGKILL: the sandbox's time limit or CPU-time limit, or killed", 6: "SIGABRT: aborted",
           11: "SIGSEGV: crashed", 24: "SIGXCPU: CPU-time limit", 25: "SIGXFSZ: file-size limit"}


def error_output(ename: str, message: str) -> NotebookNode:
    return NotebookNode(output_type="error", ename=ename, evalue=message,
                        traceback=[f"\x1b[0;31m{ename}\x1b[0m: {message}"])


def output_size(msg: dict) -> int:
    content = msg.get("content", {})
    size = len(content.get("text", "") or "")
    for value in (content.get("data") or {}).values():
        size += len(value) if isinstance(value, str) else len(json.dumps(value))
    size += sum(len(line) for line in content.get("traceback") or []) + len(content.get("evalue", "") or "")
    return size


class SandboxedExecute(Execute):
    kernel_manager_class = Type(SandboxKernelManager, config=True)
    notebook_timeout = Integer(300, help="seconds for all the cells of one notebook together").tag(config=True)
    max_output_bytes = Integer(1_000_000, help="output of one cell (bytes) before it is stopped").tag(config=True)
    iopub_timeout = Integer(10, help="seconds to wait for a cell's last outputs after its reply").tag(config=True)
    check_against_reference = Bool(True, help="check the tests' observations against the reference "
                                   "solution's (verify.py)").tag(config=True)

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("kernel_manager_class", SandboxKernelManager)   # nbgrader's Execute sets its own
        super().__init__(*args, **kwargs)

    # ------------------------------------------------------------ the whole notebook
    def preprocess(self, nb, resources=None, km=None):
        NotebookClient.__init__(self, nb, km)
        self.reset_execution_trackers()
        self._check_assign_resources(resources)
        self._deadline = time.monotonic() + self.notebook_timeout
        self._gone = None            # why the kernel is gone, once it is
        km = self.km = self.create_kernel_manager()
        started = contextlib.ExitStack()
        try:
            started.enter_context(self.setup_kernel())
        except Exception as error:
            # Before any student code ran: a problem of the grading machine, not of the submission.
            raise RuntimeError(f"the grading sandbox's kernel did not start ({error}). Its log ends with:\n"
                               f"{km.log_tail()}") from error
        with started:
            self.km.lock_down()
            info = self.wait_for_reply(self.kc.kernel_info())
            self.nb.metadata["language_info"] = info["content"]["language_info"]
            for index, cell in enumerate(self.nb.cells):
                self.preprocess_cell(cell, resources, index)
        if resources.get("nbgrader"):                 # autograding (not the reference run)
            if self.check_against_reference:
                verify.apply(self.nb, self.reference_observations(resources), self.log)
                self.record_checks_digest(resources)
            else:
                verify.take_observations(self.nb)
        return self.nb, self.resources

    def record_checks_digest(self, resources) -> None:
        """Record the hash of the hidden tests' checks (course_checks) in the autograded notebook's
        metadata; warn when this regrades a notebook last graded with other checks."""
        digest = verify.checks_digest()
        info = resources["nbgrader"]
        coursedir = self.course_directory()
        previous = Path(coursedir.format_path(coursedir.autograded_directory, info["student"],
                                              info["assignment"])) / (info["notebook"] + ".ipynb")
        before = verify.recorded_checks_digest(previous)
        if before is not None and before != digest:
            self.log.warning("%s/%s was last graded with other checks (course_checks %s, now %s): "
                             "scores may change for that reason alone", info["student"],
                             info["assignment"], before, digest)
        self.nb.metadata.setdefault("attention_course", {})["checks_digest"] = digest

    # ------------------------------------------------------------ one cell
    def preprocess_cell(self, cell, resources, index):
        if cell.cell_type != "code" or not cell.source.strip():
            return cell, self.resources
        if self._gone:
            cell.outputs = [error_output("NotRun", f"this cell was not run: {self._gone}")]
            cell.execution_count = None
            return cell, self.resources
        remaining = self._deadline - time.monotonic()
        if remaining < 1:
            self._gone = f"the notebook used up its time budget of {self.notebook_timeout} s"
            return self.preprocess_cell(cell, resources, index)
        if remaining < self.timeout:
            self._budget = int(remaining)
            why = f"the {self._budget} s left of the notebook's time budget of {self.notebook_timeout} s"
        else:
            self._budget, why = self.timeout, f"the limit of {self.timeout} s per cell"
        self.error_on_timeout = {
            "ename": "CellTimeoutError", "evalue": "",
            "traceback": [f"\x1b[0;31mCellTimeoutError\x1b[0m: this cell ran longer than {why}, and was interrupted"]}
        self._printed, self._flooded = 0, False
        started = time.monotonic()
        try:
            cell = self.execute_cell(cell, index, store_history=True)
        except DeadKernelError:
            status = self.exit_status()
            self.log.warning("The kernel died in cell %d (%s). Its log ends with:\n%s", index, status,
                             self.km.log_tail() if self.km else "")
            cell.outputs.append(error_output(
                "KernelDied", f"the kernel stopped while running this cell ({status}). This happens when "
                "the code calls os._exit, crashes, or goes over the grading sandbox's memory, CPU-time or "
                "process limit."))
            self._gone = "the kernel stopped in an earlier cell"
        except CellTimeoutError:
            # No end of the cell after the interrupt (the code swallowed it, or is stuck outside
            # Python), or no end of its output: stop the kernel.
            if time.monotonic() - started >= self._budget:
                message = f"this cell ran longer than {why}, and did not stop when interrupted"
            else:
                message = "this cell's output did not arrive in time"
            self.log.warning("Cell %d: %s; stopping its kernel", index, message)
            with contextlib.suppress(Exception):
                run_sync(self.km.shutdown_kernel)(now=True)
            cell.outputs.append(error_output("CellTimeoutError", message + ", so its kernel was stopped"))
            self._gone = "an earlier cell had to be stopped"
        except Exception as error:  # noqa: BLE001 (whatever the kernel did, the batch goes on)
            self.log.error("Cell %d: lost the kernel (%s: %s); stopping it", index, type(error).__name__, error,
                           exc_info=True)
            with contextlib.suppress(Exception):
                run_sync(self.km.shutdown_kernel)(now=True)
            cell.outputs.append(error_output(
                "KernelLost", f"the grader lost contact with the kernel while running this cell "
                f"({type(error).__name__}), so it was stopped"))
            self._gone = "the kernel was stopped in an earlier cell"
        if self._flooded:
            cell.outputs.append(error_output(
                "OutputLimitExceeded", f"this cell's output went over the limit of {self.max_output_bytes} "
                "bytes per cell, so the cell fails; the rest of its output was dropped"))
        return cell, self.resources

    def _get_timeout(self, cell):
        return getattr(self, "_budget", None) or self.timeout

    def exit_status(self) -> str:
        process = getattr(getattr(self.km, "provisioner", None), "process", None)
        code = process.poll() if process is not None else None
        if code is None:
            return "no exit status"
        signal = code - 128 if code > 128 else -code if code < 0 else None
        if signal:
            return f"signal {signal}, {SIGNALS.get(signal, 'killed')}"
        return f"exit status {code}"

    # ------------------------------------------------------------ output cap
    def output(self, outs, msg, display_id, cell_index):
        size = output_size(msg)
        if self._printed + size > self.max_output_bytes:
            # Dropped, not interrupted: an interrupt that lands just as the cell ends hits the
            # kernel's own code and can wedge it. A cell that keeps printing runs into its time limit.
            if not self._flooded:
                self._flooded = True
                self.log.warning("Cell %d went over the output limit; dropping the rest of its output", cell_index)
                room = self.max_output_bytes - self._printed
                if msg["msg_type"] == "stream" and room > 0:          # keep the beginning of the text
                    self._printed = self.max_output_bytes
                    msg = {**msg, "content": {**msg["content"], "text": msg["content"]["text"][:room] + " [...]\n"}}
                    return super().output(outs, msg, display_id, cell_index)
            return None
        self._printed += size
        return super().output(outs, msg, display_id, cell_index)

    # ------------------------------------------------------------ the reference observations
    def reference_observations(self, resources) -> dict:
        """The observations of the source notebook's test cells (the reference solution), from the
        cache in autograded/.reference/, or by running it in the sandbox once."""
        info = resources["nbgrader"]
        coursedir = self.course_directory()
        source = Path(coursedir.format_path(coursedir.source_directory, ".", info["assignment"])) / (
            info["notebook"] + ".ipynb")
        cache = (Path(coursedir.root) / coursedir.autograded_directory / ".reference" / info["assignment"]
                 / f"{info['notebook']}.{verify.fingerprint(source)}.json")
        cached = verify.load_cached(cache)
        if cached is not None:
            return cached
        cache.parent.mkdir(parents=True, exist_ok=True)
        with open(cache.with_name(cache.name + ".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)   # graders side by side (batch.py) run it once
            cached = verify.load_cached(cache)
            return cached if cached is not None else self.run_reference_once(source, info, cache)

    def run_reference_once(self, source: Path, info: dict, cache: Path) -> dict:
        self.log.info("Running the reference solution %s once, for the out-of-kernel check", source)
        nb = nbformat.read(source, as_version=4)
        run = SandboxedExecute(parent=self.parent, config=self.config, check_against_reference=False)
        # Named like the assignment's folder: the sandbox hides the assignment's answers (hide.py).
        workdir = os.path.join(tempfile.mkdtemp(prefix="attention-course-reference-"),
                               info["assignment"])
        os.mkdir(workdir)
        try:
            for item in source.parent.iterdir():          # the assignment's data files, as for students
                if item.is_file() and item.suffix != ".ipynb":
                    shutil.copy(item, workdir)
            nb = run.run_reference(nb, workdir)
        finally:
            shutil.rmtree(os.path.dirname(workdir), ignore_errors=True)
        failing = [cell.metadata.nbgrader["grade_id"] for cell in nb.cells if verify.is_test_cell(cell)
                   and any(o.get("output_type") == "error" for o in cell.get("outputs", []))]
        if failing:
            raise RuntimeError(f"the reference solution {source} fails its own tests {failing}: "
                               "fix it before autograding")
        observations = verify.take_observations(nb)
        outside = verify.reference_out_of_range(observations)
        if outside:
            raise RuntimeError(f"the reference solution {source} measures values outside the "
                               f"ranges its tests declare {outside}: check the ranges "
                               "(course_checks)")
        partial = cache.with_name(f"{cache.name}.{os.getpid()}.tmp")
        partial.write_text(json.dumps(observations))
        os.replace(partial, cache)                   # atomic: two graders may race here
        return observations

    def run_reference(self, nb, workdir):
        nb, _ = SandboxedExecute.preprocess(self, nb, {"metadata": {"path": workdir}})
        return nb

    def course_directory(self):
        parent = self.parent
        while parent is not None:
            if hasattr(parent, "coursedir"):
                return parent.coursedir
            parent = getattr(parent, "parent", None)
        from nbgrader.coursedir import CourseDirectory

        return CourseDirectory(config=self.config)
