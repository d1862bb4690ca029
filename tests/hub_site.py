"""The course's JupyterHub (hub/), started for real for tests/test_hub.py.

Real parts only: local accounts made with `useradd` (an instructor, a grader, two students, with
passwords; removed at the end), the hub from hub/jupyterhub_config.py as root with
configurable-http-proxy from npm (`npm ci --prefix hub`, which `make setup` runs), PAM log-in,
each user's JupyterLab started by the hub as that user (students' from a fresh environment of
the student profile, staff's from the course's), nbgrader's exchange in a shared folder,
and a `git daemon` serving the students' copy of the course for nbgitpuller. Needs root (it adds
accounts); without root or the proxy the tests are skipped, and fail under CI=true.
"""
from __future__ import annotations

import dataclasses
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from harness.accounts import python_for_others
from harness.course import Course, kernel_env
from harness.services import free_port, unavailable
from harness.student_env import course_wheel, install, local_cpu_torch

REPO = Path(__file__).resolve().parents[1]
KIT = REPO / "hub"
PROXY = KIT / "node_modules" / ".bin" / "configurable-http-proxy"
STAFF = ("hub-instructor", "hub-grader")
STUDENTS = ("hub-ada", "hub-ben")
COURSE_DIR = "attention-course"        # in each staff member's home


@dataclasses.dataclass
class Hub:
    url: str                       # http://127.0.0.1:port/
    base: Path                     # the accounts' homes, the exchange, the hub's state
    passwords: dict[str, str]
    server_env: dict[str, str]     # what the hub gives every server (the tests' thread limits)
    git_url: str = ""              # the students' course repository (git daemon)

    @property
    def student_env(self) -> Path:
        """The students' servers' environment (the student profile, not the course's .venv)."""
        return self.base / "student-env"

    def home(self, user: str) -> Path:
        return self.base / "home" / user

    def course(self) -> Path:
        """The instructor's course directory."""
        return self.home(STAFF[0]) / COURSE_DIR

    def staff_env(self, user: str) -> dict[str, str]:
        """A staff member's terminal on the hub: what the hub gives that user's server."""
        env = {**kernel_env(), **self.server_env, "HOME": str(self.home(user)), "USER": user,
               "JUPYTER_CONFIG_PATH": f"{KIT / 'etc' / 'staff'}{os.pathsep}{KIT / 'etc' / 'jupyter'}",
               "COURSE_HUB_ROLE": "staff", "COURSE_HUB_EXCHANGE": str(self.base / "exchange"),
               "COURSE_HUB_COURSE_DIR": f"~/{COURSE_DIR}"}
        for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "TMPDIR"):
            env.pop(name, None)
        return env

    def as_user(self, user: str, *command: str, cwd: Path | None = None,
                timeout: float = 300) -> subprocess.CompletedProcess:
        """Run a command as `user` (runuser), as that user would in a hub terminal."""
        settings = [f"{name}={value}" for name, value in self.staff_env(user).items()]
        result = subprocess.run([*python_for_others(), "runuser", "-u", user, "--", "env", *settings,
                                 *command], cwd=cwd or self.home(user), capture_output=True,
                                text=True, timeout=timeout, env={"PATH": os.environ["PATH"]})
        assert result.returncode == 0, (f"{user}: {' '.join(command)} failed ({result.returncode}):\n"
                                        f"{result.stdout[-3000:]}\n{result.stderr[-5000:]}")
        return result

    def nbgrader(self, *args: str) -> subprocess.CompletedProcess:
        """`nbgrader ARGS` run by the instructor in the course directory."""
        return self.as_user(STAFF[0], sys.executable, "-m", "nbgrader", *args, cwd=self.course())


def _is_ours(user: str) -> bool | None:
    """Whether the account exists and is one this test made (its home in one of its folders);
    None when there is no such account."""
    try:
        return "/attention-course-hub-" in pwd.getpwnam(user).pw_dir
    except KeyError:
        return None


def _add_accounts(base: Path) -> dict[str, str]:
    """The four accounts, homes under `base`, random passwords. A killed run's leftovers are
    removed; an account of that name that this test did not make stops it."""
    passwords = {}
    for user in STAFF + STUDENTS:
        if _is_ours(user) is False:
            pytest.fail(f"an account named {user} exists and is not this test's: not touching it")
        if _is_ours(user):
            _remove_account(user)
        subprocess.run(["useradd", "--create-home", "--home-dir", str(base / "home" / user),
                        "--shell", "/bin/bash", user], check=True, capture_output=True)
        passwords[user] = secrets.token_urlsafe(12)
    subprocess.run(["chpasswd"], input="".join(f"{u}:{p}\n" for u, p in passwords.items()),
                   text=True, check=True, capture_output=True)
    return passwords


def _remove_account(user: str) -> None:
    subprocess.run(["pkill", "-KILL", "-u", user], capture_output=True)
    subprocess.run(["userdel", "--remove", user], capture_output=True)


def _remove_accounts() -> None:
    for user in STAFF + STUDENTS:
        if _is_ours(user):
            _remove_account(user)


def _instructor_course(hub: Hub) -> None:
    """The instructor's copy of the course (as `git clone` of the course repository would give),
    owned by the instructor."""
    Course.copy_of_repo(hub.course())
    subprocess.run(["chown", "-R", f"{STAFF[0]}:{STAFF[0]}", str(hub.course())], check=True)


