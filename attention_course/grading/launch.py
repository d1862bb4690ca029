"""Start one student kernel inside the grading sandbox (the argv of ``kernelspec/kernel.json``).

    python -m attention_course.grading.launch {connection_file} [ipykernel arguments...]

jupyter_client runs this as the grader (root on the course's CI, or the instructor) with the
notebook's folder as the working directory and ``ATTENTION_COURSE_SANDBOX`` (JSON, written by
``sandbox.SandboxKernelManager``) in the environment. It prepares the kernel's private folder and
then *replaces itself* (exec) by this chain, outermost first:

``prlimit``   kernel-enforced resource limits (RLIMIT_AS memory, RLIMIT_NPROC processes and
              threads, RLIMIT_FSIZE file size, RLIMIT_NOFILE, RLIMIT_CPU, no core dumps);
``timeout``   a hard wall-clock limit on the kernel's whole life (SIGKILL);
``bwrap``     bubblewrap: new mount, PID, network, IPC and UTS namespaces. The kernel sees a
              read-only /usr, the Python installation and virtual environment, the course
              package as the assignment's copy (``hide``: without the course's versions of
              what the assignment asks for, also over any original copy the environment holds)
              and the hidden tests' checks (``course_checks``, readable by the code being
              graded: see that package), both in ``/opt/attention-course`` (the kernel's
              PYTHONPATH), a few files from /etc, size-capped tmpfs for /tmp,
              $HOME and its working folder ``$HOME/<assignment>`` (into which the submission's
              own non-notebook files are bound read-only), and the folder of its own Unix
              sockets. Nothing else: not
              the course's ``solutions/``, the gradebook, other students' folders, the
              notebook file itself (it holds the restored hidden tests), or any network (only a
              private loopback);
``setpriv``   (when the grader is root) switch to a throw-away unprivileged user id (a fresh
              one per kernel, so that one kernel's processes never count against another's
              limit), no supplementary groups, no capabilities, no_new_privs.

When the grader is not root the kernel keeps the grader's user id, mapped inside an unprivileged
user namespace that bwrap creates (it needs unprivileged user namespaces, as on Debian 12), and
the process limit is not set (it would count all of the grader's own processes).
"""
from __future__ import annotations

import importlib.util
import json
import os
import secrets
import shutil
import sys
from pathlib import Path

# Environment variables that reach the kernel (everything else is dropped: the grader's
# environment may hold tokens, and the kernel has no use for it).
PASS_ENV = ("COURSE_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
            "TF_CPP_MIN_LOG_LEVEL", "TF_ENABLE_ONEDNN_OPTS", "KERAS_BACKEND", "MPLBACKEND",
            "PYTHONHASHSEED", "PYDEVD_DISABLE_FILE_VALIDATION", "NBGRADER_EXECUTION", "LANG", "LC_ALL",
            "TZ")
# Files from /etc that Python, NumPy, PyTorch and TensorFlow read (when they exist).
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "nsswitch.conf", "passwd",
             "group", "hosts", "mime.types", "os-release")
HOME = "/home/student"
PACKAGES = "/opt/attention-course"     # the course packages, first on the kernel's PYTHONPATH
DEFAULTS = {
    "memory_mb": 6144,       # RLIMIT_AS (address space); PyTorch + TensorFlow reserve ~2 GB
    "processes": 512,        # RLIMIT_NPROC of the kernel's own user id: processes + threads
    "file_size_mb": 64,      # RLIMIT_FSIZE: the largest file the kernel may write
    "open_files": 1024,      # RLIMIT_NOFILE
    "cpu_s": 900,            # RLIMIT_CPU: CPU seconds of each process
    "wall_s": 400,           # the kernel's whole life
    "tmpfs_mb": 256,         # each of /tmp, $HOME, the working folder, /dev/shm
    "uid": None,             # a fixed user id, or None: a fresh one from uid_range per kernel
    "uid_range": [3_000_000, 3_999_999],
}


class SandboxUnavailable(RuntimeError):
    pass


def tool(name: str) -> str:
    path = shutil.which(name, path=os.environ.get("PATH", "") + os.pathsep + "/usr/bin:/bin:/usr/sbin:/sbin")
    if not path:
        hint = " (apt-get install bubblewrap)" if name == "bwrap" else " (util-linux / coreutils)"
        raise SandboxUnavailable(f"the grading sandbox needs `{name}`{hint}")
    return path


