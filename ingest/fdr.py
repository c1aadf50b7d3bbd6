"""Many verdicts at once, said plainly: how many 'better' / 'worse' verdicts noise alone would give,
and how many survive the Benjamini-Hochberg adjustment (views comparison_fdr and trends, whose
columns p_value, fdr_q and verdict_fdr are computed in SQL; see 076_comparison_fdr.sql)."""

from __future__ import annotations

from typing import Any

LEVEL = 0.05  # the verdicts' 95 % intervals, and the false discovery rate the adjustment holds


def counts(con: Any, view: str, study: str) -> tuple[int, int, int]:
    """(verdicts with a p-value, of them 'better' or 'worse', of them still so after BH) in ``view``."""
    assert view in ("comparison_fdr", "trends")  # a view name is never a parameter: only these two
    rows = con.execute(
        f"""SELECT count(p_value), count(*) FILTER (p_value IS NOT NULL AND verdict IN ('better', 'worse')),
                   count(*) FILTER (p_value IS NOT NULL AND verdict_fdr IN ('better', 'worse'))
            FROM {view} WHERE study = ?""",
        [study],
    ).fetchall()  # all: a connection keeps no result half read
    return (rows[0][0], rows[0][1], rows[0][2]) if rows else (0, 0, 0)


def noise_alone(con: Any, view: str, study: str) -> str:
    """The sentence a page or command prints under many verdicts ('' when it has none with an interval)."""
    tested, claimed, kept = counts(con, view, study)
    if not tested:
        return ""
    return (
        f"Many verdicts at once: {tested:,} verdicts of this study have an interval (every metric and scope of "
        f"view {view}). Were nothing changed, noise alone would call about {LEVEL * tested:,.1f} of them better "
        f"or worse ({LEVEL:.0%}: a 95 % interval misses 0 one time in 20); {claimed:,} are. With the false "
        f"discovery rate held at {LEVEL:.0%} (Benjamini-Hochberg over their Welch p-values: columns fdr_q and "
        f"verdict_fdr), {kept:,} remain."
    )
