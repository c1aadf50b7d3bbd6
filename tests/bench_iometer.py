"""Iometer results ingest: wall time and peak memory on a large multi-session file, against a floor.

    python -m tests.bench_iometer [--mb 200] [--keep]

The file repeats the 59 sessions of the real Iometer 1.1.0 multi-test file
tests/corpus/iometer/quarch__testfile.csv until it reaches --mb, each copy's numbers varied by up
to 5 % (tests/bench_scaling.grow: no session repeats another, which would compress unusually well).
`iolab ingest FILE --db TMP` runs in a child process; its peak RSS comes from os.wait4.
Floor, same run, same way: a child that reads the file and hashes it (the bytes must be read once).
Bar (issue 31): peak RSS under 1 GB, or under 5x the file above 200 MB, printed as met / NOT met.
No test asserts on these figures: the machines are shared and noisy. Results go to
<cache>/bench-iometer.json (IOLAB_BENCH_DIR, default /tmp/iolab-bench).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def make_file(path: Path, mb: float) -> int:
    """The quarch sample's sessions, perturbed, to about ``mb`` MB; returns how many sessions."""
    from tests.bench_scaling import CASES, grow

    grow(next(c for c in CASES if c.fmt == "iometer-results-csv"), mb, path)
    with path.open("rb") as f:
        return sum(line.startswith(b"'Test Type") for line in f)


def run_child(args: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of a command (tests.bench.measure: not inflated by this process)."""
    from tests.bench import measure

    os.environ["PYTHONPATH"] = str(ROOT)
    wall, rss = measure(args, cwd=ROOT)
    return wall, rss / 2**20


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=200, help="size of the generated file in MB (default 200)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    a = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="bench-iometer-"))
    src = tmp / "multi-session.csv"
    copies = make_file(src, a.mb)
    size_mb = src.stat().st_size / 1e6
    print(f"file: {size_mb:.1f} MB, {copies} sessions (quarch__testfile.csv's 59, perturbed)")
    floor = run_child(
        [
            sys.executable,
            "-c",
            "import hashlib,sys; hashlib.sha256(open(sys.argv[1],'rb').read()).hexdigest()",
            str(src),
        ]
    )
    ingest = run_child([sys.executable, "-m", "iolab", "ingest", str(src), "--db", str(tmp / "bench.duckdb")])
    print(f"{'':24}{'wall s':>10}{'peak RSS MB':>14}{'RSS / file':>12}")
    for label, (wall, rss) in (("floor (read + sha256)", floor), ("iolab ingest", ingest)):
        print(f"{label:24}{wall:10.1f}{rss:14.0f}{rss / size_mb:12.1f}")
    bounded = ingest[1] < 1024 or (size_mb > 200 and ingest[1] < 5 * size_mb)
    print(
        f"Iometer {size_mb:.0f} MB: peak RSS {ingest[1]:.0f} MB, {'met' if bounded else 'NOT met'} (under 1 GB, "
        f"or 5x a file above 200 MB); {ingest[0] / floor[0]:.1f}x its floor's time"
    )
    from tests.bench import save

    cache = Path(os.environ.get("IOLAB_BENCH_DIR", "/tmp/iolab-bench"))
    cache.mkdir(parents=True, exist_ok=True)
    result = {"file_mb": size_mb, "floor_s": floor[0], "iolab_s": ingest[0], "iolab_rss_mb": ingest[1]}
    save(cache / "bench-iometer.json", {"iometer": {**result, "ratio": ingest[0] / floor[0]}})
    if not a.keep:
        for p in sorted(tmp.rglob("*"), reverse=True):
            p.rmdir() if p.is_dir() else p.unlink()
        tmp.rmdir()


if __name__ == "__main__":
    main()
