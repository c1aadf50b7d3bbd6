"""Golden twins: what each real corpus file yields, written beside the corpus for reviewers to diff.

    python -m tests.golden            write tests/golden/<dir>/<file>.expected.json for every corpus file
    python -m tests.golden --check    compare instead of writing; exit 1 and print diffs on a difference
    python -m tests.golden PATHS      only these corpus files (or folders)

Each file is ingested ALONE (a copy of a migrated template database, so no other file can dedupe,
number or relabel it) through the project's own batch ingest. The twin holds the file's
``source_files`` status/format/error, every ``runs`` and ``samples`` row, every row of every table
with a ``source_id`` column (the tool tables, ``series``, ``series_samples``), and a digest of its
time-series points per series (count, min, max, exact sum, first and last points).

Twins stay small and stable: ids are replaced by stable names (``run_id`` -> ``run_key``,
``series_id`` -> ``column_no``; ``source_id`` dropped); ingest timestamps, paths, null columns and
the list of supported formats in a "not recognised" rejection (it grows with every parser) are left
out; floats are written with repr (they read back bit for bit); a table past ``CAP`` rows (or
``BUDGET`` characters) keeps its first rows in full plus the count and a SHA-256 of the rest, and
capped samples also get a per-metric count/min/max/sum. One row per line, sorted keys.

Files of a multi-file group (an ORION matrix beside its summary, a fio log beside its JSON) are
ingested alone too: the twin records what the file yields by itself.
"""

from __future__ import annotations

import argparse
import atexit
import csv
import datetime as dt
import decimal
import difflib
import functools
import hashlib
import json
import math
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from iolab import batch, db

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
GOLDEN = ROOT / "tests" / "golden"
MANIFEST = CORPUS / "MANIFEST.tsv"
CAP = 40  # full rows kept per table (fewer past BUDGET characters, at least FLOOR); the rest is counted and hashed
BUDGET = 12_000
FLOOR = 5
EDGE = 3  # first/last points kept per series
SUFFIX = ".expected.json"
# tables written by the ingest's own bookkeeping, dumped specially or not at all (point_files: the
# Parquet file's name and compressed size depend on ids and the compressor, the digest covers it)
SPECIAL = {"source_files", "source_history", "runs", "series", "point_files"}


def corpus_files() -> list[Path]:
    """Every real corpus file (MANIFEST.tsv and dot files excluded), in path order."""
    return sorted(
        p for p in CORPUS.rglob("*") if p.is_file() and p.name != MANIFEST.name and not p.name.startswith(".")
    )


def twin_path(path: Path) -> Path:
    return GOLDEN / path.relative_to(CORPUS).parent / (path.name + SUFFIX)


def manifest() -> dict[str, dict[str, str]]:
    """MANIFEST.tsv rows by local_path (relative to tests/corpus)."""
    with open(MANIFEST, newline="", encoding="utf-8") as fh:
        return {r["local_path"]: r for r in csv.DictReader(fh, delimiter="\t")}


# ---- the database: one migrated template, copied for each file ------------------------------------


@functools.cache
def _template() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="iolab-golden-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    con = db.open_db(folder / "template.duckdb")
    con.execute("CHECKPOINT")
    con.close()
    return folder / "template.duckdb"


@functools.cache
def _schema() -> dict[str, tuple[str, ...]]:
    """Columns (in order) of every base table, from the template; the schema is fixed for a run."""
    con = db.connect(_template(), read_only=True)
    try:
        rows = con.execute("""SELECT c.table_name, c.column_name FROM information_schema.columns c
            JOIN information_schema.tables t USING (table_schema, table_name)
            WHERE t.table_type = 'BASE TABLE' AND c.table_schema = 'main'
            ORDER BY c.table_name, c.ordinal_position""").fetchall()
    finally:
        con.close()
    schema: dict[str, tuple[str, ...]] = {}
    for table, col in rows:
        schema[table] = schema.get(table, ()) + (col,)
    return schema


