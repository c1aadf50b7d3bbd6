"""What charts of several pages decide the same way, in one place: which panels a faceted chart
draws (``panels_drawn``: the busiest workloads first, as the overview's headline ranks them, and every
system's first), whether its panels share one y-axis (``shared_y``: the print edition's rule, so a
page and its print say the same). A matched point's bar is named by iolab.wording.point_label. The
notebooks reach them as ``page.<name>`` (iolab.reports.page re-exports them)."""

from __future__ import annotations

import polars as pl

from .print_fit import SHARED


def panels_drawn(d: pl.DataFrame, panel: str, first: int, leading: list[str] = []) -> tuple[list, list]:  # noqa: B006
    """(every panel of ``d``'s ``panel`` column in order, those a faceted chart draws): the ``first``
    panels and each system's first, so a cut never leaves a system without a panel. ``leading``: the
    workloads to draw first, in their order (``busiest_workloads``): a panel whose name starts with one
    of them takes its place (the study's busiest workload is never among those left out)."""
    if leading:
        rank = {w: i for i, w in enumerate(leading)}

        def place(name: str) -> int:
            return min((rank[w] for w in rank if str(name).startswith(w)), default=len(rank))

        d = d.with_row_index("_row").sort(pl.col(panel).map_elements(place, return_dtype=pl.Int64), "_row")
    every = list(dict.fromkeys(d[panel].to_list()))
    own = d.unique("system", keep="first", maintain_order=True)[panel].to_list()
    return every, list(dict.fromkeys(every[:first] + own))


def busiest_workloads(con, study: str) -> list[str]:
    """The study's workloads (size and mix, whatever the load) from the busiest down: by the highest
    headline IO/s of one run, as the overview's headline chart ranks them (view per_drive_iops)."""
    rows = con.execute(
        """SELECT regexp_replace(workload_label, ', QD [0-9]+$', '') AS workload  -- its label less the load
           FROM per_drive_iops WHERE study = ? AND level = 'run' AND iops IS NOT NULL
           GROUP BY 1 ORDER BY max(iops) DESC, 1""",
        [study],
    ).fetchall()
    return [w for (w,) in rows]


def shared_y(d: pl.DataFrame, panel: str, field: str) -> tuple[str, str]:
    """Whether the panels of a chart of ``d`` (one per ``panel`` value) share one y-axis: where the
    panels' largest ``field`` values differ less than SHARED times, as the print edition shares them
    (iolab.reports.print_fit), else each keeps its own. (Altair's resolve value, what the chart says
    of it.) Lines of one panel always share its axis: systems are compared inside a panel."""
    tops = d.group_by(panel).agg(pl.col(field).abs().max())[field].drop_nulls().to_list()
    if len(tops) < 2:
        return "shared", ""
    if min(tops) > 0 and max(tops) / min(tops) < SHARED:
        return "shared", "one y-axis for every panel"
    return "independent", "each panel has its own y-axis (read its own scale): systems share it within a panel"
