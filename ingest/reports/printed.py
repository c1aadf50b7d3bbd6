"""Figures laid out for the page: the print edition draws every chart again from the Vega-Lite spec its
page carries (``tables.figure_html``), for A4 landscape at print size, instead of shrinking the
screen's picture onto the paper.

* One print theme (``THEME``): chart text in CSS pixels that print at 7.5 pt or more (Chromium prints
  96 px to the inch: 1 px = 0.75 pt), lines and rules thick enough and bars outlined, so that the
  verdicts' greys ('within noise', 'single run') and every line survive a greyscale printer.
* Every figure fits the printable box (``PAGE_WIDTH`` x ``FIGURE_HEIGHT`` px) at that size: the page's
  stylesheet then never scales it down. A chart with many facets is wrapped to as many columns as the
  page width holds and split into several charts of as many facets as a page holds: the first is
  "Figure n", the others "Figure n (continued)", each on a page of its own. A chart too wide or tall
  without facets is drawn smaller (its plot, not its text).

The screen pages are not changed: ``print_figures`` rewrites the print copy of a page only."""

from __future__ import annotations

import base64
import copy
import html
import json
import re

from . import pictures
from .print_bands import (  # noqa: F401  (PT, rows_of: the page box and a chart's rows, as printed has them)
    FIGURE_HEIGHT,
    PAGE_WIDTH,
    PT,
    Draw,
    facet_values,
    fits,
    rows_of,
    split_bands,
    svg_size,
    units,
)
from .print_fit import facet_scales, grown, wrap_headers, wrap_titles
from .print_labels import whole_labels

LABEL = 11  # px: 8.25 pt, above the 7 pt a printed chart's smallest text must reach
TITLE = 12
THEME = {
    "font": "DejaVu Sans, Arial, sans-serif",
    "axis": {"labelFontSize": LABEL, "titleFontSize": TITLE, "tickWidth": 1, "domainWidth": 1},
    "legend": {
        "labelFontSize": LABEL,
        "titleFontSize": TITLE,
        "labelLimit": PAGE_WIDTH // 2,
        "symbolSize": 120,
        "symbolStrokeWidth": 2,
    },
    "header": {"labelFontSize": LABEL, "titleFontSize": TITLE, "labelLimit": 0},
    "title": {"fontSize": 13, "subtitleFontSize": LABEL, "limit": PAGE_WIDTH},
    "text": {"fontSize": LABEL},
    "line": {"strokeWidth": 2},
    "trail": {"strokeWidth": 2},
    "rule": {"strokeWidth": 1.5},
    "point": {"size": 45, "filled": True, "strokeWidth": 1.5},
    # a bar's dark outline and the gap between bars keep a light grey bar ('single run') a bar of its
    # own in greyscale, not one grey block with its neighbours (the legend says what the grey means)
    "bar": {"stroke": "#222222", "strokeWidth": 1},
    "scale": {"bandPaddingInner": 0.25},
    "rect": {"stroke": None},
    "view": {"discreteHeight": {"step": 14}},  # a bar 14 px high (20 on screen): more bars a page
}
LOWEST = 0.6  # a faceted chart's plots may be drawn this much lower on paper to hold another row
LEAST = 200  # px: the narrowest or lowest a chart's plot is drawn on paper
SHRINK_STEPS = 6  # tries at drawing a chart without facets smaller before it is left as it is


def themed(spec: dict) -> dict:
    """``spec`` with the print theme over its own config; facets' x axis titles no longer than their
    plots (side by side, they would run into each other); axis labels cut for the screen whole."""
    out = copy.deepcopy(spec)
    config = out.setdefault("config", {})
    for key, value in THEME.items():
        if isinstance(value, dict) and key == "view":  # a plot's own step (Altair sets none) stays
            config[key] = {**value, **config.get(key, {})}
        elif isinstance(value, dict):
            config[key] = {**config.get(key, {}), **value}
        else:
            config[key] = value
    greyscale(out)
    whole_labels(out)  # labels cut for the screen drawn whole, on as many lines as they take
    width = _inner(out, "width") if "facet" in out else None
    if width:  # titles and headers on lines as wide as the plot: side by side, they never run together
        config["axisX"] = {**config.get("axisX", {}), "titleLimit": width}
        wrap_titles(out, width)
        wrap_headers(out, width)
    return out


def _mark(unit: dict) -> str:
    mark = unit.get("mark")
    return str(mark.get("type") if isinstance(mark, dict) else mark)


