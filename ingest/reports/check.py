"""Open every rendered report in headless Chromium with the network cut, screenshot it, count charts.

    python -m iolab.cli.check_reports [--db data/iolab.duckdb] reports   (make check-reports)

For each page: the DOM Chromium rendered (charts are inline SVG: every chart must be there with
its marks), and a PNG screenshot next to the page (reports/<study>/<name>.png) for a person to
look at. Chromium runs with every host name resolved to nothing and no proxy (FLAGS), so a page
that needed the network would show it, and the browser's own requests never leave it. Every chart also goes through the chart oracle (iolab.reports.oracle; against the views with --db),
and a probe run in the page says whether a chart lies past the window or a clipping box. Each print
edition there (<study>.pdf, iolab report --format pdf) is read back: every chart must end on the page
it starts on. That command (ingest/cli/check_reports.py) exits 1 if any page has no content, a chart without
marks, a chart cut off, a defect the oracle finds, or a print edition with a chart split by a page
break. This module is the browser's side of it, below the print edition (pdf.py prints through it).
"""

from __future__ import annotations

import base64
import html
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import scratch

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # No request leaves: no proxy to fall back on, every host name resolved to nothing (a page that
    # needed the network shows it), and the browser's own requests (network time, component updates,
    # pings, field trials) switched off at their source. A proxy alone was not enough: the time and
    # update requests went to it all the same (tests/test_print_offline.py listens for them).
    "--no-proxy-server",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost",
    "--no-pings",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-field-trial-config",
    "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter,DialMediaRouteProvider,Translate,"
    "AutofillServerCommunication,CertificateTransparencyComponentUpdater",
    "--hide-scrollbars",
]


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def run(page: Path, *args: str, timeout: int = 90) -> subprocess.CompletedProcess:
    """Chromium on ``page``, with no Internet socket (iolab.reports.offline), its profile and its
    temporary files (SingletonSocket folders) in a scratch folder of this process: removed when it
    ends, and by the next command if this one is killed (iolab.reports.scratch)."""
    with scratch.folder("chrome") as profile:
        command = [chromium() or "chromium", *FLAGS, f"--user-data-dir={profile}", *args, page.resolve().as_uri()]
        return subprocess.run(
            [sys.executable, "-m", "iolab.reports.offline", *command],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "TMPDIR": profile},
        )


# Run in the page once it has loaded and its live charts have drawn (or 3 s have passed): where each
# chart lies against the window and against every ancestor that clips its overflow (the live chart
# where it stands, else the picture), whether a chart meant to be live is, and how tall the page is
# (the screenshot takes all of it).
PROBE = """<script>window.addEventListener('load', () => {
  const figs = [...document.querySelectorAll('figure.iolab-chart')], start = Date.now();
  const drawn = f => !f.querySelector('.iolab-vega') || f.classList.contains('iolab-live');
  const done = () => {
    const W = document.documentElement.clientWidth, out = [];
    figs.forEach((fig, i) => {
      const im = fig.querySelector('img'), live = fig.classList.contains('iolab-live');
      const el = (live && fig.querySelector('.iolab-vega svg')) || im;
      if (!el) return;
      const r = el.getBoundingClientRect(); let clip = W;
      for (let a = el.parentElement; a; a = a.parentElement) {
        const o = getComputedStyle(a).overflowX;
        if (o !== 'visible') clip = Math.min(clip, a.getBoundingClientRect().right);
      }
      out.push({chart: i + 1, right: r.right, clip: clip, shown: r.width, natural: im ? im.naturalWidth : 0,
                live: live, wanted: !!fig.querySelector('.iolab-vega')});
    });
    const pre = document.createElement('pre'); pre.id = 'iolab-probe';
    pre.textContent = JSON.stringify({height: document.documentElement.scrollHeight, charts: out});
    document.body.appendChild(pre);
  };
  const wait = () => (figs.every(drawn) || Date.now() - start > 3000) ? done() : setTimeout(wait, 50);
  wait();
});</script>"""


def cut_off(probe: dict) -> list[str]:
    """Charts the reader cannot see whole: past the window or a clipping box, or not drawn at all."""
    out = []
    for c in probe.get("charts", []):
        if not c["natural"]:
            out.append(f"chart {c['chart']}: the picture did not load")
        elif c.get("wanted") and not c.get("live"):
            out.append(f"chart {c['chart']}: the interactive chart did not draw (its static picture shows)")
        elif c["right"] > c["clip"] + 1:
            out.append(f"chart {c['chart']}: cut off ({c['right'] - c['clip']:.0f} px past the visible edge)")
    return out


def probe(page: Path) -> dict:
    import json

    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / page.name
        copy.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
        dom = run(copy, "--dump-dom", "--virtual-time-budget=5000", "--window-size=1280,2000").stdout
    m = re.search(r'<pre id="iolab-probe">(.*?)</pre>', dom, re.S)
    return json.loads(html.unescape(m.group(1))) if m else {}


def check(page: Path, screenshot: bool = True) -> dict:
    dom = run(page, "--dump-dom", "--virtual-time-budget=5000").stdout
    # each chart's picture (data:image/svg+xml), and the live charts vega-embed drew (inline <svg class="marks">)
    live = re.findall(r'<svg[^>]*class="marks"[^>]*>.*?</svg>', dom, re.S)
    pictures = []
    for b64 in re.findall(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", dom):
        svg = base64.b64decode(b64).decode("utf-8", "replace")
        if 'class="marks"' in svg or "role-mark" in svg or "mark-" in svg:
            pictures.append(svg)
    charts = pictures or live
    svgs = pictures + live
    marks = [len(re.findall(r"<path|<rect|<circle|<line|<text", c)) for c in svgs]
    tables = dom.count("<table")
    png = page.with_suffix(".png")
    seen = probe(page)
    if screenshot:  # the whole page, not its first 2000 px
        height = min(int(seen.get("height") or 2000) + 20, 16000)
        run(page, f"--screenshot={png}", f"--window-size=1280,{height}", "--virtual-time-budget=5000")
    return {
        "cut_off": cut_off(seen) if seen else ["the page could not be probed"],
        "page": page,
        "dom_bytes": len(dom),
        "charts": len(charts),
        "live": len(live),
        "min_marks": min(marks) if marks else None,
        "tables": tables,
        "png": png if png.exists() else None,
    }


if __name__ == "__main__":  # the command moved to ingest/cli/ (arguments are parsed there only)
    raise SystemExit("run python -m iolab.cli.check_reports (make check-reports runs it)")
