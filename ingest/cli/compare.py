"""`iolab compare --study S`: every system of a study against its baseline, at matched points.

Read-only: a read-only connection cannot open while an ingest writes, so it waits for it, as ingest
waits for another ingest (ingest.db.connect).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..terminal import console, markup
from . import params, requires

COMPARE_COLUMNS = [
    "study",
    "metric",
    "unit",
    "direction",
    "baseline_system",
    "system",
    "workload_label",
    "block_size_bytes",
    "read_pct",
    "random_pct",
    "load",
    "scope",
    "baseline_config",
    "config",
    "baseline_value",
    "value",
    "ratio",
    "correction",
    "pct_better",
    "match_rule",
]


def register(sub: Any) -> None:
    p = sub.add_parser("compare", help="every system of a study against its baseline, at matched points")
    params.db(p)
    params.study(p, required=True, help="the study whose systems are compared")
    p.add_argument("--baseline", help="compare with this system instead of the study's baseline")
    p.add_argument("--metric", action="append", help="only these metrics (default: iops, mbps, avg_latency_ms)")
    p.add_argument("--format", choices=["table", "csv", "json"], default="table", help="output format")
    p.set_defaults(func=cmd_compare)


def comparison_rows(con: Any, study: str, baseline: str | None, metrics: list[str] | None) -> Any:
    """The comparison of ``study``; with ``baseline``, against that system (same matching rules)."""
    metrics = metrics or ["iops", "mbps", "avg_latency_ms"]
    if baseline:
        # the views read the baseline from study_baseline: shadow it for this connection only
        lit = lambda v: "'" + v.replace("'", "''") + "'"  # noqa: E731  (DDL takes no parameters)
        con.execute(f"""CREATE OR REPLACE TEMP VIEW study_baseline AS
                        SELECT study, {lit(baseline)}::VARCHAR AS baseline_system,
                               'command line: --baseline' AS baseline_source, count(DISTINCT system) AS systems
                        FROM measurements WHERE study = {lit(study)} GROUP BY study""")
    cols = ", ".join(COMPARE_COLUMNS)
    return con.sql(
        f"""SELECT {cols} FROM comparison WHERE study = $1 AND metric IN (SELECT unnest($2::VARCHAR[]))
                       ORDER BY system, metric, block_size_bytes, read_pct, random_pct, load, workload_label""",
        params=[study, metrics],
    ).pl()


@requires.database()
def cmd_compare(args: argparse.Namespace, con: Any) -> int:
    err = console(stderr=True)
    if (code := requires.known_study(con, args.study, args.db)) is not None:
        return code
    systems = {
        s for (s,) in con.execute("SELECT DISTINCT system FROM measurements WHERE study = ?", [args.study]).fetchall()
    }
    if args.baseline and args.baseline not in systems:
        err.print(
            f"[red]No system '{markup(args.baseline)}'[/] in study {markup(args.study)}; systems: "
            + markup(", ".join(sorted(s for s in systems if s)))
        )
        return requires.EXIT_USAGE
    df = comparison_rows(con, args.study, args.baseline, args.metric)
    base = con.execute(
        "SELECT baseline_system, baseline_source FROM study_baseline WHERE study = ?", [args.study]
    ).fetchall()
    unmatched = con.execute(
        "SELECT count(*) FROM comparison_unmatched WHERE study = ? AND metric IN (SELECT unnest(?::VARCHAR[]))",
        [args.study, args.metric or ["iops", "mbps", "avg_latency_ms"]],
    ).fetchall()[0][0]
    if args.format == "csv":
        from ..csvsafe import write_csv

        sys.stdout.write(write_csv(df))
    elif args.format == "json":
        sys.stdout.write(json.dumps(df.to_dicts(), default=str, indent=1) + "\n")
    else:
        _print_table(df, args.study, base[0] if base else (None, None), unmatched)
    return requires.EXIT_OK


def _print_table(df: Any, study: str, base: tuple[Any, Any], unmatched: int) -> None:
    from rich.console import Console
    from rich.table import Table

    out = Console(highlight=False, emoji=False, width=None if sys.stdout.isatty() else 200)
    t = Table(title=markup(f"{study}: each system vs {base[0]} ({base[1]})"), show_edge=False)
    for c in ("system", "workload", "metric", "baseline", "value", "ratio", "% better", "match"):
        t.add_column(c, justify="right" if c in ("baseline", "value", "ratio", "% better") else "left")
    for r in df.iter_rows(named=True):
        pct = r["pct_better"]
        colour = "green" if pct is not None and pct > 0 else "red" if pct is not None and pct < 0 else ""
        t.add_row(
            markup(str(r["system"])),
            markup(str(r["workload_label"])),
            markup(f"{r['metric']} ({r['unit']}, {r['direction']} is better)"),
            f"{r['baseline_value']:,.4g}",
            f"{r['value']:,.4g}",
            "" if r["ratio"] is None else f"{r['ratio']:.4f}",
            "" if pct is None else f"[{colour}]{pct:+.2f} %[/]" if colour else f"{pct:+.2f} %",
            markup(str(r["match_rule"])),
        )
    out.print(t)
    out.print(f"{df.height} matched points; {unmatched} points without a match (view comparison_unmatched).")
