"""`iolab compare --study S`: every system of a study against its baseline, at matched points.

Read-only: a read-only connection cannot open while an ingest writes, so it waits for it, as ingest
waits for another ingest (iolab.db.connect).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..display import metric_label
from ..terminal import console, markup, shown, write_out
from ..wording import better_means, change_words, point_label
from . import compare_rows, params, requires
from .cells import VERDICTS, _interval, _pct, column_format, overall_verdict, pct_cell, verdict_counts  # noqa: F401
from .compare_rows import COMPARE_COLUMNS, comparison_rows, default_metrics, resolve_metrics  # noqa: F401
from .tables import CSV as MORE
from .tables import Cell, Col, table


def register(sub: Any) -> None:
    p = sub.add_parser("compare", help="every system of a study against its baseline, at matched points")
    params.db(p)
    params.study(p, required=True, help="the study whose systems are compared")
    p.add_argument("--baseline", help="compare with this system instead of the study's baseline")
    p.add_argument(
        "--measurement",
        action="append",
        metavar="SYSTEM=LABEL",
        help="compare this measurement of SYSTEM (a measurement or firmware label, or a day, as `iolab info` and "
        "the pages list them) instead of its current one; repeat for more systems, the baseline included",
    )
    p.add_argument(
        "--metric",
        action="append",
        help="only these metrics (default: the study's headline metrics, its throughputs and average latencies: "
        "iops, mbps, avg_latency_ms; fio's per direction)",
    )
    p.add_argument(
        "--format",
        choices=["table", "csv", "tsv", "json"],
        default="table",
        help="output format: table (off a terminal, plain aligned columns that never wrap), or every row as "
        "csv, tsv (tab-separated, one line per row) or json",
    )
    p.add_argument("--all", action="store_true", help="the table lists every matched point after the summary")
    p.add_argument(
        "--sla",
        help='a latency bound such as "p99<=1ms" or "mean<2ms": per system, the highest load and IOPS where it holds',
    )
    p.add_argument(
        "--against",
        choices=["previous"],
        help="previous: each system's newest measurement (a label, or a session of runs) against the one before",
    )
    p.set_defaults(func=cmd_compare)


def chosen_measurements(con: Any, study: str, said: list[str] | None) -> dict[str, str] | int:
    """``--measurement SYSTEM=LABEL`` as system -> measurement, or the usage exit code (said, in one
    line) where it names no system or measurement of the study."""
    rows = con.execute(
        "SELECT system, list(measurement ORDER BY measurement_no NULLS LAST, measurement) FROM system_measurements "
        "WHERE study = ? GROUP BY system",
        [study],
    ).fetchall()
    known = {system: labels for system, labels in rows}
    out: dict[str, str] = {}
    for item in said or []:
        system, sep, label = item.rpartition("=")
        if not sep or system not in known:
            where = f" in study {study} (--measurement {item}: write SYSTEM=LABEL)"
            return requires.unknown("system", system or item, sorted(known), where)
        if label not in known[system]:
            return requires.unknown("measurement", label, known[system], f" of {system} (--measurement {item})")
        out[system] = label
    return out


MEASURED_BY = {
    "label": "its sidecar's measurement label",
    "firmware": "its firmware label",
    "run date": "the day of its runs",
    "no time": "its runs state no time",
}


def measurement_lines(con: Any, study: str, chosen: dict[str, str]) -> list[str]:
    """Per system, the measurement compared and how it was picked (newest, or --measurement), and the
    systems that have none to compare (several measurements, none in order)."""
    rows = con.execute(
        """SELECT system, measurement, measured_by, measurements, is_current, current_note
           FROM system_measurements WHERE study = ? ORDER BY system, measurement_no NULLS LAST, measurement""",
        [study],
    ).fetchall()
    lines, noted = [], {system for system, _, _, _, current, _ in rows if current}  # compared: no note
    for system, label, by, count, current, note in rows:
        if chosen.get(system) == label:
            lines.append(f"{system}: {label} ({MEASURED_BY[by]}; chosen with --measurement, of {count})")
        elif system not in chosen and current:
            older = (
                f"; the current of {count}, the newest with numbers: the others are in "
                "`iolab compare --against previous`"
                if count > 1
                else ""
            )
            lines.append(f"{system}: {label} ({MEASURED_BY[by]}{older})")
        elif system not in chosen and note and system not in noted:
            noted.add(system)
            lines.append(f"{system}: not compared: {note}")
    return lines


@requires.database()
def cmd_compare(args: argparse.Namespace, con: Any) -> int:
    err = console(stderr=True)
    if (code := requires.known_study(con, args.study, args.db)) is not None:
        return code
    if args.against:
        return cmd_against(args, con)
    systems = {
        s for (s,) in con.execute("SELECT DISTINCT system FROM measurements WHERE study = ?", [args.study]).fetchall()
    }
    if args.baseline and args.baseline not in systems:
        known = sorted(s for s in systems if s)
        return requires.unknown("system", args.baseline, known, f" in study {args.study}")
    from .. import declared

    if not args.baseline and (said := [p for p in declared.problems(con, {args.study}) if p.key == "baseline"]):
        where = f"{shown(str(said[0].sidecar))}, line {said[0].line}: " if said[0].sidecar else ""
        err.print(f"[red]Nothing to compare against:[/] {markup(where + said[0].reason())}")
        return requires.EXIT_REJECTED
    if args.sla:
        return cmd_sla(args, con)
    if len(named := sorted(s for s in systems if s)) < 2:
        err.print(f"[red]Nothing to compare in {markup(args.study)}:[/] {markup(no_systems_text(args.study, named))}")
        return requires.EXIT_USAGE
    if isinstance(chosen := chosen_measurements(con, args.study, args.measurement), int):
        return chosen
    if not (metrics := metrics_for(con, args.study, args.metric)):
        return requires.EXIT_USAGE
    from ..fdr import noise_alone

    with compare_rows.compared(con, args.study, args.baseline, chosen):
        df = compare_rows.rows(con, args.study, metrics)
        many = noise_alone(con, "comparison_fdr", args.study) if args.format == "table" else ""
    if args.format != "table":
        write_out(as_text(df, args.format))
    else:
        heading = con.execute(
            """SELECT b.baseline_system, b.baseline_source, c.correction, c.correction_source, c.scope
               FROM study_baseline b LEFT JOIN study_corrections c USING (study) WHERE b.study = ?""",
            [args.study],
        ).fetchall()
        unmatched = unmatched_counts(con, args.study, metrics)
        measured = measurement_lines(con, args.study, chosen)
        _print(df, args.study, heading[0] if heading else (None,) * 5, unmatched, args.all, measured)
        if many:
            console().print(markup(many), soft_wrap=True)
    return requires.EXIT_OK


def metrics_for(con: Any, study: str, asked: list[str] | None) -> list[str]:
    """The metrics compared: those asked (resolved to their per-direction forms where the study states
    them so, each resolution said on standard error), else the study's headline metrics; [] (said
    why, in one line) where a metric asked is not the study's, or none is left."""
    if asked:
        metrics, notes, missing = resolve_metrics(con, study, asked)
        if missing:
            requires.unknown("metric", missing[0], compare_rows.stated_metrics(con, study), f" in study {study}")
            return []
    else:
        metrics, notes = default_metrics(con, study), []
    err = console(stderr=True)
    for note in notes:
        err.print(f"[yellow]--metric {markup(note)}[/]", soft_wrap=True)
    if not metrics:
        err.print(
            f"[red]Nothing to compare in {markup(study)}[/]: its runs state no headline metric (IO/s, MB/s, "
            "average latency); name one with --metric.",
            soft_wrap=True,
        )
    return metrics