def _tables() -> list[str]:
    """Tables with a source_id column (the tool tables, series_samples ...), bookkeeping ones excluded."""
    return [t for t, cols in _schema().items() if "source_id" in cols and t not in SPECIAL]


def _filled(con, sid: int) -> list[str]:
    """The tables of _tables() holding rows of ``sid`` (one query instead of one per table)."""
    sql = " UNION ALL ".join(
        f"SELECT '{t}' AS t FROM (SELECT 1 FROM \"{t}\" WHERE source_id = $sid LIMIT 1)" for t in _tables()
    )
    return sorted(t for (t,) in con.execute(sql, {"sid": sid}).fetchall())


# ---- values as stable JSON -------------------------------------------------------------------------


def _plain(v: Any) -> Any:
    if isinstance(v, (dt.datetime, dt.date, dt.time)):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):
        return str(v)
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, bytes):
        return v.hex()
    return v


def _line(row: dict) -> str:
    """One row as JSON; null columns are left out (the schema names them; a new column changes no twin)."""
    return json.dumps({k: _plain(v) for k, v in row.items() if v is not None}, sort_keys=True, ensure_ascii=False)


def _rows(con, sql: str, params: list) -> list[dict]:
    cur = con.execute(sql, params)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def _columns(con, table: str) -> list[str]:
    return list(_schema()[table])


def _order(cols: list[str]) -> str:
    """line_no first (the file's own order) where a table has it, then every column."""
    first = [c for c in ("line_no", "run_key", "column_no", "sample_no") if c in cols]
    return ", ".join(f'"{c}"' for c in first + [c for c in cols if c not in first])


def _table(con, table: str, sid: int, run_keys: dict, series_cols: dict) -> list[str]:
    cols = [c for c in _columns(con, table) if c != "source_id"]
    rows = _rows(
        con,
        f'SELECT {", ".join(chr(34) + c + chr(34) for c in cols)} FROM "{table}" '
        f"WHERE source_id = ? ORDER BY {_order(cols)}",
        [sid],
    )
    return [_line(_stable(r, run_keys, series_cols)) for r in rows]


def _stable(row: dict, run_keys: dict, series_cols: dict) -> dict:
    if "run_id" in row:
        row["run_key"] = run_keys.get(row.pop("run_id"))
    if "series_id" in row:
        row["column_no"] = series_cols.get(row.pop("series_id"))
    return row


# ---- one file --------------------------------------------------------------------------------------


def _samples(con, sid: int) -> list[str]:
    cols = [c for c in _columns(con, "samples") if c != "run_id"]
    rows = _rows(
        con,
        f"""SELECT r.run_key, {", ".join("s." + c for c in cols)} FROM samples s
        JOIN runs r USING (run_id) WHERE r.source_id = ?
        ORDER BY r.run_id, {", ".join("s." + c for c in cols)}""",
        [sid],
    )
    return [_line(r) for r in rows]


def _points(con, sid: int, series_cols: dict) -> list[str]:
    """Per series: count, min, max, exact sum (math.fsum), first and last EDGE points."""
    files = con.execute("SELECT file_name FROM point_files WHERE source_id = ?", [sid]).fetchall()
    if not files:
        return []
    path = db.store_dir(con) / files[0][0]
    digest: dict[int, dict] = {}
    cur = con.execute(  # a point names its series by column_no; its series_id is the file's id + column_no
        "SELECT ? + column_no AS series_id, sample_no, value FROM read_parquet(?) ORDER BY series_id, sample_no",
        [sid, str(path)],
    )
    while chunk := cur.fetchmany(100_000):
        for series_id, sample_no, value in chunk:
            d = digest.get(series_id)
            if d is None:
                d = digest[series_id] = {"values": [], "first": [], "last": [], "count": 0}
            d["count"] += 1
            if value is not None and not math.isnan(value):
                d["values"].append(value)
            if len(d["first"]) < EDGE:
                d["first"].append([sample_no, value])
            d["last"] = (d["last"] + [[sample_no, value]])[-EDGE:]
    out = []
    for series_id in sorted(digest, key=lambda s: series_cols.get(s, s)):
        d = digest.pop(series_id)
        vals = d.pop("values")
        out.append(
            _line(
                {
                    "column_no": series_cols.get(series_id),
                    "count": d["count"],
                    "values": len(vals),
                    "min": min(vals, default=None),
                    "max": max(vals, default=None),
                    "sum": math.fsum(vals),
                    "first": d["first"],
                    "last": d["last"] if d["count"] > EDGE else [],
                }
            )
        )
    return out


