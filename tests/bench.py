"""esxtop ingest benchmark: throughput, memory and size against Polars' own baseline, same run.

    make bench            (python -m tests.bench [--gb 1.0] [--small-mb 100] [--reps 3])
    make bench-lake       (python -m tests.bench --lake ...: the Parquet lake, see tests/bench_lake.py)

Generates esxtop-shaped files (5,000 quoted columns, `"MM/DD/YYYY HH:MM:SS"` stamps, two-decimal
values; the generator is this file, the data is not committed) of 100 MB and 1 GB, then runs, each
in its own process so peak RSS is its own:
  baseline  Polars scan_csv (explicit schema) -> unpivot -> sink_parquet
  iolab     `iolab ingest <file>` into a new database (sniff, hash, parse, store, commit)
one after the other, three times over (--reps), and prints the throughput ratio of the medians
(iolab / baseline), each pair's, and the median of the pairs (the figure the bars judge), peak
RSS, time linearity 100 MB -> 1 GB, and stored size / CSV size. Last, the real 7,632-column corpus
capture's ingest time (in-process, interpreter start excluded). Then each capture's first report
(`iolab report` of a database holding it, into a new folder) against its own ingest, --reps pairs.
The bars (issue 4): ratio >= 0.8, RSS < 1.5 GB, stored <= 1/3 of the CSV; issues 15 and 31: >= 1.0 at
1 GB and >= 0.9 at 100 MB; issue 54: the 1 GB capture's report in at most twice its ingest's time,
peak RSS under 1.5 GB.
Results go to <cache>/bench-esxtop.json, and the ratios of the run before are printed beside today's.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
COLUMNS = 5000
REAL = ROOT / "tests" / "corpus" / "esxtop" / "rachsharp__small-esxtop-data.csv"


def _real() -> tuple[list[str], np.ndarray]:
    """Header cells and values (3 samples) of the real 7,632-column capture."""
    import csv

    with open(REAL, newline="") as f:
        rows = list(csv.reader(f))
    names = [h for h in rows[0][1:] if h]
    vals = np.array([[float(v) for v in r[1 : len(names) + 1]] for r in rows[1:]])
    return names, vals


def header() -> str:
    names, _ = _real()
    return ",".join(['"(PDH-CSV 4.0) (UTC)(0)"'] + [f'"{n}"' for n in names[:COLUMNS]])


def generate(path: Path, size_bytes: int, seed: int = 7) -> None:
    """esxtop-shaped: the real capture's first 5,000 counters, each row resampled from that
    counter's real values with +-5 % noise (zeros stay zero, two decimals, every cell quoted)."""
    rng = np.random.default_rng(seed)
    _, vals = _real()
    base = vals[:, :COLUMNS]
    with open(path, "w", newline="\n") as fh:
        fh.write(header() + "\n")
        t0 = 1_524_566_952  # 04/24/2018 10:49:12 UTC
        row = 0
        while fh.tell() < size_bytes:
            pick = base[rng.integers(0, base.shape[0], size=200)]
            block = np.round(pick * (1 + rng.normal(0, 0.05, size=pick.shape)), 2)
            for r in block:
                ts = time.strftime("%m/%d/%Y %H:%M:%S", time.gmtime(t0 + 5 * row))
                fh.write(f'"{ts}",' + ",".join(f'"{v:.2f}"' for v in r) + "\n")
                row += 1


BASELINE = """
import sys, polars as pl
src, out = sys.argv[1], sys.argv[2]
with open(src) as fh:
    n = fh.readline().count('","') + 1
schema = {"ts": pl.String, **{f"c{i}": pl.Float64 for i in range(1, n)}}
lf = pl.scan_csv(src, has_header=False, skip_rows=1, schema=schema, quote_char='"')
lf.unpivot(index="ts").sink_parquet(out)
"""


