"""Ingest of many small files: where a file's milliseconds go, against the floor (hash + parse alone).

    make bench   (python -m tests.bench_small_files [--runs 10000])

The study is tests/bigstudy.py's (--runs fio JSON reports of four systems, each its own bytes). Three
figures, each in a process of its own:

  ingest      `iolab ingest DIR --db NEW` start to finish (its worker processes parse while the main one
              stores), per file: what a user waits
  floor       each file hashed (files.hash_file, as the ingest hashes it) and parsed by the parser that
              claims it (registry.claim, registry.parse), in one process, imports left out: the work no
              ingest can skip
  where       the ingest's own pipeline (batch.ingest_paths, in this process, parsing here) with its
              steps timed: stat, sidecar and hash; the database's "seen it before?"; the claim;
              reading and parsing; storing (rows written, a transaction per 64 files); the rest (the
              walk, the plan, each file's outcome)

and the ratio ingest / floor. No bar (issue 54 item 4 asks for the figures); no test asserts on them.
Results go to <cache>/bench-small-files.json, the run before printed beside.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IOLAB = ROOT / ".venv" / "bin" / "iolab"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def floor(folder: Path) -> tuple[int, float]:
    """(files, seconds) to hash and parse every file below ``folder`` as the ingest does, no database."""
    from iolab import registry
    from iolab.files import hash_file

    paths = sorted(p for p in folder.rglob("*.json"))
    t = time.perf_counter()
    for p in paths:
        _, _, head = hash_file(p)
        claim = registry.claim(head, p.name)
        assert claim.module is not None, claim.reason
        registry.parse(claim.module, p.read_bytes(), p.name)
    return len(paths), time.perf_counter() - t


STEPS = {  # (module, function): the step it is timed as
    ("iolab.plan", "_open"): "stat, sidecar, hash",
    ("iolab.batch", "_known_content"): "seen before? (database)",
    ("iolab.plan", "parser_for"): "claim (sniffers)",
    ("iolab.batch", "_parse_here"): "read and parse",
    ("iolab.batch", "_finish"): "store (rows, commits)",
    ("iolab.batch", "_Batch.flush"): "store (rows, commits)",
}


def where(folder: Path) -> dict[str, float]:
    """Seconds of each step of an in-process ingest of ``folder`` into a new database (STEPS; a step
    timed inside another counts once, in the outer), and the whole."""
    import gc

    from iolab import batch, db

    gc.set_threshold(100_000)  # as the command sets it
    spent: dict[str, float] = defaultdict(float)
    depth = [0]

    def timed(fn, step):
        def run(*a, **k):
            depth[0] += 1
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                depth[0] -= 1
                if depth[0] == 0:
                    spent[step] += time.perf_counter() - t

        return run

    for (module, name), step in STEPS.items():
        owner, attr = (batch._Batch, "flush") if "." in name else (importlib.import_module(module), name)
        setattr(owner, attr, timed(getattr(owner, attr), step))
    with tempfile.TemporaryDirectory(prefix="iolab-bench-small-") as d:
        con = db.open_db(Path(d) / "w.duckdb")
        t = time.perf_counter()
        report = batch.ingest_paths(con, [folder])
        whole = time.perf_counter() - t
        con.close()
    assert all(o.status == "ingested" for o in report.outcomes)
    return {**spent, "rest (walk, plan, outcomes)": whole - sum(spent.values()), "whole": whole}


def child(kind: str, folder: str) -> None:
    print(json.dumps(floor(Path(folder)) if kind == "floor" else where(Path(folder))))


def in_child(kind: str, folder: Path):
    out = subprocess.run(
        [sys.executable, "-m", "tests.bench_small_files", "--child", kind, str(folder)],
        cwd=ROOT,
        env=ENV,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10_000, help="files of the generated study (default 10,000)")
    ap.add_argument("--cache", default=os.environ.get("IOLAB_BENCH_DIR", "/tmp/iolab-bench"))
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        child(*a.child)
        return 0
    from tests import bigstudy
    from tests.bench import earlier, keep

    cache = Path(a.cache)
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as work:
        study = bigstudy.generate(Path(work) / "data", a.runs)
        load = os.getloadavg()[0]
        t = time.perf_counter()
        cmd = [str(IOLAB), "ingest", str(study), "--db", str(Path(work) / "cli.duckdb")]
        subprocess.run(cmd, check=True, env=ENV, stdout=subprocess.DEVNULL)
        ingest = time.perf_counter() - t
        files, base = in_child("floor", study)
        steps = in_child("where", study)
    per = lambda s: 1000 * s / files  # noqa: E731  (ms a file)
    print(f"ingest of {files:,} small files (fio JSON, tests/bigstudy.py), load {load:.1f}:")
    print(f"  iolab ingest     {per(ingest):6.2f} ms a file ({ingest:.1f} s)")
    print(f"  floor            {per(base):6.2f} ms a file (hash + parse alone, one process)")
    print(f"  ratio            {ingest / base:6.2f}x the floor")
    print(f"  where, in-process and serial ({per(steps['whole']):.2f} ms a file):")
    for step, s in sorted(((k, v) for k, v in steps.items() if k != "whole"), key=lambda kv: -kv[1]):
        print(f"    {step:<28} {per(s):6.2f} ms  {s / steps['whole']:5.1%}")
    old = earlier(cache / "bench-small-files.json")
    if old:
        print(f"  earlier run: {old['ms_per_file']:.2f} ms a file, {old['ratio']:.2f}x the floor")
    result = {"files": files, "ms_per_file": per(ingest), "floor_ms": per(base), "ratio": ingest / base, "steps": steps}
    keep(cache / "bench-small-files.json", result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
