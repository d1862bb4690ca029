"""The kernel manager that nbgrader's executor uses: every kernel is the sandbox kernel.

``nbgrader_config.py`` sets ``c.Execute.kernel_manager_class`` to ``SandboxKernelManager`` (for
``nbgrader autograde`` and ``nbgrader validate`` run from the repo root). Whatever kernel a
notebook's metadata names (a submission may say ``ir`` or ``python2``), the kernel is started
from ``kernelspec/kernel.json``, i.e. by ``launch.py`` inside bubblewrap, with the limits below
(set them in ``nbgrader_config.py`` as ``c.SandboxKernelManager.memory_mb = ...``).

The kernel talks to the grader over Unix sockets (ZeroMQ ``ipc`` transport) in a private folder,
because a kernel in its own network namespace cannot reach the grader's loopback TCP ports. The
folder is made read-only for the kernel as soon as the kernel is up (its sockets are open by
then), so that a submission cannot fill the grader's disk through it; it is removed afterwards.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from jupyter_client.kernelspec import KernelSpec
from jupyter_client.manager import AsyncKernelManager
from traitlets import Integer, List, Unicode

from .launch import DEFAULTS

SPEC_DIR = Path(__file__).resolve().parent / "kernelspec"


class SandboxKernelManager(AsyncKernelManager):
    memory_mb = Integer(DEFAULTS["memory_mb"], help="address-space limit of the kernel (MiB)").tag(config=True)
    processes = Integer(DEFAULTS["processes"], help="processes + threads of the kernel's user id").tag(config=True)
    file_size_mb = Integer(DEFAULTS["file_size_mb"], help="largest file the kernel may write (MiB)").tag(config=True)
    open_files = Integer(DEFAULTS["open_files"], help="open file descriptors").tag(config=True)
    cpu_s = Integer(DEFAULTS["cpu_s"], help="CPU seconds of each kernel process").tag(config=True)
    wall_s = Integer(DEFAULTS["wall_s"], help="hard limit on the kernel's whole life (s): a backstop "
                     "behind SandboxedExecute.notebook_timeout, so keep it larger").tag(config=True)
    tmpfs_mb = Integer(DEFAULTS["tmpfs_mb"], help="size of each of the kernel's /tmp, $HOME, "
                       "working folder and /dev/shm (MiB, in memory)").tag(config=True)
    uid = Integer(None, allow_none=True, help="a fixed user id for kernels (when the grader is root); "
                  "default: a fresh id from uid_range for each kernel").tag(config=True)
    uid_range = List(Integer(), DEFAULTS["uid_range"], minlen=2, maxlen=2).tag(config=True)
    manifest = Unicode("course.toml", help="the course manifest (from the folder nbgrader runs "
                       "in): the names each assignment asks for, which the kernel's copy of the "
                       "course package does not hold (hide.py); none hidden if it is absent"
                       ).tag(config=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.private_dir = tempfile.mkdtemp(prefix="attention-course-kernel-")
        os.mkdir(os.path.join(self.private_dir, "ipc"), 0o700)
        self.transport = "ipc"
        self.connection_file = os.path.join(self.private_dir, "kernel.json")
        self.ip = os.path.join(self.private_dir, "ipc", "kernel")

    def settings(self) -> dict:
        names = ("memory_mb", "processes", "file_size_mb", "open_files", "cpu_s", "wall_s", "tmpfs_mb",
                 "uid", "uid_range")
        manifest = os.path.abspath(self.manifest) if os.path.isfile(self.manifest) else None
        return {"private_dir": self.private_dir, "manifest": manifest,
                **{name: getattr(self, name) for name in names}}

    @property
    def kernel_spec(self) -> KernelSpec:
        if self._kernel_spec is None:
            spec = KernelSpec.from_resource_dir(str(SPEC_DIR))
            spec.env = {**spec.env, "ATTENTION_COURSE_SANDBOX": json.dumps(self.settings())}
            self._kernel_spec = spec
        return self._kernel_spec

    def lock_down(self) -> None:
        """Once the kernel is up: its socket folder becomes read-only for it (root only)."""
        if os.geteuid() == 0:
            ipc = os.path.join(self.private_dir, "ipc")
            os.chown(ipc, 0, 0)
            os.chmod(ipc, 0o711)

    def log_tail(self, size: int = 1500) -> str:
        """The end of the kernel process's own stdout/stderr (crash messages), for the grader's log."""
        if getattr(self, "_final_log", None) is not None:
            return self._final_log
        try:
            with open(os.path.join(self.private_dir, "kernel.log"), "rb") as handle:
                handle.seek(0, os.SEEK_END)
                handle.seek(max(0, handle.tell() - size))
                return handle.read().decode("utf-8", "replace")
        except OSError:
            return ""

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if not restart:
            self._final_log = self.log_tail()
            shutil.rmtree(self.private_dir, ignore_errors=True)

    cleanup_resources = _async_cleanup_resources
