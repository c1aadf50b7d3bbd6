"""Run every suite in validation/ against the database; store and print the results.

Each suite module names a table/view (SUITE), the SQL that pulls its frame (QUERY) and its
expectations. Frames are pulled from DuckDB and validated as pandas frames: Great Expectations
1.24 reading DuckDB through SQLAlchemy returns empty metrics here (see docs/DESIGN.md).
Results land in validation_results (one row per expectation per run). `iolab validate` exits 1
when an expectation failed (`--warn-only`: 0), so a pipeline stops on data that does not hold.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import pkgutil
import sys
import time
import types
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")  # offline: no usage statistics
os.environ.setdefault("TQDM_DISABLE", "1")


def suites():
    from iolab import validation

    for info in sorted(pkgutil.iter_modules(validation.__path__), key=lambda i: i.name):
        if info.name in ("run",) or info.name.startswith("_"):
            continue
        m = importlib.import_module(f"iolab.validation.{info.name}")
        if hasattr(m, "SUITE"):
            yield m


def _jsonable(v):
    try:
        return json.loads(json.dumps(v, default=str))
    except Exception:
        return str(v)


# Modules Great Expectations imports for what iolab never asks of it: scipy.stats and Altair, imported
# at the top of its KL-divergence and KS-test expectations and metrics (used inside their functions only):
# 1.0-1.4 s of the 3.1 s of CPU its import took (docs/PERFORMANCE.md).
UNUSED = ("scipy.stats", "altair")


class _Later(types.ModuleType):
    """A stand-in for a module not imported yet: the first attribute asked of it imports the real one
    and answers from there (a GX function that did use scipy.stats would still work, paying then)."""

    def __getattr__(self, name: str) -> Any:
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), name)


def _import_gx():
    """Great Expectations and its expectations, imported without pyspark, scipy.stats and Altair.

    GX imports pyspark whenever it is installed (the [lake] extra) to offer Spark data sources;
    iolab validates pandas frames only, and pyspark's import would weigh on every validation and
    render. Hidden for the import, GX takes Spark as absent, as on a machine without the extra;
    the lake, in its own process, imports pyspark as usual. scipy.stats and Altair (UNUSED) are
    stand-ins for the import (``_Later``), taken out of sys.modules after it: anything else imports
    the real modules as usual."""
    hide = "pyspark" not in sys.modules
    if hide:
        sys.modules["pyspark"] = None  # type: ignore[assignment]  # the import system's "absent": ImportError
    later = [n for n in UNUSED if n not in sys.modules]
    for name in later:
        sys.modules[name] = _Later(name)
    try:
        import great_expectations as gx
        import great_expectations.expectations as E
    finally:
        if hide:
            del sys.modules["pyspark"]
        for name in later:
            if isinstance(sys.modules.get(name), _Later):
                del sys.modules[name]
    return gx, E


class Checker:
    """One ephemeral Great Expectations context with a pandas data source, for many checks.

    A suite is validated as an object, not added to the context: adding one serialises it into
    the context's store, a cost paid again for every expectation."""

    def __init__(self) -> None:
        logging.getLogger("great_expectations").setLevel(logging.ERROR)
        gx, E = _import_gx()
        self.gx, self.E = gx, E
        # GX fingerprints every frame under 1 GB (an md5 over all its rows, twice a batch) for a batch
        # marker iolab never reads: a third of the time of a lab's validation. 0 turns it off.
        from great_expectations.execution_engine import pandas_execution_engine

        pandas_execution_engine.HASH_THRESHOLD = 0
        self.ctx = gx.get_context(mode="ephemeral")
        try:
            from great_expectations.data_context.types.base import ProgressBarsConfig

            self.ctx.variables.progress_bars = ProgressBarsConfig(globally=False)
        except Exception:
            pass
        self.source = self.ctx.data_sources.add_pandas("iolab")
        self.checks = 0

    def check(self, name: str, df, expectations: list) -> list:
        """GX's result of each expectation on ``df`` (in GX's order, not necessarily theirs)."""
        self.checks += 1
        asset = self.source.add_dataframe_asset(name=f"{name}-{self.checks}")
        batch = asset.add_batch_definition_whole_dataframe("all").get_batch(batch_parameters={"dataframe": df})
        suite = self.gx.ExpectationSuite(name=f"{name}-{self.checks}", expectations=expectations)
        result = batch.validate(suite, result_format={"result_format": "SUMMARY", "partial_unexpected_count": 5})
        return list(result.results)

    def rows(self, mod, df, run_at: datetime) -> list[dict]:
        """One dict per expectation of suite ``mod`` run on ``df``."""
        t0 = time.perf_counter()
        rows = []
        for r in self.check(mod.SUITE, df, list(mod.expectations(self.E))):
            assert r.expectation_config is not None  # GX sets it on every result of a suite run
            res = r.result or {}
            examples = _jsonable(res.get("partial_unexpected_list") or [])
            row = _row(mod, r.expectation_config, bool(r.success), res.get("unexpected_count"), examples, len(df))
            rows.append({**row, "seconds": time.perf_counter() - t0, "run_at": run_at})
        return rows


