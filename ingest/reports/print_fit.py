"""What a printed figure says about itself and how large it is drawn (iolab.reports.printed draws every
chart for the page; these are its finishing rules).

* ``wrap_titles``: an axis title longer than its plot is wide is set on several lines, never cut
  with "…" (facets side by side would otherwise run their titles together).
* ``facet_scales``: the panels of a chart share their x or y scale on paper where they compare like
  with like (one field, one unit, and no panel's largest value under a SHARED-th of another's: no
  panel drawn flat), over every part of a figure continued on the next pages; where the scales stay
  the panels' own, a line under the chart's title says so.
* ``grown``: a chart that takes less than half the page's width and 3/4 of its height (a single
  panel) is drawn larger, up to the page; its text keeps its size."""

from __future__ import annotations

import copy
import json

from .print_bands import FIGURE_HEIGHT, PAGE_WIDTH, Draw, facet_values, rows_of, svg_size, units

TITLE_CHAR = 8.0  # px: wider than an average character of a 12 px bold axis title is drawn
HEADER_CHAR = 6.5  # px: wider than an average character of an 11 px facet header is drawn
SHARED = 4.0  # panels share a scale where their largest values differ less than this many times
SMALL = (0.5, 0.75)  # a chart under these parts of the page's width and height is drawn larger
GROW = 2.2  # at most this many times its size


