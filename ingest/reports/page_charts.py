"""The charts of a rendered page read back: each chart's Vega-Lite spec with its data, its SVG
picture, alt text and caption (``page.show`` writes them, ``tables.figure_html``). The chart oracle
(ingest/reports/oracle.py, which re-exports these) and its checks against the views
(ingest/reports/oracle_views.py) both read charts through this module.
"""

from __future__ import annotations

import base64
import html
import json
import re
from dataclasses import dataclass

from .tables import CHART_SPEC, visible

FIGURE = re.compile(r'<figure\b[^>]*\bclass="iolab-chart".*?</figure>', re.S)
_IMG = re.compile(r'<img\b[^>]*\bsrc="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"')
_ALT = re.compile(r'<img\b[^>]*\balt="([^"]*)"')
_SVG = re.compile(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)")
SPEC = re.compile(rf'<script\b[^>]*\bclass="{CHART_SPEC}"[^>]*>([A-Za-z0-9+/=]+)</script>')
_CAPTION = re.compile(r"<figcaption[^>]*>(.*?)</figcaption>", re.S)


def clean(v: object) -> str:
    """A value as a chart shows it: control characters as escapes (``tables.visible``)."""
    return visible(str(v))


@dataclass
class Chart:
    where: str  # page and chart number, for messages
    spec: dict
    svg: str
    alt: str
    caption: str

    @property
    def meta(self) -> dict:
        return self.spec.get("usermeta", {}).get("iolab", {})

    @property
    def picks(self) -> bool:
        """Whether inputs on the page pick what the chart draws (its default pick is the picture)."""
        return bool((self.meta.get("source") or {}).get("picked"))

    @property
    def title(self) -> str:
        t = self.spec.get("title", "")
        text = t.get("text", "") if isinstance(t, dict) else t
        return "(its title follows its inputs)" if isinstance(text, dict) else str(text)

    def rows(self) -> list[dict]:
        """The rows the chart draws: of a chart whose inputs pick what it draws (the explore page), those
        of its default pick (``source["picked"]``: {field: value, or None for any value but null})."""
        picked = (self.meta.get("source") or {}).get("picked") or {}
        return [r for r in self.every_row() if all(_picked(r.get(f), v) for f, v in picked.items())]

    def every_row(self) -> list[dict]:
        """Every row the chart carries, whatever its inputs pick; a table sent as columns (a record of
        lists that the chart's first transform flattens, as the explore page sends its one) as rows."""
        out = [r for v in self.spec.get("datasets", {}).values() for r in v]
        for layer in self.layers():
            out += layer[2].get("values", []) if isinstance(layer[2], dict) else []
        first = (self.spec.get("transform") or [{}])[0]
        if fields := first.get("flatten"):
            out = [dict(zip(fields, row)) for r in out for row in zip(*(r[f] for f in fields))]
        return out

    def layers(self) -> list[tuple[str, dict, dict]]:
        """(mark type, encoding, inline data) of every layer, with a facet's fields as row/column."""
        facet = self.spec.get("facet", {})
        facet_enc = {"facet": facet} if "field" in facet else {k: v for k, v in facet.items() if isinstance(v, dict)}
        out = []

        def walk(s: dict) -> None:
            if "layer" in s:
                for sub in s["layer"]:
                    walk({**sub, "encoding": {**s.get("encoding", {}), **sub.get("encoding", {})}})
            elif "spec" in s:
                walk(s["spec"])
            elif "mark" in s:
                mark = s["mark"]["type"] if isinstance(s["mark"], dict) else s["mark"]
                out.append((mark, {**facet_enc, **s.get("encoding", {})}, s.get("data", {})))

        walk(self.spec)
        return out


def _picked(value: object, wanted: object) -> bool:
    return value is not None if wanted is None else value == wanted


def charts(page: str, name: str = "page") -> tuple[list[Chart], list[str]]:
    """The charts of a rendered page, and a defect for every chart image that carries no spec."""
    found, defects = [], []
    for i, fig in enumerate(FIGURE.findall(page), 1):
        img, spec = _IMG.search(fig), SPEC.search(fig)
        where = f"{name}: chart {i}"
        if not img or not spec:
            defects.append(f"{where}: no picture or no spec")
            continue
        cap, alt = _CAPTION.search(fig), _ALT.search(fig)
        found.append(
            Chart(
                where,
                json.loads(base64.b64decode(spec.group(1))),
                base64.b64decode(img.group(1)).decode("utf-8", "replace"),
                html.unescape(alt.group(1)) if alt else "",
                html.unescape(cap.group(1)) if cap else "",
            )
        )
    # Vega's pictures (class="marks"), not the page template's icons
    vega = sum(b'class="marks"' in base64.b64decode(b)[:400] for b in _SVG.findall(page))
    loose = vega - len(found) - len(defects)
    if loose > 0:
        defects.append(f"{name}: {loose} chart(s) drawn without page.show (no spec, no alt text)")
    return found, defects


def drawn(chart: Chart) -> list[dict]:
    """Rows that make marks: a layer drops a row whose quantitative field is NULL, so a row is drawn
    when some layer has all of its quantitative fields (a bar whose interval rule has no interval)."""
    quant = [{e["field"] for e in enc.values() if _quant(e)} for _, enc, _ in chart.layers()] or [set()]
    return [r for r in chart.rows() if any(all(r.get(f) is not None for f in q) for q in quant)]


def _quant(e: object) -> bool:
    return isinstance(e, dict) and e.get("type") == "quantitative" and "field" in e and "aggregate" not in e


def _same(a: object, b: object) -> bool:
    """A chart's label against the view's: equal, or cut by page.short_labels ("…")."""
    a, b = clean(a), clean(b)
    return a == b or (a.endswith("…") and b.startswith(a[:-1]))
