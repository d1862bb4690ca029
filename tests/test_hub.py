"""The course on its JupyterHub, the whole loop as people do it (hub/, the README's hub checklist).

The hub (tests/hub_site.py: real accounts, PAM log-in, configurable-http-proxy, each user's
JupyterLab started as that user, nbgrader's exchange) and headless Chromium:

1. the instructor generates and releases the chapter 3 assignment in both frameworks;
2. in JupyterLab's Assignments tab, one student fetches the PyTorch one and submits it solved,
   the other fetches the Keras one and submits it with a known mistake;
3. the instructor collects and autogrades (sandboxed, as the instructor: not root); the scores
   in the gradebook are the known ones;
4. the Formgrader, which JupyterHub >= 4.1 forbids inside JupyterLab's frame, opens in its own tab,
   shows the graded submissions, and a score changed there lands in the gradebook;
5. the instructor generates and releases feedback, and the student fetches it in the Assignments
   tab;
6. staff servers have no unsandboxed Validate; a student's has; students' servers run from a
   fresh environment of the student profile (student/*.txt and the course's wheel), staff's from
   the course's;
7. an nbgitpuller link brings the course's chapters into a student's home and opens chapter 3.

`make hub-screenshots` writes the student's Assignments tab and the Formgrader as PNG files.
"""
from __future__ import annotations

import contextlib
import json
import os
import pwd
import sys
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import nbformat
import pytest

from book_site import driver  # noqa: F401 (the fixture)
from harness.course import REPO, Course
from harness.declarations import wrongs_for
from harness.submissions import student_notebook, wrong_submission
from hub_site import STAFF, STUDENTS, hub  # noqa: F401 (the fixture)

pytestmark = [pytest.mark.slow, pytest.mark.browser]

INSTRUCTOR, GRADER = STAFF
ADA, BEN = STUDENTS
PYTORCH, KERAS = "03-self-attention-pytorch", "03-self-attention-keras"
WORK = {ADA: PYTORCH, BEN: KERAS}
NAMES = {ADA: ("Ada", "Lovelace"), BEN: ("Ben", "Okafor")}
BEN_MISTAKE = wrongs_for(KERAS)[0]
SHOTS = os.environ.get("HUB_SCREENSHOTS")


def screenshot(driver, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(SHOTS) / f"{name}.png"))


def until(driver, condition, seconds: float = 60):
    """Wait until condition() is truthy; its value."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds, poll_frequency=0.25).until(lambda _: condition())


def page_has(driver, selector: str, seconds: float = 90):
    """Wait until the page has an element matching the CSS selector; the element."""
    return until(driver, lambda: driver.find_elements("css selector", selector), seconds)[0]


def log_in(driver, hub, user: str) -> None:
    """Log in on the hub's page with the account's password; JupyterLab has loaded."""
    driver.get(hub.url + "hub/logout")            # whoever was logged in before
    driver.get(hub.url + "hub/login")
    page_has(driver, "#username_input", 30).send_keys(user)
    driver.find_element("id", "password_input").send_keys(hub.passwords[user])
    driver.find_element("id", "login_submit").click()
    page_has(driver, ".jp-LabShell .jp-DirListing-content", 120)


def open_menu_item(driver, menu: str, item: str) -> None:
    """Click a JupyterLab menu bar entry, then one of its items (real mouse clicks: Lumino's
    menus answer mouse-down and mouse-up, not click events)."""
    for kind, label in (("lm-MenuBar-itemLabel", menu), ("lm-Menu-itemLabel", item)):
        driver.find_element("xpath", f"//div[contains(@class, '{kind}')][text()='{label}']").click()


def assignment_list(driver) -> dict[str, list[str]]:
    """The Assignments tab: {released|fetched|submitted: the text of each row}."""
    return driver.execute_script("""
        const rows = kind => Array.from(document.querySelectorAll(
            `#${kind}_assignments_list > .list_item`)).map(row => row.innerText.replace(/\\s+/g, ' '));
        return {released: rows('released'), fetched: rows('fetched'), submitted: rows('submitted')};""")


def open_assignment_list(driver, expect: str) -> None:
    """Nbgrader > Assignment List, loaded with at least one row in the `expect` list."""
    open_menu_item(driver, "Nbgrader", "Assignment List")
    page_has(driver, f"#{expect}_assignments_list > .list_item")


def click_row_button(driver, kind: str, assignment: str, label: str) -> None:
    """Click the button `label` on the row of `assignment` in the `kind` list."""
    row = (f"//div[@id='{kind}_assignments_list']/div[contains(@class, 'list_item')]"
           f"[contains(., '{assignment}')]")
    driver.find_element("xpath", f"{row}//button[normalize-space()='{label}']").click()


def row_of(driver, kind: str, assignment: str) -> str:
    """The text of the assignment's row in the `kind` list, or ''."""
    return next((row for row in assignment_list(driver)[kind] if assignment in row), "")


