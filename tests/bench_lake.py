"""Lake benchmark: `iolab lake export` and the Spark views on a generated lab, against Spark's own
plain Parquet scan of the same lake in the same run.

    make bench-lake                   (python -m tests.bench --lake [--lab-mb 20] [--runs 200])
    make bench-lake LAB_MB=10000 RUNS=10000     the 10 GB esxtop + 10,000 Iometer runs setting

The lab: one esxtop capture of --lab-mb MB (tests/bench.py's generator: the real capture's first
5,000 counters, resampled) and --runs Iometer result files (the real adisireesha results.csv, each
with its own test description so every file is distinct content), spread over 10 studies and 4
systems. Steps, each timed: ingest (for the record), export to a fresh lake, then in ONE local
SparkSession: the baseline (every table of the lake read in full, `spark.read.parquet(...)` written
to the no-op sink) and the views (`iolab lake views --engine spark`). Throughput = lake bytes / s;
the ratio views/baseline says what the SQL costs over merely reading the data.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IOMETER = ROOT / "tests" / "corpus" / "iometer" / "adisireesha__results.csv"


def make_lab(where: Path, lab_mb: float, runs: int) -> Path:
    from tests.bench import generate

    lab = where / f"lab-{lab_mb:g}MB-{runs}runs"
    if (lab / ".complete").exists():
        return lab
    shutil.rmtree(lab, ignore_errors=True)
    (lab / "esxtop").mkdir(parents=True)
    (lab / "esxtop" / "iolab.toml").write_text('study = "bench-esxtop"\nsystem = "esx-host"\n')
    generate(lab / "esxtop" / "capture.csv", int(lab_mb * 1e6))
    text = IOMETER.read_text()
    assert "'Test Type,Test Description\n0,\n" in text
    for i in range(runs):
        d = lab / f"study-{i % 10}" / f"sys-{i % 4}"
        if not d.exists():
            d.mkdir(parents=True)
            (d / "iolab.toml").write_text(f'study = "bench-study-{i % 10}"\nsystem = "system {i % 4}"\n')
        (d / f"run-{i:05d}.csv").write_text(
            text.replace("'Test Type,Test Description\n0,\n", f"'Test Type,Test Description\n0,bench run {i}\n")
        )
    (lab / ".complete").touch()
    return lab


def _size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*.parquet"))


def main(lab_mb: float, runs: int, cache: Path) -> int:
    sys.path.insert(0, str(ROOT))
    from ingest import batch, db, lake

    cache.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    lab = make_lab(cache, lab_mb, runs)
    print(f"lab {lab}: {lab_mb:g} MB esxtop + {runs} Iometer runs ({time.perf_counter() - t:.0f} s to generate)")
    with tempfile.TemporaryDirectory(dir=cache) as work:
        work = Path(work)
        t = time.perf_counter()
        con = db.open_db(work / "lab.duckdb")
        rep = batch.ingest_paths(con, [lab])
        con.close()
        bad = [o for o in rep.outcomes if o.status not in ("ingested",)]
        print(f"ingest: {len(rep.outcomes)} files in {time.perf_counter() - t:.1f} s ({len(bad)} not ingested)")
        t = time.perf_counter()
        m = lake.export(work / "lab.duckdb", work / "lake")
        export_s = time.perf_counter() - t
        size = _size(work / "lake")
        rows = sum(m["row_counts"].values())
        print(
            f"export: {size / 1e6:.1f} MB of Parquet, {rows:,} rows ({m['row_counts']['measurements']:,} "
            f"measurements, {m['row_counts']['points']:,} points) in {export_s:.1f} s = "
            f"{rows / export_s:,.0f} rows/s, {size / 1e6 / export_s:.1f} MB/s"
        )
        spark = lake.spark_session(app="iolab bench")
        spark.sparkContext.setLogLevel("ERROR")
        try:
            t = time.perf_counter()
            for table in lake.lake_tables(work / "lake"):
                spark.read.parquet(str(work / "lake" / table)).write.format("noop").mode("overwrite").save()
            scan_s = time.perf_counter() - t
            t = time.perf_counter()
            counts = lake.views(work / "lake", "spark", spark=spark)
            views_s = time.perf_counter() - t
        finally:
            spark.stop()
    print(
        f"spark baseline (plain scan of every table): {scan_s:.1f} s = {rows / scan_s:,.0f} rows/s, "
        f"{size / 1e6 / scan_s:.2f} MB/s"
    )
    print(
        f"spark views ({len(counts)} views): {views_s:.1f} s = {rows / views_s:,.0f} rows/s, "
        f"{size / 1e6 / views_s:.2f} MB/s; throughput ratio views/baseline {scan_s / views_s:.2f}"
    )
    return 0
