"""Query, report and start-up benchmark: each figure against its floor measured in the same run.

    make bench            (python -m tests.bench_views [--mb 200] [--files 1000] [--renders 3])

  series_points count     vs count(*) over the raw Parquet store
  series_summary          vs the same aggregates (count, avg, p95, max, min per series) over the raw store
  device_io               vs the same raw aggregate (device_io reads series_summary)
  report page             per page of `iolab report --force` over every demo study (one kernel
                          for the render, validation included) vs an empty notebook run start to
                          finish in its own kernel
  iolab --help            vs `python -c "import duckdb"`
  first ingest 1000 files `iolab ingest` of 1,000 Iometer files (variants of the real 241 KB
                          sqlserverio file, 241 MB) into a fresh database, peak RSS, vs parsing them
                          alone in one process
  re-ingest 1000 unchanged  the same files again vs hashing them all
  validation              every Great Expectations suite over both databases above (the capture's
                          points, the 1,000 files' measurements) vs pulling the suites' frames alone

Bars (issue 31), each against its floor in the same run, printed as met / NOT met: the three
time-series views at most 3x the raw Parquet, the first ingest at most 3x parsing the files alone,
the re-ingest at most 2x hashing them. The queries run on a read-only connection, as the reports'.
The capture is generated like tests/bench.py's (esxtop-shaped, 5,000 columns). Results go to
<cache>/bench-views.json; when an earlier result is there, each ratio is printed beside the old one.
Timings are medians of three runs. No test asserts on them: these machines are noisy.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def median_time(fn, runs: int = 3) -> float:
    from tests.bench import median_times

    return median_times(fn, runs)[0]


def query_figures(db_file: Path, what: str) -> dict[str, tuple[float, float, str]]:
    from iolab import db

    con = db.connect(db_file, read_only=True)  # as the reports read it
    store = f"'{db.store_dir(con)}/*.parquet'"
    raw_agg = f"""SELECT sum(n), sum(a), sum(p), sum(x), sum(m) FROM (
        SELECT filename, column_no, count(value) n, avg(value) a, quantile_cont(value, 0.95) p, max(value) x, min(value) m
        FROM read_parquet({store}, filename = true) GROUP BY filename, column_no)"""  # a series: a file's column
    run = lambda sql: lambda: con.execute(sql).fetchall()  # noqa: E731
    figures = {
        "series_points count": (
            median_time(run("SELECT count(*) FROM series_points")),
            median_time(run(f"SELECT count(*) FROM read_parquet({store})")),
            f"{what}; floor: count(*) over the raw Parquet",
        ),
        "series_summary": (
            median_time(run("SELECT sum(samples), sum(avg), sum(p95), sum(max), sum(min) FROM series_summary")),
            median_time(run(raw_agg)),
            f"{what}; floor: the same aggregates over the raw Parquet",
        ),
        "device_io": (
            median_time(run("SELECT count(*), sum(iops_avg) FROM device_io")),
            median_time(run(raw_agg)),
            f"{what}; floor: the raw aggregate",
        ),
    }
    con.close()
    return figures


def report_figures(runs: int = 3) -> tuple[float, float, int]:
    """(seconds per page of `iolab report --force` on every demo study, the median of ``runs`` renders
    (one moves by 10 % on a shared machine), seconds for an empty notebook in a fresh kernel, pages).
    The render's fixed costs (snapshot, validation) are in the per page."""
    import nbformat

    from iolab import batch, db
    from iolab.reports import render

    with tempfile.TemporaryDirectory() as d:
        dbf = Path(d) / "r.duckdb"
        con = db.open_db(dbf)
        batch.ingest_paths(con, [ROOT / "data" / "samples"])
        con.close()
        out = Path(d) / "out"
        render_all = [str(ROOT / ".venv" / "bin" / "iolab"), "report", "--db", str(dbf), "--out", str(out), "--force"]
        took = median_time(lambda: subprocess.run(render_all, check=True, stdout=subprocess.DEVNULL), runs=runs)
        pages = len(list(out.glob("*/*.html")))
        per_page = took / max(pages, 1)

    def empty() -> None:
        with render.Pages() as p:
            p.execute(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("pass")]))

    return per_page, median_time(empty), pages


def startup_figures() -> tuple[float, float]:
    iolab = [str(ROOT / ".venv" / "bin" / "iolab"), "--help"]
    floor = [sys.executable, "-c", "import duckdb"]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    return (
        median_time(lambda: subprocess.run(iolab, check=True, **quiet)),
        median_time(lambda: subprocess.run(floor, check=True, **quiet)),
    )


