"""The chart oracle: every chart of a rendered page checked against the view it draws.

    python -m iolab.cli.chart_oracle [--db data/iolab.duckdb] reports

A page's chart (``page.show``) carries its SVG, its alt text and its Vega-Lite spec with the data
it drew (``tables.figure_html``); the spec's ``usermeta.iolab.source`` names the view, the study and
which chart fields hold the system and the view's values. From that, for each chart:

* every system with rows in the view has rows in the chart and marks in the picture;
* rows are cut only with a caption saying so, and the values drawn are the view's values (a NULL of
  the view drawn as 0 is a wrong value);
* no two bars share a place unless the chart declares a stack, and no two cells of a heatmap (rect
  marks) cover one another;
* every legend entry has rows behind it, and no two entries look the same;
* every quantitative axis names its unit, and no two axis labels overlap;
* the chart has an alt text that says what it shows.

What the picture looks like on screen (cut off, scaled away) is checked by ``check`` in Chromium.
"""

from __future__ import annotations

import html
import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

from .page_charts import Chart, _same, charts, clean, drawn  # noqa: F401  (read from here too)

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
QUANTITATIVE = {"linear", "log", "pow", "sqrt", "symlog"}
# an axis names its unit: in parentheses, or one of these words
UNIT = re.compile(r"\(.+\)|%|\b(IO/s|MB/s|ms|µs|us|s|runs|drives|I/Os|USD|W|tiles|VMs|outstanding)\b")
NO_ALT = "No description has been provided"


# ---- the picture (SVG) ------------------------------------------------------------------------


def svg_tree(chart: Chart) -> ET.Element | None:
    try:
        return ET.fromstring(_CONTROL.sub("", chart.svg))
    except ET.ParseError:
        return None


def _cls(el: ET.Element) -> str:
    return el.get("class", "")


def mark_labels(root: ET.Element) -> list[str]:
    """The aria-label of every drawn mark (Vega-Lite writes "field: value; ..." on each)."""
    return [html.unescape(e.get("aria-label", "")) for e in root.iter() if e.get("role") == "graphics-symbol"]


def legends(root: ET.Element) -> list[tuple[str, list[tuple[str, tuple]]]]:
    """Each legend: its aria-label and its entries (label, how its symbol looks)."""
    out = []
    for g in root.iter():
        if "role-legend" not in _cls(g).split() or g.get("aria-roledescription") != "legend":
            continue
        symbols = [s for e in g.iter() if "role-legend-symbol" in _cls(e) for s in e if s.tag.endswith("path")]
        labels = [t.text or "" for e in g.iter() if "role-legend-label" in _cls(e) for t in e if t.tag.endswith("text")]
        looks = []
        for s in symbols:
            line_like = "A" not in (s.get("d") or "") and s.get("fill") in (None, "none", "transparent")
            dash = s.get("stroke-dasharray") if line_like else None
            looks.append((s.get("d"), s.get("fill"), s.get("stroke"), dash, s.get("opacity")))
        out.append((html.unescape(g.get("aria-label", "")), list(zip(labels, looks))))
    return out


_AXIS = re.compile(r"^([XY])-axis(?: titled '(.*)')? for a (\w+) scale", re.S)


def axes(root: ET.Element) -> list[tuple[str, str | None, str, ET.Element]]:
    out = []
    for g in root.iter():
        if g.get("aria-roledescription") == "axis":
            m = _AXIS.match(html.unescape(g.get("aria-label", "")))
            if m:
                out.append((m.group(1), m.group(2), m.group(3), g))
    return out


_TRANSLATE = re.compile(r"translate\(([-\d.e]+),([-\d.e]+)\)")


def overlapping(axis: str, g: ET.Element) -> list[tuple[str, str]]:
    """Pairs of visible axis labels whose boxes overlap (width estimated from the font size)."""
    boxes = []
    labels = [t for e in g.iter() if "role-axis-label" in _cls(e) for t in e.iter() if t.tag.endswith("text")]
    for e in labels:
        if "rotate" in (e.get("transform") or "") or e.get("opacity") == "0":
            continue
        m = _TRANSLATE.search(e.get("transform") or "")
        if not m or not (e.text or "").strip():
            continue
        x, y = float(m.group(1)), float(m.group(2))
        size = float((e.get("font-size") or "10px").rstrip("px"))
        if axis == "X":
            w = sum(0.278 if c in ",.:;'il" else 0.556 if c.isdigit() else 0.6 for c in e.text or "") * size
            left = {"start": x, "end": x - w}.get(e.get("text-anchor") or "start", x - w / 2)
            boxes.append((left, left + w, e.text or ""))
        else:
            boxes.append((y - size * 0.8, y + size * 0.1, e.text or ""))
    boxes.sort()
    return [(a[2], b[2]) for a, b in zip(boxes, boxes[1:]) if b[0] < a[1] - 0.5]


# ---- the checks -------------------------------------------------------------------------------


def check_alt(chart: Chart) -> list[str]:
    if len(chart.alt.strip()) < 30 or NO_ALT in chart.alt:
        return [f"no text alternative that says what it shows (alt: {chart.alt!r})"]
    return []


