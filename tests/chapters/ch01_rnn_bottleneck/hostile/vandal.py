# %% [new cell after setup]
# Write where a submission must not: other students' work, the course, the package; plant a
# symlink in its own folder; fork until something gives.
import json, os, time
from pathlib import Path
import attention_course
here = Path.cwd()
course = here.parents[2]
assignment = here.name
targets = [course / "submitted" / "honest_full" / assignment / f"{assignment}.ipynb",
           course / "autograded" / "honest_full" / assignment / f"{assignment}.ipynb",
           course / "solutions" / assignment / f"{assignment}.ipynb",
           course / "gradebook.db",
           course / "nbgrader_config.py",
           Path(attention_course.__file__).with_name("pwned.py"),
           here / "pwned.txt"]
result = {}
for path in targets:
    try:
        with open(path, "a") as handle:
            handle.write("pwned")
        result[str(path)] = "written"
    except OSError as error:
        result[str(path)] = type(error).__name__
try:
    os.symlink(course / "solutions", here / "solutions-link")
    result["symlink"] = "made"
except OSError as error:
    result["symlink"] = type(error).__name__
children = []
try:
    while len(children) < 100_000:
        pid = os.fork()
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        children.append(pid)
except OSError as error:
    result["fork"] = f"{len(children)} processes, then {type(error).__name__}: {error}"
for pid in children:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
print("VANDAL " + json.dumps(result))