def greyscale(spec: dict) -> None:
    """Lines told apart without their colour: a line coloured by a field (a system) gets a dash and
    its points a shape by the same field, so a greyscale print still tells the systems apart (the
    legend shows the three together)."""
    inherited: dict = spec.get("encoding") or {}
    views = [spec] + [v for v in (spec.get("spec"),) if isinstance(v, dict)]
    for view in views:
        base = {**inherited, **(view.get("encoding") or {})}
        for unit in [view, *view.get("layer", [])]:
            enc = {**base, **(unit.get("encoding") or {})}
            colour = enc.get("color")
            if _mark(unit) != "line" or not isinstance(colour, dict) or colour.get("type") != "nominal":
                continue
            own = unit.setdefault("encoding", {})
            same = {k: colour[k] for k in ("field", "type", "legend", "title") if k in colour}
            domain = (colour.get("scale") or {}).get("domain")
            if domain is not None:  # the colour's own domain: one legend shows colour, dash and shape
                same["scale"] = {"domain": domain}
            if "strokeDash" not in enc:
                own["strokeDash"] = dict(same)
            if (
                "shape" not in enc and (unit.get("mark") or {}).get("point")
                if isinstance(unit.get("mark"), dict)
                else False
            ):
                own["shape"] = dict(same)


def facet_field(spec: dict) -> tuple[str, dict] | None:
    """The field a faceted chart is split by, and its definition: a wrapped facet, or a column or a
    row of facets (not both: a grid is left as it is)."""
    facet = spec.get("facet")
    if not isinstance(facet, dict):
        return None
    if "field" in facet:
        return str(facet["field"]), facet
    parts = [k for k in ("row", "column") if k in facet]
    if len(parts) == 1 and isinstance(facet[parts[0]], dict) and "field" in facet[parts[0]]:
        return str(facet[parts[0]]["field"]), facet[parts[0]]
    return None


def wrapped(spec: dict, field: str, fdef: dict, values: list, columns: int) -> dict:
    """``spec`` drawing only the facets ``values``, wrapped in ``columns`` columns."""
    out = copy.deepcopy(spec)
    out["facet"] = {**copy.deepcopy(fdef), "field": field}
    out["columns"] = columns
    out["transform"] = [{"filter": {"field": field, "oneOf": values}}, *out.get("transform", [])]
    width = _inner(out, "width")
    if width:  # an x axis's title no longer than its plot: side by side, the titles never run together
        out["config"]["axisX"] = {**out["config"].get("axisX", {}), "titleLimit": width}
        wrap_titles(out, width)
    return out


LEGENDS = ("color", "fill", "stroke", "shape", "size", "opacity", "fillOpacity", "strokeDash", "strokeWidth")


def _no_legends(view: object) -> None:
    if isinstance(view, list):
        for v in view:
            _no_legends(v)
    elif isinstance(view, dict):
        for channel, enc in (view.get("encoding") or {}).items():
            if channel in LEGENDS and isinstance(enc, dict):
                enc["legend"] = None
        for key in ("layer", "spec", "hconcat", "vconcat", "concat"):
            _no_legends(view.get(key))


def legendless(spec: dict) -> dict:
    """``spec`` without its legends: a figure's part after its first (the first part shows them)."""
    out = copy.deepcopy(spec)
    _no_legends(out)
    return out


def bare(spec: dict) -> dict:
    """``spec`` without its title and legends: what one facet's cell takes on the page."""
    out = copy.deepcopy(spec)
    out.pop("title", None)
    _no_legends(out)
    return out


def _inner(spec: dict, key: str) -> float | None:
    size = (spec.get("spec") or {}).get(key)
    return float(size) if isinstance(size, (int, float)) else None


def _one_more(spec: dict, key: str, cell: float, count: int, room: float) -> dict | None:
    """``spec`` with its facets' plots narrower or lower (``key``: width or height) so that ``count``
    + 1 cells of ``cell`` px take ``room`` px; None if that takes them below LOWEST of their size."""
    size = _inner(spec, key)
    if not size:
        return None
    smaller = size - (cell * (count + 1) - room * 0.96) / (count + 1)  # room for rounding
    if smaller < size * LOWEST:
        return None
    out = copy.deepcopy(spec)
    out["spec"][key] = int(smaller)
    return out


