"""Staff servers on the course's hub (instructors, graders): hub/jupyterhub_config.py puts this
folder first on their JUPYTER_CONFIG_PATH.

No nbgrader Validate here: it would run a student's notebook as the instructor, with the
instructor's files, gradebook and network, outside the autograder's sandbox. Staff grade with
`nbgrader autograde` or the course's parallel grader, which run every submission sandboxed.
(labconfig/page_config.json removes the button; this removes what it would call.) Students keep
Validate: it runs their own code, as themselves, in their own server.
"""
c = get_config()  # noqa: F821 (provided by traitlets when it loads this file)

c.ServerApp.jpserver_extensions = {"nbgrader.server_extensions.validate_assignment": False}