def _capped(lines: list[str]) -> dict:
    keep, size = 0, 0
    while keep < min(CAP, len(lines)) and (keep < FLOOR or size + len(lines[keep]) <= BUDGET):
        size += len(lines[keep])
        keep += 1
    if keep == len(lines):
        return {"count": len(lines), "rows": lines}
    rest = hashlib.sha256("\n".join(lines[keep:]).encode()).hexdigest()
    return {"count": len(lines), "rows": lines[:keep], "rest_sha256": rest}


def _by_metric(con, sid: int) -> list[str]:
    """Samples per (scope, metric, unit): count, min, max, exact sum. Written when samples are capped."""
    rows = con.execute(
        """SELECT s.scope, s.metric, s.unit, s.value FROM samples s JOIN runs r USING (run_id)
                          WHERE r.source_id = ? ORDER BY ALL""",
        [sid],
    ).fetchall()
    groups: dict[tuple, list[float]] = {}
    for scope, metric, unit, value in rows:
        groups.setdefault((scope, metric, unit), []).append(value)
    out = []
    for (scope, metric, unit), vals in groups.items():
        v = [x for x in vals if x is not None and not math.isnan(x)]
        out.append(
            _line(
                {
                    "scope": scope,
                    "metric": metric,
                    "unit": unit,
                    "count": len(vals),
                    "min": min(v, default=None),
                    "max": max(v, default=None),
                    "sum": math.fsum(v),
                }
            )
        )
    return out


def dump(path: Path) -> dict:
    """What ``path`` yields when ingested alone: {section: {count, rows (JSON lines)[, rest_sha256]}}."""
    work = Path(tempfile.mkdtemp(prefix="iolab-golden-one-"))
    try:
        shutil.copy(_template(), work / "g.duckdb")
        con = db.connect(work / "g.duckdb")
        try:
            con.execute("SET threads = 1")  # row order inside equal keys never depends on scheduling
            outcome = batch.ingest_paths(con, [path], files=[(path.parent, path)]).outcomes[0]
            return _sections(con, outcome)
        finally:
            con.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _sections(con, outcome: batch.Outcome) -> dict:
    src = _rows(
        con,
        """SELECT content_id AS source_id, status, format, parser, parser_version, tool_version, error, error_line,
                               size_bytes, sha256 FROM source_files ORDER BY source_id""",
        [],
    )
    for r in src:  # the list of supported formats grows with every parser: not part of what the file yields
        r["error"] = r["error"] and re.sub(r"\(supported: [^)]*\)", "(supported: see ingest/formats)", r["error"])
    head = {"outcome": outcome.status, "counts": {k: n for k, n in outcome.counts.items() if n}}
    if outcome.status == "ingested" and outcome.reason:  # what the ingest says of a file it loaded
        head["said"] = outcome.reason
    if not src:  # unreadable: nothing was recorded
        return {"file": head | {"reason": outcome.reason}}
    sid = src[0].pop("source_id")  # the content id: the source_id of the file's parsed rows
    run_keys = dict(con.execute("SELECT run_id, run_key FROM runs WHERE source_id = ?", [sid]).fetchall())
    series_cols = dict(con.execute("SELECT series_id, column_no FROM series WHERE source_id = ?", [sid]).fetchall())
    out = {
        "file": head | src[0],
        "runs": _capped(_table(con, "runs", sid, run_keys, series_cols)),
        "samples": _capped(_samples(con, sid)),
        "series": _capped(_table(con, "series", sid, run_keys, series_cols)),
        "series_points": _capped(_points(con, sid, series_cols)),
    }
    if "rest_sha256" in out["samples"]:
        out["samples_by_metric"] = _capped(_by_metric(con, sid))
    for t in _filled(con, sid):
        out[t] = _capped(_table(con, t, sid, run_keys, series_cols))
    return {k: v for k, v in out.items() if k == "file" or v["count"]}