def lines(text: str | list, width: float, char: float = TITLE_CHAR) -> str | list[str]:
    """``text`` as lines of at most ``width`` px, broken at its spaces (a word longer than that
    stands on a line of its own): the text itself where it fits on one. Lines given are joined first."""
    text = " ".join(str(t) for t in text) if isinstance(text, list) else text
    most = max(8, int(width // char))
    if len(text) <= most:
        return text
    out: list[str] = []
    for word in text.split(" "):
        if out and len(out[-1]) + 1 + len(word) <= most:
            out[-1] += " " + word
        else:
            out.append(word)
    return out


def _views(spec: dict) -> list[dict]:
    """Every view of a spec that may carry encodings: itself, its facets' spec, their layers."""
    found = [spec]
    inner = spec.get("spec")
    if isinstance(inner, dict):
        found.append(inner)
    for view in list(found):
        found += [v for v in view.get("layer", []) if isinstance(v, dict)]
    return found


def wrap_titles(spec: dict, width: float) -> None:
    """The x axis titles of ``spec``'s views on lines no longer than the plot is wide (``width`` px).
    A y title is left as it is: upright beside its plot, it is not cut."""
    for view in _views(spec):
        enc = (view.get("encoding") or {}).get("x")
        if isinstance(enc, dict) and isinstance(enc.get("title"), (str, list)):
            enc["title"] = lines(enc["title"], width)
        axis = enc.get("axis") if isinstance(enc, dict) else None
        if isinstance(axis, dict) and isinstance(axis.get("title"), (str, list)):
            axis["title"] = lines(axis["title"], width)


def wrap_headers(spec: dict, width: float) -> None:
    """The panels' headers of a wrapped facet chart on lines no wider than a plot (``width`` px),
    broken at their spaces: a header as long as three plots ("OLTP (100% random, 67% read) · All
    Caches Disabled RAID-10 16 KiB") no longer makes its panel that wide, two panels a page."""
    facet = spec.get("facet")
    if not isinstance(facet, dict) or "field" not in facet:
        return
    cases = []
    for value in facet_values(spec, str(facet["field"]), facet):
        got = lines(str(value), width, HEADER_CHAR)
        if isinstance(got, list):
            cases.append(f"datum.value === {json.dumps(str(value))} ? {json.dumps(got)} : ")
    if cases:
        given = facet.get("header")
        header: dict = given if isinstance(given, dict) else {}
        facet["header"] = {**header, "labelExpr": "".join(cases) + "datum.label"}


def _fields(spec: dict, channel: str) -> list[str]:
    """The fields drawn on a quantitative axis (``channel`` and its second, as a rule or band has)."""
    out = []
    for unit in units(spec):
        for ch in (channel, channel + "2"):
            enc = (unit.get("encoding") or {}).get(ch)
            if not isinstance(enc, dict) or "field" not in enc or "aggregate" in enc:
                continue
            if ch.endswith("2") or enc.get("type") == "quantitative":
                out.append(str(enc["field"]))
    return list(dict.fromkeys(out))


def _extents(spec: dict, field: str, fields: list[str]) -> dict:
    """The least and the largest value of ``fields`` per panel (``field``: the panels' field)."""
    out: dict = {}
    for row in rows_of(spec):
        for f in fields:
            v = row.get(f)
            if isinstance(v, (int, float)) and v == v:
                lo, hi = out.get(row.get(field), (v, v))
                out[row.get(field)] = (min(lo, v), max(hi, v))
    return out


def _log(spec: dict, channel: str) -> bool:
    return any(
        ((u.get("encoding") or {}).get(channel) or {}).get("scale", {}).get("type") in ("log", "symlog")
        for u in units(spec)
    )


def _share(spec: dict, channel: str, extents: dict) -> None:
    """One scale over the panels of every part: resolved shared, its domain all panels' values."""
    lo, hi = min(e[0] for e in extents.values()), max(e[1] for e in extents.values())
    domain = [lo, hi] if _log(spec, channel) else [min(0, lo), max(0, hi)]
    spec["resolve"]["scale"][channel] = "shared"
    for unit in units(spec):
        enc = (unit.get("encoding") or {}).get(channel)
        if isinstance(enc, dict) and enc.get("type") == "quantitative" and "aggregate" not in enc:
            enc["scale"] = {**(enc.get("scale") or {}), "domain": domain}


def facet_scales(spec: dict, field: str) -> dict:
    """``spec`` (a wrapped facet chart over ``field``) whose panels' own x or y scales are shared
    where they compare like with like; its title saying which scales stay each panel's own."""
    resolve = ((spec.get("resolve") or {}).get("scale")) or {}
    own = [ch for ch in ("x", "y") if resolve.get(ch) == "independent"]
    if not own:
        return spec
    out = copy.deepcopy(spec)
    differ = []
    for channel in own:
        fields = _fields(out, channel)
        extents = _extents(out, field, fields) if fields else {}
        tops = [abs(hi) for _, hi in extents.values()]
        if len(fields) == 1 and tops and min(tops) > 0 and max(tops) / min(tops) < SHARED:
            _share(out, channel, extents)
        else:
            differ.append(channel)
    if differ:
        said = " and ".join(differ)
        note = f"each panel has its own {said} scale{'s' if len(differ) > 1 else ''}: read its own axis"
        title = out.get("title")
        title = dict(title) if isinstance(title, dict) else {"text": title or ""}
        title["subtitle"] = note
        out["title"] = title
    return out


def _plot(spec: dict) -> dict:
    inner = spec.get("spec")
    return inner if isinstance(inner, dict) else spec


def grown(spec: dict, render: Draw) -> dict:
    """``spec`` drawn larger where the whole chart takes under SMALL of the page's width and height:
    its plot (each panel's) up to GROW times wider and higher, as far as the page holds; the spec
    itself where its plot's size is not a number of px or the larger chart would not fit."""
    plot = _plot(spec)
    width, height = plot.get("width"), plot.get("height")
    if not isinstance(width, (int, float)) or not isinstance(height, (int, float)):
        return spec
    w, h = svg_size(render(spec))
    if not (0 < w < PAGE_WIDTH * SMALL[0] and 0 < h < FIGURE_HEIGHT * SMALL[1]):
        return spec
    factor = min(GROW, (PAGE_WIDTH * 0.75 - (w - width)) / width, (FIGURE_HEIGHT * 0.95 - (h - height)) / height)
    if factor <= 1.1:
        return spec
    out = copy.deepcopy(spec)
    _plot(out).update(width=int(width * factor), height=int(height * factor))
    wrap_titles(out, int(width * factor))
    w, h = svg_size(render(out))
    return out if w <= PAGE_WIDTH and h <= FIGURE_HEIGHT else spec
