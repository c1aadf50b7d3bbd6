"""A generated study at the scale of a user's: RUNS fio runs of four systems in one study.

    python -m tests.bigstudy DIR [--runs 1000]      (writes DIR/<study>/..., prints the folder)

Every run is the real fio 3.1 report data/samples/fio-intel-d3-s4610-qd-sweep/randread-8-1.json
rewritten: its job options say the run's workload (rw among randread, randwrite, read, write and
randrw; iodepth among 1, 4, 16, 32 and 64: 25 workloads), its numbers are the real run's scaled by
the system's factor (IO/s and bandwidth x f, latencies / f; Alpha is the baseline at x1.0) and by
the workload's (a deeper queue: more IO/s up to iodepth 16, and latencies by Little's law), each number with its own +-5 %
noise (a seeded generator: the same arguments write the same bytes). A write workload carries the
read numbers in its `write` section (its `read` section zeros); randrw splits them 70/30. Runs
repeat their workload round-robin, so 1,000 runs are 10 repeats of 25 workloads per system. Each
run has its own report time (an hour apart), so every file is different bytes.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
from pathlib import Path

from tests.conftest import fio_rates

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "data" / "samples" / "fio-intel-d3-s4610-qd-sweep" / "randread-8-1.json"
STUDY = "scale study: four systems of fio runs"
SYSTEMS = {
    "alpha": ("Alpha A100", 1.0),
    "beta": ("Beta B200", 1.3),
    "gamma": ("Gamma G3", 0.85),
    "delta": ("Delta D4", 1.1),
}
RWS = ["randread", "randwrite", "read", "write", "randrw"]
DEPTHS = [1, 4, 16, 32, 64]
WORKLOADS = [(rw, qd) for rw in RWS for qd in DEPTHS]
FASTER = ("bw", "iops", "io_bytes", "io_kbytes", "total_ios", "bw_min", "bw_max", "bw_mean", "iops_min", "iops_max")
FASTER += ("iops_mean",)


def _scaled(section: dict, speed: float, slower: float, rng: random.Random) -> dict:
    """The section's numbers: throughput x speed, latencies x slower, each +-5 %; the throughput's
    counts one factor for the section, its rates their counts over the runtime as fio writes them (the
    parser checks a file's rates against its counts)."""
    fast = speed * (1 + rng.uniform(-0.05, 0.05))

    def walk(node, factor, jitter=True):
        if isinstance(node, dict):
            return {k: walk(v, fast if k in FASTER else factor, k not in FASTER) for k, v in node.items()}
        if isinstance(node, bool) or not isinstance(node, int | float) or node == 0:
            return node
        value = node * factor * (1 + rng.uniform(-0.05, 0.05) if jitter else 1)
        return round(value) if isinstance(node, int) else round(value, 6)

    out = walk({k: v for k, v in section.items() if k != "runtime"}, slower)
    out["runtime"] = section["runtime"]
    fio_rates(out)
    return out


def run_report(template: dict, rw: str, qd: int, factor: float, n: int, rng: random.Random) -> dict:
    doc = copy.deepcopy(template)
    job = doc["jobs"][0]
    job["jobname"] = f"{rw}-qd{qd}"
    job["job options"].update(rw=rw, iodepth=str(qd), write_bw_log=job["jobname"])
    job["job options"].update(write_lat_log=job["jobname"], write_iops_log=job["jobname"])
    speed = factor * min(qd, 16) ** 0.5 / 8**0.5  # the template ran at iodepth 8
    slower = qd / 8 / speed  # Little's law: latency is the queue over the IO/s (the template: 8 over 1)
    real, zero = job["read"], job["write"]
    if rw in ("randrw",):
        job["read"] = _scaled(real, speed * 0.7, slower, rng)
        job["write"] = _scaled(real, speed * 0.3, slower, rng)
        job["job options"]["rwmixread"] = "70"
    elif "write" in rw:
        job["read"], job["write"] = zero, _scaled(real, speed, slower, rng)
    else:
        job["read"] = _scaled(real, speed, slower, rng)
    ts = template["timestamp"] + 3600 * n
    doc["timestamp"], doc["timestamp_ms"] = ts, ts * 1000 + 923
    doc["time"] = ""  # the timestamp says when; the text form would need a locale
    return doc


def generate(root: Path, runs: int = 1000, seed: int = 43, workloads: int = len(WORKLOADS)) -> Path:
    """Write the study under ``root``/scale-study and return that folder (``workloads``: the first
    so many of WORKLOADS, for a small study that still repeats its runs)."""
    study = root / "scale-study"
    template = json.loads(TEMPLATE.read_text())
    rng = random.Random(seed)
    per = runs // len(SYSTEMS)
    for s, (folder, (system, factor)) in enumerate(SYSTEMS.items()):
        (study / folder).mkdir(parents=True)
        target = '[[targets]]\ntarget = "sdc"\nvolume = "drive"\ndrives = 1\n'
        (study / folder / "iolab.toml").write_text(f"system = {json.dumps(system)}\n{target}")
        for i in range(per + (s < runs % len(SYSTEMS))):
            rw, qd = WORKLOADS[i % workloads]
            doc = run_report(template, rw, qd, factor, s * 10_000 + i, rng)
            (study / folder / f"{rw}-{qd}-r{i // workloads + 1:02d}.json").write_text(json.dumps(doc, indent=1))
    base = SYSTEMS["alpha"][0]
    (study / "iolab.toml").write_text(f"study = {json.dumps(STUDY)}\nbaseline = {json.dumps(base)}\n")
    return study


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dir", type=Path)
    p.add_argument("--runs", type=int, default=1000)
    a = p.parse_args()
    print(generate(a.dir, a.runs))


if __name__ == "__main__":
    main()
