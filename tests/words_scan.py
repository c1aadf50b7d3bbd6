"""What a reader of a rendered page reads where a name is expected: chart titles and subtitles, axis,
legend and header titles (Vega-Lite's default: the field's name), tooltip entries' titles, and the
HTML tables' headers; and the identifiers (snake_case names of the metric vocabulary and of the views)
that must never be among them (issue 56: iolab.display gives every one a label)."""

from __future__ import annotations

import html
import re
from pathlib import Path

from iolab import display
from iolab.reports import oracle
from iolab.vocabulary import METRICS

CHANNELS_WITH_TITLES = (
    "x", "y", "x2", "y2", "color", "fill", "stroke", "shape", "size", "opacity", "strokeDash",
    "row", "column", "facet", "theta", "radius", "xOffset", "yOffset",
)  # fmt: skip
_TH = re.compile(r"<th\b[^>]*>(.*?)</th>", re.S)
_HEADING = re.compile(r"<h[1-6]\b[^>]*>(.*?)</h[1-6]>", re.S)


def _title_texts(title) -> list[str]:
    if isinstance(title, dict):
        return [*_title_texts(title.get("text")), *_title_texts(title.get("subtitle"))]
    if isinstance(title, list):
        return [str(t) for t in title]
    return [] if title is None else [str(title)]


def _encoding_texts(enc: dict) -> list[tuple[str, str]]:
    """(where, text) of every title an encoding shows: its own, or the field's name where it has none."""
    out = []
    for ch in CHANNELS_WITH_TITLES:
        e = enc.get(ch)
        if isinstance(e, dict) and "field" in e and "title" not in e and ch not in ("x2", "y2"):
            out.append((ch, str(e["field"])))
        elif isinstance(e, dict) and e.get("title") is not None:
            out += [(ch, t) for t in _title_texts(e["title"])]
    tips = enc.get("tooltip") or []
    for t in tips if isinstance(tips, list) else [tips]:
        if isinstance(t, dict) and "field" in t:
            out.append(("tooltip", str(t.get("title", t["field"]))))
    return out


def spec_texts(spec) -> list[tuple[str, str]]:
    """(where, text) of every name a Vega-Lite spec shows a reader (its data left out)."""
    out: list[tuple[str, str]] = []
    if isinstance(spec, dict):
        if "title" in spec and not isinstance(spec.get("field"), str):
            out += [("title", t) for t in _title_texts(spec["title"])]
        if isinstance(spec.get("encoding"), dict):
            out += _encoding_texts(spec["encoding"])
        if isinstance(spec.get("facet"), dict):
            out += _encoding_texts({"facet": spec["facet"]} if "field" in spec["facet"] else spec["facet"])
        for k, v in spec.items():
            if k not in ("encoding", "facet", "title", "datasets", "data", "usermeta", "params", "config"):
                out += spec_texts(v)
    elif isinstance(spec, list):
        for v in spec:
            out += spec_texts(v)
    return out


def page_texts(page: Path) -> list[tuple[str, str]]:
    """(where, text) of every chart's names and every table header and heading of a rendered page."""
    text = page.read_text(encoding="utf-8")
    charts, _ = oracle.charts(text)
    out = [(f"{page.name} chart {i + 1} {w}", t) for i, c in enumerate(charts) for w, t in spec_texts(c.spec)]
    out += [(f"{page.name} table header", html.unescape(re.sub(r"<[^>]+>", "", h))) for h in _TH.findall(text)]
    out += [(f"{page.name} heading", html.unescape(re.sub(r"<[^>]+>", "", h))) for h in _HEADING.findall(text)]
    return out


def identifiers(con) -> set[str]:
    """The snake_case names a reader must never be shown: the vocabulary's metrics and the views' columns."""
    cols = con.execute(
        """SELECT DISTINCT c.column_name FROM information_schema.columns c JOIN information_schema.tables t
           ON t.table_schema = c.table_schema AND t.table_name = c.table_name WHERE t.table_type = 'VIEW'"""
    ).fetchall()
    return {n for n in [*METRICS, *(c for (c,) in cols)] if "_" in n}


# words of an identifier that a reader is never shown as they are: a name spaced out that holds one
# ("pct better", "n baseline", "workload label") is still an identifier; "tool version" is English
JARGON = set(display.WORDS) | set(display.UNIT_WORDS) | {"label", "key", "config", "source", "path", "sha256"}


def found(texts: list[tuple[str, str]], names: set[str]) -> list[str]:
    """``where: text`` of each text that holds an identifier, or its words spaced ("pct better") where one
    of them is jargon and they are not the name's own label ("bytes read")."""
    jargon = {n for n in names if JARGON & set(n.split("_")) and n.replace("_", " ") not in display.label(n)}
    pattern = re.compile(
        r"(?<![\w-])(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")(?![\w-])"
    )
    spaced = re.compile(
        r"(?<![\w-])("
        + "|".join(re.escape(n.replace("_", " ")) for n in sorted(jargon, key=len, reverse=True))
        + r")(?![\w-])"
    )
    return [f"{w}: {t!r}" for w, t in texts if pattern.search(t) or spaced.search(t)]
