"""nbgrader on the course's hub (JUPYTER_CONFIG_PATH of every user's server, set by
hub/jupyterhub_config.py; on a hand-made hub, copy it to /etc/jupyter/).

Everyone: the course and the exchange, for the Assignments tab (fetch, submit, fetch feedback).
Staff (instructors, graders): their copy of the course is the course directory, with the course's
own nbgrader_config.py (the sandboxed autograder and the rest), so that the Formgrader and a
terminal's `nbgrader ...` in that folder grade the same way.
"""
import os
from pathlib import Path

c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

c.CourseDirectory.course_id = "attention-transformers"
c.Exchange.root = os.environ.get("COURSE_HUB_EXCHANGE", "/srv/nbgrader/exchange")

if os.environ.get("COURSE_HUB_ROLE") == "staff":
    course = Path(os.environ.get("COURSE_HUB_COURSE_DIR", "~/attention-course")).expanduser()
    c.CourseDirectory.root = str(course)
    if (course / "nbgrader_config.py").is_file():
        load_subconfig(str(course / "nbgrader_config.py"))  # noqa: F821 (traitlets)
