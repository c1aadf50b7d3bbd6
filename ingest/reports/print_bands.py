"""The print edition's page box, and its tall bar charts continued band by band (iolab.reports.printed
draws every chart for the page; this module holds what it measures against and how a chart of more
bars than a page holds is cut into parts).

* ``PAGE_WIDTH`` x ``FIGURE_HEIGHT``: the box a figure is drawn into, in CSS px as Chromium prints.
* ``split_bands``: a chart whose bands (one bar, or bars side by side, per workload...) take more than
  a page, as several charts of as many bands as a page holds, in the chart's order, on one x scale."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable

MM = 96 / 25.4  # CSS px per millimetre, as Chromium prints
# A4 landscape less print.css's @page margins (14 mm left and right, 12 mm top, 16 mm bottom)
PAGE_WIDTH = int((297 - 28) * MM)  # 1016 px
# a figure's height on its page: the rest of the page's 182 mm holds "Figure n" and its caption
FIGURE_HEIGHT = int(155 * MM)  # 585 px
PT = 0.75  # points per CSS px

Draw = Callable[[dict], str]


def svg_size(svg: str) -> tuple[float, float]:
    """The width and height in px an SVG of vl-convert declares."""
    head = svg[: svg.find(">") + 1]
    w = re.search(r'\swidth="([\d.]+)', head)
    h = re.search(r'\sheight="([\d.]+)', head)
    return (float(w.group(1)) if w else 0.0, float(h.group(1)) if h else 0.0)


def fits(svg: str) -> bool:
    w, h = svg_size(svg)
    return w <= PAGE_WIDTH and h <= FIGURE_HEIGHT


def rows_of(spec: dict) -> list[dict]:
    data = spec.get("data") or {}
    if "values" in data:
        return list(data["values"])
    return list((spec.get("datasets") or {}).get(data.get("name", ""), []))


def facet_values(spec: dict, field: str, fdef: dict) -> list:
    """The facets of a chart in the order it draws them: a sort list as given, no sort (None) in the
    order of the data, else ascending (Vega-Lite's default)."""
    seen = list(dict.fromkeys(r.get(field) for r in rows_of(spec) if isinstance(r, dict)))
    sort = fdef.get("sort", "ascending")
    if isinstance(sort, list):
        return [v for v in sort if v in seen] + [v for v in seen if v not in sort]
    if sort is None:
        return seen
    ordered = sorted(seen, key=lambda v: (v is None, str(v) if not isinstance(v, (int, float)) else v))
    return ordered[::-1] if sort == "descending" else ordered


def units(view: object) -> list[dict]:
    """The unit views (those with a mark) of a spec, in order."""
    if not isinstance(view, dict):
        return []
    found = [view] if "mark" in view else []
    for sub in view.get("layer", []):
        found += units(sub)
    return found + units(view.get("spec"))


def band_field(spec: dict) -> tuple[str, dict] | None:
    """The field of a chart's bands (a nominal y whose plot grows a step per value), and its
    definition; None where the plot has a fixed height."""
    inner = spec.get("spec")
    if isinstance((inner if isinstance(inner, dict) else spec).get("height"), (int, float)):
        return None
    for unit in units(spec):
        y = (unit.get("encoding") or {}).get("y")
        if isinstance(y, dict) and y.get("type") in ("nominal", "ordinal") and "field" in y:
            return str(y["field"]), y
    return None


def banded(spec: dict, field: str, values: list) -> dict:
    out = copy.deepcopy(spec)
    out["transform"] = [{"filter": {"field": field, "oneOf": values}}, *out.get("transform", [])]
    return out


def band_values(spec: dict, field: str, ydef: dict) -> list:
    """The bands of a chart in the order it draws them, top to bottom: sorted by the x value
    ("x", "-x": by the largest of each band), as listed, as in the data or ascending."""
    sort = ydef.get("sort", "ascending")
    if sort not in ("x", "-x"):
        return facet_values(spec, field, {"sort": sort})
    x: dict = next(
        (u["encoding"]["x"] for u in units(spec) if isinstance((u.get("encoding") or {}).get("x"), dict)), {}
    )
    most: dict = {}
    for row in rows_of(spec):
        v = row.get(x.get("field", ""))
        if isinstance(v, (int, float)):
            most[row.get(field)] = max(most.get(row.get(field), v), v)
    ordered = sorted(most, key=lambda b: most[b], reverse=sort == "-x")
    return ordered + [v for v in facet_values(spec, field, {"sort": None}) if v not in most]


def same_x(spec: dict) -> dict:
    """``spec`` whose quantitative x axis spans all its data (and 0) whatever part of its bands is
    drawn: the parts of a chart continued over pages share one scale."""
    out = copy.deepcopy(spec)
    for unit in units(out):
        x = (unit.get("encoding") or {}).get("x")
        if not isinstance(x, dict) or x.get("type") != "quantitative" or "aggregate" in x:
            continue
        if "domain" in (x.get("scale") or {}):
            continue
        values = [r.get(x.get("field")) for r in rows_of(out)]
        numbers = [v for v in values if isinstance(v, (int, float)) and v == v]
        if numbers:
            x["scale"] = {**(x.get("scale") or {}), "domain": [min(0, min(numbers)), max(0, max(numbers))]}
    return out


def _offset(spec: dict) -> dict:
    """The y offset of a chart's bars side by side (bars of several systems in a band), else {}."""
    return next(
        (u["encoding"]["yOffset"] for u in units(spec) if isinstance((u.get("encoding") or {}).get("yOffset"), dict)),
        {},
    )


def same_offsets(spec: dict) -> tuple[dict, int]:
    """``spec`` whose bars side by side keep every band's slots in every part (the offset scale's
    domain: every value of the chart, ascending as Vega-Lite has it), and how many slots a band has
    (1 without offsets). A band takes that many bars' height though it has fewer bars."""
    if "field" not in _offset(spec):
        return spec, 1
    out = copy.deepcopy(spec)
    offset = _offset(out)
    domain = (offset.get("scale") or {}).get("domain")
    if not isinstance(domain, list):
        seen = {r.get(offset["field"]) for r in rows_of(out)} - {None}
        domain = sorted(
            seen, key=lambda v: (not isinstance(v, (int, float)), v if isinstance(v, (int, float)) else str(v))
        )
        offset["scale"] = {**(offset.get("scale") or {}), "domain": domain}
    return out, max(1, len(domain))


THINNEST = 8  # px: the thinnest a bar of bars side by side is drawn to keep its chart on one page


def _legends_beside(view: object) -> None:
    """Legends under the plot moved beside it: a landscape page has width to spare, not height."""
    if isinstance(view, list):
        for v in view:
            _legends_beside(v)
    elif isinstance(view, dict):
        for enc in (view.get("encoding") or {}).values():
            legend = enc.get("legend") if isinstance(enc, dict) else None
            if isinstance(legend, dict) and legend.get("orient") == "bottom":
                legend["orient"] = "right"
        for key in ("layer", "spec"):
            _legends_beside(view.get(key))


def denser(spec: dict, render: Draw) -> dict | None:
    """A chart of bars side by side a little taller than a page, on one page: its legend beside the
    plot and its bars thinner (12 px, then 10, then THINNEST; each band's label stays on a band of
    several bars); None where that still takes more than a page."""
    if "field" not in _offset(spec) or isinstance(spec.get("spec"), dict):
        return None
    for step in (12, 10, THINNEST):
        out = copy.deepcopy(spec)
        out["height"] = {"step": step}
        _legends_beside(out)
        if svg_size(render(out))[1] <= FIGURE_HEIGHT:
            return out
    return None


def packed(values: list, weights: list[int], room: float) -> list[list]:
    """``values`` in order, in groups whose weights add up to at most ``room`` (one at least)."""
    groups: list[list] = [[]]
    used = 0.0
    for v, w in zip(values, weights):
        if groups[-1] and used + w > room:
            groups.append([])
            used = 0.0
        groups[-1].append(v)
        used += w
    return groups


def split_bands(spec: dict, render: Draw) -> list[dict]:
    """A chart whose bands (one bar per workload...) are more than a page holds, as several charts of
    as many bands as a page holds each, sharing one x scale; the chart itself where they fit, or a
    chart of bars side by side drawn denser where that puts it on one page (``denser``)."""
    found = band_field(spec)
    if found is None:
        return [spec]
    field, ydef = found
    values = band_values(spec, field, ydef)
    spec, slots = same_offsets(spec)
    whole = svg_size(render(spec))[1]
    if len(values) < 2 or whole <= FIGURE_HEIGHT:
        return [spec]
    dense = denser(spec, render)
    if dense is not None:
        return [dense]
    weights = [slots] * len(values)
    one = svg_size(render(banded(spec, field, values[:1])))[1]
    bar = max((whole - one) / max(sum(weights) - weights[0], 1), 1)  # px a bar takes
    room = (FIGURE_HEIGHT * 0.97 - one) / bar + weights[0]
    spec = same_x(spec)
    while room >= 1:  # the measure was of one band: fewer bars where a page's worth does not fit
        groups = packed(values, weights, room)
        even = packed(values, weights, -(-sum(weights) // len(groups)))  # no page of a few bars alone
        parts = [banded(spec, field, group) for group in (even if len(even) == len(groups) else groups)]
        if all(svg_size(render(p))[1] <= FIGURE_HEIGHT for p in parts):
            return parts
        room = int(room * 0.9)
    return [banded(spec, field, [v]) for v in values]