# A child's ru_maxrss starts from its parent's RSS at fork (Linux keeps the high-water mark across
# exec), so a big benchmark process would inflate it: a small launcher starts the command and
# reports the command's own wall time and peak RSS.
LAUNCHER = """
import json, os, subprocess, sys, time
t = time.perf_counter()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
_, status, usage = os.wait4(p.pid, 0)
wall = time.perf_counter() - t
err = p.stderr.read().decode()[-2000:]
print(json.dumps({"wall": wall, "rss": usage.ru_maxrss * 1024, "code": os.waitstatus_to_exitcode(status), "err": err}))
"""


def measure(cmd: list[str], cwd: Path | None = None) -> tuple[float, int]:
    """(wall seconds, peak RSS bytes) of a command, measured by a small launcher process."""
    import json

    out = subprocess.run([sys.executable, "-c", LAUNCHER, *cmd], cwd=cwd, capture_output=True, text=True, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    if r["code"] != 0:
        raise SystemExit(f"{cmd[:3]} failed: {r['err']}")
    return r["wall"], r["rss"]


def timed_runs(fn, runs: int = 3) -> tuple[list[float], list[float]]:
    """(wall seconds, user + system seconds of the child processes) of each of ``runs`` calls of
    ``fn``, in order (the benches of pages and views time their commands and queries with it)."""
    import resource

    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return walls, cpus


def median_times(fn, runs: int = 3) -> tuple[float, float]:
    """(median wall seconds, median child CPU seconds) of ``runs`` calls of ``fn`` (timed_runs)."""
    walls, cpus = timed_runs(fn, runs)
    return statistics.median(walls), statistics.median(cpus)


def run_pair(csv: Path, work: Path, reps: int = 3) -> dict:
    """Baseline and iolab, one after the other, ``reps`` times: the machine's speed drifts by 20 %
    and more from minute to minute here, so the figures are the medians (each iolab run ingests into
    a new database)."""
    runs = []
    for _ in range(reps):
        out = work / "baseline.parquet"
        b_wall, b_rss = measure([sys.executable, "-c", BASELINE, str(csv), str(out)])
        db = work / "bench.duckdb"
        i_wall, i_rss = measure([str(ROOT / ".venv" / "bin" / "iolab"), "ingest", str(csv), "--db", str(db)], cwd=ROOT)
        stored = db.stat().st_size + sum(f.stat().st_size for f in (work / "bench.duckdb.points").rglob("*.parquet"))
        runs.append((b_wall, b_rss, i_wall, i_rss, stored, out.stat().st_size))
        for f in (out, db, work / "bench.duckdb.wal"):
            f.unlink(missing_ok=True)
        shutil.rmtree(work / "bench.duckdb.points", ignore_errors=True)
    b_wall, b_rss, i_wall, i_rss, stored, out_size = (statistics.median(col) for col in zip(*runs))
    return {
        "csv_mb": csv.stat().st_size / 1e6,
        "baseline_s": b_wall,
        "baseline_rss_mb": b_rss / 2**20,
        "iolab_s": i_wall,
        "iolab_rss_mb": i_rss / 2**20,
        "ratio": b_wall / i_wall,
        "pair_ratios": [round(r[0] / r[2], 3) for r in runs],
        "pair_median": statistics.median(r[0] / r[2] for r in runs),
        "stored_mb": stored / 1e6,
        "stored_share": stored / csv.stat().st_size,
        "baseline_parquet_mb": out_size / 1e6,
    }


def report_pairs(csv: Path, work: Path, reps: int = 3) -> dict:
    """The capture's report against its own ingest, ``reps`` times: each time an `iolab ingest` into a
    new database, then `iolab report` of it into a new folder (the first report: it validates), each
    in its own process (wall time, peak RSS: the largest of the command's processes, its kernels and
    the validation's process included). The bar (issue 54): the report in at most twice the ingest's
    time, under 1.5 GB."""
    iolab = str(ROOT / ".venv" / "bin" / "iolab")
    (work / "data").mkdir()
    capture = work / "data" / csv.name  # a data root of its own: the reports go beside it, never in it
    try:
        os.link(csv, capture)
    except OSError:
        shutil.copyfile(csv, capture)
    runs = []
    for i in range(reps):
        db, out = work / f"report-{i}.duckdb", work / f"report-{i}"
        i_wall, _ = measure([iolab, "ingest", str(capture), "--db", str(db)], cwd=ROOT)
        r_wall, r_rss = measure([iolab, "report", "--db", str(db), "--out", str(out)], cwd=ROOT)
        pages = len(list(out.glob("*/*.html")))
        runs.append((i_wall, r_wall, r_rss, pages))
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(db.with_name(db.name + ".points"), ignore_errors=True)
        db.unlink(missing_ok=True)
    return {
        "ingest_s": statistics.median(r[0] for r in runs),
        "report_s": statistics.median(r[1] for r in runs),
        "report_rss_mb": max(r[2] for r in runs) / 2**20,
        "pages": runs[0][3],
        "pair_ratios": [round(r[1] / r[0], 3) for r in runs],
        "pair_median": statistics.median(r[1] / r[0] for r in runs),
    }


def corpus_file_seconds() -> float:
    sys.path.insert(0, str(ROOT))
    from iolab import batch, db

    real = ROOT / "tests" / "corpus" / "esxtop" / "rachsharp__small-esxtop-data.csv"
    with tempfile.TemporaryDirectory() as d:
        con = db.open_db(Path(d) / "c.duckdb")
        t = time.perf_counter()
        rep = batch.ingest_paths(con, [real])
        took = time.perf_counter() - t
        assert rep.outcomes[0].status == "ingested", rep.outcomes[0].reason
        con.close()
    return took


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gb", type=float, default=1.0, help="size of the large file (default 1 GB)")
    ap.add_argument("--small-mb", type=int, default=100, help="size of the small file (default 100 MB)")
    ap.add_argument(
        "--cache",
        default=os.environ.get("IOLAB_BENCH_DIR", "/tmp/iolab-bench"),
        help="where generated files are kept between runs",
    )
    ap.add_argument("--reps", type=int, default=3, help="baseline/iolab pairs per size (medians are reported)")
    ap.add_argument("--lake", action="store_true", help="the lake benchmark instead (tests/bench_lake.py)")
    ap.add_argument("--lab-mb", type=float, default=20, help="--lake: MB of esxtop CSV the generated lab stands for")
    ap.add_argument("--runs", type=int, default=200, help="--lake: esxtop runs in the generated lab")
    a = ap.parse_args(argv)
    if a.lake:
        from tests import bench_lake

        return bench_lake.main(a.lab_mb, a.runs, Path(a.cache))
    cache = Path(a.cache)
    cache.mkdir(parents=True, exist_ok=True)
    small_label, large_label = f"{a.small_mb}MB", f"{a.gb:g}GB"
    sizes = {small_label: a.small_mb * 1_000_000, large_label: int(a.gb * 1e9)}
    results = {}
    for label, size in sizes.items():
        f = cache / f"esxtop-{COLUMNS}col-{label}.csv"
        if not f.exists() or f.stat().st_size < size:
            print(f"generating {f} ...", flush=True)
            t = time.perf_counter()
            generate(f, size)
            print(f"  {f.stat().st_size / 1e6:.0f} MB in {time.perf_counter() - t:.0f} s", flush=True)
        with tempfile.TemporaryDirectory(dir=cache) as work:
            results[label] = r = run_pair(f, Path(work), a.reps)
        print(
            f"{label:>6}: csv {r['csv_mb']:.0f} MB | baseline {r['baseline_s']:.1f} s, {r['baseline_rss_mb']:.0f} MiB RSS"
            f" | iolab {r['iolab_s']:.1f} s, {r['iolab_rss_mb']:.0f} MiB RSS | throughput ratio iolab/baseline "
            f"{r['ratio']:.2f} (medians; pairs {', '.join(f'{x:.2f}' for x in r['pair_ratios'])})"
            f" | stored {r['stored_mb']:.0f} MB = {r['stored_share']:.2f} of the CSV",
            flush=True,
        )
    reports = {}
    for label in sizes:
        with tempfile.TemporaryDirectory(dir=cache) as work:
            reports[label] = r = report_pairs(cache / f"esxtop-{COLUMNS}col-{label}.csv", Path(work), a.reps)
        print(
            f"{label:>6}: iolab report {r['report_s']:.1f} s ({r['pages']} pages), peak RSS {r['report_rss_mb']:.0f} MiB"
            f" | its ingest {r['ingest_s']:.1f} s | report / ingest {r['pair_median']:.2f} (median of the pairs "
            f"{', '.join(f'{x:.2f}' for x in r['pair_ratios'])}; load {os.getloadavg()[0]:.1f})",
            flush=True,
        )
    small, large = results[small_label], results[large_label]
    per_mb = [r["iolab_s"] / r["csv_mb"] for r in (small, large)]
    print(
        f"linearity: {large['csv_mb'] / small['csv_mb']:.1f}x the data took {large['iolab_s'] / small['iolab_s']:.1f}x"
        f" the time (s/MB {per_mb[0]:.4f} -> {per_mb[1]:.4f})"
    )
    real = corpus_file_seconds()
    print(f"real 7,632-column corpus capture: {real:.2f} s in-process")
    for label, r, bar in ((large_label, large, 1.0), (small_label, small, 0.9)):
        print(
            f"esxtop ingest {label}: iolab {r['iolab_s']:.2f} s against its floor, Polars' own pipeline, "
            f"{r['baseline_s']:.2f} s (medians); throughput ratio, median of the {len(r['pair_ratios'])} pairs: "
            f"{r['pair_median']:.2f}, {'met' if r['pair_median'] >= bar else 'NOT met'} (>= {bar})"
        )
    bars = {
        "ratio >= 0.8": large["pair_median"] >= 0.8,
        f"{large_label} ratio >= 1.0": large["pair_median"] >= 1.0,
        f"{small_label} ratio >= 0.9": small["pair_median"] >= 0.9,
        "RSS < 1.5 GB": large["iolab_rss_mb"] < 1536,
        "stored <= 1/3": large["stored_share"] <= 1 / 3,
        "corpus file < 2 s": real < 2.0,
        f"{large_label} report <= 2x its ingest": reports[large_label]["pair_median"] <= 2.0,
        f"{large_label} report RSS < 1.5 GB": reports[large_label]["report_rss_mb"] < 1536,
    }
    print("bars: " + ", ".join(f"{k}: {'met' if v else 'NOT met'}" for k, v in bars.items()))
    save(cache / "bench-esxtop.json", {**results, "corpus_file_s": real, "reports": reports})
    return 0


def save(path: Path, result: dict) -> None:
    """Write this run's figures for the next run; print the earlier ratios beside today's."""
    old = earlier(path)
    for k, r in result.items():
        if isinstance(r, dict) and "ratio" in r and isinstance(old.get(k), dict):
            print(f"{k:>6}: ratio {r['ratio']:.2f} (earlier run {old[k]['ratio']:.2f})")
    keep(path, result)


def earlier(path: Path) -> dict:
    """The figures the run before wrote to ``path`` (keep), to print beside this run's; {} at first."""
    import json

    return json.loads(path.read_text()) if path.exists() else {}


def keep(path: Path, result: dict, said: str = "") -> None:
    """Write this run's figures to ``path`` for the next run, and say where (after ``said``)."""
    import json

    path.write_text(json.dumps(result, indent=1))
    print(f"{said}results in {path}")


if __name__ == "__main__":
    sys.exit(main())
