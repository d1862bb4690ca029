"""The built book for the book tests (tests/test_book.py): the build, once per test module, into a
temporary folder (never the repository's _build/), what its pages load, a local server and headless
Chromium driven through chromedriver (localStorage on file:// URLs is unreliable).

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

import pytest

from harness.services import unavailable

REPO = Path(__file__).resolve().parents[1]
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


def jupyter_book() -> str:
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
        jupyter_book(),
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


class AssetParser(html.parser.HTMLParser):
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
def parse_page(path: Path) -> AssetParser:
    parser = AssetParser()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def pages(html_root: Path) -> list[Path]:
    return sorted(html_root.rglob("*.html"))


def tagged_pages(html_root: Path) -> list[str]:
    """Pages (relative paths) holding at least one framework-tagged element."""
    return [
        p.relative_to(html_root).as_posix()
        for p in pages(html_root / "book")
        if {"tag_keras", "tag_pytorch"} & parse_page(p).classes
    ]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest's output clean
        pass


@pytest.fixture(scope="module")
def server(html_dir):
    handler = functools.partial(QuietHandler, directory=str(html_dir))
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
        unavailable(MISSING_BROWSER)
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


def open_page(driver, url):
    driver.get(url)
    # framework-switch.js builds the control on DOMContentLoaded
    driver.execute_script("return document.readyState")


def fresh_page(driver, base):
    """Forget any stored choice (same origin for every page)."""
    open_page(driver, base + "book/intro.html")
    driver.execute_script("window.localStorage.clear()")


def switch_state(driver):
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


def assert_shows(driver, framework, page=""):
    other = "keras" if framework == "pytorch" else "pytorch"
    state = switch_state(driver)
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


def switch_button(driver, framework):
    from selenium.webdriver.common.by import By

    return driver.find_element(
        By.CSS_SELECTOR, f'.framework-switch button[data-framework="{framework}"]'
    )


def screenshot(driver, name):
    folder = os.environ.get("BOOK_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(folder) / f"{name}.png"))