def _row(mod, cfg, success: bool, unexpected_count, examples: list, n: int) -> dict:
    """One expectation's result as stored: ``cfg`` is its configuration (GX's batch_id left out)."""
    kw = {k: v for k, v in dict(cfg.kwargs).items() if k != "batch_id"}
    return {
        "suite": mod.SUITE,
        "expectation": cfg.type,
        "kwargs": _jsonable(kw),
        "success": success,
        "unexpected_count": unexpected_count,
        "examples": examples,
        "rows_validated": n,
    }


def _query_failed(mod, e: Exception) -> dict:
    return {
        "suite": mod.SUITE,
        "expectation": "suite query runs",
        "kwargs": {},
        "success": False,
        "unexpected_count": None,
        "examples": [str(e)],
        "rows_validated": 0,
    }


def frame(con, sql: str, params: list | None = None):
    """The rows of ``sql`` as a pandas frame for GX, with text columns as categoricals.

    DuckDB's ``.df()`` makes one Python string per text value, which for a lab-sized database is
    most of a validation's time and memory. Through Arrow each distinct text is made once
    (docs/PERFORMANCE.md); decimals become floats, as ``.df()`` makes them."""
    import pandas as pd
    import pyarrow as pa

    _no_progress_bar(con)
    t = con.sql(sql, params=params).to_arrow_table()
    if any(pa.types.is_decimal(f.type) for f in t.schema):
        t = t.cast(pa.schema([pa.field(f.name, pa.float64()) if pa.types.is_decimal(f.type) else f for f in t.schema]))
    df = t.to_pandas(strings_to_categorical=True)
    for f in t.schema:  # integers with NULLs stay integers, as in .df() (Arrow makes them floats: 5 -> 5.0)
        if pa.types.is_integer(f.type) and t.column(f.name).null_count:
            nullable = pd.api.types.pandas_dtype(str(f.type).replace("uint", "UInt").replace("int", "Int"))
            df[f.name] = t.column(f.name).to_pandas(types_mapper={f.type: nullable}.get)
    return df


def _no_progress_bar(con) -> None:
    """DuckDB's own progress bar off: it would draw over a render's or validate's. Inside a Jupyter
    kernel without ipywidgets DuckDB refuses to change the setting at all (and draws no bar there),
    so that refusal is no error."""
    import duckdb

    try:
        con.execute("SET enable_progress_bar = false")
    except duckdb.InvalidInputException as e:
        if "ipywidgets" not in str(e):
            raise


def validate(con, store: bool = True, step: Callable[[int, int, str], None] | None = None) -> list[dict]:
    """Run all suites on ``con``; return one dict per expectation (also stored in the database,
    unless ``store=False``: read-only snapshots). ``step(number, total, suite)`` is called as each
    suite starts (the command line's progress)."""
    checker = Checker()
    run_at = datetime.now(UTC).replace(tzinfo=None)
    rows: list[dict] = []
    every = list(suites())
    for number, mod in enumerate(every, 1):
        if step:
            step(number, len(every), mod.SUITE)
        try:
            df = frame(con, mod.QUERY)
        except Exception as e:
            rows.append(_query_failed(mod, e))
            continue
        rows.extend(checker.rows(mod, df, run_at))
    if not store:
        return rows
    run_id = con.execute("SELECT coalesce(max(run_id), 0) + 1 FROM validation_results").fetchall()[0][0]
    con.execute("BEGIN")
    for row in rows:
        con.execute(
            "INSERT INTO validation_results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                run_id,
                run_at,
                row["suite"],
                row["expectation"],
                json.dumps(row["kwargs"]),
                row["success"],
                row["unexpected_count"],
                json.dumps(row["examples"]),
                row["rows_validated"],
            ],
        )
    con.execute("COMMIT")
    return rows


