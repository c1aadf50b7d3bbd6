"""Parser scaling: every format's real file grown to 1x, 2x and 4x a base size and ingested, each in
its own process; time and peak RSS per size, the ratios between sizes, and verdicts.

    make bench   (python -m tests.bench_scaling [--scale 1.0] [--only iometer,fio-json])
    python -m tests.bench_scaling --gz 300   (the esxtop capture grown to 300 MB, plain and as .gz)

A file grows by repeating its records (the lines between a kept head and a kept tail; for Iometer
results, the real file's sessions, each with its own test type and access specs) with every number of
each copy varied by up to +-5 % (same decimals, so the same kind of value: no copy is the same bytes
and no session repeats another, which would compress unusually well). Formats with no real file
(NO_REAL_FILE in tests/test_golden.py) grow the sample iolab ships, and say so.

A format whose 4x file took more than 4.4x the 1x time has both measured again and the faster of
each pair kept (these shared machines slow down by 20 % and more for a minute at a time).
Each child runs `iolab ingest`'s own pipeline (batch.ingest_paths, the collector set as the command
sets it) into a new database and reports the ingest's seconds (interpreter start and imports left
out); its peak RSS comes from os.wait4. Verdicts: linear when the 4x file takes at most 4.4x the 1x
time; memory bounded when peak RSS stays under 1 GB, or under 5x the file above 200 MB.
--scale multiplies every base size (0.1 keeps a run to a few minutes). Last, a row for the report:
the esxtop capture grown to 1x, 2x and 4x 25 MB, `iolab report` of a database holding each (time and
peak RSS by capture size, the same verdicts; --only report runs it alone). No test asserts on these
figures: the machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
LINEAR = 4.4  # 4x the input in at most 4.4x the time
RSS_CAP_MB, RSS_PER_FILE, BIG_MB = 1024, 5, 200
DECIMAL = r"(?<![\w.:/-])\d+\.\d+(?![\w.:/-])"  # 12.345, not a time, date, version or name
ANY = r"(?<![\w.:/-])\d+(?:\.\d+)?(?![\w.:/-])"  # integers too


@dataclass(frozen=True)
class Case:
    fmt: str  # the format module's FORMAT
    path: Path
    head: int  # lines kept once at the top
    tail: int  # lines kept once at the bottom
    numbers: str = DECIMAL  # what is varied in each copy
    mb: float = 8.0  # the 1x size
    note: str = ""
    rename: str = ""  # names that must differ between copies: each copy's get "-<copy>" appended
    renumber: str = ""  # keys that must differ: replaced by a running count
    fix: Callable[[str, int], str] | None = None  # the tail, told how many copies there are
    # one factor for every varied number of a copy: a format that checks its parts against the totals it
    # prints (issue 55) still agrees with itself, its counts (not varied) and its rates scaled alike
    together: bool = False


C, F, S = CORPUS, ROOT / "tests" / "fixtures", ROOT / "data" / "samples"
CASES = [
    Case(
        "iometer-results-csv",
        C / "iometer/quarch__testfile.csv",
        0,
        0,
        DECIMAL,
        25,
        "its 59 sessions, perturbed (rates by one factor a copy, counts kept: ALL sums its rows)",
        together=True,
    ),
    Case("iometer-instantaneous-csv", C / "iometer/quarch__Iometer_insttestfile.csv", 0, 0, ANY, note="sessions"),
    Case(
        "fio-json",
        C / "fio-json/louwrentius__fio-plot__fio316_randrw-1-16.json",
        0,
        0,
        r'(?<!"iops" : )' + DECIMAL,  # iops is 1000 x total_ios / runtime: kept with them
        rename=r'(?<="jobname" : ")[^"]+',  # each copy another run, not a --status-interval snapshot
        note="documents",
    ),
    Case("fio-terse", C / "fio-terse/mcgrof__fio-tests__v3_fio31_4jobs_randrw_emptyname.terse", 0, 0),
    Case("fio-log", C / "fio-log/GoogleCloudPlatform__PerfKitBenchmarker__fio217_clat_hist.1.log", 0, 0, ANY),
    Case("pdh-csv", C / "perfmon/jg185342__DataCollector01.csv", 1, 0, note="perfmon; esxtop: tests/bench.py"),
    Case("elbencho-csv", C / "elbencho-csv/glennklockwood__elbencho-test__2.1-0_cgpu_08threads.csv", 1, 0),
    Case("elbencho-text", C / "elbencho-text/glennklockwood__elbencho-test__2.1-0_cgpu_08threads.out", 0, 0),
    Case(
        "diskspd-text",
        C / "diskspd-text/BasilKisel__trying-out-diskspd__2.0.x_azure_2runs.txt",
        0,
        0,
        r"(?!)",
        note="runs; counts and rates must agree: numbers kept",
    ),
    Case(
        "array-perf-stats",
        C / "array-perf/rtjust__Dell-MD-Powervault-MDTechView__md3200i_performanceStatistics.csv",
        0,
        0,
        ANY,
        rename=r"(?m)^[^,\r\n]+(?=, \w{3} \w{3} )",
        note="virtual disks renamed per copy",
    ),
    Case("vdbench-flatfile", C / "vdbench-flatfile/hero0906__jiaoben__50406_fsd.flatfile.html", 55, 0),
    Case(
        "vdbench-summary",
        C / "vdbench-summary/hero0906__jiaoben__50406_fsd.summary.html",
        33,
        0,
        note="its long RD, each copy an RD of its own (intervals restart)",
    ),
    Case(
        "iozone-text",
        C / "iozone-text/ilkermanap__iozoneparser__3.465_auto_odirect.txt",
        27,
        2,
        ANY,
        renumber=r"(?m)^ +\d+(?= +\d+ +\d)",
        note="its rows, file sizes renumbered",
    ),
    Case("jetstress-log", F / "jetstress-log/handmade-jetstresscmd-2013-performance.txt", 0, 0, note="hand-made"),
    Case("orion-console", C / "orion-console/ghmd-unidentified__orion19c_simple_bmtfile-acfs_console.txt", 17, 0),
    Case(
        "orion-summary-txt",
        C / "orion/databasejournal__11gtest_summary.txt",
        15,
        4,
        ANY,
        renumber=r"(?<=/dev/sd)\w+",
        fix=lambda tail, copies: tail.replace("4 FILEs found.", f"{4 * copies} FILEs found."),
        note="its LUN list",
    ),
    Case(
        "orion-matrix-csv",
        C / "orion/cnblogs-hftian__mytest_20190329_1057_iops.csv",
        1,
        0,
        ANY,
        renumber=r"(?m)^ *\d+(?=,|\r?$)",
    ),
    Case("storage-array-profile", C / "profile/storcs__ibm_DS4500.txt", 6374, 4, note="its ENCLOSURES section"),
    Case(
        "diskspd-xml",
        C / "diskspd-xml/GoogleCloudPlatform__PerfKitBenchmarker__2.0.21a.xml",
        66,
        1,
        note="time spans (ThreadCount must count each span's threads)",
    ),
    Case("jetstress-config-xml", C / "jetstress/jacobklitzke__JetstressConfig.xml", 39, 25, note="thresholds"),
    Case(
        "vscsistats-csv",
        F / "vscsistats/handmade-vscsistats-c.csv",
        0,
        0,
        r"(?!)",
        renumber=r"(?<=worldGroupID,)\d+",
        note="hand-made; counts must agree: VMs renumbered, numbers kept",
    ),
    Case("criteria-csv", S / "criteria/criteria.csv", 1, 0, rename=r"(?m)^[a-z_0-9]+(?=,)", note="iolab's own table"),
    Case("published-results-csv", S / "ds4300-vs-fastt200-2004/ds4300_vs_fastt200_2004.csv", 1, 0),
    Case(
        "jetstress-html-report",
        F / "jetstress/Performance_2009_10_16_11_49_42_RECONSTRUCTED-esg-ds5020-js01.html",
        0,
        0,
        note="reconstructed",
    ),
]


def grow(case: Case, mb: float, out: Path, seed: int = 7) -> int:
    """Write ``out``: the case's file with its records repeated to about ``mb`` MB, each copy's
    numbers varied; returns the size in bytes."""
    raw = case.path.read_bytes()
    newline = "\r\n" if b"\r\n" in raw[:65536] else "\n"
    lines = raw.decode("utf-8", errors="surrogateescape").splitlines()
    head, body = lines[: case.head], lines[case.head : len(lines) - case.tail]
    tail = lines[len(lines) - case.tail :] if case.tail else []
    block = newline.join(body) + newline
    rng, pat, counter = random.Random(seed), re.compile(case.numbers), iter(range(1 << 62))
    with out.open("w", encoding="utf-8", errors="surrogateescape", newline="") as f:
        f.write(newline.join(head) + newline if head else "")
        size = copies = 0
        while size < mb * 1e6:
            factor = 1000 + rng.choice([k for k in range(-50, 51) if k]) if case.together else None  # per mille
            copy = pat.sub(lambda m, f=factor: vary(m.group(), rng, f), block)
            if case.rename and copies:
                copy = re.sub(case.rename, lambda m, n=copies: f"{m.group()}-{n}", copy)
            if case.renumber:
                copy = re.sub(case.renumber, lambda m: str(next(counter)), copy)
            f.write(copy)
            size, copies = size + len(copy), copies + 1
        end = newline.join(tail) + newline if tail else ""
        f.write(case.fix(end, copies) if case.fix else end)
    return out.stat().st_size


def vary(number: str, rng: random.Random, per_mille: int | None = None) -> str:
    """``number`` times 1 +- up to 5 %, written with as many decimals; 0 stays 0, and integers too
    short to be a measurement (a count of workers, a queue depth) or too long (a sentinel) stay. With
    ``per_mille`` a decimal is times per_mille / 1000 exactly, three decimals more: numbers scaled alike
    keep the sums a file states of them."""
    whole, _, frac = number.partition(".")
    if float(number) == 0 or (not frac and not 3 <= len(whole) <= 15):
        return number
    if per_mille is not None and frac:
        return format(Decimal(number) * per_mille / 1000, "f")
    value = float(number) * (1 + rng.uniform(-0.05, 0.05))
    return f"{value:.{len(frac)}f}" if frac else str(max(1, round(value)))


def child(path: str) -> None:
    """Ingest ``path`` into a new database as `iolab ingest` does (its collector setting, its
    pipeline); print the outcome, rows stored and seconds (imports and start-up left out)."""
    import gc

    gc.set_threshold(100_000)  # as ingest/cli sets it for the command's process
    from iolab import batch, db

    with tempfile.TemporaryDirectory(prefix="iolab-scaling-db-") as d:
        con = db.open_db(Path(d) / "s.duckdb")
        t = time.perf_counter()
        report = batch.ingest_paths(con, [Path(path)])
        secs = time.perf_counter() - t
        con.close()
    o = report.outcomes[0]
    rows = sum((o.counts or {}).values())
    said = o.status if o.status == "ingested" else f"{o.status}: {(o.reason or '')[:120]}"
    print(f"{secs:.3f} {rows} {said}")


def measure(path: Path) -> tuple[float, float, str]:
    """(seconds, peak RSS in MB, what the child said) of one ingest in a child process (its peak
    RSS from os.wait4, so this process's own size does not count)."""
    with tempfile.TemporaryFile() as err:
        p = subprocess.Popen(
            [sys.executable, "-m", "tests.bench_scaling", "--child", str(path)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
        assert p.stdout is not None
        out = p.stdout.read()
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        lines = err.read().decode(errors="replace").strip().splitlines()
    rss = usage.ru_maxrss / 1024
    if p.returncode or not out.strip():
        return float("nan"), rss, "failed: " + (lines or ["?"])[-1][:120]
    secs, rows, said = out.split(maxsplit=2)
    return float(secs), rss, f"{said.strip()}, {int(rows):,} rows"


def verdicts(times: dict[int, float], rss: dict[int, float], sizes: dict[int, float]) -> str:
    """Linear (4x/1x time within LINEAR) and bounded (peak RSS under the cap, or under RSS_PER_FILE
    times a file above BIG_MB), as words for the table."""
    ratio = times[4] / times[1] if times[1] > 0 else float("nan")
    linear = "linear" if ratio <= LINEAR else "NOT LINEAR" if ratio > LINEAR else "no figure"
    over = [k for k in rss if not (rss[k] < RSS_CAP_MB or (sizes[k] > BIG_MB and rss[k] < RSS_PER_FILE * sizes[k]))]
    bounded = "memory bounded" if not over else "MEMORY NOT BOUNDED at " + ", ".join(f"{k}x" for k in over)
    return f"{linear} (4x/1x {ratio:.2f}, at most {LINEAR}); {bounded}"


def run_case(case: Case, scale: float, tmp: Path) -> str:
    """Grow, ingest and print one format's three sizes; returns its verdicts."""
    times, rss, sizes = {}, {}, {}
    for k in (1, 2, 4):
        out = tmp / f"{k}x-{case.path.name}"
        sizes[k] = grow(case, case.mb * scale * k, out) / 1e6
        times[k], rss[k], said = measure(out)
        out.unlink()
        step = "" if k == 1 else f"{times[k] / times[k // 2]:.2f}"
        print(
            f"{case.fmt:<26}{k:>3}x{sizes[k]:>8.1f}{times[k]:>9.2f}{step:>7}{rss[k]:>8.0f}{rss[k] / sizes[k]:>7.1f}  {said}",
            flush=True,
        )
    if not times[4] <= LINEAR * times[1]:  # one slow minute on a shared machine: once more, the faster of two
        for k in (1, 4):
            out = tmp / f"{k}x-{case.path.name}"
            grow(case, case.mb * scale * k, out)
            again, rss_again, _ = measure(out)
            out.unlink()
            print(f"{case.fmt:<26}{k:>3}x{'':>8}{again:>9.2f}{'':>7}{rss_again:>8.0f}{'':>7}  measured again")
            times[k], rss[k] = min(times[k], again), max(rss[k], rss_again)
    verdict = verdicts(times, rss, sizes)
    print(f"{'':<26}{'':>4}{'':>8}{'':>9}{'':>7}{'':>8}{'':>7}  {verdict}" + (f"; {case.note}" if case.note else ""))
    return verdict


ESXTOP = Case("pdh-csv", C / "esxtop/rachsharp__small-esxtop-data.csv", 1, 0, note="esxtop, the real capture grown")


REPORT_MB = 25.0  # the 1x capture of the report's row


def report_row(scale: float, tmp: Path) -> str:
    """The report's row: the real esxtop capture grown to 1x, 2x and 4x REPORT_MB, each ingested into a
    new database, then `iolab report` of it measured (its first: it validates) in its own process;
    its seconds and peak RSS (the largest of the command's processes) by capture size, and verdicts."""
    from tests.bench import measure as launched

    iolab = str(ROOT / ".venv" / "bin" / "iolab")
    times, rss, sizes = {}, {}, {}
    (tmp / "report-data").mkdir(exist_ok=True)  # the data root: the reports go beside it, never in it
    for k in (1, 2, 4):
        capture, dbf = tmp / "report-data" / f"{k}x-report.csv", tmp / f"{k}x-report.duckdb"
        sizes[k] = grow(ESXTOP, REPORT_MB * scale * k, capture) / 1e6
        subprocess.run([iolab, "ingest", str(capture), "--db", str(dbf)], check=True, stdout=subprocess.DEVNULL)
        times[k], peak = launched([iolab, "report", "--db", str(dbf), "--out", str(tmp / f"{k}x-out")], cwd=ROOT)
        rss[k] = peak / 2**20
        step = "" if k == 1 else f"{times[k] / times[k // 2]:.2f}"
        print(
            f"{'esxtop report':<26}{k:>3}x{sizes[k]:>8.1f}{times[k]:>9.2f}{step:>7}{rss[k]:>8.0f}{rss[k] / sizes[k]:>7.1f}"
            "  `iolab report` of a database holding it",
            flush=True,
        )
    verdict = verdicts(times, rss, sizes)
    print(f"{'':<26}{'':>4}{'':>8}{'':>9}{'':>7}{'':>8}{'':>7}  {verdict}; the report's memory by capture size")
    return verdict


def run_gz(mb: float, tmp: Path) -> None:
    """The real esxtop capture grown to ``mb`` MB, ingested plain and as a .gz (issue 40: a .gz is
    decompressed in a stream into the same bounded parser, so its peak RSS stays near the plain file's)."""
    import gzip
    import shutil

    plain = tmp / "capture.csv"
    size = grow(ESXTOP, mb, plain) / 1e6
    packed = tmp / "capture.csv.gz"
    with plain.open("rb") as src, gzip.open(packed, "wb", compresslevel=6) as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    print(f"{'esxtop capture':<26}{'MB':>8}{'s':>9}{'RSS MB':>8}  outcome")
    for label, path in (("plain", plain), (f"gz ({packed.stat().st_size / 1e6:.0f} MB)", packed)):
        secs, rss, said = measure(path)
        print(f"{label:<26}{size:>8.1f}{secs:>9.2f}{rss:>8.0f}  {said}", flush=True)
        path.unlink()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every base size (0.1: a few minutes)")
    ap.add_argument("--only", default="", help="comma-separated formats (FORMAT names, or report) to run")
    ap.add_argument("--gz", type=float, metavar="MB", help="only the esxtop capture grown to MB, plain and as a .gz")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        child(a.child)
        return 0
    if a.gz:
        with tempfile.TemporaryDirectory(prefix="iolab-scaling-") as tmp:
            run_gz(a.gz, Path(tmp))
        return 0
    wanted = {f for f in a.only.split(",") if f}
    cases = [c for c in CASES if not wanted or c.fmt in wanted]
    print(f"{'format':<26}{'size':>4}{'MB':>8}{'s':>9}{'x prev':>7}{'RSS MB':>8}{'/file':>7}  outcome")
    with tempfile.TemporaryDirectory(prefix="iolab-scaling-") as tmp:
        results = {c.fmt: run_case(c, a.scale, Path(tmp)) for c in cases}
        if not wanted or "report" in wanted:
            results["esxtop report"] = report_row(a.scale, Path(tmp))
    bad = [f for f, v in results.items() if "NOT" in v]
    print(
        f"scaling: {len(results) - len(bad)} of {len(results)} formats linear and bounded"
        + (f"; not: {', '.join(bad)}" if bad else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
