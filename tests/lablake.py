"""The generated lab of `make bench-lake`: RUNS esxtop captures, LAB_MB of esxtop CSV in all, as a
database ready for `iolab lake export`. Used by tests/bench_lake.py.

Ingesting 10,000 generated CSV files would measure the parser again (make bench does that), so
the lab is built in two steps:

1. TEMPLATES esxtop CSV files of LAB_MB / RUNS bytes each are written (the real corpus capture's
   counter names, TEMPLATE_COLUMNS of them, a different slice per template; each value resampled
   from that counter's real values with +-5 % noise, as tests/bench.py's generator) and ingested
   by iolab's own parser, so every table and store file is what iolab writes for such a capture.
2. Each further run is a copy of one template's rows with its own bytes' ids, place, study and system,
   its samples an hour later per run, and its own numbers: every point of the store file is
   scaled by a factor of the run (0.5-1.5) and its own +-5 % noise (zeros stay zero), written by
   DuckDB one store file at a time and the table rows in chunks of CHUNK runs, so memory stays
   bounded whatever the size. A copy's size_bytes is its template's: the CSV it stands for.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

TEMPLATES = 4
TEMPLATE_COLUMNS = 400
CHUNK = 500
STUDIES, SYSTEMS = 10, 4


def _write_template(path: Path, t: int, size_bytes: int) -> None:
    from tests.bench import _real

    names, vals = _real()
    cols = slice(t * TEMPLATE_COLUMNS, (t + 1) * TEMPLATE_COLUMNS)
    names, base = names[cols], vals[:, cols]
    rng = np.random.default_rng(100 + t)
    with open(path, "w", newline="\n") as fh:
        fh.write(",".join(['"(PDH-CSV 4.0) (UTC)(0)"'] + [f'"{n}"' for n in names]) + "\n")
        t0, row = 1_524_566_952 + 86_400 * t, 0
        while fh.tell() < size_bytes or row < 20:
            r = base[rng.integers(0, base.shape[0])]
            r = np.round(r * (1 + rng.normal(0, 0.05, size=r.shape)), 2)
            ts = time.strftime("%m/%d/%Y %H:%M:%S", time.gmtime(t0 + 5 * row))
            fh.write(f'"{ts}",' + ",".join(f'"{v:.2f}"' for v in r) + "\n")
            row += 1


def _ingest_templates(lab: Path, db_path: Path, per_run: int) -> None:
    from iolab import batch, db

    for t in range(TEMPLATES):
        d = lab / f"template-{t}"
        d.mkdir(parents=True)
        (d / "iolab.toml").write_text(f'study = "lab study {t % STUDIES}"\nsystem = "esx host {t % SYSTEMS}"\n')
        _write_template(d / "capture.csv", t, per_run)
    con = db.open_db(db_path)
    try:
        rep = batch.ingest_paths(con, [lab])
    finally:
        con.close()
    bad = [o for o in rep.outcomes if o.status != "ingested"]
    if bad or len(rep.outcomes) != TEMPLATES:
        raise SystemExit(f"lab templates not ingested: {[(o.status, str(o)) for o in bad]}")


# the rows of run k (template t): its bytes (a sha256 of its own), ids derived as iolab derives them
# (ingest/store/ids.py: the content id from the sha256, the place id from the path and sha256),
# place, labels and time; {k0} {k1} bound the chunk
_CLONES = """CREATE OR REPLACE TEMP TABLE clones AS
SELECT k, t, sha, (('0x' || substr(sha, 1, 16))::UBIGINT >> 2)::BIGINT AS sid,
       (('0x' || substr(sha256('place' || chr(31) || abs_path || chr(31) || sha), 1, 16))::UBIGINT >> 1)::BIGINT AS pid,
       path, abs_path, shift, study, system