def render(path: Path) -> str:
    """The twin's text: JSON, one table row per line, sections in a fixed order."""
    sections = dump(path)
    out = [
        "{",
        f'  "corpus_file": {json.dumps(path.relative_to(CORPUS).as_posix())},',
        f'  "file": {_line(sections.pop("file"))},',
        '  "tables": {',
    ]
    names = sorted(sections)
    for i, name in enumerate(names):
        s = sections[name]
        out.append(f"    {json.dumps(name)}: {{")
        out.append(f'      "count": {s["count"]},')
        if "rest_sha256" in s:
            out.append(f'      "rest_sha256": {json.dumps(s["rest_sha256"])},')
        out.append('      "rows": [')
        out.extend(f"        {r}{',' if j < len(s['rows']) - 1 else ''}" for j, r in enumerate(s["rows"]))
        out.append("      ]")
        out.append("    }" + ("," if i < len(names) - 1 else ""))
    out += ["  }", "}", ""]
    return "\n".join(out)


def diff(path: Path) -> str | None:
    """None when the twin matches; otherwise a unified diff (twin -> fresh output) or why it is missing."""
    twin = twin_path(path)
    fresh = render(path)
    if not twin.exists():
        return f"{twin.relative_to(ROOT)} is missing: run `make golden` and review it"
    old = twin.read_text(encoding="utf-8")
    if old == fresh:
        return None
    return "".join(
        difflib.unified_diff(
            old.splitlines(True), fresh.splitlines(True), str(twin.relative_to(ROOT)), "fresh ingest", n=1
        )
    )


def _select(args: list[str]) -> list[Path]:
    if not args:
        return corpus_files()
    chosen = {p.resolve() for a in args for p in ([Path(a)] if Path(a).is_file() else Path(a).rglob("*"))}
    return [p for p in corpus_files() if p.resolve() in chosen]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.golden", description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the twins instead of writing them")
    ap.add_argument("paths", nargs="*", help="corpus files or folders (default: the whole corpus)")
    a = ap.parse_args(argv)
    files = _select(a.paths)
    bad = 0
    for p in files:
        if a.check:
            d = diff(p)
            if d:
                bad += 1
                print(d)
            continue
        twin = twin_path(p)
        text = render(p)
        if not twin.exists() or twin.read_text(encoding="utf-8") != text:
            twin.parent.mkdir(parents=True, exist_ok=True)
            twin.write_text(text, encoding="utf-8")
            print(f"wrote {twin.relative_to(ROOT)}")
    if not a.paths:  # a twin whose corpus file is gone
        known = {twin_path(p) for p in files}
        for t in sorted(GOLDEN.rglob("*" + SUFFIX)) if GOLDEN.exists() else []:
            if t not in known:
                bad += a.check
                if a.check:
                    print(f"{t.relative_to(ROOT)} has no corpus file")
                else:
                    t.unlink()
                    print(f"removed {t.relative_to(ROOT)} (its corpus file is gone)")
    if not a.check:  # what `iolab formats` says about the real files, shipped with the package
        from iolab.cli import formats

        formats.write_seen()
    print(f"{len(files)} corpus files, {bad} differ" if a.check else f"{len(files)} corpus files")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
