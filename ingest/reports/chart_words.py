"""A chart's words, numbers and orders from the one display layer (iolab.display), put into its
Vega-Lite spec once, where every page, the lab and the print edition draw it (page._drawn):

* every axis, legend and header a field names without a title of its own gets the field's label
  (Vega-Lite would show the field's identifier: "iops_per_drive", "workload_label");
* every tooltip entry gets its label as title and a format: numbers to the decimals their spread
  needs (a tooltip of "pct_better: 289.405869721" reads "% better: 289"), integers as integers,
  times with their date and clock time;
* a dimension drawn as text (an axis's bands, a facet's panels, a legend) without an order of its own
  is put in its numeric order (512 B, 4 KiB, 16 KiB, 32 KiB; QD 2 before QD 16), not as text.

A title, format or sort the chart gives itself is kept.
"""

from __future__ import annotations

import json
from typing import Any

from .. import display

TITLED = ("x", "y", "color", "fill", "stroke", "shape", "size", "opacity", "strokeDash", "row", "column", "facet")
ORDERED = ("x", "y", "color", "fill", "stroke", "shape", "strokeDash", "row", "column", "facet", "xOffset", "yOffset")
_SKIP = ("datasets", "data", "usermeta", "params", "config", "title", "transform")


def values(spec: dict) -> dict[str, list]:
    """Every field's values in the data a spec carries (its named datasets and inline values)."""
    out: dict[str, list] = {}
    rows = [r for ds in (spec.get("datasets") or {}).values() if isinstance(ds, list) for r in ds]
    inline = (spec.get("data") or {}).get("values") if isinstance(spec.get("data"), dict) else None
    for row in rows + (inline if isinstance(inline, list) else []):
        if isinstance(row, dict):
            for k, v in row.items():  # a table sent as one row of lists (the explore page's): its columns
                out.setdefault(k, []).extend(v if isinstance(v, list) else [v])
    return out


def _time_format(vals: list) -> str:
    """The full timestamp, with milliseconds where two times differ by under a second."""
    stamps = sorted({str(v) for v in vals if v is not None})
    return display.TIMESTAMP_MS if any("." in s and not s.endswith(".000") for s in stamps) else display.TIMESTAMP


SHOWN = "iolab_shown_"  # a tooltip's text computed from a field: the field's name after this


def _number_text(ref: str, vals: list) -> str | None:
    """A Vega expression giving the number ``ref`` as ``display.fmt`` writes it in its column, or None
    where the d3 format alone does (no null, which Vega's format would print as 0, and no value that
    the column's decimals would leave under two significant digits)."""
    nums = [v for v in vals if isinstance(v, int | float) and not isinstance(v, bool)]
    places = display.column_places(nums)
    if places is None and len(nums) == len(vals):
        return None
    d = places or 0
    if len(nums) == len(vals) and all(v == 0 or abs(v) >= 10 ** (1 - d) for v in nums):
        return None
    fit = f"{ref} == 0 ? {d} : max({d}, min(9, 1 - floor(log(abs({ref})) / LN10)))"
    return f"isValid({ref}) && isFinite({ref}) ? format({ref}, ',.' + ({fit}) + '~f') : 'none'"


def tooltip_entry(entry: dict, data: dict[str, list]) -> tuple[dict, dict | None]:
    """A tooltip entry titled with its field's label and formatted as the display layer says, and the
    transform it needs: a field holding nulls, or small numbers among large ones, is shown through a
    text field computed from it ("none" where it is null, as Vega's format would print a null as 0)."""
    field = entry.get("field")
    if not isinstance(field, str):
        return entry, None
    out = {**entry}
    out.setdefault("title", display.label(field))
    kind, vals = entry.get("type"), data.get(field)
    if "format" in out or vals is None or entry.get("aggregate") or entry.get("timeUnit"):
        return out, None
    ref = f"datum[{json.dumps(field)}]"
    if kind == "quantitative":
        # one value at a time: its trailing zeros trimmed (d3's ~)
        out["format"] = display.d3_format([v for v in vals if isinstance(v, int | float)]).replace("f", "~f")
        text = _number_text(ref, vals)
    elif kind == "temporal":
        out["format"] = _time_format(vals)
        text = (
            None
            if all(v is not None for v in vals)
            else f"isValid({ref}) ? timeFormat({ref}, {json.dumps(out['format'])}) : 'none'"
        )
    else:
        return out, None
    if text is None:
        return out, None
    return {"field": SHOWN + field, "type": "nominal", "title": out["title"]}, {"calculate": text, "as": SHOWN + field}


def _order(ch: dict, data: dict[str, list]) -> None:
    """A text dimension without an order of its own in its numeric order (``display.ordered``)."""
    field, vals = ch.get("field"), data.get(str(ch.get("field")))
    if "sort" in ch or ch.get("type") not in ("nominal", "ordinal") or not vals or ch.get("aggregate"):
        return
    if (ch.get("scale") or {}).get("domain") is not None:
        return
    texts = [v for v in vals if v is not None]
    if not field or not texts or not all(isinstance(v, str) for v in texts):
        return
    numeric = display.ordered(texts)
    if numeric != sorted(set(texts)) and any(any(c.isdigit() for c in v) for v in texts):
        ch["sort"] = numeric


def encoding(enc: dict, data: dict[str, list]) -> list[dict]:
    """Titles, formats and orders into one encoding (in place); the transforms its tooltip needs."""
    for name in ORDERED:
        if isinstance(enc.get(name), dict):
            _order(enc[name], data)
    for name in TITLED:
        ch = enc.get(name)
        if isinstance(ch, dict) and isinstance(ch.get("field"), str) and "title" not in ch:
            ch["title"] = display.label(ch["field"])
    tips = enc.get("tooltip")
    if not isinstance(tips, list | dict):
        return []
    made = [
        tooltip_entry(t, data) if isinstance(t, dict) else (t, None)
        for t in (tips if isinstance(tips, list) else [tips])
    ]
    enc["tooltip"] = [t for t, _ in made] if isinstance(tips, list) else made[0][0]
    return [calc for _, calc in made if calc is not None]


def _walk(node: Any, data: dict[str, list]) -> None:
    if isinstance(node, list):
        for v in node:
            _walk(v, data)
        return
    if not isinstance(node, dict):
        return
    if isinstance(node.get("encoding"), dict) and (needed := encoding(node["encoding"], data)):
        node["transform"] = [*node.get("transform", []), *needed]
    facet = node.get("facet")
    if isinstance(facet, dict):
        encoding({"facet": facet} if "field" in facet else facet, data)
    for k, v in node.items():
        if k not in _SKIP and k not in ("encoding", "facet"):
            _walk(v, data)


def words(spec: dict) -> dict:
    """``spec`` (a Vega-Lite dict, with its data) with the display layer's titles, formats and orders."""
    _walk(spec, values(spec))
    return spec
