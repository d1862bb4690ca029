"""The book builds with warnings as errors, offline, and its framework switch
works in a real headless browser.

The book is built once per module (tests/book_site.py: into a temporary directory,
never into the repository's _build/) and shared by the build checks and the browser
checks, which drive Debian's Chromium through chromedriver.

Set BOOK_SCREENSHOTS=/some/dir to save PNG screenshots of the pages tested.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from book_site import (  # noqa: F401 (book, html_dir, server, driver: the fixtures)
    REMOTE,
    assert_shows,
    book,
    driver,
    fresh_page,
    html_dir,
    open_page,
    pages,
    parse_page,
    screenshot,
    server,
    switch_button,
    switch_state,
    tagged_pages)
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
    for page in pages(html_dir):
        for tag, url in parse_page(page).assets:
            if REMOTE.match(url):
                offenders.append(f"{page.relative_to(html_dir)}: <{tag}> {url}")
    for css in html_dir.rglob("*.css"):
        for url in re.findall(r"""(?:@import\s+|url\()\s*['"]?([^'")\s]+)""", css.read_text("utf-8", "replace")):
            if REMOTE.match(url):
                offenders.append(f"{css.relative_to(html_dir)}: {url}")
    assert not offenders, "assets loaded from the network:\n" + "\n".join(offenders)


def test_mathjax_is_local(html_dir):
    chapter = parse_page(html_dir / "book/01_rnn_bottleneck.html")
    scripts = [
        url.split("?")[0]
        for tag, url in chapter.assets
        if tag == "script" and "mathjax" in url.lower()
    ]
    assert scripts == ["../_static/mathjax/tex-chtml.js"], scripts
    assert (html_dir / "_static/mathjax/tex-chtml.js").is_file()


def test_framework_switch_is_included(html_dir):
    chapter = parse_page(html_dir / "book/01_rnn_bottleneck.html")
    urls = [url.split("?")[0] for _, url in chapter.assets]
    assert "../_static/framework-switch.js" in urls
    assert "../_static/framework-switch.css" in urls
    tagged = tagged_pages(html_dir)
    assert "book/01_rnn_bottleneck.html" in tagged, tagged
    assert {"tag_keras", "tag_pytorch"} <= parse_page(html_dir / "book/01_rnn_bottleneck.html").classes


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

@pytest.mark.browser
def test_default_is_pytorch(driver, server, html_dir):
    fresh_page(driver, server)
    for page in tagged_pages(html_dir):
        open_page(driver, server + page)
        assert_shows(driver, "pytorch", page)
    assert switch_state(driver)["stored"] is None  # a default is not a choice


@pytest.mark.browser
def test_choice_hides_other_framework_and_is_remembered(driver, server, html_dir):
    tagged = tagged_pages(html_dir)
    first = server + tagged[0]
    fresh_page(driver, server)
    open_page(driver, first)

    switch_button(driver, "keras").click()
    assert_shows(driver, "keras")
    assert switch_state(driver)["stored"] == "keras"

    switch_button(driver, "pytorch").click()
    assert_shows(driver, "pytorch")
    assert switch_state(driver)["stored"] == "pytorch"

    driver.refresh()
    assert_shows(driver, "pytorch", "after reload")

    # every page with framework cells, reached again from a page without any,
    # and the chapter under a second URL
    pages = tagged + [tagged[0] + "?from=intro#top"]
    for page in pages:
        open_page(driver, server + "book/intro.html")
        open_page(driver, server + page)
        assert_shows(driver, "pytorch", page)

    # the same choice the other way round, on every page
    switch_button(driver, "keras").click()
    for page in pages:
        open_page(driver, server + page)
        assert_shows(driver, "keras", page)


@pytest.mark.browser
def test_url_parameter_selects_and_is_remembered(driver, server, html_dir):
    page = tagged_pages(html_dir)[0]
    fresh_page(driver, server)
    open_page(driver, server + page + "?framework=keras")
    assert_shows(driver, "keras")
    assert switch_state(driver)["stored"] == "keras"
    open_page(driver, server + page)  # no parameter: remembered
    assert_shows(driver, "keras")
    open_page(driver, server + "book/intro.html?framework=pytorch")  # works on any page
    open_page(driver, server + page)
    assert_shows(driver, "pytorch")
    open_page(driver, server + page + "?framework=nonsense")  # ignored
    assert_shows(driver, "pytorch")

    # a click keeps an explicit parameter in step, so a reload does not undo it
    open_page(driver, server + page + "?framework=keras")
    switch_button(driver, "pytorch").click()
    assert "framework=pytorch" in driver.current_url
    driver.refresh()
    assert_shows(driver, "pytorch")


@pytest.mark.browser
def test_switch_works_with_the_keyboard(driver, server, html_dir):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    page = tagged_pages(html_dir)[0]
    fresh_page(driver, server)
    open_page(driver, server + page)
    assert_shows(driver, "pytorch")

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
    assert_shows(driver, "keras", "after Enter")
    assert switch_state(driver)["stored"] == "keras"

    ActionChains(driver).send_keys(Keys.TAB).perform()
    assert focused_framework() == "pytorch", "Tab does not move on to the PyTorch button"
    ActionChains(driver).send_keys(Keys.SPACE).perform()
    assert_shows(driver, "pytorch", "after Space")
    assert switch_state(driver)["stored"] == "pytorch"

    label = driver.execute_script(
        "return document.querySelector('.framework-switch').getAttribute('role') + '|' +"
        " document.querySelector('.framework-switch').getAttribute('aria-label')"
    )
    assert label.startswith("group|") and len(label) > len("group|")


@pytest.mark.browser
def test_no_switch_without_framework_cells(driver, server, html_dir):
    tagged = set(tagged_pages(html_dir))
    untagged = [
        p.relative_to(html_dir).as_posix()
        for p in pages(html_dir / "book")
        if p.relative_to(html_dir).as_posix() not in tagged
    ]
    assert "book/intro.html" in untagged
    fresh_page(driver, server)
    for page in untagged:
        open_page(driver, server + page)
        state = switch_state(driver)
        assert state["switches"] == 0, f"{page} shows a framework switch"
        assert all(state["untagged"]), page
    open_page(driver, server + "book/intro.html")
    screenshot(driver, "intro")


@pytest.mark.browser
def test_one_framework_notebooks_are_downloads(driver, server, html_dir):
    """framework-switch.js makes the menu's one-framework links save the file."""
    fresh_page(driver, server)
    open_page(driver, server + "book/01_rnn_bottleneck.html")
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
    fresh_page(driver, server)
    open_page(driver, server + page + "?framework=pytorch")
    assert_shows(driver, "pytorch")

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
    screenshot(driver, "chapter-pytorch")

    switch_button(driver, "keras").click()
    badge = driver.execute_script(
        "const c = document.querySelector('.tag_keras');"
        "return getComputedStyle(c, '::before').content;"
    )
    assert "Keras" in badge
    screenshot(driver, "chapter-keras")

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


FRAMEWORKS = manifest.FRAMEWORKS
CHAPTER_PAGES = [f"book/{chapter.stem}.html" for chapter in manifest.chapters()]
LAYOUT_WIDTHS = (1300, 1600)


def at_width(driver, width):
    """Resize the window so that the page's viewport is `width` pixels wide."""
    driver.set_window_size(width, 1000)
    inner = driver.execute_script("return window.innerWidth")
    driver.set_window_size(2 * width - inner, 1000)


@pytest.mark.browser
@pytest.mark.parametrize("width", LAYOUT_WIDTHS)
def test_one_search_field_and_the_title_whole(driver, server, html_dir, width):
    """No second search bar in a header above the page, and nothing covers the book's title."""
    at_width(driver, width)
    for page in ["book/intro.html", *CHAPTER_PAGES]:
        open_page(driver, server + page)
        found = driver.execute_script("""
          const shown = el => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
          const searches = Array.from(document.querySelectorAll(
            'input[type=search], button.search-button__button, button.search-button')).filter(shown);
          const sidebar = document.querySelector('#pst-primary-sidebar');
          sidebar.scrollTop = 0;
          const title = document.querySelector('#pst-primary-sidebar .navbar-brand');
          const box = title.getBoundingClientRect();
          const corners = [[box.left + 2, box.top + 2], [box.right - 2, box.top + 2],
                           [box.left + 2, box.bottom - 2], [box.right - 2, box.bottom - 2]];
          const covered = corners.filter(([x, y]) => !title.contains(document.elementFromPoint(x, y)));
          return {searches: searches.length, top: box.top, covered: covered.length,
                  text: title.textContent.trim()};
        """)
        assert found["searches"] == 1, f"{page} at {width} px: {found['searches']} search fields"
        assert found["top"] >= 0 and found["covered"] == 0, f"{page} at {width} px: title cut {found}"
        assert found["text"].startswith("Attention and Transformers"), found


@pytest.mark.browser
@pytest.mark.parametrize("width", LAYOUT_WIDTHS)
def test_code_stays_within_the_column(driver, server, html_dir, width):
    """No code block (input, output, or in the prose) scrolls sideways, in either framework."""
    at_width(driver, width)
    for framework in FRAMEWORKS:
        for page in CHAPTER_PAGES:
            open_page(driver, server + page + f"?framework={framework}")
            wide = driver.execute_script("""
              const shown = el => el.getClientRects().length > 0;
              return Array.from(document.querySelectorAll('div.highlight pre')).filter(shown)
                .filter(pre => pre.scrollWidth > pre.clientWidth)
                .map(pre => [pre.scrollWidth, pre.clientWidth, pre.textContent.slice(0, 60)]);
            """)
            assert not wide, f"{page} ({framework}) at {width} px: code wider than its column {wide[:3]}"
            screenshot(driver, f"{Path(page).stem}-{framework}-{width}px")
