"""The course's JupyterHub: students log in, fetch, work and submit in JupyterLab's Assignments
tab; instructors and graders collect, grade (sandboxed, as themselves, not root) and release
feedback. Start it as root on the hub host, from the repository:

    jupyterhub -f hub/jupyterhub_config.py

Settings come from the environment so that one file serves a real hub and the tests
(tests/test_hub.py starts this file with temporary folders and local users):

    COURSE_HUB_EXCHANGE     nbgrader's exchange, shared by everyone   (/srv/nbgrader/exchange)
    COURSE_HUB_STAFF        instructors and graders, comma-separated  (no default: set it)
    COURSE_HUB_STUDENTS     the students allowed in; empty: any account that logs in
    COURSE_HUB_COURSE_DIR   each staff member's copy of the course    (~/attention-course)
    COURSE_HUB_STATE        the hub's database, cookie secret and log (/srv/jupyterhub)
    COURSE_HUB_STUDENT_ENV  the students' servers' environment, made from student/*.txt
                            (default: the hub's own, the course's full environment)

Log-in is the host's accounts (PAM) here; an LMS log-in (LTI 1.3) replaces it with the
authenticator the README's instructor guide names. What each server reads is in hub/etc/jupyter/.
"""
import os
import sys
from pathlib import Path

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

KIT = Path(__file__).resolve().parent
STATE = Path(os.environ.get("COURSE_HUB_STATE", "/srv/jupyterhub"))
EXCHANGE = os.environ.get("COURSE_HUB_EXCHANGE", "/srv/nbgrader/exchange")
STAFF = sorted(filter(None, os.environ.get("COURSE_HUB_STAFF", "").split(",")))
STUDENTS = sorted(filter(None, os.environ.get("COURSE_HUB_STUDENTS", "").split(",")))
COURSE_ID = "attention-transformers"   # nbgrader_config.py's CourseDirectory.course_id

c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
c.ConfigurableHTTPProxy.pid_file = str(STATE / "jupyterhub-proxy.pid")
# The proxy from npm (npm ci --prefix hub), else one on the PATH.
proxy = KIT / "node_modules" / ".bin" / "configurable-http-proxy"
if proxy.exists():
    c.ConfigurableHTTPProxy.command = [str(proxy)]

c.JupyterHub.authenticator_class = "pam"
c.Authenticator.admin_users = set(STAFF[:1])
c.Authenticator.allowed_users = set(STAFF + STUDENTS)
c.Authenticator.allow_all = not STUDENTS
# The hub's pages (hub/templates/): a Formgrader entry in the top bar for staff.
c.JupyterHub.template_paths = [str(KIT / "templates")]
c.JupyterHub.template_vars = {"course_staff": STAFF}
# nbgrader's groups: who may grade this course (formgrade-<course>) and who takes it.
c.JupyterHub.load_groups = {f"formgrade-{COURSE_ID}": {"users": STAFF},
                            f"nbgrader-{COURSE_ID}": {"users": STUDENTS}}

# Each user's JupyterLab runs as that user, in the user's home: staff from this environment
# (the course's), students from COURSE_HUB_STUDENT_ENV when it is set (the student profile:
# keras.txt, pytorch.txt and hub.txt of student/, with the course's wheel).
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [str(Path(sys.executable).with_name("jupyterhub-singleuser"))]
STUDENT_ENV = os.environ.get("COURSE_HUB_STUDENT_ENV")
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.http_timeout = 120
c.Spawner.start_timeout = 120


def role_of(spawner) -> str:
    return "staff" if spawner.user.name in STAFF else "student"


def students_environment(spawner) -> None:
    if STUDENT_ENV and role_of(spawner) == "student":
        spawner.cmd = [str(Path(STUDENT_ENV) / "bin" / "jupyterhub-singleuser")]


c.Spawner.pre_spawn_hook = students_environment


def config_path(spawner) -> str:
    """hub/etc/jupyter for everyone (the exchange; the course for staff), hub/etc/staff first
    for staff (no unsandboxed Validate)."""
    folders = [KIT / "etc" / "jupyter"]
    if role_of(spawner) == "staff":
        folders.insert(0, KIT / "etc" / "staff")
    return os.pathsep.join(map(str, folders))


c.Spawner.environment = {
    "JUPYTER_CONFIG_PATH": config_path,
    "COURSE_HUB_ROLE": role_of,
    "COURSE_HUB_EXCHANGE": EXCHANGE,
    "COURSE_HUB_COURSE_DIR": os.environ.get("COURSE_HUB_COURSE_DIR", "~/attention-course"),
    "KERAS_BACKEND": "tensorflow",
    "TF_CPP_MIN_LOG_LEVEL": "3",
}
# Extra variables for every server, as NAME=value lines (the tests' thread limits, say).
for line in os.environ.get("COURSE_HUB_SERVER_ENV", "").split(";"):
    if "=" in line:
        name, value = line.split("=", 1)
        c.Spawner.environment[name] = value