def layout(spec: dict, field: str, fdef: dict, values: list, render: Draw) -> tuple[dict, int, int]:
    """How many columns and rows of facets a page holds, measured on one facet drawn alone (its cell)
    and with its title and legends (what they add); plots drawn narrower or lower, down to LOWEST of
    their size, where that puts another column or row of facets on the page."""
    cell_w, cell_h = svg_size(render(bare(wrapped(spec, field, fdef, values[:1], 1))))
    _, whole_h = svg_size(render(wrapped(spec, field, fdef, values[:1], 1)))
    extra = whole_h - cell_h
    columns = max(1, min(len(values), int(PAGE_WIDTH // max(cell_w, 1))))
    if columns < len(values) and (narrower := _one_more(spec, "width", cell_w, columns, PAGE_WIDTH)):
        spec, columns = narrower, columns + 1
    rows = max(1, int((FIGURE_HEIGHT - extra) // max(cell_h, 1)))
    if rows * columns < len(values) and (lower := _one_more(spec, "height", cell_h, rows, FIGURE_HEIGHT - extra)):
        spec, rows = lower, rows + 1
    return spec, columns, min(rows, -(-len(values) // columns))


def split_facets(spec: dict, render: Draw) -> list[str] | None:
    """The SVGs of a faceted chart wrapped to the page width and split into pages; None when the
    chart has no facets to split (or a page would not hold even one)."""
    found = facet_field(spec)
    if found is None:
        return None
    field, fdef = found
    values = facet_values(spec, field, fdef)
    if not values:
        return None
    spec, columns, rows = layout(spec, field, fdef, values, render)
    while True:  # the measure was of one facet: a page of them may need a row or a column less
        svg = render(wrapped(spec, field, fdef, values[: columns * rows], columns))
        w, h = svg_size(svg)
        if fits(svg) or (rows == 1 and columns == 1):
            break
        if w > PAGE_WIDTH and columns > 1:
            columns -= 1
        elif rows > 1:
            rows -= 1
        else:
            columns -= 1
    if not fits(svg):
        return None
    if len(values) <= columns * rows:
        return [svg]
    per = even(len(values), columns * rows)  # the parts as even as a page's worth allows: no page of one panel
    return [render(wrapped(spec, field, fdef, values[i : i + per], columns)) for i in range(0, len(values), per)]


def even(count: int, most: int) -> int:
    """How many of ``count`` things a part takes where a part holds ``most``: as few parts as that
    allows, as even as they can be (47 bars of 40 a page: 24 and 23, not 40 and 7)."""
    return -(-count // -(-count // max(most, 1)))


def _less(spec: dict, key: str, by: float) -> bool:
    """Take ``by`` px off a plot's width or height (``key``: a number, or a step per band), down to
    LEAST; whether it could."""
    for view in (spec, spec.get("spec") or {}):
        size = view.get(key)
        if isinstance(size, (int, float)) and size > LEAST:
            view[key] = max(LEAST, int(size - by))
            return True
        if isinstance(size, dict) and size.get("step", 0) > LABEL + 2:
            bands = max(1.0, by / size["step"])  # a rough count, as the step shrinks all bands
            view[key] = {"step": max(LABEL + 2, size["step"] - by / bands / 4)}
            return True
    return False


def _shorter_labels(spec: dict, width: float) -> None:
    """Labels of the y axis cut (ending "…") so that the chart is ``width`` px wide: its plot is as
    narrow as it may be (LEAST), the labels take the rest but for the axis' ticks and padding."""
    config = spec.setdefault("config", {})
    limit = config.get("axisY", {}).get("labelLimit") or width - LEAST - 30
    limit -= width - PAGE_WIDTH * 0.98
    config["axisY"] = {**config.get("axisY", {}), "labelLimit": max(120, int(limit))}
    for unit in units(spec):
        axis = ((unit.get("encoding") or {}).get("y") or {}).get("axis")
        if isinstance(axis, dict) and axis.get("labelLimit") == 0:
            axis.pop("labelLimit")  # labelLimit 0 (no limit) of the screen would win over the config's


def shrunk(spec: dict, render: Draw) -> str:
    """A chart too big for the page drawn smaller: its plot narrower or lower, down to LEAST px, then
    its y labels cut; its text keeps its size."""
    svg = render(spec)
    current = copy.deepcopy(spec)
    for _ in range(SHRINK_STEPS):
        if fits(svg):
            break
        w, h = svg_size(svg)
        if w > PAGE_WIDTH and not _less(current, "width", w - PAGE_WIDTH * 0.98):
            _shorter_labels(current, w)
        if h > FIGURE_HEIGHT:
            _less(current, "height", h - FIGURE_HEIGHT * 0.98)
        svg = render(current)
    return svg


def memo(render: Draw) -> Draw:
    """``render`` drawing each spec once: a part is measured, then drawn."""
    drawn: dict[str, str] = {}

    def once(spec: dict) -> str:
        key = json.dumps(spec, sort_keys=True, default=str)
        if key not in drawn:
            drawn[key] = render(spec)
        return drawn[key]

    return once


def print_svgs(spec: dict, render: Draw = pictures.draw) -> list[str]:
    """The SVGs a chart prints as: one, or several for a chart whose facets or bands take more than
    a page (each part with the same facets' columns, its own bands; the legends on the first part
    only); a small chart drawn larger; facets on one scale where they compare like with like."""
    once = memo(render)
    svgs: list[str] = []
    for part in split_bands(themed(spec), once):
        found = facet_field(part)
        if found is not None and "field" in (part.get("facet") or {}):
            part = facet_scales(part, found[0])
        if found is None or len(facet_values(part, *found)) <= 2:  # a page of panels is not small
            part = grown(part, once)
        if found is not None and "field" not in (part.get("facet") or {}):  # a row or column: as it is, if it fits
            svg = once(part)
            if fits(svg):
                svgs.append(svg)
                continue
        svgs += (split_facets(part, once) if found else None) or [shrunk(part, once)]
    return svgs


# a page's HTML as written (nbconvert's sanitiser orders attributes alphabetically and closes <img/>)
_FIGURE = re.compile(r'<figure\b([^>]*\bclass="iolab-chart"[^>]*)>(.*?)</figure>', re.S)
_IMG = re.compile(r'<img\b[^>]*\bsrc="data:image/svg\+xml;base64,[^"]*"[^>]*>')
_ALT = re.compile(r'\balt="([^"]*)"')
_SPEC = re.compile(r'<script\b[^>]*\bclass="iolab-chart-spec"[^>]*>([^<]*)</script>')
_LIVE = re.compile(
    r'<div\b[^>]*\bclass="iolab-vega"[^>]*>\s*</div>'
)  # the screen's live chart: paper shows the picture
_CAPTION = re.compile(r"<figcaption.*?</figcaption>", re.S)


def _image(svg: str, alt: str) -> str:
    w, h = svg_size(svg)
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return f'<img alt="{alt}" src="data:image/svg+xml;base64,{data}" width="{w:g}" height="{h:g}">'


def print_figure(match: re.Match, render: Draw = pictures.draw) -> str:
    """One figure of a page as printed: drawn for the page, continued on the pages after if need be."""
    attrs, body = match.group(1), match.group(2)
    found, img = _SPEC.search(body), _IMG.search(body)
    if not found or not img:
        return match.group(0)
    spec = json.loads(base64.b64decode(found.group(1)))
    svgs = print_svgs(spec, render)
    said = _ALT.search(img.group(0))
    alt = said.group(1) if said else ""  # escaped as the page has it
    first = _LIVE.sub("", body.replace(img.group(0), _image(svgs[0], alt), 1))
    out = [f"<figure{attrs}>{first}</figure>"]
    for i, svg in enumerate(svgs[1:], 2):
        more = html.escape(f" (part {i} of {len(svgs)})", quote=True)
        out.append(
            f"<figure{attrs.replace('iolab-chart', 'iolab-chart iolab-continued', 1)}>"
            f"{_image(svg, alt + more)}</figure>"
        )
    if len(svgs) > 1:  # the caption says what the whole chart leaves out: under its last part
        caption = _CAPTION.search(first)
        if caption:
            out[0] = out[0].replace(caption.group(0), "", 1)
            out[-1] = out[-1].replace("</figure>", caption.group(0) + "</figure>")
    return "".join(out)


_PART = re.compile(r"(<figure\b[^>]*>)(.*?)(</figure>)", re.S)
MARK = "iolab-figure-{name}-{figure}-{part}-{end}"  # pdf.defects reads them back


def _anchor(mark: str) -> str:
    """An empty link to itself: Chromium makes it a named destination of the PDF (the page and height
    where it stands), and prints nothing a reader can see, find or copy."""
    return f'<a id="{mark}" href="#{mark}"></a>'


def marked(figure: str, name: str, number: int) -> str:
    """A figure's parts (``figure``: one or more <figure> elements), each with a mark at its top and
    one at its foot: ``pdf.defects`` sees from the PDF's destinations that each part ends on the page
    where it starts."""
    parts = iter(range(1, len(figure)))

    def one(m: re.Match) -> str:
        key = {"name": name, "figure": number, "part": next(parts)}
        top, end = MARK.format(**key, end="top"), MARK.format(**key, end="end")
        return f"{m.group(1)}{_anchor(top)}{m.group(2)}{_anchor(end)}{m.group(3)}"

    return _PART.sub(one, figure)


def print_figures(page: str, render: Draw = pictures.draw, name: str = "page") -> str:
    """A page's HTML with every chart drawn for the printed page, numbered as print.css numbers them
    ("Figure n") and marked at its top and foot (``name``: the page's, unique in the edition)."""
    count = iter(range(1, len(page)))
    name = re.sub(r"[^A-Za-z0-9_.]+", "_", name)
    return _FIGURE.sub(lambda m: marked(print_figure(m, render), name, next(count)), page)
