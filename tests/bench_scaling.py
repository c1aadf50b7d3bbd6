"""Parser scaling: each text format's real corpus file grown to 1x, 2x and 4x a base size, parsed in a
child process; time and peak RSS per size, the 4x/1x time ratio, and a verdict (linear: ratio <= 4.4).

    python -m tests.bench_scaling [--scale 1.0]

--scale multiplies every base size (0.1 keeps a run to well under a minute). A file grows by repeating
its records after the header (or whole documents, for fio JSON) with the decimals of each copy's numbers
varied, so no two copies are the same bytes. Peak RSS comes from os.wait4 on the child.
No test asserts on these figures: the machines are shared and noisy.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"
LINEAR = 4.4

# format folder, real file, header lines kept once (None: the whole file is one record), base size in MB
CASES = (
    ("fio-json", "louwrentius__fio-plot__fio316_randrw-1-16.json", None, 2.0, r"(?<=: )\d+(?=[,\n])"),
    ("fio-terse", "mcgrof__fio-tests__v3_fio31_4jobs_randrw_emptyname.terse", 0, 2.0, r"\d+\.\d+"),
    ("fio-log", "GoogleCloudPlatform__PerfKitBenchmarker__fio217_clat_hist.1.log", 0, 2.0, r"(?<=, )\d+(?=,)"),
    ("perfmon", "jg185342__DataCollector01.csv", 1, 2.0, r"\d+\.\d+"),
    ("elbencho-csv", "glennklockwood__elbencho-test__2.1-0_cgpu_08threads.csv", 1, 2.0, r"\d+\.\d+"),
)


def grow(src: Path, header: int | None, mb: float, numbers: str, out: Path) -> int:
    """Write ``out``: ``src`` grown to about ``mb`` MB, each copy's numbers varied; returns its size."""
    lines = src.read_text(encoding="utf-8", errors="surrogateescape").splitlines(keepends=True)
    head, body = ([], lines) if header is None else (lines[:header], lines[header:])
    block = "".join(body) if body[-1].endswith("\n") else "".join(body) + "\n"
    rng, pat = random.Random(7), re.compile(numbers)
    with out.open("w", encoding="utf-8", errors="surrogateescape") as f:
        f.write("".join(head))
        size = 0
        while size < mb * 1e6:
            copy = pat.sub(lambda m: _vary(m.group(), rng), block)
            f.write(copy)
            size += len(copy)
    return out.stat().st_size


def _vary(number: str, rng: random.Random) -> str:
    """The same number with its last digit changed: same width, same kind, a different value."""
    return number[:-1] + str(rng.randrange(10))


def child(path: str) -> None:
    """Parse ``path`` with the format that claims it; print runs, samples, time-series points and
    seconds (of parsing alone, a lazy frame of points collected)."""
    from ingest import registry

    data = Path(path).read_bytes()
    t = time.perf_counter()
    mod = registry.sniff(data[: registry.HEAD_BYTES], path)[0]
    res = registry.parse(mod, data, Path(path).name)
    points = res.points.collect() if hasattr(res.points, "collect") else res.points  # a lazy frame does its work here
    print(f"{len(res.runs)} {len(res.samples)} {0 if points is None else len(points)} {time.perf_counter() - t:.3f}")


def measure(path: Path) -> tuple[float, int, str]:
    """(seconds, peak RSS in MB, what the child said) for one parse in a child process."""
    p = subprocess.Popen(
        [sys.executable, "-m", "tests.bench_scaling", "--child", str(path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert p.stdout is not None and p.stderr is not None
    out, err = p.stdout.read(), p.stderr.read()
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        return float("nan"), usage.ru_maxrss // 1024, (err.strip().splitlines() or ["failed"])[-1]
    runs, samples, points, secs = out.split()
    return float(secs), usage.ru_maxrss // 1024, f"{runs} runs, {samples} samples, {points} points"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every base size (default 1.0)")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        return child(args.child)
    print(f"{'format':<14}{'size':>6}{'MB':>8}{'s':>9}{'RSS MB':>8}  runs / ratio / verdict")
    with tempfile.TemporaryDirectory(prefix="iolab-scaling-") as tmp:
        for fmt, name, header, base, numbers in CASES:
            times = {}
            for k in (1, 2, 4):
                out = Path(tmp) / f"{k}x-{name}"
                size = grow(CORPUS / fmt / name, header, base * args.scale * k, numbers, out)
                secs, rss, said = measure(out)
                times[k] = secs
                print(f"{fmt:<14}{k:>5}x{size / 1e6:>8.1f}{secs:>9.2f}{rss:>8}  {said}", flush=True)
                out.unlink()
            ratio = times[4] / times[1] if times[1] > 0 else float("nan")
            verdict = "linear" if ratio <= LINEAR else ("NOT LINEAR" if ratio > LINEAR else "no figure")
            print(f"{fmt:<14}{'4x/1x':>6}{'':>8}{ratio:>9.2f}{'':>8}  {verdict} (at most {LINEAR})", flush=True)


if __name__ == "__main__":
    main()
