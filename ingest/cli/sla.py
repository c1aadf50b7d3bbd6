"""`iolab compare --sla "p99<=1ms"`: per system, the highest load and IOPS at which a latency bound
holds (view sla_headline), for a bound given on the command line instead of the study's sidecar."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..terminal import shown
from .tables import CSV, Cell, Col, table

if TYPE_CHECKING:
    from ..sla_bound import Bound

SLA_COLUMNS = [
    "system",
    "workload_label",
    "config_label",
    "scope",
    "sla",
    "metric",
    "hold_load",
    "hold_n",
    "fail_load",
    "fail_n",
    "sla_load",
    "sla_iops",
    "interpolated",
    "how",
]


def shadow_bound(con: Any, study: str, bound: Bound) -> None:
    """sla_declared reads the sidecars; for this connection it says ``bound`` for ``study`` instead."""
    lit = lambda v: "'" + v.replace("'", "''") + "'"  # noqa: E731  (DDL takes no parameters)
    con.execute(
        f"""CREATE OR REPLACE TEMP VIEW sla_declared AS
            SELECT {lit(study)}::VARCHAR AS study, {lit(bound.sla)}::VARCHAR AS sla, {lit(bound.stat)}::VARCHAR AS stat,
                   {lit(bound.metric)}::VARCHAR AS metric, {str(bound.strict).upper()} AS strict,
                   {bound.bound_ms!r}::DOUBLE AS bound_ms, 'command line: --sla' AS sla_source"""
    )


def held_latencies(con: Any, study: str) -> str:
    """The latency statistics the study's curves hold, in words, for a bound that found none."""
    rows = con.execute(
        """SELECT DISTINCT p.metric FROM comparison_points p JOIN metric_vocabulary v USING (metric)
           WHERE p.study = ? AND v.role = 'latency' AND p.load IS NOT NULL ORDER BY 1""",
        [study],
    ).fetchall()
    names = [m for (m,) in rows]
    return f"Its latency metrics: {', '.join(names)}." if names else "It has no latency at a stated load."


def sla_rows(con: Any, study: str) -> Any:
    cols = ", ".join(SLA_COLUMNS)
    return con.sql(
        f"""SELECT {cols} FROM sla_headline WHERE study = $1
            ORDER BY system, block_size_bytes, read_pct, random_pct, workload_label, config_label, scope""",
        params=[study],
    ).pl()


SLA_TABLE = [
    Col("system", key=True),
    Col("workload", key=True, wrap=16),
    Col("config", key=True, wrap=12),
    Col("scope", key=True),
    Col("load", number=True),
    Col("IOPS", number=True),
    Col("runs", number=True, drop=2),
    Col("how", drop=1, shorten=True),
]


def print_sla(df: Any, study: str, sla: str) -> None:
    rows: list[list[Cell]] = [
        [
            shown(r["system"]),
            shown(r["workload_label"] or ""),
            shown(r["config_label"] or ""),
            shown(r["scope"]),
            "" if r["sla_load"] is None else f"{r['sla_load']:,.1f}",
            "" if r["sla_iops"] is None else f"{r['sla_iops']:,.0f}",
            # the runs averaged at the load that holds and at the one that fails (each point a mean)
            "/".join(str(n) for n in (r["hold_n"], r["fail_n"]) if n is not None),
            shown(r["how"]),
        ]
        for r in df.iter_rows(named=True)
    ]
    table(f"{shown(study)}: highest load and IOPS where {shown(sla)} holds", SLA_TABLE, rows, CSV)
