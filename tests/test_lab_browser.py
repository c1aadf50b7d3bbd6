"""The lab in a real browser, as a user meets it: headless Chromium (tests/browser.py) opens
notebooks/explore.py (`from iolab import lab`, the README's three lines) with a double click in the
file browser, runs all its cells, sees the chart drawn live (a Vega view whose marks answer the mouse
with a tooltip), picks a system in a legend (the others fade), saves, and shuts the lab down from its
File menu; the repository the lab served is then as it was (`git status --porcelain` is empty).

With IOLAB_SCREENSHOT=PATH it saves its screenshot of the live chart there: the README's is
docs/lab-live-chart.png (IOLAB_SCREENSHOT=docs/lab-live-chart.png pytest tests/test_lab_browser.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from iolab import batch, db, display
from iolab.reports.page import PALETTE
from tests.browser import Browser, chromium_path
from tests.conftest import ROOT
from tests.test_lab import server

NOTEBOOK = "explore.py"
STUDIES = [ROOT / "data" / "samples" / s for s in ("ds4300-vs-fastt200-2004", "esg-ds5020-2009")]  # what it reads

# a JavaScript expression: the element whose text is exactly ``text`` among ``selector``'s
BY_TEXT = "[...document.querySelectorAll({sel!r})].find(e => e.textContent.trim() === {text!r})"


def by_text(selector: str, text: str) -> str:
    return BY_TEXT.format(sel=selector, text=text)


def a_repository(root: Path) -> Path:
    """What the lab serves (the notebooks, Jupytext's and the lab's settings, .gitignore) committed
    in a repository of its own: the lab's writes show in its `git status`."""
    for folder in ("notebooks", ".jupyter"):
        shutil.copytree(ROOT / folder, root / folder, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "*.ipynb"))
    for name in ("jupytext.toml", ".gitignore"):
        shutil.copy(ROOT / name, root / name)
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "lab"], check=True)
    return root


def menu(browser: Browser, top: str, item: str) -> None:
    browser.click(by_text(".lm-MenuBar-itemLabel", top))
    browser.click(by_text(".lm-Menu-itemLabel", item))


# the status bar's "<kernel> | Idle", once the notebook's kernel has started
KERNEL_IDLE = "[...document.querySelectorAll('.jp-StatusBar-TextItem')].some(e => / \\| Idle$/.test(e.textContent.trim()) && !/^No Kernel/.test(e.textContent.trim()))"
# the first mark of the live chart (vega-embed's SVG renderer, as on the pages) a tooltip can come from
FIRST_MARK = "document.querySelector('.jp-OutputArea .vega-embed svg .role-mark path')"
TOOLTIP = (
    "(e => e && e.classList.contains('visible') ? e.textContent : '')(document.getElementById('vg-tooltip-element'))"
)


# the second chart of explore.py: each system's best IO/s per workload, two systems
SECOND = "document.querySelectorAll('.jp-OutputArea .vega-embed')[1]"


def opacities(browser: Browser) -> dict[str, set[str]]:
    """Each colour of the second chart's bars, with the opacities its bars are drawn at."""
    pairs = browser.js(
        f"[...{SECOND}.querySelectorAll('svg .role-mark path')].map(p => [p.getAttribute('fill'), p.getAttribute('opacity')])"
    )
    found: dict[str, set[str]] = {}
    for fill, opacity in pairs:
        found.setdefault(fill, set()).add(opacity)
    return found


@pytest.mark.slow
@pytest.mark.skipif(chromium_path() is None, reason="no Chromium (apt-get install -y chromium)")
def test_a_notebook_run_in_the_lab_draws_live_charts_and_leaves_git_clean(tmp_path):
    repo = a_repository(tmp_path / "repo")
    con = db.open_db(tmp_path / "lab.duckdb")
    batch.ingest_paths(con, STUDIES)
    con.close()
    env = {
        "JUPYTER_CONFIG_PATH": str(repo / ".jupyter"),
        "JUPYTER_CONFIG_DIR": str(tmp_path / "user-config"),  # no user's settings, no workspace in ~
        "IOLAB_ROOT": str(repo),
        "IOLAB_DB": str(tmp_path / "lab.duckdb"),
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p),
    }
    with server(tmp_path, repo, env) as lab:
        browser = Browser(tmp_path / "chromium")
        try:
            browser.goto(f"http://127.0.0.1:{lab.port}/lab/tree/notebooks?token={lab.token}")
            browser.click(by_text(".jp-DirListing-itemText", NOTEBOOK), count=2)
            browser.wait("!!document.querySelector('.jp-NotebookPanel .jp-Notebook')", what="the notebook")
            browser.wait(KERNEL_IDLE, what="its kernel")  # Run All before it asks which kernel
            menu(browser, "Run", "Run All Cells")
            browser.centre(FIRST_MARK, timeout=120)  # drawn
            browser.wait("document.querySelectorAll('.jp-OutputArea .vega-embed').length === 2", what="both charts")
            browser.wait(KERNEL_IDLE, what="the last cell")  # nothing moves under the mouse any more
            browser.js("document.querySelector('.jp-OutputArea .vega-embed').scrollIntoView({block: 'end'})")
            x, y = browser.centre(FIRST_MARK)
            browser.hover(x, y)
            tip = browser.wait(TOOLTIP, timeout=10, what="a tooltip over a bar")
            # the tooltip's fields carry the model's labels, not the columns' names
            heads = [display.label(c) + ":" for c in ("system", "workload_label", "pct_better")]
            assert tip.startswith(heads[0]) and all(h in tip for h in heads) and "workload_label" not in tip, tip
            # the static picture is not what the lab shows
            assert not browser.js("!!document.querySelector('.jp-OutputArea img[src^=\"data:image/svg\"]')")
            browser.screenshot(Path(os.environ.get("IOLAB_SCREENSHOT") or tmp_path / "lab.png"))
            # the legend selection: a click on a system's entry fades every bar of the others
            assert opacities(browser) == {PALETTE[0]: {"1"}, PALETTE[1]: {"1"}}
            browser.click(
                f"[...{SECOND}.querySelectorAll('.role-legend-label text')].find(e => e.textContent.startsWith('IBM FAStT200'))"
            )
            browser.wait(f"{SECOND}.querySelector('.role-mark path[opacity=\"0.1\"]') !== null", what="the fade")
            assert opacities(browser) == {PALETTE[0]: {"0.1"}, PALETTE[1]: {"1"}}
            menu(browser, "File", "Save Python File")  # what autosave does
            browser.wait("!document.querySelector('.jp-NotebookPanel.jp-mod-dirty, .jp-mod-dirty')", what="the save")
            menu(browser, "File", "Shut Down")
            browser.click("document.querySelector('.jp-Dialog button.jp-mod-accept')")
            lab.proc.wait(timeout=60)
        finally:
            browser.close()
    status = subprocess.run(["git", "-C", str(repo), "status", "--porcelain"], capture_output=True, text=True)
    assert status.stdout == ""
