"""Time series drawn with a bounded number of points: a min/max envelope per pixel column.

A 1 GB esxtop capture holds 27,600 samples a series; the time-series page drew each line's every
point (2 M points in the spec of one page, more than vl-convert or a browser draw). A line of more
points than its chart has columns is thinned: the chart's time span, shared by its lines, is cut into
``COLUMNS`` equal columns (a column per two pixels of a 720-pixel chart), and in each column a line
keeps its lowest and its highest point (the first in time where values tie), in time order. Every
spike and dip stays where it was and as high or low as it was: the line drawn through them covers
in each column the whole range the raw points cover there, so the picture is the raw line's. A line
of at most two points a column is drawn whole. The chart oracle (iolab.reports.oracle) checks each
drawn line's raw extremes against it (``extremes``).

Left out of the lines, and said in the caption: a capture's first sample of a counter measured over
an interval (a rate or an average per command: metric_vocabulary role throughput or latency) where
it reads 0. esxtop computes those counters from the difference between two snapshots and has none
before its first line, where it writes 0.00 (the real capture tests/corpus/esxtop: 203 such counters
0 in the first sample and not after, Commands/sec, Reads/sec, MBytes Written/sec, Average Driver
MilliSec/Command...; its CPU percentages have values there); perfmon leaves those cells empty. Drawn,
that 0 is a ramp from zero into the first real value. The tables' numbers keep every sample as written.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

COLUMNS = 360  # columns of a chart's time span; a line keeps at most two points in each
ENVELOPE = "envelope"  # the usermeta key of a chart drawn so (the oracle reads it)

# a point no chart draws: its capture's first sample of an interval counter, where it reads 0
NO_INTERVAL = """(p.sample_no = 0 AND p.value = 0 AND p.series_id IN (
    SELECT s.series_id FROM series s JOIN metric_vocabulary v ON v.metric = s.metric
    WHERE v.role IN ('throughput', 'latency')))"""

_POINTS = f"""WITH p AS (
    SELECT p.series_id, p.ts, p.value, p.sample_no, {NO_INTERVAL} AS no_interval
    FROM series_points p WHERE list_contains($ids, p.series_id) AND p.ts IS NOT NULL
), kept AS (SELECT * FROM p WHERE NOT no_interval),
span AS (SELECT min(ts) AS t0, max(ts) AS t1 FROM kept),
binned AS (  -- the same column as _COLUMN, over the span computed here
    SELECT kept.*, count(*) OVER (PARTITION BY series_id) AS n,
           least(floor((epoch(ts) - epoch(t0)) / nullif(epoch(t1) - epoch(t0), 0) * $cols), $cols - 1)::INTEGER AS col
    FROM kept, span
)
SELECT series_id, ts, value, sample_no, n > 2 * $cols AS thinned, t0, t1 FROM binned, span
QUALIFY n <= 2 * $cols
     OR row_number() OVER (PARTITION BY series_id, col ORDER BY value, sample_no) = 1
     OR row_number() OVER (PARTITION BY series_id, col ORDER BY value DESC, sample_no) = 1
ORDER BY series_id, ts, sample_no"""

_LEFT_OUT = f"""SELECT p.series_id, p.sample_no FROM series_points p
WHERE list_contains($ids, p.series_id) AND p.ts IS NOT NULL AND {NO_INTERVAL}"""


def points(con, series_ids: list[int], columns: int = COLUMNS) -> tuple[Any, dict]:
    """The points of ``series_ids`` (series_points, timed points only) a chart draws: each series'
    every point, or its envelope when it has more than two points a column; and what the chart's
    usermeta says of them (``ENVELOPE``): the columns and their span, the lines thinned, and the
    points left out as no interval (series id, sample)."""
    from .page import query

    ids = [int(i) for i in series_ids]
    drawn = query(con, _POINTS, {"ids": ids, "cols": columns})
    gone = query(con, _LEFT_OUT, {"ids": ids}).sort("series_id")
    meta = {
        "columns": columns,
        "from": _iso(drawn["t0"].min()),  # the span the columns cut: the first and last point of every line
        "to": _iso(drawn["t1"].max()),
        "thinned": sorted({int(i) for i in drawn.filter("thinned")["series_id"]}),
        "no_interval": [[int(s), int(n)] for s, n in gone.iter_rows()],
        "series_field": "series_id",
    }
    return drawn.drop("thinned", "t0", "t1"), meta


def _iso(t: object) -> str | None:
    return t.isoformat() if isinstance(t, dt.datetime) else None


def caption(meta: dict, lines: int, labels: dict[int, str]) -> str:
    """What a chart of ``lines`` lines says of its envelope: the lines thinned and the points left out
    as no interval (``labels``: a series' line as the chart names it)."""
    said = []
    if thin := meta["thinned"]:
        said.append(
            f"{len(thin)} of {lines} lines hold more points than the chart has columns: each is drawn through its "
            f"lowest and highest point in each of {meta['columns']} columns of its time span (every spike kept)."
        )
    if gone := meta["no_interval"]:
        names = sorted({labels.get(s, str(s)) for s, _ in gone})
        said.append(
            f"The first sample of {len(names)} line{'s' if len(names) > 1 else ''} is left out (0: the capture "
            f"has no interval before it for a rate or a latency): {'; '.join(names[:3])}"
            + (f" and {len(names) - 3} more." if len(names) > 3 else ".")
        )
    return " ".join(said)


# a time's column of a chart whose span is $t0..$t1 in $cols columns (as ``points`` counts them)
_COLUMN = """least(floor((epoch(ts) - epoch($t0::TIMESTAMP)) / nullif(epoch($t1::TIMESTAMP) - epoch($t0::TIMESTAMP), 0)
                   * $cols), $cols - 1)::INTEGER"""
_RAW = f"""SELECT series_id, {_COLUMN} AS col, min(value) AS lo, max(value) AS hi
FROM (SELECT p.* FROM series_points p WHERE list_contains($ids, p.series_id) AND p.ts IS NOT NULL AND NOT {NO_INTERVAL})
GROUP BY ALL"""
_DRAWN = f"""SELECT series_id, {_COLUMN} AS col, min(value) AS lo, max(value) AS hi
FROM (SELECT unnest($ids) AS series_id, unnest($ts)::TIMESTAMP AS ts, unnest($values)::DOUBLE AS value)
GROUP BY ALL"""


def extremes(con, meta: dict, series_ids: list[int], drawn: list[dict] | None = None) -> dict[tuple[int, int], tuple]:
    """Per (series, column) of the chart described by ``meta``: the lowest and highest value of the raw
    points of ``series_ids`` in series_points, or, given ``drawn`` (the chart's rows: series id, time,
    value), of those; the columns counted by one expression for both (the oracle's side of ``points``)."""
    bounds = {"t0": meta["from"], "t1": meta["to"], "cols": meta["columns"]}
    if drawn is None:
        rows = con.execute(_RAW, {"ids": [int(i) for i in series_ids], **bounds}).fetchall()
    else:
        field = meta["series_field"]
        mine = [r for r in drawn if r.get(field) is not None and r.get("ts") is not None and r.get("value") is not None]
        cols = {"ids": [int(r[field]) for r in mine], "ts": [str(r["ts"]) for r in mine]}
        rows = con.execute(_DRAWN, {**cols, "values": [float(r["value"]) for r in mine], **bounds}).fetchall()
    return {(int(s), int(c)): (lo, hi) for s, c, lo, hi in rows}