def check_sandbox() -> None:
    """Start an empty sandbox with the namespaces a kernel's uses, or raise SandboxUnavailable
    saying why and what to do: before any student code runs (batch.py calls it first)."""
    import subprocess

    as_root = os.geteuid() == 0
    command = [tool("bwrap"), "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
               "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"]
    if not as_root:
        command += ["--unshare-user", "--disable-userns"]
    result = subprocess.run([*command, "true"], capture_output=True, text=True, timeout=60)
    if result.returncode == 0:
        return
    said = result.stderr.strip() or f"exit status {result.returncode}"
    if as_root:
        raise SandboxUnavailable(f"bubblewrap cannot create its namespaces here ({said})")
    raise SandboxUnavailable(
        f"as a grader who is not root, the sandbox needs unprivileged user namespaces, and this "
        f"machine refuses them (bubblewrap: {said}). This happens in a container under Docker's "
        "or Kubernetes' default seccomp profile, under Ubuntu's AppArmor restriction "
        "(kernel.apparmor_restrict_unprivileged_userns=1), with user.max_user_namespaces=0, or "
        "inside a namespace that forbids new ones. Grade on the hub host or a grading VM where "
        "they are allowed, or as root (README: instructor guide, 'Where to grade')")


def read_only_paths() -> list[str]:
    """What the kernel's Python needs: the installation and the virtual environment. The course
    package and the hidden tests' checks are bound apart (`package_binds`)."""
    paths = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix), sys.prefix}
    paths = sorted(p for p in paths if not p.startswith("/usr/") and p != "/usr")
    # Keep only outermost paths (binding a folder and then its parent would hide the first).
    return [p for p in paths if not any(p != q and p.startswith(q + os.sep) for q in paths)]


def package_folder(name: str) -> str | None:
    """The folder of a package as this process (the grader) imports it, or None."""
    spec = importlib.util.find_spec(name)
    locations = spec.submodule_search_locations if spec is not None else None
    return os.path.realpath(list(locations)[0]) if locations else None


def package_binds(settings: dict, cwd: str, bound: list[str]) -> list[tuple[str, str]]:
    """(source, destination) of the course packages' read-only binds: the grader's
    `course_checks` and the assignment's copy of `attention_course` (hide.py: without the answers
    it asks for) in PACKAGES, which the kernel imports first (PYTHONPATH); the same copy over every
    real copy of the package that the bound Python folders hold (an installed, not editable,
    package lies in the environment), so that no path in the sandbox reaches the original."""
    from .hide import PACKAGE, grading_package

    manifest = settings.get("manifest")
    assignment = os.path.basename(cwd.rstrip("/"))
    copy = str(grading_package(Path(manifest), assignment) if manifest else PACKAGE)
    binds = [(copy, f"{PACKAGES}/attention_course")]
    checks = package_folder("course_checks")
    if checks:
        binds.append((checks, f"{PACKAGES}/course_checks"))
    originals = {str(PACKAGE), package_folder("attention_course") or str(PACKAGE)}
    for folder in bound:
        originals.update(str(p) for p in Path(folder).glob("lib/python*/site-packages/"
                                                              "attention_course"))
    binds += [(copy, original) for original in sorted(originals)
              if any(original.startswith(folder + os.sep) for folder in bound)]
    return binds


def system_binds() -> list[str]:
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/") / name
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    for name in ETC_FILES:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    return args