def _students_repository(base: Path) -> Path:
    """The students' course repository (its notebooks), one commit, served by `git daemon`."""
    repo = base / "git" / "course"
    shutil.copytree(REPO / "notebooks", repo / "notebooks")
    git = ["git", "-C", str(repo), "-c", "user.name=Course", "-c", "user.email=course@example.org"]
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    subprocess.run(git + ["add", "notebooks"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "The chapters"], check=True)
    return repo


def _students_environment(site: Hub) -> None:
    """The student profile as the README makes it (student/keras.txt, pytorch.txt, hub.txt, the
    course's wheel) from the Python the hub runs on: the local CPU wheel of torch where this
    machine has one, else Keras only (the test's students run no PyTorch code in their servers)."""
    frameworks = ["keras", "pytorch"] if local_cpu_torch() else ["keras"]
    # The Python under the test's .venv: the one python_for_others() lets the accounts run.
    install(site.student_env, sys._base_executable, [*frameworks, "hub"],
            course_wheel(site.base / "wheel"))


def _wait_for(url: str, process: subprocess.Popen, log: Path, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"{url} did not answer:\n" + log.read_text()[-4000:])
            time.sleep(0.3)


def _start_hub(site: Hub, port: int) -> subprocess.Popen:
    """hub/jupyterhub_config.py as root, as the README's checklist starts it, on `port`."""
    env = {**os.environ, "COURSE_HUB_STATE": str(site.base / "state"),
           "COURSE_HUB_EXCHANGE": str(site.base / "exchange"), "COURSE_HUB_STAFF": ",".join(STAFF),
           "COURSE_HUB_STUDENTS": ",".join(STUDENTS), "COURSE_HUB_STUDENT_ENV": str(site.student_env),
           "COURSE_HUB_SERVER_ENV": ";".join(f"{k}={v}" for k, v in site.server_env.items())}
    command = [*python_for_others(), sys.executable, "-m", "jupyterhub",
               "-f", str(KIT / "jupyterhub_config.py"),
               f"--JupyterHub.bind_url=http://127.0.0.1:{port}", f"--JupyterHub.hub_port={free_port()}",
               f"--ConfigurableHTTPProxy.api_url=http://127.0.0.1:{free_port()}"]
    return subprocess.Popen(command, cwd=site.base / "state", env=env, start_new_session=True,
                            stdout=open(site.base / "hub.log", "w"), stderr=subprocess.STDOUT)


def _alive(pid: int | None) -> bool:
    try:
        return pid is not None and os.kill(pid, 0) is None
    except ProcessLookupError:
        return False


def _pid_in(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def _stop_hub(wrapper: subprocess.Popen, state: Path) -> None:
    """Stop the hub as `systemctl stop` does: SIGTERM to its process group (the bubblewrap wrapper
    and the hub in it), on which the hub stops the users' servers and its proxy; whatever is left
    after 30 s is killed, the proxy (a session of its own) by its pid file."""
    hub_pid = _pid_in(state / "jupyterhub.pid")
    os.killpg(wrapper.pid, signal.SIGTERM)
    deadline = time.monotonic() + 30
    while _alive(hub_pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in (hub_pid, _pid_in(state / "jupyterhub-proxy.pid")):
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
    wrapper.wait(timeout=30)


@pytest.fixture(scope="module")
def hub():
    if os.geteuid() != 0 or not shutil.which("useradd") or not shutil.which("runuser"):
        unavailable("the hub test adds local accounts and starts the hub as root (run as root)")
    if not PROXY.exists():
        unavailable(f"no {PROXY}: run `npm ci --prefix hub` (make setup does)")
    base = Path(tempfile.mkdtemp(prefix="attention-course-hub-"))
    base.chmod(0o755)
    (base / "home").mkdir(mode=0o755)
    (base / "state").mkdir(mode=0o700)
    (base / "exchange").mkdir()
    (base / "exchange").chmod(0o777)      # nbgrader's exchange: everyone writes (nbgrader's docs)
    daemon = hub_process = None
    try:
        git_port, hub_port = free_port(), free_port()
        site = Hub(f"http://127.0.0.1:{hub_port}/", base, _add_accounts(base),
                   server_env={"COURSE_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
                               "TF_ENABLE_ONEDNN_OPTS": "0", "PYDEVD_DISABLE_FILE_VALIDATION": "1"},
                   git_url=f"git://127.0.0.1:{git_port}/course")
        _instructor_course(site)
        _students_environment(site)
        _students_repository(base)
        daemon = subprocess.Popen(
            ["git", "daemon", "--export-all", f"--base-path={base / 'git'}", "--reuseaddr",
             "--listen=127.0.0.1", f"--port={git_port}"], stderr=subprocess.DEVNULL)
        hub_process = _start_hub(site, hub_port)
        _wait_for(site.url + "hub/api", hub_process, base / "hub.log")
        yield site
    finally:
        for user in STAFF + STUDENTS:     # the users' servers first: the hub then stops at once
            subprocess.run(["pkill", "-KILL", "-u", user], capture_output=True)
        if hub_process:
            _stop_hub(hub_process, base / "state")
        if daemon:
            daemon.terminate()
            daemon.wait(timeout=30)
        _remove_accounts()
        if os.environ.get("HUB_KEEP"):
            print(f"hub files kept in {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)
