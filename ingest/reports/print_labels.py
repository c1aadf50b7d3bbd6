"""Axis labels whole on paper. A screen chart draws long labels cut ("randread-…", page.short_labels)
for speed; where it names the field holding each label whole (page.whole_labels: the spec's usermeta),
the print edition draws that field instead, its labels wrapped onto lines at their spaces (never cut),
and its bands tall enough for their lines. The screen pages are not changed."""

from __future__ import annotations

from .print_bands import PAGE_WIDTH, units
from .print_fit import lines

WHOLE_LABELS = "iolab_whole_labels"  # as ingest.reports.page names it
LABEL_CHAR = 6.5  # px: wider than an average character of an 11 px label is drawn
LINE = 13  # px: a label's line height (an 11 px label and its leading)
LABEL_WIDTH = PAGE_WIDTH * 0.45  # px: a label's lines at most this wide; the plot and legend take the rest


def wrapped(text: object, width: float = LABEL_WIDTH) -> str:
    """A label as lines (joined by newlines) no wider than ``width`` px, broken at its spaces."""
    got = lines(str(text), width, LABEL_CHAR)
    return "\n".join(got) if isinstance(got, list) else got


def _rows(spec: dict) -> list[dict]:
    data = spec.get("data") or {}
    if "values" in data:
        return list(data["values"])
    return list((spec.get("datasets") or {}).get(data.get("name", ""), []))


def whole_labels(spec: dict) -> dict:
    """``spec`` (a copy the caller owns, changed in place) drawing the whole labels its usermeta names
    for each cut field: a field of those labels wrapped (``<whole>_lines``) on the axis, each line of a
    label on a line of its own, centred on its band, and a band as tall as its label's lines."""
    pairs = (spec.get("usermeta") or {}).get(WHOLE_LABELS) or {}
    most = 1
    for shown, whole in pairs.items():
        field = f"{whole}_lines"
        for row in _rows(spec):
            if isinstance(row, dict) and row.get(whole) is not None:
                row[field] = wrapped(row[whole])
                most = max(most, row[field].count("\n") + 1)
        for unit in units(spec):
            for channel, enc in (unit.get("encoding") or {}).items():
                if isinstance(enc, dict) and enc.get("field") == shown and channel in ("x", "y"):
                    enc.setdefault("title", whole)  # not the name of the print's own field
                    enc["field"] = field
                    enc["axis"] = {**(enc.get("axis") or {}), **_axis()}
    if most > 1 and not isinstance((spec.get("spec") or spec).get("height"), (int, float)):
        view = spec.setdefault("config", {}).setdefault("view", {})
        view["discreteHeight"] = {"step": max(view.get("discreteHeight", {}).get("step", 14), LINE * most + 2)}
    return spec


def _axis() -> dict:
    """An axis drawing a label's lines (split at its newlines) centred on its band, none cut."""
    return {
        "labelExpr": "split(datum.label, '\\n')",
        "labelLineHeight": LINE,
        "labelOffset": {"expr": f"-{LINE / 2} * (length(split(datum.label, '\\n')) - 1)"},
        "labelLimit": 0,
    }