def hand_in(hub, student: str, notebook: nbformat.NotebookNode) -> None:
    """The student's work, saved over the fetched notebook in the student's home (as JupyterLab
    saves it)."""
    assignment = WORK[student]
    path = hub.home(student) / assignment / f"{assignment}.ipynb"
    assert path.exists(), f"{student} has not fetched {assignment}"
    nbformat.write(notebook, path)
    os.chown(path, path.parent.stat().st_uid, path.parent.stat().st_gid)


def fetch_and_submit(driver, hub, student: str, notebook: nbformat.NotebookNode) -> None:
    assignment = WORK[student]
    open_assignment_list(driver, "released")
    assert {row.split()[0] for row in assignment_list(driver)["released"]} == {PYTORCH, KERAS}
    click_row_button(driver, "released", assignment, "Fetch")
    until(driver, lambda: row_of(driver, "fetched", assignment))
    hand_in(hub, student, notebook)
    click_row_button(driver, "fetched", assignment, "Submit")
    until(driver, lambda: row_of(driver, "submitted", assignment))
    screenshot(driver, f"assignments-submitted-{student}")


def test_a_link_pulls_the_course_into_a_students_home_and_opens_the_chapter(driver, hub):  # noqa: F811
    """nbgitpuller: the link an instructor posts (README), from the course's repository."""
    log_in(driver, hub, ADA)
    chapter = "course/notebooks/03_self_attention-pytorch.ipynb"
    driver.get(f"{hub.url}hub/user-redirect/git-pull?" + urllib.parse.urlencode(
        {"repo": hub.git_url, "branch": "main", "urlpath": f"lab/tree/{chapter}"}))
    title = "3. Self-attention: queries, keys and values"
    until(driver, lambda: driver.execute_script(
        "const h = document.querySelector('.jp-NotebookPanel .jp-RenderedMarkdown h1');"
        "return h && h.textContent.startsWith(arguments[0]);", title), 120)
    screenshot(driver, "nbgitpuller-chapter-3")
    pulled = hub.home(ADA) / chapter
    assert pulled.owner() == ADA
    assert pulled.read_bytes() == (REPO / "notebooks" / pulled.name).read_bytes()


def test_students_fetch_work_and_submit_in_the_assignments_tab(driver, hub):  # noqa: F811
    for assignment in (PYTORCH, KERAS):
        hub.nbgrader("generate_assignment", assignment, "--force")
        hub.nbgrader("release_assignment", assignment)
    for student, (first, last) in NAMES.items():     # the roster (the LMS's, in a real course)
        hub.nbgrader("db", "student", "add", student, f"--first-name={first}", f"--last-name={last}")
    log_in(driver, hub, ADA)
    fetch_and_submit(driver, hub, ADA, student_notebook(PYTORCH))
    log_in(driver, hub, BEN)
    fetch_and_submit(driver, hub, BEN, wrong_submission(KERAS, BEN_MISTAKE.student))
    inbound = sorted(p.name.split("+")[:2] for p in (hub.base / "exchange").glob("*/inbound/*"))
    assert inbound == [[ADA, PYTORCH], [BEN, KERAS]]


