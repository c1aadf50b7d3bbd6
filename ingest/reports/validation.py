"""Validation of one study's data: the Great Expectations suites of validation/, each frame
narrowed to the rows that belong to the study (by study, source file, run or series)."""

from __future__ import annotations

from datetime import UTC, datetime


def keep_study(study: str):
    """A frame filter for validation.run.validate: the rows of ``study`` only."""

    def keep(con, df):
        ids = lambda sql: {r[0] for r in con.execute(sql.replace("?", "$1"), [study]).fetchall()}  # noqa: E731
        if "study" in df.columns:
            return df[df["study"] == study]
        if "source_sha256" in df.columns:
            return df[df["source_sha256"].isin(ids("SELECT sha256 FROM source_files WHERE study = ?"))]
        if "run_id" in df.columns:
            return df[
                df["run_id"].isin(
                    ids(
                        "SELECT r.run_id FROM runs r JOIN source_files f ON f.content_id = r.source_id WHERE f.study = ?"
                    )
                )
            ]
        if "series_id" in df.columns:
            return df[
                df["series_id"].isin(
                    ids(
                        "SELECT s.series_id FROM series s JOIN source_files f ON f.content_id = s.source_id WHERE f.study = ?"
                    )
                )
            ]
        if "source_id" in df.columns:
            return df[
                df["source_id"].isin(
                    ids(
                        "SELECT content_id FROM source_files WHERE study = ? UNION SELECT source_id FROM source_files WHERE study = ?"
                    )
                )
            ]
        return df.iloc[0:0]

    return keep


def _reported(r: dict) -> bool:
    """A result the study's page shows: an expectation run on its rows, or a suite that could not run."""
    return bool(r.get("rows_validated")) or not r["success"]


def study_results(con, study: str) -> list[dict]:
    """One dict per expectation run on the study's rows (suites with no such row are left out)."""
    from validation import run as vrun

    return [r for r in vrun.validate(con, keep=keep_study(study), store=False) if _reported(r)]


def all_results(con, studies: list[str]) -> dict[str, list[dict]]:
    """``study_results`` of every study in ``studies``, each suite run once over all of them (a render)."""
    from validation import run as vrun

    results = vrun.validate_groups(con, {s: keep_study(s) for s in studies})
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