def first_repeat(counts: Counter) -> tuple[tuple, int] | None:
    """The smallest place drawn more than once, so a report names the same place whatever the row order."""

    def order(key: tuple) -> list:
        return [(v is None, isinstance(v, str), v if isinstance(v, int | float) else 0, str(v)) for v in key]

    repeats = [key for key, n in counts.items() if n > 1]
    if not repeats:
        return None
    key = min(repeats, key=order)
    return key, counts[key]


def check_stacks(chart: Chart) -> list[str]:
    """Bars sharing one place stack in Vega-Lite: only where the chart says so."""
    if chart.meta.get("stack"):
        return []
    out = []
    rows = drawn(chart)
    for mark, enc, _ in chart.layers():
        if mark not in ("bar", "area") or any(isinstance(enc.get(c), dict) and enc[c].get("stack") for c in ("x", "y")):
            continue
        place = [
            e["field"]
            for c, e in enc.items()
            if c in ("x", "y", "xOffset", "yOffset", "row", "column", "facet")
            and isinstance(e, dict)
            and "field" in e
            and e.get("type") != "quantitative"
        ]
        repeat = first_repeat(Counter(tuple(r.get(f) for f in place) for r in rows))
        if repeat:
            key, n = repeat
            same = [r for r in rows if tuple(r.get(f) for f in place) == key]
            differ = sorted(c for c in same[0] if len({json.dumps(r.get(c), default=str) for r in same}) > 1)
            out.append(f"{n} bars stack at {clean(key)} (they differ in {', '.join(differ) or 'nothing'})")
    return out


def check_cells(chart: Chart) -> list[str]:
    """Heatmap cells (rect marks) drawn at the same place cover each other: the reader sees one."""
    rows = drawn(chart)
    for mark, enc, _ in chart.layers():
        if mark != "rect":
            continue
        place = [
            e["field"]
            for c, e in enc.items()
            if c in ("x", "x2", "y", "y2", "row", "column", "facet") and isinstance(e, dict) and "field" in e
        ]
        repeat = first_repeat(Counter(tuple(r.get(f) for f in place) for r in rows))
        if repeat:
            return [f"{repeat[1]} cells cover one another at {clean(repeat[0])}"]
    return []


def check_legends(chart: Chart, root: ET.Element) -> list[str]:
    out = []
    channels = {"fill color": "color", "stroke color": "color", "stroke dash": "strokeDash", "shape": "shape"}
    # a chart whose inputs pick its rows lists every system any pick draws, in the colour it has at each
    rows = chart.every_row() if chart.picks else drawn(chart)
    for label, entries in legends(root):
        looks = Counter(look for _, look in entries)
        for look, n in looks.items():
            if n > 1:
                names = [t for t, lk in entries if lk == look]
                out.append(f"legend {label[:60]!r}: entries {names} look the same")
        channel = next((c for words, c in channels.items() if f"for {words}" in label), None)
        fields = {
            enc[channel]["field"]
            for _, enc, _ in chart.layers()
            if channel and isinstance(enc.get(channel), dict) and "field" in enc[channel]
        }
        for text, _ in entries:
            if fields and not any(_same(text, r.get(f)) for r in rows for f in fields):
                out.append(f"legend entry {text!r} has no marks")
    return out


def chart_title(root: ET.Element) -> str:
    """The chart's title as drawn (a title computed from the chart's inputs: at their defaults)."""
    titles = [g for g in root.iter() if "role-title-text" in _cls(g).split()]  # facet headers, then the chart's
    return " ".join("".join(t.itertext()) for t in titles[-1].iter() if t.tag.endswith("text")) if titles else ""


def check_axes(root: ET.Element, picks: bool = False) -> list[str]:
    """Every quantitative axis names its unit; a chart whose inputs pick its axes (``picks``) names
    them, units too, in its title, which changes with the inputs (an axis title cannot)."""
    out = []
    if picks and not UNIT.search(chart_title(root)):
        out.append(f"its title {chart_title(root)!r} names no unit of the axes its inputs pick")
    for axis, title, scale, g in axes(root):
        if scale in QUANTITATIVE and not picks and not (title and UNIT.search(title)):
            out.append(f"{axis} axis {title!r} names no unit")
        for a, b in overlapping(axis, g)[:1]:
            out.append(f"{axis} axis labels overlap: {a!r} and {b!r}")
    return out


def check_marks(chart: Chart, root: ET.Element) -> list[str]:
    if not mark_labels(root) and chart.rows():
        return ["the picture has no marks"]
    return []


def check(chart: Chart, con=None) -> list[str]:
    """Every defect of one chart (the view checks need ``con``, the database the page was drawn from)."""
    root = svg_tree(chart)
    if root is None:
        return ["the picture is not readable SVG"]
    found = check_alt(chart) + check_stacks(chart) + check_cells(chart) + check_legends(chart, root)
    found += check_axes(root, chart.picks)
    found += check_marks(chart, root)
    if con is not None and chart.meta.get("source"):
        from .oracle_views import check_source

        found += check_source(chart, con, mark_labels(root))
    return [f"{chart.where} ({clean(chart.title)[:70]}): {d}" for d in found]


def check_page(path: Path, con=None) -> list[str]:
    found, defects = charts(path.read_text(encoding="utf-8"), str(path))
    for c in found:
        defects += check(c, con)
    return defects


if __name__ == "__main__":  # the command moved to ingest/cli/ (arguments are parsed there only)
    raise SystemExit("run python -m iolab.cli.chart_oracle")
