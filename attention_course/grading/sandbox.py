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

When the grader is root, each kernel runs as a throw-away user id that no other kernel of the
machine holds at the same time (``lease_uid``: a lock file per id, held while the kernel lives),
so that kernels graded side by side (``batch.py``) never count against each other's process
limit or can signal each other.
"""
from __future__ import annotations

import fcntl
import json
import os
import random
import shutil
import stat
import tempfile
from pathlib import Path

from jupyter_client.kernelspec import KernelSpec
from jupyter_client.manager import AsyncKernelManager
from traitlets import Integer, List, Unicode

from .launch import DEFAULTS

SPEC_DIR = Path(__file__).resolve().parent / "kernelspec"


def uid_lock_folder() -> Path:
    """The folder of one lock file per user id in use by a kernel on this machine. It must be
    the same for every grader of the machine, so not under $TMPDIR (batch systems give each job
    its own): /run, which only root writes, for root (the only account that leases ids); /tmp
    for others (tests) and where /run is read-only (some containers). Refused if someone else
    made it first."""
    root_only = os.geteuid() == 0 and os.path.isdir("/run") and os.access("/run", os.W_OK)
    base = Path("/run") if root_only else Path("/tmp")
    folder = base / f"attention-course-uids-{os.geteuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    status = os.lstat(folder)
    if status.st_uid != os.geteuid() or not stat.S_ISDIR(status.st_mode) or status.st_mode & 0o077:
        raise RuntimeError(f"{folder} is not a private folder of this account: remove it")
    return folder


def socket_base() -> str:
    """The folder for kernels' private folders: the temporary folder, unless its path is so long
    that a socket path in it would pass the 107 bytes that Unix sockets allow (a long TMPDIR, as
    batch systems set): then /tmp."""
    base = tempfile.gettempdir()
    return base if len(base) <= 40 else "/tmp"


def lease_uid(low: int, high: int, tries: int = 1000) -> tuple[int, int]:
    """A user id in [low, high] that no other kernel of this machine holds, and the open lock
    file that holds it (close it when the kernel is gone). Locks die with their process, so a
    killed grader frees its ids."""
    folder = uid_lock_folder()
    for _ in range(tries):
        uid = random.randint(low, high)
        handle = os.open(folder / str(uid), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(handle)
            continue
        return uid, handle
    raise RuntimeError(f"no free user id for a kernel in {low}-{high} after {tries} tries")


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
                  "default: an id from uid_range that no other kernel holds (lease_uid)").tag(config=True)
    uid_range = List(Integer(), DEFAULTS["uid_range"], minlen=2, maxlen=2).tag(config=True)
    manifest = Unicode("course.toml", help="the course manifest (from the folder nbgrader runs "
                       "in): the names each assignment asks for, which the kernel's copy of the "
                       "course package does not hold (hide.py); none hidden if it is absent"
                       ).tag(config=True)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.private_dir = tempfile.mkdtemp(prefix="attention-course-kernel-", dir=socket_base())
        os.mkdir(os.path.join(self.private_dir, "ipc"), 0o700)
        self.transport = "ipc"
        self.connection_file = os.path.join(self.private_dir, "kernel.json")
        self.ip = os.path.join(self.private_dir, "ipc", "kernel")
        self._uid_lock = None
        if self.uid is None and os.geteuid() == 0:
            self.leased_uid, self._uid_lock = lease_uid(*self.uid_range)
        else:
            self.leased_uid = self.uid

    def settings(self) -> dict:
        names = ("memory_mb", "processes", "file_size_mb", "open_files", "cpu_s", "wall_s", "tmpfs_mb",
                 "uid", "uid_range")
        manifest = os.path.abspath(self.manifest) if os.path.isfile(self.manifest) else None
        return {"private_dir": self.private_dir, "manifest": manifest,
                **{name: getattr(self, name) for name in names}, "uid": self.leased_uid}

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
            if self._uid_lock is not None:          # the kernel's processes are gone: free its id
                os.close(self._uid_lock)
                self._uid_lock = None

    cleanup_resources = _async_cleanup_resources