def grades(hub) -> Course:
    """The instructor's course directory, read as the grading tests read theirs (its gradebook)."""
    return Course(hub.course())


def test_the_instructor_collects_and_grades_sandboxed_without_root(hub):  # noqa: F811
    for assignment in (PYTORCH, KERAS):
        hub.nbgrader("collect", assignment)
        graded = hub.nbgrader("autograde", assignment)
        # graded with the course's nbgrader_config.py: the sandboxed kernel and its check
        assert "for the out-of-kernel check" in graded.stderr, graded.stderr[-3000:]
    course = grades(hub)
    assert course.scores(PYTORCH, ADA) == course.max_scores(PYTORCH)
    assert course.scores(KERAS, BEN) == {**course.max_scores(KERAS), **BEN_MISTAKE.scores}
    assert {path.owner() for path in (hub.course() / "autograded").rglob("*")} == {INSTRUCTOR}


def header_of(driver, url: str, name: str) -> str:
    """A response header of `url`, asked for with the browser's cookies (logged in)."""
    cookies = "; ".join(f"{c['name']}={c['value']}" for c in driver.get_cookies())
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Cookie": cookies})) as response:
        return response.headers.get(name, "")


def status_of(driver, url: str) -> int:
    """The HTTP status of GET `url` with the browser's cookies."""
    try:
        header_of(driver, url, "Date")
        return 200
    except urllib.error.HTTPError as error:
        return error.code


