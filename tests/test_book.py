"""The book builds with warnings as errors, offline, and its framework switch
works in a real headless browser.

The book is built once per module (into a temporary directory, never into the
repository's _build/) and shared by the build checks and the browser checks.
The browser checks drive Debian's Chromium through chromedriver and serve the
built HTML over http://127.0.0.1 (localStorage on file:// URLs is unreliable).

Set BOOK_SCREENSHOTS=/some/dir to save PNG screenshots of the pages tested.
"""

from __future__ import annotations

import functools
import html.parser
import http.server
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest

from course_tools import manifest, split

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]

# Pages that must exist in the built book (relative to _build/html).
REQUIRED_PAGES = [
    "book/intro.html",
    "book/notation.html",
    "book/01_rnn_bottleneck.html",
    "book/assignments.html",
    "book/timings.html",
    "book/references.html",
]

# Keys the chapters cite; each must render in the references page.
REFERENCE_KEYS = [
    "sutskever2014",
    "cho2014",
    "bahdanau2015",
    "luong2015",
    "vaswani2017",
    "devlin2019",
    "radford2019",
    "hochreiter1997",
    "schuster1997",
    "williams1989",
    "pascanu2013",
    "cho2014properties",
    "koehn2003statistical",
    "michel2019sixteen",
]

ASSIGNMENT_NOTEBOOKS = [f"exercises/{name}/{name}.ipynb" for name in manifest.assignment_marks()]

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
MISSING_BROWSER = (
    f"the browser tests need {CHROMIUM} and {CHROMEDRIVER}: "
    ".ci/run must install Debian's chromium and chromium-driver "
    "(apt-get install chromium chromium-driver)"
)

FRAMEWORKS = ("keras", "pytorch")
STORAGE_KEY = "attention-course.framework"
REMOTE = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)


# --------------------------------------------------------------------------
# Building
# --------------------------------------------------------------------------


