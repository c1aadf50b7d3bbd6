"""Which views of schemas/views a render's snapshot stores as tables, and storing them.

The snapshot does not change during a render, but its pages query the views again and again: 11.7 s
of the demo render's 33 pages went to computing the same views per query (the systems of a study
alone 32 times). Stored once as tables (1.4 s), the pages' queries took 1.4 s. But a view no page of
the render reads was computed for nothing: the trends of a 1,000-run study that has no trends page
(0.7 s of 5.6 s, on a busy machine), the time series of a study without captures.

So a render stores (``chosen``) the views its pages can read (``reads``: a name after FROM or JOIN, or
a string that is a view's name, in the notebooks it will render, the page helpers, the validation's
suites and every notebook's studies query, which decides which pages there are), and every view those
are computed from. It does so in two steps: before the plan (``before_plan``: what the studies queries, helpers
and suites read) and once the pages are known (the notebooks of the plan). A view left a view still
answers every query with the same rows: a name this reading missed costs time, never a wrong page.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from pathlib import Path

import duckdb

from ..config import SUITES, VIEWS

# Views of the raw numbers row for row, left views: a copy costs more than the queries over them
# (a lab's 10.5 M measurements: 14 s of an 18 s materialize; the views after it took 4.6 s reading
# the view, as long as reading a copy). The pages' queries filter them by study, which DuckDB
# pushes down into the view.
# current_measurements: a filter of the one above; explore_runs: its numbers at one scope each
ROW_VIEWS = {"measurements", "current_measurements", "explore_runs"}

_VIEW = re.compile(r"CREATE\s+OR\s+REPLACE\s+VIEW\s+(\w+)", re.I)
# a name after FROM or JOIN, or a whole string literal (a view named to a helper: noise_alone(con, "comparison_fdr"))
_READ = re.compile(r"\b(?:FROM|JOIN)\s+\"?([A-Za-z_]\w*)|[\"']([A-Za-z_]\w*)[\"']", re.I)
_HERE = Path(__file__).resolve().parent
HELPER_FILES = [
    *sorted(_HERE.glob("*.py")),
    _HERE.parent / "lab.py",
    *sorted(SUITES.glob("*.py")),
]


@functools.cache
def definitions() -> dict[str, str]:
    """Each view of schemas/views and its SQL, in file order (a view reads only those before it)."""
    found = {}
    for f in sorted(VIEWS.glob("*.sql")):
        text = f.read_text()
        starts = list(_VIEW.finditer(text))
        ends = [m.start() for m in starts[1:]] + [len(text)] if starts else []
        for m, end in zip(starts, ends, strict=True):
            found[m.group(1)] = text[m.end() : end]
    return found


def reads(texts: Iterable[str]) -> set[str]:
    """The views of schemas/views named after FROM or JOIN in ``texts``."""
    views = definitions()
    return {n for t in texts for m in _READ.findall(t) for n in m if n in views}


def chosen(read: set[str]) -> list[str]:
    """The views to store when ``read`` are those queried: those and every view they are computed
    from (ROW_VIEWS never), in file order. A view only computed from is stored too: the rows of a
    table computed from a table come in another order than from a view, and a page whose rows tie
    would show another of them first."""
    views = definitions()
    uses = {v: reads([sql]) - {v} for v, sql in views.items()}
    computed, todo = set(), list(read)
    while todo:
        v = todo.pop()
        if v not in computed:
            computed.add(v)
            todo.extend(uses[v])
    return [v for v in views if v in computed and v not in ROW_VIEWS]


def before_plan(studies_queries: Iterable[str]) -> set[str]:
    """What a render reads whatever its pages: the notebooks' studies queries, the page helpers
    (ingest/reports, the lab) and the validation's suites."""
    return reads([*studies_queries, *(f.read_text() for f in HELPER_FILES)])


def materialize(con: duckdb.DuckDBPyConnection, names: list[str] | None = None) -> None:
    """Turn each view of ``names`` (None: every view of schemas/views but ROW_VIEWS) that is still a
    view into a table of the same name and rows, in the snapshot only, in file order, so a view reads
    the tables of those before it. The raw data stays views: the points (series_points,
    series_values) over the store, and ROW_VIEWS."""
    from ..db import transaction

    wanted = [n for n in definitions() if n not in ROW_VIEWS] if names is None else names
    still = {n for (n,) in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()}
    with transaction(con):
        for name in (n for n in wanted if n in still):
            if _POINTS.search(definitions()[name]):
                _by_chunks(con, name)
            else:
                con.execute(f'CREATE TABLE "iolab_materialized" AS SELECT * FROM "{name}"')
            con.execute(f'DROP VIEW "{name}"')
            con.execute(f'ALTER TABLE "iolab_materialized" RENAME TO "{name}"')


# a view that aggregates every point (series_stats): computed a chunk of the store at a time
_POINTS = re.compile(r"\b(?:FROM|JOIN)\s+series_values\b", re.I)


def _by_chunks(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """The rows of view ``name``, which reads series_values, into table iolab_materialized a chunk of
    the store's points at a time (iolab.store.chunks: memory stays bounded whatever the captures'
    size): series_values is shadowed by a temporary view of each chunk's points in turn, so the view's
    own query computes each chunk's rows."""
    from ..store.chunks import chunks

    con.execute(f'CREATE TABLE "iolab_materialized" AS SELECT * FROM "{name}" LIMIT 0')
    try:
        for chunk in chunks(con):
            con.execute(f"CREATE OR REPLACE TEMP VIEW series_values AS {chunk.points()}")
            con.execute(f'INSERT INTO "iolab_materialized" SELECT * FROM "{name}"')
    finally:
        con.execute("DROP VIEW IF EXISTS temp.series_values")
