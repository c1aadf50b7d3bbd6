"""The chart oracle's checks against the database: the systems, rows and values a chart draws are
those of the view it names (``usermeta.iolab.source``, set by ``page.show``)."""

from __future__ import annotations

import math

from .page_charts import Chart, _same, clean, drawn
from .tables import says_no_marks_for

NO_SYSTEM = "(no system label)"


def _where(src: dict) -> tuple[str, list]:
    sql, params = ["study = ?"], [src["study"]]
    for col, value in src.get("where", {}).items():
        if value is None:
            sql.append(f'"{col}" IS NOT NULL')
        elif isinstance(value, list):
            sql.append(f'list_contains(?, "{col}")')
            params.append(value)
        else:
            sql.append(f'"{col}" = ?')
            params.append(value)
    return " AND ".join(sql), params


def view_rows(con, src: dict, columns: list[str]) -> list[tuple]:
    cond, params = _where(src)
    cols = ", ".join(
        f"coalesce(\"{c}\", '{NO_SYSTEM}')"
        if c == src.get("system_column", "system") and src.get("system")
        else f'"{c}"'
        for c in columns
    )
    return con.execute(f'SELECT {cols} FROM "{src["view"]}" WHERE {cond}', params).fetchall()


def _close(a: object, b: object) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-12)
    return a is not None and b is not None and _same(a, b)


def check_systems(con, chart: Chart, src: dict, marks: list[str]) -> list[str]:
    field, col = src["system"], src.get("system_column", "system")
    expected = {r[0] for r in view_rows(con, src, [col])}
    rows = drawn(chart)
    out = []
    said = clean(chart.meta.get("left_out") or "")
    for system in sorted(expected, key=str):
        if not any(_same(r.get(field), system) for r in rows):
            if not says_no_marks_for(said, clean(system)):
                out.append(f"system {clean(system)!r} has rows in {src['view']} but none in the chart")
        elif not any(f": {clean(system)}"[:40] in clean(m) for m in marks):
            out.append(f"system {clean(system)!r} has no mark in the picture")
    return out


def check_values(con, chart: Chart, src: dict) -> list[str]:
    keys, values = src.get("keys", {}), src.get("values", {})
    if not values:
        return []
    cols = list(keys.values()) + list(values.values())
    found: dict[tuple, list[tuple]] = {}
    for r in view_rows(con, src, cols):
        found.setdefault(tuple(clean(k) for k in r[: len(keys)]), []).append(r[len(keys) :])
    for row in chart.rows():
        key = tuple(clean(row.get(f)) for f in keys)
        cands = found.get(key, [])
        for i, (field, col) in enumerate(values.items()):
            v = row.get(field)
            if v is None:
                continue
            if not any(_close(v, c[i]) for c in cands):
                shown = sorted({c[i] for c in cands}, key=str)[:3]
                return [f"{field} = {v!r} at {key} is not the value of {src['view']}.{col} there ({shown})"]
    return []


def check_rows(con, chart: Chart, src: dict) -> list[str]:
    """A chart drawing fewer rows than its view holds says what it left out (its caption)."""
    if src.get("aggregate") or chart.meta.get("left_out"):
        return []
    value_col = next(iter(src.get("values", {}).values()), None)
    cond, params = _where(src)
    counted = f'count("{value_col}")' if value_col else "count(*)"
    (n,) = con.execute(f'SELECT {counted} FROM "{src["view"]}" WHERE {cond}', params).fetchone()
    if len(drawn(chart)) < n:
        return [f"draws {len(drawn(chart))} of the {n} rows of {src['view']} and its caption says nothing is left out"]
    return []


def check_envelope(con, chart: Chart, src: dict) -> list[str]:
    """A time-series chart drawn through an envelope (iolab.reports.envelope): in every column of its
    time span, each drawn line's lowest and highest point are the raw series' own there (no spike or
    dip hidden by the thinning, no value invented), no line is drawn where its series has no point,
    and the first samples left out as no interval are said in the caption."""
    from .envelope import extremes

    meta = src["envelope"]
    rows = drawn(chart)
    ids = sorted({int(r[meta["series_field"]]) for r in rows if r.get(meta["series_field"]) is not None})
    raw, mine = extremes(con, meta, ids), extremes(con, meta, ids, rows)
    for (series, col), (lo, hi) in sorted(raw.items()):
        got = mine.get((series, col))
        if got is None or not (_close(got[0], lo) and _close(got[1], hi)):
            return [f"series {series}, column {col}: the raw points span {lo!r}..{hi!r}, the line drawn {got!r}"]
    if extra := sorted(set(mine) - set(raw)):
        return [f"series {extra[0][0]} is drawn in column {extra[0][1]}, where its raw series has no point"]
    if meta["no_interval"] and "first sample" not in (chart.meta.get("left_out") or ""):
        return [f"{len(meta['no_interval'])} first samples are left out and the caption does not say so"]
    return []


def check_source(chart: Chart, con, marks: list[str]) -> list[str]:
    src = chart.meta["source"]
    try:
        out = check_systems(con, chart, src, marks) if src.get("system") else []
        out += check_envelope(con, chart, src) if src.get("envelope") else []
        return out + check_values(con, chart, src) + check_rows(con, chart, src)
    except Exception as e:  # a source the oracle cannot query is a defect of the chart, not a crash
        return [f"cannot check against {src.get('view')!r}: {str(e).splitlines()[0]}"]