def _child(args: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS MB) of a command (tests.bench.measure: not inflated by this process)."""
    from tests.bench import measure

    wall, rss = measure(args, cwd=ROOT)
    return wall, rss / 2**20


def ingest_figures(work: Path, n: int = 1000) -> dict[str, tuple[float, float, str]]:
    """First ingest of ``n`` Iometer files (distinct variants of the real sqlserverio file, ~241 KB
    each, as a lab's folder of runs) by the iolab command against parsing them alone in one process;
    re-ingest of the unchanged files against hashing them."""
    from iolab import batch, db
    from iolab.formats import iometer

    src = (ROOT / "tests" / "corpus" / "iometer" / "sqlserverio__iometeroutput.csv").read_bytes()
    folder = work / "many" / "s"
    folder.mkdir(parents=True)
    for i in range(n):  # distinct contents: one IOps cell differs
        (folder / f"r{i:04d}.csv").write_bytes(src.replace(b"1196.489673", f"{1196 + i / 1000:.6f}".encode(), 1))
    files = sorted(folder.iterdir())
    mb = sum(f.stat().st_size for f in files) / 1e6
    parse = median_time(lambda: [iometer.parse(f.read_bytes(), f.name) for f in files], runs=1)
    dbf = work / "many.duckdb"
    first, rss = _child([str(ROOT / ".venv" / "bin" / "iolab"), "ingest", str(folder.parent), "--db", str(dbf)])
    con = db.open_db(dbf)
    again = median_time(lambda: batch.ingest_paths(con, [folder.parent]))
    hashing = median_time(lambda: [batch.hash_file(f) for f in files])
    con.close()
    size = f"{n} files, {mb:.0f} MB"
    return {
        f"first ingest {n} files": (first, parse, f"{size}; iolab ingest peak RSS {rss:.0f} MB; floor: parse alone"),
        f"re-ingest {n} unchanged": (again, hashing, f"{size}; floor: sha256 of every file"),
    }


def validation_figure(dbfs: list[Path]) -> tuple[float, float, str]:
    """Every suite run over each database (as `iolab validate`, nothing stored) against pulling the
    suites' frames from DuckDB: what Great Expectations adds to reading the data it checks."""
    from iolab import db
    from iolab.validation import run

    run.Checker()  # GX imported once, outside both timings
    took = floor = 0.0
    rows = 0
    for f in dbfs:
        con = db.connect(f, read_only=True)
        t = time.perf_counter()
        rows += sum(len(run.frame(con, m.QUERY)) for m in run.suites())
        floor += time.perf_counter() - t
        t = time.perf_counter()
        run.validate(con, store=False)
        took += time.perf_counter() - t
        con.close()
    return took, floor, f"{rows:,} rows; floor: the suites' frames pulled from DuckDB"


# The bars of issue 31: a figure at most this many times its floor (measured in the same run).
BARS = {
    "series_points count": 3.0,
    "series_summary": 3.0,
    "device_io": 3.0,
    "first ingest": 3.0,
    "re-ingest": 2.0,
}


def verdict(name: str, ratio: float) -> str:
    """'met (<= bar)' or 'NOT met (<= bar)' for a figure with a bar; '' for the others."""
    bar = next((b for prefix, b in BARS.items() if name.startswith(prefix)), None)
    if bar is None:
        return ""
    return f"{'met' if ratio <= bar else 'NOT met'} (<= {bar:g}x)"


def main(argv: list[str] | None = None) -> int:
    from tests.bench import generate

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=200, help="size of the generated esxtop capture (default 200 MB)")
    ap.add_argument("--files", type=int, default=1000, help="Iometer files of the first ingest (default 1,000)")
    ap.add_argument("--renders", type=int, default=3, help="renders of the demo pages (their median is used)")
    ap.add_argument("--cache", default=os.environ.get("IOLAB_BENCH_DIR", "/tmp/iolab-bench"))
    a = ap.parse_args(argv)
    cache = Path(a.cache)
    cache.mkdir(parents=True, exist_ok=True)
    csv = cache / f"esxtop-views-{a.mb}MB.csv"
    if not csv.exists():
        print(f"generating {csv} ...", flush=True)
        generate(csv, a.mb * 1_000_000)
    from iolab import batch, db

    figures: dict[str, tuple[float, float, str]] = {}
    with tempfile.TemporaryDirectory(dir=cache) as work:
        dbf = Path(work) / "v.duckdb"
        con = db.open_db(dbf)
        batch.ingest_paths(con, [csv])
        con.close()
        figures.update(query_figures(dbf, f"{csv.stat().st_size / 1e6:.0f} MB esxtop capture"))
        figures.update(ingest_figures(Path(work), a.files))
        figures["validation"] = validation_figure([dbf, Path(work) / "many.duckdb"])
    per_page, empty, pages = report_figures(a.renders)
    figures["report page"] = (per_page, empty, f"iolab report --force, {pages} demo pages; floor: an empty notebook")
    figures["iolab --help"] = (*startup_figures(), 'floor: python -c "import duckdb"')

    from tests.bench import earlier, keep

    old_file = cache / "bench-views.json"
    old = earlier(old_file)
    print(f"{'figure':<26} {'iolab s':>9} {'floor s':>9} {'ratio':>7} {'(earlier)':>9}  {'verdict':<18} what")
    result = {}
    for name, (took, floor, what) in figures.items():
        ratio = took / floor if floor else float("inf")
        result[name] = {"seconds": took, "floor_seconds": floor, "ratio": ratio, "what": what}
        before = f"({old[name]['ratio']:.2f})" if name in old else ""
        print(f"{name:<26} {took:9.3f} {floor:9.3f} {ratio:7.2f} {before:>9}  {verdict(name, ratio):<18} {what}")
    keep(old_file, result, f"capture {csv.stat().st_size / 1e6:.0f} MB; ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