GROUP = "_iolab_group"
# tag(con, query, groups) -> (sql, params): the query's rows of those groups, each with its group in
# column GROUP (a row of several groups comes once per group), or None: the suite has no such rows.
Tagger = Callable[[Any, str, list[str]], tuple[str, list] | None]


def validate_groups(con, groups: list[str], tag: Tagger) -> dict[str, list[dict]]:
    """Every suite's results on the rows of each group (the reports' studies), as validating each
    group's rows alone gives, but each suite run once over the rows of all groups together.

    A GX run has a fixed cost whatever its size, which a run per study multiplies. A row-wise expectation (a map expectation, without ``mostly``) met on the rows of every
    group together is met on each group's rows; "values are unique" becomes "unique within the
    group". A suite that is not met, or that has another kind of expectation, is run per group,
    so a failure's counts and examples are each group's own. The rows are tagged in SQL (``tag``):
    narrowing a lab's frames in pandas copies them again and again."""
    checker = Checker()  # first: it quiets GX before GX is imported
    from great_expectations.expectations.expectation import ColumnMapExpectation, MulticolumnMapExpectation

    E = checker.E
    run_at = datetime.now(UTC).replace(tzinfo=None)
    out: dict[str, list[dict]] = {g: [] for g in groups}
    for mod in suites():
        try:
            if (tagged := tag(con, mod.QUERY, groups)) is None:
                continue
            df = frame(con, *tagged)  # once per suite, for every group
        except Exception as e:
            for g in groups:
                out[g].append(_query_failed(mod, e))
            continue
        counts = df[GROUP].value_counts()
        present = [g for g in groups if counts.get(g, 0)]
        expectations = list(mod.expectations(E))
        row_wise = all(
            isinstance(e, (ColumnMapExpectation, MulticolumnMapExpectation)) and e.mostly in (None, 1)
            for e in expectations
        )
        if len(present) > 1 and row_wise:  # (one group's rows: the per-group run below is the only one)
            within = [
                E.ExpectCompoundColumnsToBeUnique(column_list=[e.column, GROUP], ignore_row_if="any_value_is_missing")
                if isinstance(e, E.ExpectColumnValuesToBeUnique)
                else e
                for e in expectations
            ]
            if all(r.success for r in checker.check(mod.SUITE, df, within)):
                for g in present:
                    out[g].extend(_met(mod, e, int(counts[g]), run_at) for e in expectations)
                continue
        for g in present:  # one group's rows are the whole frame: no mask, no copy of it
            part = df if len(present) == 1 else df[df[GROUP] == g]
            out[g].extend(checker.rows(mod, part.drop(columns=GROUP), run_at))
    return out


def _met(mod, e, n: int, run_at: datetime) -> dict:
    return {**_row(mod, e.configuration, True, 0, [], n), "run_at": run_at}


def main(db_path: str) -> int:
    """Validate the database at ``db_path`` and print the results: 0 when every expectation is met,
    1 when one failed, 3 when the database cannot be opened (`iolab validate` is iolab.cli.validate)."""
    from iolab import db
    from iolab.terminal import console, markup

    try:
        con = db.open_db(db_path)
    except db.DatabaseProblem as e:
        console(stderr=True).print(f"[red]Cannot validate:[/] {markup(e)}")
        return 3
    try:
        rows = validate(con)
    finally:
        con.close()
    from iolab.cli.validate import show  # the command's table

    show(rows, db_path)
    return 1 if any(not r["success"] for r in rows) else 0


if __name__ == "__main__":
    from iolab.config import default_db

    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else default_db()))