def no_systems_text(study: str, named: list[str]) -> str:
    """Why a study has nothing to compare, and the sidecar that gives it systems."""
    have = f"its only labelled system is {named[0]}" if named else "none of its files is labelled with a system"
    return (
        f"{have}. A comparison needs two: write an iolab.toml beside each system's files, e.g. "
        f'data/{study}/<folder>/iolab.toml with system = "Array A" (and baseline = "Array A" in '
        f"data/{study}/iolab.toml), then ingest the folder again."
    )


def cmd_sla(args: argparse.Namespace, con: Any) -> int:
    from ..sla_bound import parse
    from . import sla

    try:
        bound = parse(args.sla)  # the reading the sidecars get (ingest/sla_bound.py)
    except ValueError as e:
        console(stderr=True).print(f"[red]--sla:[/] {markup(str(e))}")
        return requires.EXIT_USAGE
    sla.shadow_bound(con, args.study, bound)
    df = sla.sla_rows(con, args.study)
    if df.height == 0:
        console(stderr=True).print(
            f"[red]No curve of study {markup(args.study)} reports {markup(bound.metric)}[/] (over all I/Os or per "
            f"direction) at a stated load: nothing to hold to {markup(args.sla)}. "
            + markup(sla.held_latencies(con, args.study)),
            soft_wrap=True,
        )
        return requires.EXIT_USAGE  # a metric the study does not hold, as --metric
    if args.format != "table":
        write_out(as_text(df, args.format))
    else:
        sla.print_sla(df, args.study, args.sla)
    return requires.EXIT_OK


