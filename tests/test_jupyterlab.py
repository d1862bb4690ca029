"""The one-framework notebooks read well in JupyterLab, as a student opens them.

A real JupyterLab (this environment's) serves the repository; headless Chromium opens each
chapter's notebook of one framework in it, and the rendered page must show no MyST syntax (no
directive or role text, no `:class:` lines), load every figure, and render the maths. The
notebooks' Markdown is written for that by course_tools.commonmark (through course_tools.split).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from book_site import driver  # noqa: F401 (the fixture)
from harness.services import free_port
from course_tools import manifest

pytestmark = [pytest.mark.slow, pytest.mark.browser]

REPO = Path(__file__).resolve().parents[1]
MYST_LEFTOVERS = ("{cite:", "{figure}", "{admonition}", ":class:", "```{", "](timings.md)",
                  "](assignments.md)")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab on the repository, no token, its settings and workspaces in a temporary
    folder; its URL."""
    home = tmp_path_factory.mktemp("jupyter-home")
    port = free_port()
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(home / "config"),
           "JUPYTER_DATA_DIR": str(home / "data"), "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
           "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"), "HOME": str(home)}
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}",
               "--ServerApp.ip=127.0.0.1", "--IdentityProvider.token=", "--ServerApp.password=",
               f"--ServerApp.root_dir={REPO}", "--LabApp.news_url=", "--LabApp.check_for_updates_class="
               "jupyterlab.NeverCheckForUpdate", "--ServerApp.allow_root=True"]
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                              stderr=open(home / "lab.log", "w"))
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(url + "api/status", timeout=2)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("JupyterLab did not start:\n" + (home / "lab.log").read_text()[-3000:])
                time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def rendered(driver, url: str, cells: int) -> dict:
    """Open a notebook in JupyterLab and wait until its Markdown cells and maths have rendered;
    what the page shows."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    WebDriverWait(driver, 90).until(lambda d: d.execute_script(
        "return document.querySelectorAll('.jp-MarkdownCell .jp-RenderedMarkdown').length") >= cells)
    # every image of the notebook loaded (scrolled into view, so that lazy ones load too)
    WebDriverWait(driver, 60).until(lambda d: d.execute_script("""
        const images = Array.from(document.querySelectorAll('.jp-RenderedMarkdown img'));
        images.forEach(image => image.scrollIntoView());
        return images.every(image => image.complete);"""))
    return driver.execute_script("""
        const markdown = Array.from(document.querySelectorAll('.jp-MarkdownCell .jp-RenderedMarkdown'));
        const images = Array.from(document.querySelectorAll('.jp-RenderedMarkdown img'));
        return {text: markdown.map(cell => cell.textContent).join('\\n'),
                codeBlocks: markdown.flatMap(cell => Array.from(cell.querySelectorAll('pre')))
                                    .map(pre => pre.textContent.slice(0, 80)),
                images: images.map(image => [image.getAttribute('src'), image.naturalWidth]),
                quotes: markdown.filter(cell => cell.querySelector('blockquote')).length,
                maths: document.querySelectorAll('.jp-RenderedMarkdown mjx-container, .jp-RenderedMarkdown .MathJax').length};""")


def markdown_of(notebook: str) -> list[str]:
    return ["".join(cell["source"]) for cell in json.loads((REPO / notebook).read_text(
        encoding="utf-8"))["cells"] if cell["cell_type"] == "markdown"]


@pytest.mark.parametrize("framework", manifest.FRAMEWORKS)
@pytest.mark.parametrize("chapter", [chapter.stem for chapter in manifest.chapters()])
def test_no_myst_in_a_one_framework_notebook(chapter, framework):
    """The text check, for all sixteen (fast); the browser checks half of them below."""
    notebook = f"notebooks/{chapter}-{framework}.ipynb"
    left = {piece for source in markdown_of(notebook) for piece in MYST_LEFTOVERS if piece in source}
    left |= {"% comment" for source in markdown_of(notebook)
             if any(line.startswith("%") for line in source.split("\n"))}
    assert not left, f"{notebook}: MyST left in its Markdown: {sorted(left)}"


def browser_framework(number: int) -> str:
    """The framework whose notebook the browser opens for a chapter: PyTorch for odd chapters,
    Keras for even ones (the Markdown of the two differs only in links to other chapters)."""
    return "pytorch" if number % 2 else "keras"


@pytest.mark.parametrize("chapter, framework", [(chapter.stem, browser_framework(chapter.number))
                                                for chapter in manifest.chapters()])
def test_a_one_framework_notebook_reads_well_in_jupyterlab(driver, lab, chapter, framework):
    notebook = f"notebooks/{chapter}-{framework}.ipynb"
    markdown = markdown_of(notebook)
    figures = sum("](../book/figures/" in source for source in markdown)
    # a workspace of its own, reset: only this notebook is open in the page
    shown = rendered(driver, f"{lab}lab/workspaces/{chapter}-{framework}/tree/{notebook}?reset",
                     len(markdown))
    left = [piece for piece in MYST_LEFTOVERS if piece in shown["text"]]
    assert not left, f"{notebook}: MyST shown as text in JupyterLab: {left}"
    assert not [block for block in shown["codeBlocks"] if block.startswith(":")], (
        f"{notebook}: a directive's options shown as a code block: {shown['codeBlocks'][:3]}")
    broken = [src for src, width in shown["images"] if not width]
    assert not broken, f"{notebook}: figures that do not load in JupyterLab: {broken}"
    assert len(shown["images"]) >= figures
    assert shown["quotes"] >= 1 and shown["maths"] > 0, shown
    assert "References" in shown["text"] and "et al." in shown["text"]
