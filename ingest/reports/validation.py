"""Validation of one study's data: the Great Expectations suites of validation/, each suite's rows
tagged in SQL with the studies they belong to (by study, source file, run, series or source)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

# Which study a suite's row belongs to, by the first of its columns found here: the files of a study,
# its runs, its series or its sources (a file copied into two studies belongs to both).
_MEMBERS = {
    "source_sha256": "SELECT DISTINCT sha256 AS k, study AS g FROM source_files",
    "run_id": "SELECT DISTINCT r.run_id AS k, f.study AS g FROM runs r JOIN source_files f ON f.content_id = r.source_id",
    "series_id": """SELECT DISTINCT s.series_id AS k, f.study AS g
                    FROM series s JOIN source_files f ON f.content_id = s.source_id""",
    "source_id": "SELECT content_id AS k, study AS g FROM source_files UNION SELECT source_id, study FROM source_files",
}


def tag_studies(con, query: str, studies: list[str]) -> tuple[str, list] | None:
    """A iolab.validation.run.Tagger: the rows of ``query`` that belong to ``studies``, each with its study
    (a row with a study column is that study's); None for a suite whose rows name no study."""
    from iolab.validation.run import GROUP

    columns = con.sql(query).columns
    if "study" in columns:
        return f"SELECT q.*, q.study AS {GROUP} FROM ({query}) q WHERE list_contains($1, q.study)", [studies]
    key = next((c for c in _MEMBERS if c in columns), None)
    if key is None:
        return None
    return (
        f"""SELECT q.*, m.g AS {GROUP} FROM ({query}) q
            JOIN ({_MEMBERS[key]}) m ON m.k = q.{key} AND list_contains($1, m.g)""",
        [studies],
    )


def footers(snap: Path, studies: set[str]) -> dict[str, str]:
    """Each study's validation on the snapshot ``snap``, as the HTML of its pages' footer."""
    from .. import db
    from .tables import validation_html

    if not studies:
        return {}
    con = db.connect(snap, read_only=True)
    try:
        results = all_results(con, sorted(studies))
    finally:
        con.close()
    return {s: validation_html(summary(results[s])) for s in studies}


def _reported(r: dict) -> bool:
    """A result the study's page shows: an expectation run on its rows, or a suite that could not run."""
    return bool(r.get("rows_validated")) or not r["success"]


def study_results(con, study: str) -> list[dict]:
    """One dict per expectation run on the study's rows (suites with no such row are left out)."""
    return all_results(con, [study])[study]


def all_results(con, studies: list[str]) -> dict[str, list[dict]]:
    """``study_results`` of every study in ``studies``, each suite run once over all of them (a render)."""
    from iolab.validation import run as vrun

    results = vrun.validate_groups(con, studies, tag_studies)
    return {s: [r for r in results[s] if _reported(r)] for s in studies}


def summary(results: list[dict]):
    """One row per suite: expectations run, passed and failed, rows validated, when (a page's footer)."""
    import polars as pl

    if not results:
        return pl.DataFrame()
    now = datetime.now(UTC).replace(tzinfo=None)  # a suite that could not run has no run_at
    rows = [
        {**{k: r.get(k) for k in ("suite", "success", "rows_validated")}, "run_at": r.get("run_at") or now}
        for r in results
    ]
    return (
        pl.DataFrame(rows)
        .group_by("suite", maintain_order=True)
        .agg(
            pl.len().alias("expectations"),
            pl.col("success").sum().alias("passed"),
            (~pl.col("success")).sum().alias("failed"),
            pl.col("rows_validated").max(),
            pl.col("run_at").max().alias("validated_at"),
        )
        .sort("suite")
    )
