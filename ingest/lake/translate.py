"""The views SQL: schemas/views/*.sql as DuckDB statements, and translated to Spark SQL."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def view_files() -> list[Path]:
    from ..config import VIEWS

    return sorted(VIEWS.glob("*.sql"))


# db.refresh_points_view's series_points and series_values, over the lake's points/ folder (its
# files are the store's own: column_no, sample_no, ts, value; each engine's `points` adds the
# source_id its file is named by: points_table)
POINT_VIEWS = [
    (
        "series_points",
        "SELECT p.source_id + p.column_no AS series_id, p.source_id, p.sample_no, p.ts, p.value FROM points p",
    ),
    ("series_values", "SELECT series_id, source_id, sample_no, value FROM series_points"),
]
# Views of every point (the lake's points/ with one column joined): defined, never written to
# views/ nor cached. A copy would be the whole lake again, written once for each of them, and the
# summaries read the points through them in one pass. current_measurements too: the rows of the
# measurements view of each system's current measurement (schemas/views/012_study_runs.sql), a
# filter over the measurements the lake writes, read through by the views that need it.
ROW_VIEWS = frozenset(name for name, _ in POINT_VIEWS) | {"current_measurements"}
# Views whose rows the lake's export writes, as a table of the lake (iolab.lake.export): the lake's
# SQL reads them and never computes them. series_stats: each series' numbers over its points, which
# never change once stored; computed from every point of the lake, its exact p95 was most of the
# views' time on Spark (5x a plain scan of a 10 GB lake).
EXPORTED = frozenset({"series_stats"})


def view_statements() -> list[tuple[str, str, str]]:
    """(kind, name, DuckDB SQL) of every statement of schemas/views/*.sql, in order, but EXPORTED."""
    return [s for s in _statements() if s[1] not in EXPORTED]


def exported_query(name: str, reads: dict[str, str]) -> str:
    """The DuckDB query of the EXPORTED view ``name``, reading table ``reads[t]`` where it reads ``t``
    (the export computes it a chunk of sources at a time: iolab.lake.export)."""
    import sqlglot
    from sqlglot import exp

    sql = next(sql for kind, n, sql in _statements() if n == name and kind == "view")
    query = sqlglot.parse_one(sql, read="duckdb").expression
    put = lambda n: exp.to_table(reads[n.name]) if isinstance(n, exp.Table) and n.name in reads else n  # noqa: E731
    return query.transform(put).sql(dialect="duckdb")


def _statements() -> tuple[tuple[str, str, str], ...]:
    """Every statement, parsed once for each content of the view files (0.3 s: an export asks again
    for each batch it writes, `lake views` for each step)."""
    return _parsed(tuple((f.name, f.read_text()) for f in view_files()))


@functools.lru_cache(maxsize=2)
def _parsed(files: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str, str], ...]:
    import sqlglot
    from sqlglot import exp

    out = [("view", name, sql) for name, sql in POINT_VIEWS]
    for file_name, text in files:
        for stmt in sqlglot.parse(text, read="duckdb"):
            if stmt is None:
                continue
            if not isinstance(stmt, exp.Create):
                raise TypeError(f"{file_name}: only CREATE VIEW / CREATE MACRO statements are expected")
            kind = str(stmt.args.get("kind")).lower()
            name = stmt.this.this.name if kind == "macro" else stmt.this.name
            out.append((kind, name, stmt.sql(dialect="duckdb")))
    return tuple(out)


def _expand_macros(tree, macros: dict):
    """Replace every call of a DuckDB macro by its body with the arguments put in (repeatedly:
    macros call macros)."""
    from sqlglot import exp

    def put(node):
        if isinstance(node, exp.Anonymous) and node.name.lower() in macros:
            params, body = macros[node.name.lower()]
            args = dict(zip(params, node.expressions))
            new = body.copy().transform(
                lambda n: args[n.name].copy() if isinstance(n, exp.Column) and not n.table and n.name in args else n
            )
            return exp.Paren(this=new)
        return node

    def calls(t) -> bool:
        return any(n.name.lower() in macros for n in t.find_all(exp.Anonymous))

    # a chain of macros without a circle is at most as deep as there are macros
    for _ in range(len(macros) + 1):
        if not calls(tree):
            return tree
        tree = tree.transform(put)
    raise ValueError("the view's macros call one another in a circle")


# DuckDB functions Spark has under another name or not at all, as Spark expressions of the same
# meaning (X, P: the arguments). Everything else is sqlglot's own DuckDB -> Spark translation.
SPARK_FORMS = {
    # product of a group: Spark SQL has no product aggregate
    "product": "AGGREGATE(COLLECT_LIST(X), CAST(1 AS DOUBLE), (acc, v) -> acc * v)",
    # json_type: only the two answers the views ask for
    "json_type": "CASE WHEN JSON_ARRAY_LENGTH(X) IS NOT NULL THEN 'ARRAY' "
    "WHEN JSON_OBJECT_KEYS(X) IS NOT NULL THEN 'OBJECT' END",
    # quantile_cont = Spark's exact, linearly interpolated percentile
    "quantile_cont": "PERCENTILE(X, P)",
    # string_agg(DISTINCT x, sep ORDER BY x): the sorted distinct values joined (Spark's listagg with
    # DISTINCT and WITHIN GROUP fails when written: ClassCastException ... SortOrder)
    "string_agg_distinct": "CASE WHEN COUNT(X) > 0 THEN ARRAY_JOIN(ARRAY_SORT(COLLECT_SET(X)), P) END",
    # list(x ORDER BY x) and list(DISTINCT x ORDER BY x): Spark's collect_list and collect_set keep no
    # order (sqlglot drops the ORDER BY), so the collected values sorted
    "list_sorted": "ARRAY_SORT(COLLECT_LIST(X))",
    "list_distinct_sorted": "ARRAY_SORT(COLLECT_SET(X))",
    # microseconds since the epoch of a timestamp (trend_runs: a start from an end and a runtime)
    "epoch_us": "UNIX_MICROS(X)",
    # GLOB patterns (* and ?) as LIKE patterns, with % and _ of the pattern taken literally
    "glob": "X LIKE REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(P, '!', '!!'), '%', '!%'), '_', '!_'), '*', '%'), "
    "'?', '_') ESCAPE '!'",
}
JSON_TYPES = {'["VARCHAR"]': "array<string>"}  # DuckDB from_json structures as Spark DDL types


def _spark_form(name: str, x, p=None):
    import sqlglot
    from sqlglot import exp

    args = {"X": x, "P": p}
    return exp.Paren(
        this=sqlglot.parse_one(SPARK_FORMS[name], read="spark").transform(
            lambda n: args[n.name].copy() if isinstance(n, exp.Column) and n.name in args and args[n.name] else n
        )
    )


def _sorted_list(order):
    """list(x ORDER BY x) or list(DISTINCT x ORDER BY x) in Spark; any other ordered list is refused,
    since Spark would collect it in no order."""
    from sqlglot import exp

    distinct = isinstance(order.this, exp.Distinct)
    items = order.this.expressions if distinct else [order.this]
    keys = order.expressions
    if len(items) == 1 and len(keys) == 1 and keys[0].this == items[0] and not keys[0].args.get("desc"):
        return _spark_form("list_distinct_sorted" if distinct else "list_sorted", items[0])
    raise ValueError(f"Spark keeps no order in a list: {order.sql('duckdb')} (list(x ORDER BY x) is translated)")


def _for_spark(tree):
    from sqlglot import exp

    def fix(n):
        if isinstance(n, exp.CTE) and n.args.get("materialized"):  # Spark plans its own reuse
            n.set("materialized", None)
            return n
        if isinstance(n, (exp.Avg, exp.StddevSamp)) and isinstance(n.this, exp.Order):
            # mean_of / sd_of (002_statistics.sql): DuckDB sums in the order of the values; Spark has no
            # ordered aggregates, and its own sum agrees to the lake check's 1e-9
            return n.__class__(this=n.this.this)
        if isinstance(n, exp.Anonymous) and n.name.lower() in ("product", "epoch_us"):
            return _spark_form(n.name.lower(), n.expressions[0])
        if isinstance(n, exp.Anonymous) and n.name.lower() == "list_reduce" and len(n.expressions) == 3:
            # a fold from a start (002_statistics.sql: the t distribution): Spark's aggregate, its start
            # before its lambda; changed in place, so that the folds nested in its lambda are translated too
            items, fold, start = n.expressions
            n.set("this", "AGGREGATE")
            n.set("expressions", [items, start, fold])
            return n
        if isinstance(n, exp.JSONType):
            return _spark_form("json_type", n.this)
        if isinstance(n, exp.PercentileCont) and n.expression is not None:
            return _spark_form("quantile_cont", n.this, n.expression)
        if isinstance(n, exp.GroupConcat) and isinstance(n.this, exp.Order) and isinstance(n.this.this, exp.Distinct):
            (x,), order = n.this.this.expressions, n.this.expressions
            if len(order) == 1 and order[0].this == x and not order[0].args.get("desc"):
                return _spark_form("string_agg_distinct", x, n.args["separator"])
        if isinstance(n, exp.ArrayAgg) and isinstance(n.this, exp.Order):
            return _sorted_list(n.this)
        if isinstance(n, exp.Glob):
            return _spark_form("glob", n.this, n.expression)
        if isinstance(n, exp.FromJson) and n.expression.is_string and n.expression.name in JSON_TYPES:
            return exp.FromJson(this=n.this, expression=exp.Literal.string(JSON_TYPES[n.expression.name]))
        return n

    return tree.transform(fix)


def spark_statements() -> list[tuple[str, str]]:
    """(view name, Spark SQL query) for every view, translated from the DuckDB definitions."""
    import sqlglot
    from sqlglot import exp

    macros: dict[str, tuple[list[str], Any]] = {}
    out = []
    for kind, name, sql in view_statements():
        tree = sqlglot.parse_one(sql, read="duckdb")
        if kind == "macro":
            macros[name.lower()] = ([p.name for p in tree.this.expressions], tree.expression)
            continue
        query = tree.expression if isinstance(tree, exp.Create) else tree
        query = _for_spark(_expand_macros(query, macros))
        out.append((name, query.sql(dialect="spark", unsupported_level=sqlglot.ErrorLevel.RAISE)))
    return out


def needed(names: Iterable[str]) -> set[str]:
    """The views ``names`` and every view they read, directly or through others."""
    import sqlglot
    from sqlglot import exp

    statements = dict(spark_statements())
    unknown = set(names) - set(statements)
    if unknown:
        raise ValueError(f"no view named {', '.join(sorted(unknown))}; the views are {', '.join(sorted(statements))}")
    reads = {
        name: {t.name for t in sqlglot.parse_one(sql, read="spark").find_all(exp.Table)} & set(statements)
        for name, sql in statements.items()
    }
    out: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name not in out:
            out.add(name)
            todo += reads[name]
    return out