def cmd_against(args: argparse.Namespace, con: Any) -> int:
    from . import trend

    if args.baseline or args.sla:
        console(stderr=True).print(
            "[red]--against previous compares each system with itself[/]: it takes no --baseline or --sla."
        )
        return requires.EXIT_USAGE
    if not (metrics := metrics_for(con, args.study, args.metric)):
        return requires.EXIT_USAGE
    df = trend.newest_rows(con, args.study, metrics)
    if args.format != "table":
        write_out(as_text(df, args.format))
    else:
        from ..fdr import noise_alone

        trend.print_trend(
            df,
            trend.measurements(con, args.study),
            args.study,
            args.all,
            trend.unpaired(con, args.study, metrics),
            noise_alone(con, "trends", args.study),
        )
    return requires.EXIT_OK


def as_text(df: Any, fmt: str) -> str:
    """Every row of ``df`` as csv, tsv or json text. CSV and TSV are safe to open in a spreadsheet
    (iolab.csvsafe); a TSV cell's tabs, newlines and hidden characters are written as escapes
    (iolab.names), so each row is one line of as many fields as the header."""
    if fmt == "json":
        return json.dumps(df.to_dicts(), default=str, indent=1) + "\n"
    from ..csvsafe import frame, write_csv

    if fmt == "csv":
        return write_csv(df)
    rows = frame(df).rows()
    cell = lambda v: "" if v is None else shown(v)  # noqa: E731
    return "".join("\t".join(cell(v) for v in r) + "\n" for r in [tuple(df.columns), *rows])


def unmatched_counts(con: Any, study: str, metrics: list[str]) -> dict[tuple[str, str], int]:
    """(compared system, metric) -> points of either side that found no partner."""
    rows = con.execute(
        """SELECT CASE side WHEN 'baseline' THEN other_system ELSE system END, metric, count(*)
           FROM comparison_unmatched WHERE study = ? AND metric IN (SELECT unnest(?::VARCHAR[])) GROUP BY ALL""",
        [study, metrics],
    ).fetchall()
    return {(s, m): n for s, m, n in rows}


def summary(df: Any, unmatched: dict[tuple[str, str], int]) -> Any:
    """Per system and metric: matched and unmatched points, the geometric mean, min and max of the
    ratio (value / baseline), the declared correction and the geometric mean of % better with it, and
    of the value's own change (pct_difference: the words "34.0 % lower latency")."""
    import polars as pl

    # the corrected ratio, > 1 where the system beats the corrected baseline, whatever the direction
    better = 1 + pl.col("pct_better") / 100
    change = 1 + pl.col("pct_difference") / 100  # value / corrected baseline
    if "verdict" not in df.columns:  # a frame of the comparison's older columns: no verdicts to count
        df = df.with_columns(pl.lit(None, dtype=pl.Utf8).alias("verdict"))
    if "pct_difference" not in df.columns:
        df = df.with_columns(pl.lit(None, dtype=pl.Float64).alias("pct_difference"))
    out = (
        df.group_by("system", "metric", "unit", "direction", maintain_order=True)
        .agg(
            pl.len().alias("matched"),
            pl.col("ratio").filter(pl.col("ratio") > 0).log().mean().exp().alias("ratio_geomean"),
            pl.col("ratio").min().alias("ratio_min"),
            pl.col("ratio").max().alias("ratio_max"),
            pl.col("correction").unique().sort().alias("corrections"),
            ((better.filter(better > 0).log().mean().exp() - 1) * 100).alias("pct_better_geomean"),
            ((change.filter(change > 0).log().mean().exp() - 1) * 100).alias("pct_difference_geomean"),
            pl.col("verdict").drop_nulls().alias("verdicts"),
        )
        .sort("system", "metric")
    )
    return out.with_columns(
        pl.struct("system", "metric")
        .map_elements(lambda r: unmatched.get((r["system"], r["metric"]), 0), return_dtype=pl.Int64)
        .alias("unmatched")
    )


def correction_text(factor: float | None, direction: str) -> str:
    """How the declared factor applies to the baseline: x where higher is better, / where lower."""
    if factor is None or factor == 1:
        return "none"
    return f"{'x' if direction == 'higher' else '/'}{factor:g}"


