"""The metric vocabulary as a database table, ``metric_vocabulary`` (like a dbt seed): one row per
metric of ``ingest/vocabulary.py`` with its unit, role and direction, so views and suites join it
instead of guessing from names. ``db.create_views`` remakes it with the views; its ``fingerprint``
is part of the views' and the template's checksums, so a changed vocabulary remakes both.
"""

from __future__ import annotations

import sys

from .vocabulary import ENTRIES, METRICS, ROLES  # noqa: F401  (ROLES: read from here too)

TABLE = "metric_vocabulary"
COLUMNS: dict[str, tuple[str, str]] = {
    "metric": ("VARCHAR NOT NULL PRIMARY KEY", "canonical metric name (samples.metric, series.metric)"),
    "unit": ("VARCHAR", "the one unit the metric is stored in (NULL: the file does not say)"),
    "role": ("VARCHAR NOT NULL", "what the number is: throughput, latency, error_count, efficiency, ..."),
    "lower_is_better": ("BOOLEAN", "true: a smaller value is better; false: a larger one; NULL: neither"),
    "headline": (
        "BOOLEAN NOT NULL",
        "at scope all/test, a number that stands for the whole run: its throughput, its average latency",
    ),
    "log_io": ("BOOLEAN NOT NULL", "I/O of a transaction log, not the database's transactional I/O"),
    "io_direction": ("VARCHAR", "read, write or trim: the I/O the number is about (NULL: all I/O, or none)"),
    "percentile": ("DOUBLE", "for a latency percentile, which one (p99_9_read_latency_ms: 99.9)"),
    "latency_kind": ("VARCHAR", "for a latency: clat (completion), slat (submission), else latency (the tool's own)"),
    "scopes": ("VARCHAR", "the scopes a sample of it may carry, space-separated (empty: time series only)"),
    "series_only": ("BOOLEAN NOT NULL", "a time-series metric only, never a sample"),
}


def rows() -> list[tuple]:
    """One row per metric, in COLUMNS order, sorted by name."""
    return [
        (
            m.name,
            m.unit,
            m.role,
            m.lower_is_better,
            m.headline,
            m.log_io,
            m.io_direction,
            m.percentile,
            m.latency_kind,
            " ".join(sorted(m.scopes)),
            m.series_only,
        )
        for m in sorted(METRICS.values(), key=lambda m: m.name)
    ]


def unit_rules() -> list[tuple]:
    """What settles the unit of a format's unit-less series (a format module's UNIT_RULES): one row
    per companion format and version range, with the module's UNIT_NOTE."""
    from . import registry

    return [
        (m.FORMAT, companion, *first, *last, unit, to_ms, getattr(m, "UNIT_NOTE", None))
        for m in registry.modules()
        for companion, first, last, unit, to_ms in getattr(m, "UNIT_RULES", [])
    ]


UNIT_RULES_TABLE = "series_unit_rules"
UNIT_RULE_COLUMNS = (
    "series_format VARCHAR, companion_format VARCHAR, first_major INTEGER, first_minor INTEGER, "
    "last_major INTEGER, last_minor INTEGER, unit VARCHAR, to_ms DOUBLE, note VARCHAR"
)


def fingerprint() -> str:
    """Text that changes whenever the tables would: part of the views' and the template's checksums."""
    return repr([TABLE, list(COLUMNS.items()), rows(), UNIT_RULE_COLUMNS, unit_rules()])


def _literal(v: object) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return "'" + str(v).replace("'", "''") + "'"


def install(con) -> None:
    """(Re)make the metric_vocabulary table from ENTRIES (db.create_views calls it before the views)."""
    cols = ", ".join(f"{c} {t}" for c, (t, _) in COLUMNS.items())
    con.execute(f"CREATE OR REPLACE TABLE {TABLE} ({cols})")
    # one INSERT of literals: the rows are this module's own constants; binding thousands of
    # parameters, or executemany (row by row), is several times slower
    values = ",\n".join(f"({', '.join(_literal(v) for v in r)})" for r in rows())
    con.execute(f"INSERT INTO {TABLE} VALUES {values}")
    con.execute(
        f"COMMENT ON TABLE {TABLE} IS 'The metric vocabulary (ingest/vocabulary.py), remade with the views: "
        "unit, role and direction of every canonical metric'"
    )
    for c, (_, text) in COLUMNS.items():
        quoted = text.replace("'", "''")
        con.execute(f"COMMENT ON COLUMN {TABLE}.{c} IS '{quoted}'")
    con.execute(f"CREATE OR REPLACE TABLE {UNIT_RULES_TABLE} ({UNIT_RULE_COLUMNS})")
    if rules := unit_rules():
        values = ",\n".join(f"({', '.join(_literal(v) for v in r)})" for r in rules)
        con.execute(f"INSERT INTO {UNIT_RULES_TABLE} VALUES {values}")
    con.execute(
        f"COMMENT ON TABLE {UNIT_RULES_TABLE} IS 'What settles the unit of a format''s unit-less series: the "
        "tool version a companion result file in the same folder states (format modules'' UNIT_RULES)'"
    )


def markdown() -> str:
    """The metric table of schemas/README.md."""
    lines = ["| metric | unit | role | better | scopes | from |", "|---|---|---|---|---|---|"]
    for e in ENTRIES:
        names = f"time series only: `{e.names}`" if e.series_only else f"`{e.names}`"
        extra = f" (headline: `{e.headline}`)" if e.headline else ""
        extra += " (log I/O)" if e.log_io else ""
        lines.append(
            f"| {names}{extra} | {e.unit or '(none)'} | {e.role} | {e.better or '-'} | {e.scopes or '-'} | {e.source} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(markdown())
