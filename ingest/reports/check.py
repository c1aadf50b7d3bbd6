"""Open every rendered report in headless Chromium with the network cut, screenshot it, count charts.

    python -m ingest.reports.check reports

For each page: the DOM Chromium rendered (charts are inline SVG: every chart must be there with
its marks), and a PNG screenshot next to the page (reports/<study>/<name>.png) for a person to
look at. Chromium runs with a proxy that goes nowhere, so a page that needed the network would
show it. Exit code 1 if any page has no content or a chart without marks.
"""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ingest.terminal import shown

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--proxy-server=127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
    "--hide-scrollbars",
]


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def run(page: Path, *args: str, timeout: int = 90) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(
            [chromium() or "chromium", *FLAGS, f"--user-data-dir={profile}", *args, page.resolve().as_uri()],
            capture_output=True,
            text=True,
            timeout=timeout,
        )


def check(page: Path, screenshot: bool = True) -> dict:
    dom = run(page, "--dump-dom", "--virtual-time-budget=5000").stdout
    # Altair's SVG renderer: inline <svg class="marks"> or, through nbconvert, data:image/svg+xml images
    svgs = re.findall(r'<svg[^>]*class="marks"[^>]*>.*?</svg>', dom, re.S)
    for b64 in re.findall(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", dom):
        svg = base64.b64decode(b64).decode("utf-8", "replace")
        if 'class="marks"' in svg or "role-mark" in svg or "mark-" in svg:
            svgs.append(svg)
    charts = svgs
    marks = [len(re.findall(r"<path|<rect|<circle|<line|<text", c)) for c in charts]
    tables = dom.count("<table")
    png = page.with_suffix(".png")
    if screenshot:
        run(page, f"--screenshot={png}", "--window-size=1280,2000")
    return {
        "page": page,
        "dom_bytes": len(dom),
        "charts": len(charts),
        "min_marks": min(marks) if marks else None,
        "tables": tables,
        "png": png if png.exists() else None,
    }


def main(argv: list[str]) -> int:
    root = Path(argv[0] if argv else "reports")
    if not chromium():
        print("chromium not found: `apt-get install chromium` (make check-reports does it)")
        return 2
    bad = 0
    for page in sorted(root.rglob("*.html")):
        r = check(page)
        ok = r["dom_bytes"] > 1000 and (r["min_marks"] is None or r["min_marks"] > 3)
        bad += not ok
        print(
            f"{'ok ' if ok else 'BAD'} {shown(page)}: {r['charts']} charts (fewest marks {r['min_marks']}), "
            f"{r['tables']} tables, screenshot {shown(r['png'])}"
        )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