def grade_of(hub, assignment: str, student: str, grade_id: str):
    """(submitted notebook id, manual score of the cell) from the instructor's gradebook."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{hub.course() / 'gradebook.db'}") as gradebook:
        grade = gradebook.find_grade(grade_id, assignment, assignment, student)
        return grade.notebook.id, grade.manual_score


def table_rows(driver) -> list[str]:
    return driver.execute_script("return Array.from(document.querySelectorAll('tbody tr'))"
                                 ".map(row => row.innerText.replace(/\\s+/g, ' '))")


def test_the_formgrader_opens_in_its_own_tab_and_a_score_changed_there_counts(driver, hub):  # noqa: F811
    log_in(driver, hub, INSTRUCTOR)
    formgrader = f"{hub.url}user/{INSTRUCTOR}/formgrader"
    # nbgrader's menu shows the Formgrader in a frame of JupyterLab, which stays blank
    open_menu_item(driver, "Nbgrader", "Formgrader")
    until(driver, lambda: driver.execute_script("""
        const frame = document.querySelector('#formgrader iframe');
        return frame && frame.src.includes('formgrader') && frame.contentDocument === null;"""), 30)
    screenshot(driver, "formgrader-in-jupyterlab-blank")
    # because JupyterHub >= 4.1 forbids frames; the hub's top bar opens it in a tab of its own
    driver.get(hub.url + "hub/home")
    tabs = len(driver.window_handles)
    link = page_has(driver, "#course-formgrader", 30)
    screenshot(driver, "hub-home-formgrader-link")
    link.click()
    until(driver, lambda: len(driver.window_handles) > tabs)
    driver.switch_to.window(driver.window_handles[-1])
    until(driver, lambda: driver.current_url.startswith(formgrader + "/manage_assignments"))
    until(driver, lambda: KERAS in driver.find_element("tag name", "body").text)
    screenshot(driver, "formgrader-own-tab")
    driver.get(f"{formgrader}/manage_submissions/{KERAS}")
    until(driver, lambda: BEN in driver.find_element("tag name", "body").text)
    assert "frame-ancestors 'none'" in header_of(driver, driver.current_url, "Content-Security-Policy")
    screenshot(driver, "formgrader-submissions")
    course = grades(hub)
    total, points = sum(course.scores(KERAS, BEN).values()), sum(course.max_scores(KERAS).values())
    [row] = table_rows(driver)
    assert row.startswith("Okafor, Ben hub-ben") and f"graded {total:g} / {points:g}" in row, row
    # the instructor gives half the points of a test the mistake failed
    cell = next(iter(BEN_MISTAKE.scores))
    adjusted = course.max_scores(KERAS)[cell] / 2
    notebook_id, _ = grade_of(hub, KERAS, BEN, cell)
    driver.get(f"{formgrader}/submissions/{notebook_id}/")
    score = page_has(driver, f"#{cell}")
    # typed only once the page's script has bound the box (it sets the autograded score as its
    # placeholder then); typed earlier, the change is lost
    until(driver, lambda: score.get_attribute("placeholder"))
    score.clear()
    score.send_keys(f"{adjusted:g}\t")
    until(driver, lambda: grade_of(hub, KERAS, BEN, cell)[1] == adjusted, 30)
    screenshot(driver, "formgrader-adjusted-score")
    driver.refresh()
    shown = until(driver, lambda: driver.find_element("id", cell).get_attribute("value"))
    assert float(shown) == adjusted
    assert course.scores(KERAS, BEN)[cell] == adjusted
    driver.get(f"{formgrader}/manage_submissions/{KERAS}")
    until(driver, lambda: f"{total + adjusted:g} / {points:g}" in "".join(table_rows(driver)))
    driver.close()
    driver.switch_to.window(driver.window_handles[0])


def test_the_student_fetches_the_feedback_in_the_assignments_tab(driver, hub):  # noqa: F811
    hub.nbgrader("generate_feedback", KERAS)
    hub.nbgrader("release_feedback", KERAS)
    log_in(driver, hub, BEN)
    open_assignment_list(driver, "submitted")
    until(driver, lambda: "feedback available to fetch" in row_of(driver, "submitted", KERAS))
    click_row_button(driver, "submitted", KERAS, "Fetch Feedback")
    until(driver, lambda: "view feedback" in row_of(driver, "submitted", KERAS))
    screenshot(driver, "assignments-feedback-fetched")
    [page] = (hub.home(BEN) / KERAS / "feedback").glob(f"*/{KERAS}.html")
    assert page.owner() == BEN
    total = sum(grades(hub).scores(KERAS, BEN).values())   # with the score changed by hand
    assert f"(Score: {round(total, 2)} / " in page.read_text()


def server_program(user: str) -> str:
    """The jupyterhub-singleuser program that the user's running server was started as."""
    uid = pwd.getpwnam(user).pw_uid
    for process in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError):
            if process.stat().st_uid == uid:
                words = (process / "cmdline").read_bytes().decode().split("\0")
                found = [word for word in words if word.endswith("/jupyterhub-singleuser")]
                if found:
                    return found[0]
    return f"no server of {user}"


def test_staff_servers_have_no_unsandboxed_validate(driver, hub):  # noqa: F811
    """Validate would run a student's notebook as the grader, outside the sandbox: staff servers
    have neither its button nor its handler; a student's server has both (hub/etc/staff/).
    The Formgrader link of the hub's pages is the other way round."""
    validate = "@jupyter/nbgrader:validate-assignment"
    for user, present in ((GRADER, False), (ADA, True)):
        log_in(driver, hub, user)
        page_config = json.loads(driver.execute_script(
            "return document.getElementById('jupyter-config-data').textContent"))
        disabled = page_config.get("disabledExtensions", [])
        assert (validate in disabled) is not present
        assert "@jupyterlab/apputils-extension:announcements" in disabled   # no news prompt
        # a student's server runs from the student profile, a grader's from the course's .venv
        environment = hub.student_env if present else Path(sys.executable).parent.parent
        assert server_program(user).startswith(f"{environment}/bin/"), server_program(user)
        # the handler answers POST only: GET gives 405 where it exists, 404 where it does not
        validate_url = f"{hub.url}user/{user}/assignments/validate"
        assert status_of(driver, validate_url) == (405 if present else 404)
        # the hub's top bar offers the Formgrader to staff only
        driver.get(hub.url + "hub/home")
        page_has(driver, "nav .navbar-nav .nav-link")
        assert bool(driver.find_elements("id", "course-formgrader")) is not present