def _jupyter_book() -> str:
    candidate = Path(sys.executable).with_name("jupyter-book")
    if candidate.exists():
        return str(candidate)
    found = shutil.which("jupyter-book")
    if not found:
        pytest.fail("jupyter-book is not installed in this environment")
    return found


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    """Build the book once into a temporary directory; keep the log."""
    out = tmp_path_factory.mktemp("book")
    cmd = [
        _jupyter_book(),
        "build",
        str(REPO),
        "--path-output",
        str(out),
        "--warningiserror",
        "--keep-going",
    ]
    start = time.monotonic()
    proc = subprocess.run(
        cmd,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    return SimpleNamespace(
        html=out / "_build" / "html",  # --path-output DIR writes DIR/_build/html
        returncode=proc.returncode,
        log=proc.stdout + proc.stderr,
        seconds=time.monotonic() - start,
    )


@pytest.fixture(scope="module")
def html_dir(book) -> Path:
    if book.returncode != 0:
        pytest.fail("the book did not build:\n" + book.log[-6000:])
    return book.html


class _AssetParser(html.parser.HTMLParser):
    """Collects what a page loads (script src, link href) and its classes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.assets: list[tuple[str, str]] = []
        self.classes: set[str] = set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script" and attrs.get("src"):
            self.assets.append((tag, attrs["src"]))
        if tag == "link" and attrs.get("href"):
            self.assets.append((tag, attrs["href"]))
        if tag in ("img", "iframe", "source", "audio", "video", "embed") and attrs.get("src"):
            self.assets.append((tag, attrs["src"]))
        self.classes.update((attrs.get("class") or "").split())


@functools.lru_cache(maxsize=None)
def _parse(path: Path) -> _AssetParser:
    parser = _AssetParser()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def _pages(html_root: Path) -> list[Path]:
    return sorted(html_root.rglob("*.html"))


def _tagged_pages(html_root: Path) -> list[str]:
    """Pages (relative paths) holding at least one framework-tagged element."""
    return [
        p.relative_to(html_root).as_posix()
        for p in _pages(html_root / "book")
        if {"tag_keras", "tag_pytorch"} & _parse(p).classes
    ]


def test_book_builds_without_warnings(book):
    assert book.returncode == 0, book.log[-6000:]
    warnings = [line for line in book.log.splitlines() if "WARNING" in line or "ERROR" in line]
    assert not warnings, "\n".join(warnings)
    print(f"book built in {book.seconds:.1f} s")


def test_required_pages_exist(html_dir):
    for page in REQUIRED_PAGES:
        assert (html_dir / page).is_file(), f"{page} was not built"
    # the landing page redirects to the introduction
    assert "book/intro.html" in (html_dir / "index.html").read_text(encoding="utf-8")


def test_every_reference_key_renders(html_dir):
    text = (html_dir / "book/references.html").read_text(encoding="utf-8")
    for key in REFERENCE_KEYS:
        match = re.search(
            rf'<div class="citation" id="cite-{key}"[^>]*>(.*?)</div>', text, re.DOTALL
        )
        assert match, f"reference {key!r} is missing from the references page"
        entry = re.sub(r"<[^>]+>", "", match.group(1))
        assert re.search(r"\b(19|20)\d\d\b", entry), f"{key}: no year in {entry!r}"


def test_intro_citations_link_to_references(html_dir):
    text = (html_dir / "book/intro.html").read_text(encoding="utf-8")
    for key in ("sutskever2014", "cho2014", "bahdanau2015", "vaswani2017", "devlin2019", "radford2019"):
        assert f'href="references.html#cite-{key}"' in text, key


def test_nothing_is_loaded_from_the_network(html_dir):
    offenders = []
    for page in _pages(html_dir):
        for tag, url in _parse(page).assets:
            if REMOTE.match(url):
                offenders.append(f"{page.relative_to(html_dir)}: <{tag}> {url}")
    for css in html_dir.rglob("*.css"):
        for url in re.findall(r"""(?:@import\s+|url\()\s*['"]?([^'")\s]+)""", css.read_text("utf-8", "replace")):
            if REMOTE.match(url):
                offenders.append(f"{css.relative_to(html_dir)}: {url}")
    assert not offenders, "assets loaded from the network:\n" + "\n".join(offenders)


def test_mathjax_is_local(html_dir):
    chapter = _parse(html_dir / "book/01_rnn_bottleneck.html")
    scripts = [
        url.split("?")[0]
        for tag, url in chapter.assets
        if tag == "script" and "mathjax" in url.lower()
    ]
    assert scripts == ["../_static/mathjax/tex-chtml.js"], scripts
    assert (html_dir / "_static/mathjax/tex-chtml.js").is_file()


def test_framework_switch_is_included(html_dir):
    chapter = _parse(html_dir / "book/01_rnn_bottleneck.html")
    urls = [url.split("?")[0] for _, url in chapter.assets]
    assert "../_static/framework-switch.js" in urls
    assert "../_static/framework-switch.css" in urls
    tagged = _tagged_pages(html_dir)
    assert "book/01_rnn_bottleneck.html" in tagged, tagged
    assert {"tag_keras", "tag_pytorch"} <= _parse(html_dir / "book/01_rnn_bottleneck.html").classes


@pytest.mark.parametrize("notebook", ASSIGNMENT_NOTEBOOKS)
def test_assignment_is_downloadable(html_dir, notebook):
    source = REPO / notebook
    text = (html_dir / "book/assignments.html").read_text(encoding="utf-8")
    assert notebook in text, f"the assignments page does not show the path {notebook}"
    assert source.exists(), f"{notebook} is missing: run nbgrader generate_assignment (README)"
    name = Path(notebook).name
    links = re.findall(rf'href="(\.\./_downloads/[^"]*/{re.escape(name)})"', text)
    assert links, f"no download link to {name} on the assignments page"
    target = (html_dir / "book" / links[0]).resolve()
    assert target.read_bytes() == source.read_bytes()


CHAPTER_STEMS = [p.stem for p in split.chapters()]


@pytest.mark.parametrize("stem", CHAPTER_STEMS)
def test_chapter_offers_its_one_framework_notebooks(html_dir, stem):
    """The download menu of a chapter links its Keras-only and PyTorch-only notebooks
    (attention_course/book_downloads.py), and the built book holds those files."""
    text = (html_dir / "book" / f"{stem}.html").read_text(encoding="utf-8")
    for framework in ("keras", "pytorch"):
        name = f"{stem}-{framework}.ipynb"
        links = re.findall(rf'<a href="(\.\./_notebooks/{re.escape(name)})"[^>]*'
                           rf'btn-download-{framework}-notebook-button', text)
        assert links, f"no link to {name} in the download menu of {stem}.html"
        target = (html_dir / "book" / links[0]).resolve()
        assert target.read_bytes() == (REPO / "notebooks" / name).read_bytes()


# --------------------------------------------------------------------------
# The browser
# --------------------------------------------------------------------------


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest's output clean
        pass


@pytest.fixture(scope="module")
def server(html_dir):
    handler = functools.partial(_QuietHandler, directory=str(html_dir))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    if not (os.access(CHROMIUM, os.X_OK) and os.access(CHROMEDRIVER, os.X_OK)):
        if os.environ.get("CI"):
            pytest.fail(MISSING_BROWSER)
        pytest.skip(MISSING_BROWSER)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=1280,1000",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
    ):
        options.add_argument(flag)
    browser = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    browser.set_page_load_timeout(60)
    try:
        yield browser
    finally:
        browser.quit()


def _open(driver, url):
    driver.get(url)
    # framework-switch.js builds the control on DOMContentLoaded
    driver.execute_script("return document.readyState")


def _fresh(driver, base):
    """Forget any stored choice (same origin for every page)."""
    _open(driver, base + "book/intro.html")
    driver.execute_script("window.localStorage.clear()")


def _state(driver):
    """What the page shows: framework attribute, switch, visibility of cells."""
    return driver.execute_script(
        """
        const shown = el => el.getClientRects().length > 0 &&
                            getComputedStyle(el).visibility !== 'hidden';
        const cells = sel => Array.from(document.querySelectorAll(sel));
        const buttons = cells('.framework-switch button');
        return {
          framework: document.documentElement.getAttribute('data-framework'),
          stored: window.localStorage.getItem(arguments[0]),
          api: window.frameworkSwitch ? window.frameworkSwitch.get() : null,
          switches: cells('.framework-switch').length,
          switchShown: cells('.framework-switch').some(shown),
          pressed: buttons.filter(b => b.getAttribute('aria-pressed') === 'true')
                          .map(b => b.dataset.framework),
          keras: cells('.tag_keras').map(shown),
          kerasParts: cells('.tag_keras .cell_input, .tag_keras .cell_output').map(shown),
          pytorch: cells('.tag_pytorch').map(shown),
          pytorchParts: cells('.tag_pytorch .cell_input, .tag_pytorch .cell_output').map(shown),
          untagged: cells('.cell:not(.tag_keras):not(.tag_pytorch)').map(shown),
        };
        """,
        STORAGE_KEY,
    )


def _assert_shows(driver, framework, page=""):
    other = "keras" if framework == "pytorch" else "pytorch"
    state = _state(driver)
    where = f"{page or driver.current_url}: {state}"
    assert state["framework"] == framework, where
    assert state["api"] == framework, where
    assert state["switches"] == 1 and state["switchShown"], where
    assert state["pressed"] == [framework], where
    assert state[framework] and all(state[framework]), where
    assert state[other] and not any(state[other]), where
    assert not any(state[other + "Parts"]), where
    assert all(state["untagged"]), where
    return state


def _button(driver, framework):
    from selenium.webdriver.common.by import By

    return driver.find_element(
        By.CSS_SELECTOR, f'.framework-switch button[data-framework="{framework}"]'
    )


def _screenshot(driver, name):
    folder = os.environ.get("BOOK_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(folder) / f"{name}.png"))


@pytest.mark.browser
def test_default_is_pytorch(driver, server, html_dir):
    _fresh(driver, server)
    for page in _tagged_pages(html_dir):
        _open(driver, server + page)
        _assert_shows(driver, "pytorch", page)
    assert _state(driver)["stored"] is None  # a default is not a choice


@pytest.mark.browser
def test_choice_hides_other_framework_and_is_remembered(driver, server, html_dir):
    tagged = _tagged_pages(html_dir)
    first = server + tagged[0]
    _fresh(driver, server)
    _open(driver, first)

    _button(driver, "keras").click()
    _assert_shows(driver, "keras")
    assert _state(driver)["stored"] == "keras"

    _button(driver, "pytorch").click()
    _assert_shows(driver, "pytorch")
    assert _state(driver)["stored"] == "pytorch"

    driver.refresh()
    _assert_shows(driver, "pytorch", "after reload")

    # every page with framework cells, reached again from a page without any,
    # and the chapter under a second URL
    pages = tagged + [tagged[0] + "?from=intro#top"]
    for page in pages:
        _open(driver, server + "book/intro.html")
        _open(driver, server + page)
        _assert_shows(driver, "pytorch", page)

    # the same choice the other way round, on every page
    _button(driver, "keras").click()
    for page in pages:
        _open(driver, server + page)
        _assert_shows(driver, "keras", page)


@pytest.mark.browser
def test_url_parameter_selects_and_is_remembered(driver, server, html_dir):
    page = _tagged_pages(html_dir)[0]
    _fresh(driver, server)
    _open(driver, server + page + "?framework=keras")
    _assert_shows(driver, "keras")
    assert _state(driver)["stored"] == "keras"
    _open(driver, server + page)  # no parameter: remembered
    _assert_shows(driver, "keras")
    _open(driver, server + "book/intro.html?framework=pytorch")  # works on any page
    _open(driver, server + page)
    _assert_shows(driver, "pytorch")
    _open(driver, server + page + "?framework=nonsense")  # ignored
    _assert_shows(driver, "pytorch")

    # a click keeps an explicit parameter in step, so a reload does not undo it
    _open(driver, server + page + "?framework=keras")
    _button(driver, "pytorch").click()
    assert "framework=pytorch" in driver.current_url
    driver.refresh()
    _assert_shows(driver, "pytorch")


@pytest.mark.browser
def test_switch_works_with_the_keyboard(driver, server, html_dir):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    page = _tagged_pages(html_dir)[0]
    _fresh(driver, server)
    _open(driver, server + page)
    _assert_shows(driver, "pytorch")

    def focused_framework():
        return driver.execute_script(
            "const a = document.activeElement;"
            "return a && a.closest('.framework-switch') ? a.dataset.framework : null;"
        )

    driver.execute_script("document.activeElement && document.activeElement.blur()")
    for _ in range(300):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        if focused_framework() == "keras":
            break
    else:
        pytest.fail("Tab never reached the Keras button of the framework switch")

    ActionChains(driver).send_keys(Keys.ENTER).perform()
    _assert_shows(driver, "keras", "after Enter")
    assert _state(driver)["stored"] == "keras"

    ActionChains(driver).send_keys(Keys.TAB).perform()
    assert focused_framework() == "pytorch", "Tab does not move on to the PyTorch button"
    ActionChains(driver).send_keys(Keys.SPACE).perform()
    _assert_shows(driver, "pytorch", "after Space")
    assert _state(driver)["stored"] == "pytorch"

    label = driver.execute_script(
        "return document.querySelector('.framework-switch').getAttribute('role') + '|' +"
        " document.querySelector('.framework-switch').getAttribute('aria-label')"
    )
    assert label.startswith("group|") and len(label) > len("group|")


@pytest.mark.browser
def test_no_switch_without_framework_cells(driver, server, html_dir):
    tagged = set(_tagged_pages(html_dir))
    untagged = [
        p.relative_to(html_dir).as_posix()
        for p in _pages(html_dir / "book")
        if p.relative_to(html_dir).as_posix() not in tagged
    ]
    assert "book/intro.html" in untagged
    _fresh(driver, server)
    for page in untagged:
        _open(driver, server + page)
        state = _state(driver)
        assert state["switches"] == 0, f"{page} shows a framework switch"
        assert all(state["untagged"]), page
    _open(driver, server + "book/intro.html")
    _screenshot(driver, "intro")


@pytest.mark.browser
def test_one_framework_notebooks_are_downloads(driver, server, html_dir):
    """framework-switch.js makes the menu's one-framework links save the file."""
    _fresh(driver, server)
    _open(driver, server + "book/01_rnn_bottleneck.html")
    links = driver.execute_script(
        "return Array.from(document.querySelectorAll('a.btn-download-keras-notebook-button, "
        "a.btn-download-pytorch-notebook-button')).map(a => [a.getAttribute('href'), "
        "a.hasAttribute('download'), a.getAttribute('target')])")
    assert [href.rsplit("/", 1)[-1] for href, _, _ in links] == [
        "01_rnn_bottleneck-keras.ipynb", "01_rnn_bottleneck-pytorch.ipynb"]
    assert all(download and target is None for _, download, target in links), links


@pytest.mark.browser
def test_badges_maths_and_no_network(driver, server, html_dir):
    from selenium.webdriver.support.ui import WebDriverWait

    page = "book/01_rnn_bottleneck.html"
    _fresh(driver, server)
    _open(driver, server + page + "?framework=pytorch")
    _assert_shows(driver, "pytorch")

    badge = driver.execute_script(
        "const c = document.querySelector('.tag_pytorch');"
        "return getComputedStyle(c, '::before').content;"
    )
    assert "PyTorch" in badge

    # MathJax (served locally) typesets the display maths
    WebDriverWait(driver, 30).until(
        lambda d: d.execute_script(
            "return document.querySelectorAll('mjx-container').length > 0"
        )
    )
    _screenshot(driver, "chapter-pytorch")

    _button(driver, "keras").click()
    badge = driver.execute_script(
        "const c = document.querySelector('.tag_keras');"
        "return getComputedStyle(c, '::before').content;"
    )
    assert "Keras" in badge
    _screenshot(driver, "chapter-keras")

    # every resource the page fetched came from the local server
    resources = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
    )
    origin = urlsplit(server)
    remote = [
        url
        for url in resources
        if urlsplit(url).scheme not in ("data", "blob")
        and (urlsplit(url).hostname, urlsplit(url).port) != (origin.hostname, origin.port)
    ]
    assert not remote, remote
