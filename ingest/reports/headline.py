"""What the comparison and scaling pages say beside their charts: the verdict of each matched point
(view comparison: n per side, the 95 % interval of the % better) and the SLA headline (view
sla_headline) of a study whose sidecar declares a latency bound (`sla = "p99<=1ms"`)."""

from __future__ import annotations

import altair as alt

from . import page as r

# A verdict's colour: only a difference outside the noise is green or red; the two kinds of "no
# claim" are greys, told apart by the legend (a single run the lighter: it recedes). Each stands
# at least 3:1 against the white page (WCAG's bar for graphical objects): the light grey of the
# first print edition, 1.4:1, all but vanished on paper.
VERDICTS = {
    "better": "#2ca02c",
    "worse": "#d62728",
    "within noise": "#707070",
    "single run": "#949494",
    "no direction": "#4292c6",
}


def verdict_colors(shown) -> alt.Scale:
    """The verdict scale, its legend listing only the verdicts drawn."""
    domain = [v for v in VERDICTS if v in set(shown)]
    return alt.Scale(domain=domain, range=[VERDICTS[v] for v in domain])


LATENCIES = ("hold_latency_ms", "fail_latency_ms")  # the SLA table's latencies, held to its bound


def sla_block(con, study: str) -> None:
    """The SLA headline table, when the study declares a bound; a note when it declares one that
    no curve of the study measures."""
    said = r.query(con, "SELECT sla_source FROM sla_declared WHERE study = ? AND metric IS NULL", [study])
    if not said.is_empty():  # declared, but refused (sidecars that disagree) or not read: said, never skipped
        r.note(f"No SLA headline: the study's sla is {said['sla_source'][0]}.")
        return
    bound = r.query(con, "SELECT sla, metric, bound_ms, strict, sla_source FROM sla_bounds WHERE study = ?", [study])
    if bound.is_empty():
        return
    sla, metric, bound_ms, strict, source = bound.row(0)
    t = r.query(
        con,
        """SELECT system, workload_label AS workload, config_label AS config, raid_level, drives, scope, metric,
                  sla_load, sla_iops, how, hold_load, hold_latency_ms, hold_n, fail_load, fail_latency_ms, fail_n,
                  points
           FROM sla_headline WHERE study = ?
           ORDER BY system, block_size_bytes, read_pct, random_pct, workload, config, raid_level, drives, scope,
                    metric""",
        [study],
    )
    r.note(
        f"SLA headline, {source} ({r.label(metric, with_unit=False)} {'below' if strict else 'at most'} {bound_ms:g} ms): per system and "
        "workload curve, the highest "
        "load (outstanding I/Os) and IO/s at which the bound still holds (view sla_headline; a tool that "
        "states the statistic per direction only is held to it in each, the column metric says which), interpolated "
        "linearly between the last measured load that holds and the first that does not, where the column how "
        "says so; each of the two is the mean of its runs (runs where it holds, where it fails)."
    )
    if t.is_empty():
        r.note(
            f"No point of this study states {r.label(metric)} at a known load (outstanding I/Os): no SLA headline for {sla}."
        )
        return
    # a latency that fails the bound never prints equal to it (a p99 of 0.011173 ms beside 0.01 ms)
    r.table(t, f"SLA headline: highest load and IO/s where {sla} holds", bounds=dict.fromkeys(LATENCIES, bound_ms))


def why_no_comparison(con, study: str) -> str | None:
    """Why the study's comparison holds no point, matched or not (None where it holds some): the page
    says it, the index beside its link and the print edition under its contents (page.not_drawn)."""
    held = r.query(
        con,
        "SELECT 1 FROM comparison WHERE study = ? UNION ALL SELECT 1 FROM comparison_unmatched WHERE study = ? LIMIT 1",
        [study, study],
    )
    if held.height:
        return None
    b = r.query(con, "SELECT baseline_system, baseline_source FROM study_baseline WHERE study = ?", [study])
    if b.height and b["baseline_system"][0] is None:
        return f"no baseline to compare with: {b['baseline_source'][0]}"
    none = r.query(
        con,
        """SELECT system, max(current_note) AS note FROM system_measurements WHERE study = ?
           GROUP BY system HAVING NOT bool_or(is_current) ORDER BY system""",
        [study],
    )
    if none.height:
        return "no current measurement of " + "; ".join(f"{s} ({n})" for s, n in none.iter_rows())
    return "no system's current measurement has a number at run level (a point) to compare with the baseline's"