# the summary: the system and metric say which row it is, % better is the headline; the others give
# way from the highest drop (the spread of the ratio, the counts, the words)
SUMMARY = [
    Col("system", key=True),
    Col("metric", key=True),
    Col("better", drop=8),
    Col("matched", number=True, drop=3),
    Col("unmatched", number=True, drop=6),
    Col("ratio geo. mean", number=True, drop=1),
    Col("min", number=True, drop=7),
    Col("max", number=True, drop=7),
    Col("correction", drop=4),
    Col("% better", number=True),
    Col("change", drop=2, shorten=True),
    Col("verdicts", drop=5, shorten=True),
]
POINTS = [
    Col("system", key=True, wrap=16),
    Col("point", key=True, wrap=24),
    Col("metric", key=True),
    Col("baseline", number=True, drop=2),
    Col("corrected", number=True, drop=5),
    Col("value", number=True, drop=2),
    Col("ratio", number=True, drop=3),
    Col("% better", number=True),
    Col("change", drop=6, shorten=True),
    Col("95 % CI", drop=4),
    Col("runs", number=True, drop=7),
    Col("verdict", drop=1),
    Col("match", drop=8, shorten=True),
]


def _print(
    df: Any,
    study: str,
    heading: tuple[Any, ...],
    unmatched: dict[tuple[str, str], int],
    rows: bool,
    measured: list[str] = [],  # noqa: B006  (read only)
) -> None:
    """The heading (baseline, correction, the measurements compared), the per-system summary, and with
    ``rows`` every point."""
    out = console()
    baseline, source, factor, factor_source, scope = heading
    out.print(f"[bold]{markup(study)}[/]: each system against {markup(baseline)} ({markup(source)}).", soft_wrap=True)
    if factor is not None and factor != 1:
        out.print(
            f"Declared correction {factor:g} ({markup(factor_source)}), applied only where its scope covers the "
            f"metric ({markup(scope or '')}; every other metric is compared as measured): the baseline is "
            "multiplied by it where higher is better and divided by it where lower is better before % better is "
            "computed; the ratio is the measured value / the measured baseline.",
            soft_wrap=True,
        )
    if measured:
        out.print("Measurements compared (a system measured again is never pooled with its earlier runs):")
        for line in measured:
            out.print(f"  {markup(line)}", soft_wrap=True)
    s = summary(df, unmatched)
    ratio = column_format([*s["ratio_geomean"], *s["ratio_min"], *s["ratio_max"]])
    cells: list[list[Cell]] = [
        [
            shown(r["system"]),
            shown(metric_label(r["metric"], r["unit"])),
            r["direction"],  # which way is better
            f"{r['matched']:,}",
            f"{r['unmatched']:,}",
            ratio(r["ratio_geomean"]),
            ratio(r["ratio_min"]),
            ratio(r["ratio_max"]),
            ", ".join(correction_text(c, r["direction"]) for c in r["corrections"]),
            pct_cell(r["pct_better_geomean"], overall_verdict(r["verdicts"])),
            change_words(r["pct_difference_geomean"], r["metric"]),
            verdict_counts(r["verdicts"]),
        ]
        for r in s.iter_rows(named=True)
    ]
    table("per system (ratio = value / baseline; geometric means)", SUMMARY, cells, MORE)
    if "lower" in s["direction"].to_list():
        out.print(f"% better: {better_means('lower')}.", soft_wrap=True)
    if rows:
        _print_rows(df)
    out.print(
        f"{df.height:,} matched points, {sum(unmatched.values()):,} without a match (view comparison_unmatched). "
        + ("" if rows else "`--all` lists every matched point."),
        soft_wrap=True,
    )


def _print_rows(df: Any) -> None:
    """Every matched point; each number column in one format."""
    corrected = [
        None if b is None else b * c if d == "higher" else b / c
        for b, c, d in zip(df["baseline_value"], df["correction"], df["direction"], strict=True)
    ]
    plain = column_format([*df["baseline_value"], *df["value"], *corrected])
    ratio = column_format(list(df["ratio"]))
    cells: list[list[Cell]] = [
        [
            shown(r["system"]),
            shown(
                point_label({**r, "workload": r["workload_label"]})
                + ("" if r["scope"] == "all" else f" · scope {r['scope']}")
            ),
            shown(metric_label(r["metric"], r["unit"])),
            plain(r["baseline_value"]),
            plain(cb) if r["correction"] not in (None, 1) else "",
            plain(r["value"]),
            ratio(r["ratio"]),
            pct_cell(r["pct_better"], r["verdict"]),
            change_words(r.get("pct_difference"), r["metric"]),
            _interval(r["ci95_low_pct"], r["ci95_high_pct"]),
            f"{r['n_baseline']}/{r['n']}",
            r["verdict"] or "",
            shown(r["match_rule"]),
        ]
        for r, cb in zip(df.iter_rows(named=True), corrected, strict=True)
    ]
    table("matched points", POINTS, cells, MORE)
