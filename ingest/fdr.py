"""Many verdicts at once, said plainly: what the false-discovery family is, how many 'better' / 'worse'
verdicts noise alone would give among its hypotheses, how many there are and how many survive the
Benjamini-Hochberg adjustment, counted as hypotheses and as findings (a system at a point), from the
views comparison_fdr and trends (whose columns p_value, fdr_q, verdict_fdr, repeats_metric and finding
are computed in SQL; see 076_comparison_fdr.sql)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

LEVEL = 0.05  # the verdicts' 95 % intervals, and the false discovery rate the adjustment holds
# the standard deviation of the other side of a verdict, per view (neither side varies: no p-value)
OTHER_SD = {"comparison_fdr": "sd_baseline", "trends": "previous_sd"}


@dataclass(frozen=True)
class Family:
    tested: int  # distinct hypotheses with a p-value: the family
    repeats: int  # rows with a p-value that repeat another row's numbers at their point (counted once)
    no_noise: int  # distinct hypotheses where neither side varies: no p-value
    claimed: int  # hypotheses of the family called 'better' or 'worse'
    claimed_findings: int  # the findings (a system at a point) they are
    kept: int  # hypotheses still 'better' or 'worse' with the false discovery rate held
    kept_findings: int


def family(con: Any, view: str, study: str) -> Family:
    """The false-discovery family of ``study`` in ``view`` (comparison_fdr or trends), counted."""
    other = OTHER_SD[view]  # a view name is never a parameter: only these two
    claim = "verdict IN ('better', 'worse')"
    kept = "verdict_fdr IN ('better', 'worse')"
    rows = con.execute(
        f"""WITH f AS (SELECT *, p_value IS NOT NULL AND repeats_metric IS NULL AS hypothesis FROM {view} WHERE study = ?)
            SELECT count(*) FILTER (hypothesis), count(*) FILTER (p_value IS NOT NULL AND NOT hypothesis),
                   count(*) FILTER (repeats_metric IS NULL AND sd = 0 AND {other} = 0 AND direction IS NOT NULL),
                   count(*) FILTER (hypothesis AND {claim}), count(DISTINCT finding) FILTER (hypothesis AND {claim}),
                   count(*) FILTER (hypothesis AND {kept}), count(DISTINCT finding) FILTER (hypothesis AND {kept})
            FROM f""",
        [study],
    ).fetchall()  # all: a connection keeps no result half read
    return Family(*rows[0]) if rows else Family(0, 0, 0, 0, 0, 0, 0)


def counts(con: Any, view: str, study: str) -> tuple[int, int, int]:
    """(hypotheses with a p-value, of them 'better' or 'worse', of them still so after BH) in ``view``."""
    f = family(con, view, study)
    return f.tested, f.claimed, f.kept


def noise_alone(con: Any, view: str, study: str) -> str:
    """The sentence a page or command prints under many verdicts ('' when it has none with a p-value)."""
    f = family(con, view, study)
    if not f.tested:
        return ""
    repeats = (
        f"{f.repeats:,} rows more repeat another metric's numbers at their point, as iops and read_iops of a "
        "read-only workload, and count once"
        if f.repeats
        else ""
    )
    quiet = f"{f.no_noise:,} where neither side varies have no p-value: no noise to judge" if f.no_noise else ""
    aside = "; ".join(x for x in (repeats, quiet) if x)
    return (
        f"Many verdicts at once: the false-discovery family is the study's {f.tested:,} distinct hypotheses with "
        f"a p-value, a system, a point and a metric of view {view} each{' (' + aside + ')' if aside else ''}. "
        f"Were nothing changed, noise alone would call about {LEVEL * f.tested:,.1f} of them better or worse "
        f"({LEVEL:.0%}: a 95 % interval misses 0 one time in 20); {f.claimed:,} are, at "
        f"{_findings(f.claimed_findings)}. With the false discovery rate held at {LEVEL:.0%} (Benjamini-Hochberg "
        f"over their Welch p-values: columns fdr_q and verdict_fdr), {f.kept:,} remain, at "
        f"{_findings(f.kept_findings)}."
    )


def _findings(n: int) -> str:
    return f"{n:,} finding{'' if n == 1 else 's'} (a system at a point)"