FROM (SELECT k, k % {templates} AS t, sha256(m.sha256 || k) AS sha, m.path || '#run-' || k AS path,
             m.abs_path || '#run-' || k AS abs_path, to_hours(k + 1) AS shift,
             'lab study ' || ((k + {templates}) % {studies}) AS study, 'esx host ' || ((k + {templates}) % {systems}) AS system
      FROM range({k0}, {k1}) r(k) JOIN tmpl_sources m ON m.t = k % {templates})"""
_TABLES = {
    "source_history": """h.* REPLACE (c.pid AS source_id, c.sid AS content_id, c.path AS path, c.abs_path AS abs_path,
        c.sha AS sha256, c.study AS study, c.system AS system, json_object('study', c.study, 'system', c.system) AS labels)""",
    "runs": """h.* REPLACE (c.sid + (h.run_id - m.tsid) AS run_id, c.sid AS source_id, h.started_at + c.shift AS started_at,
        h.ended_at + c.shift AS ended_at)""",
    "pdh_captures": "h.* REPLACE (c.sid AS source_id)",
    "series": "h.* REPLACE (c.sid + h.column_no AS series_id, c.sid AS source_id)",
    "series_samples": """h.* REPLACE (c.sid AS source_id, h.ts + c.shift AS ts,
        strftime(h.ts + c.shift, '%m/%d/%Y %H:%M:%S') AS ts_text)""",
}


def _copy_rows(con, k0: int, k1: int) -> None:
    con.execute(_CLONES.format(templates=TEMPLATES, studies=STUDIES, systems=SYSTEMS, k0=k0, k1=k1))
    for table, cols in _TABLES.items():
        key = "content_id" if table == "source_history" else "source_id"
        con.execute(
            f"INSERT INTO {table} SELECT {cols} FROM {table} h JOIN tmpl_sources m ON h.{key} = m.tsid "
            "JOIN clones c ON c.t = m.t"
        )


def _copy_points(con, store: Path, files: list[str]) -> None:
    rows = con.execute("SELECT k, t, sid FROM clones ORDER BY k").fetchall()
    for k, t, sid in rows:
        dest = store / f"{sid}.parquet"
        con.execute(
            f"""COPY (SELECT column_no, sample_no, ts + to_hours({k} + 1) AS ts,
                       round(value * {0.5 + (k * 0.618034) % 1.0} * (1 + 0.05 * (random() * 2 - 1)), 2) AS value
                     FROM read_parquet('{files[t]}'))
                TO '{dest}' (FORMAT parquet, COMPRESSION zstd)"""
        )
    con.execute("""INSERT INTO point_files (source_id, file_name, points, bytes, has_times)
        SELECT c.sid, c.sid || '.parquet', p.points, 0, true FROM clones c
        JOIN tmpl_sources m ON c.t = m.t JOIN point_files p ON p.source_id = m.tsid""")
    for _, _, sid in rows:
        size = (store / f"{sid}.parquet").stat().st_size
        con.execute("UPDATE point_files SET bytes = ? WHERE source_id = ?", [size, sid])


def make(where: Path, lab_mb: float, runs: int) -> Path:
    """The lab's database (kept in ``where`` for later runs with the same size); its path."""
    from iolab import db

    lab = where / f"lab-{lab_mb:g}MB-{runs}runs"
    db_path = lab / "lab.duckdb"
    if (lab / ".complete").exists():
        return db_path
    import shutil

    shutil.rmtree(lab, ignore_errors=True)
    _ingest_templates(lab / "csv", db_path, max(1, int(lab_mb * 1e6 / runs)))
    con = db.open_db(db_path)
    try:
        store = db.store_dir(con)
        con.execute("""CREATE TEMP TABLE tmpl_sources AS
            SELECT row_number() OVER (ORDER BY content_id) - 1 AS t, content_id AS tsid, sha256, path, abs_path
            FROM source_history ORDER BY content_id""")
        files = [
            str(store / f)
            for (f,) in con.execute(
                "SELECT file_name FROM point_files p JOIN tmpl_sources m ON m.tsid = p.source_id ORDER BY m.t"
            ).fetchall()
        ]
        for k0 in range(0, max(0, runs - TEMPLATES), CHUNK):
            k1 = min(k0 + CHUNK, runs - TEMPLATES)
            con.execute("BEGIN")
            _copy_rows(con, k0, k1)
            _copy_points(con, store, files)
            con.execute("COMMIT")
        db.refresh_points_view(con)  # series_points lists the store's files: the copies' too
    finally:
        con.close()
    (lab / ".complete").touch()
    return db_path