def build_command(connection_file: str, kernel_args: list[str], cwd: str, settings: dict) -> list[str]:
    as_root = os.geteuid() == 0
    private = Path(settings["private_dir"])
    ipc = private / "ipc"
    uid = settings["uid"]
    if uid is None:
        low, high = settings["uid_range"]
        uid = low + secrets.randbelow(high - low + 1)
    uid = int(uid)

    # The kernel reads (and rewrites) its connection file in its socket folder.
    shutil.copy(connection_file, ipc / "kernel.json")
    if as_root:
        for path in (ipc, ipc / "kernel.json"):
            os.chown(path, uid, uid)

    mb = 1024 * 1024
    limits = [tool("prlimit"),
              f"--as={settings['memory_mb'] * mb}",
              f"--fsize={settings['file_size_mb'] * mb}",
              f"--nofile={settings['open_files']}",
              f"--cpu={settings['cpu_s']}:{settings['cpu_s'] + 5}",
              "--core=0"]
    if as_root:
        limits.append(f"--nproc={settings['processes']}")
    limits.append("--")
    wall = [tool("timeout"), "--signal=KILL", str(settings["wall_s"])]

    size = str(settings["tmpfs_mb"] * mb)
    bwrap = [tool("bwrap"), "--die-with-parent", "--new-session", "--hostname", "grading",
             "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
    if not as_root:
        bwrap += ["--unshare-user", "--disable-userns"]
    made = {"/", "/dev", "/proc", "/tmp", HOME}

    def under(path: str) -> list[str]:
        """--dir for the parent folders of `path` that are not there yet, readable by the
        kernel's user (bwrap running as root would make them 0700)."""
        args = []
        for parent in reversed(Path(path).parents):
            if str(parent) not in made:
                made.add(str(parent))
                args += ["--perms", "0755", "--dir", str(parent)]
        return args

    bwrap += system_binds()
    # The private, empty /tmp and $HOME first: the Python paths bound next may lie under /tmp
    # (a course checked out there), and a tmpfs mounted after them would hide them.
    bwrap += ["--proc", "/proc", "--dev", "/dev",
              "--perms", "1777", "--size", size, "--tmpfs", "/dev/shm",
              "--perms", "1777", "--size", size, "--tmpfs", "/tmp",
              "--perms", "0777", "--size", size, "--tmpfs", HOME]
    bound = read_only_paths()
    for path in bound:
        bwrap += under(path) + ["--ro-bind", path, path]
    for source, destination in package_binds(settings, cwd, bound):
        inside = any(destination.startswith(path + os.sep) for path in bound)  # over a copy
        bwrap += ([] if inside else under(destination)) + ["--ro-bind", source, destination]
    # The kernel works in a private, size-capped folder named like the notebook's folder, under
    # $HOME (not at the notebook's real path, which would show where the course lives). The
    # submission's own files (data files copied from the source folder, say) are bound there
    # read-only; never its notebooks (the one being graded holds the restored hidden tests) or
    # symlinks.
    work = f"{HOME}/{os.path.basename(cwd.rstrip('/')) or 'work'}"
    bwrap += ["--perms", "0777", "--size", size, "--tmpfs", work]
    for entry in sorted(os.listdir(cwd)):
        source = os.path.join(cwd, entry)
        if entry.endswith(".ipynb") or os.path.islink(source):
            continue
        bwrap += ["--ro-bind", source, f"{work}/{entry}"]
    bwrap += under(str(ipc))
    bwrap += ["--bind", str(ipc), str(ipc), "--chdir", work, "--clearenv"]
    env = {name: os.environ[name] for name in PASS_ENV if name in os.environ}
    env.update(HOME=HOME, PWD=work, USER="student", LOGNAME="student", TMPDIR="/tmp", PYTHONDONTWRITEBYTECODE="1",
               PATH=os.pathsep.join([os.path.dirname(sys.executable), "/usr/local/bin", "/usr/bin", "/bin"]),
               MPLCONFIGDIR=f"{HOME}/.config/matplotlib", ATTENTION_COURSE_GRADING="1",
               PYTHONPATH=PACKAGES)
    env.setdefault("LANG", "C.UTF-8")
    for name, value in sorted(env.items()):
        bwrap += ["--setenv", name, value]
    bwrap.append("--")

    drop = []
    if as_root:
        drop = [tool("setpriv"), f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
    kernel = [sys.executable, "-m", "ipykernel_launcher", "-f", str(ipc / "kernel.json"), *kernel_args]
    return limits + wall + bwrap + drop + kernel


def main(argv: list[str]) -> None:
    if not argv:
        sys.exit("usage: python -m attention_course.grading.launch CONNECTION_FILE [kernel args]")
    settings = {**DEFAULTS, **json.loads(os.environ.get("ATTENTION_COURSE_SANDBOX") or "{}")}
    if "private_dir" not in settings:
        sys.exit("ATTENTION_COURSE_SANDBOX has no private_dir: start this kernel through "
                 "attention_course.grading.sandbox.SandboxKernelManager (nbgrader_config.py does)")
    try:
        command = build_command(argv[0], argv[1:], os.getcwd(), settings)
    except SandboxUnavailable as error:
        sys.exit(f"attention_course grading sandbox: {error}")
    # The kernel's own stdout/stderr (not the notebook's outputs, which go over the sockets) go to
    # a log file outside the sandbox, capped by RLIMIT_FSIZE, instead of the grader's terminal.
    log = os.open(os.path.join(settings["private_dir"], "kernel.log"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.execv(command[0], command)


if __name__ == "__main__":
    main(sys.argv[1:])
