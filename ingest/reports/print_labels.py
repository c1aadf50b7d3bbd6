"""Axis labels whole on paper. A screen chart draws long labels cut ("randread-…", page.short_labels)
for speed; where it names the field holding each label whole (page.whole_labels: the spec's usermeta),
the print edition draws that field instead, its labels wrapped onto lines at their spaces (never cut),
and its bands tall enough for their lines. The screen pages are not changed."""

from __future__ import annotations

from .print_bands import PAGE_WIDTH, units
from .print_fit import lines

WHOLE_LABELS = "iolab_whole_labels"  # as iolab.reports.page names it
LABEL_CHAR = 6.5  # px: wider than an average character of an 11 px label is drawn
LINE = 13  # px: a label's line height (an 11 px label and its leading)
LABEL_WIDTH = PAGE_WIDTH * 0.45  # px: a label's lines this wide, or wider up to WIDEST where that saves a line
WIDEST = PAGE_WIDTH * 0.6  # px: the plot keeps the rest (at least print_fit's LEAST)


SEP = " · "  # between the parts of a label (system · workload · drives): where it breaks first


def wrapped(text: object, width: float = LABEL_WIDTH) -> str:
    """A label as lines (joined by newlines) no wider than ``width`` px, broken after a " · " where
    its parts fit a line, else at its spaces."""
    most = int(width // LABEL_CHAR)
    out: list[str] = []
    for part in str(text).split(SEP):
        if out and len(out[-1]) + len(SEP) + len(part) <= most:
            out[-1] += SEP + part
            continue
        if out:
            out[-1] += SEP.rstrip()
        got = lines(part, width, LABEL_CHAR)
        out += got if isinstance(got, list) else [got]
    return "\n".join(out)


def _lines(texts: list[str], width: float) -> int:
    return max((wrapped(t, width).count("\n") + 1 for t in texts), default=1)


def narrowest(texts: list[str]) -> float:
    """The narrowest width, from LABEL_WIDTH up to WIDEST, at which the labels take as few lines as
    they take at WIDEST: every band as low as it can be, the plot as wide as that leaves it."""
    fewest = _lines(texts, WIDEST)
    width = LABEL_WIDTH
    while width < WIDEST and _lines(texts, width) > fewest:
        width += 4 * LABEL_CHAR
    return min(width, WIDEST)


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
        rows = [r for r in _rows(spec) if isinstance(r, dict) and r.get(whole) is not None]
        width = narrowest([str(r[whole]) for r in rows])
        for row in rows:
            row[field] = wrapped(row[whole], width)
            most = max(most, row[field].count("\n") + 1)
        for unit in units(spec):
            for channel, enc in (unit.get("encoding") or {}).items():
                if isinstance(enc, dict) and enc.get("field") == shown and channel in ("x", "y"):
                    enc.setdefault("title", whole)  # not the name of the print's own field
                    enc["field"] = field
                    enc["axis"] = {**(enc.get("axis") or {}), **_axis()}
    inner = spec.get("spec")
    plot: dict = inner if isinstance(inner, dict) else spec
    height = plot.get("height")
    if most > 1 and isinstance(height, dict) and "step" in height:  # a panel's own step: its bands as tall
        plot["height"] = {**height, "step": max(height["step"], LINE * most + 2)}
    elif most > 1 and not isinstance(height, (int, float)):
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
