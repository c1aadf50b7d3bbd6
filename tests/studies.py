"""Constructed studies for the report pages, reusable by any test.

``four_systems``: one study of four systems with hostile names (HTML, Markdown, a control character,
a spreadsheet formula):

* Acme: the real Iometer queue-depth sweep tests/corpus/iometer/sqlserverio__iometeroutput.csv (64
  points per metric), and a repeat of it: the same numbers rewritten as text (file named derived-x1.0-repeat-*);
* Zeta: that sweep with every IO/s and MB/s x 1.5 and every response time / 1.5 (derived-x1.5-*): +50 %
  at every matched point;
* Omega: the same x 0.8 and / 0.8 (derived-x0.8-*): -20 % at every point;
* a fio system: the real fio 3.1 queue-depth sweep of data/samples/fio-intel-d3-s4610-qd-sweep.

Every target is declared one drive, so the per-drive page draws all four systems.

The three Iometer systems share their run keys, so a chart keyed on run keys alone stacks them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import ROOT, corpus, fio_rates
from tests.test_comparison import scaled_iometer

SYSTEMS = {
    "acme": "Acme <b>X1</b> <script>alert(1)</script>",
    "zeta": "Zeta **Z9** [x](javascript:alert(2)) \x1b[31m",
    "omega": '=HYPERLINK("http://example.invalid","Omega")',
    "fio": "fio | D3-S4610 `single` drive",
}
STUDY = "four systems <i>&</i> | =1+1"


def toml(s: str) -> str:
    return json.dumps(s)  # a TOML basic string: JSON's escapes (\u001b) are TOML's


def four_systems(root: Path) -> Path:
    """Write the study under ``root`` (its own folder) and return that folder."""
    study = root / "four-systems"
    src = corpus("iometer/sqlserverio__iometeroutput.csv")
    for folder, system in SYSTEMS.items():
        (study / folder).mkdir(parents=True)
        # one drive behind every Iometer target: the per-drive page draws all four systems
        drives = "" if folder == "fio" else '[[targets]]\ntarget = "*"\ndrives = 1\n'
        (study / folder / "iolab.toml").write_text(f"system = {toml(system)}\n{drives}")
    (study / "acme" / src.name).write_bytes(src.read_bytes())
    (study / "acme" / f"derived-x1.0-repeat-{src.name}").write_text(scaled_iometer(src, 1.0, 1.0))
    (study / "zeta" / f"derived-x1.5-{src.name}").write_text(scaled_iometer(src, 1.5, 1 / 1.5))
    (study / "omega" / f"derived-x0.8-{src.name}").write_text(scaled_iometer(src, 0.8, 1 / 0.8))
    fio = ROOT / "data" / "samples" / "fio-intel-d3-s4610-qd-sweep"
    for f in sorted(fio.glob("*.json")):
        shutil.copyfile(f, study / "fio" / f.name)
    with (study / "fio" / "iolab.toml").open("a") as f:
        f.write('[[targets]]\ntarget = "sdc"\nvolume = "Intel D3-S4610"\ndrives = 1\n')
    (study / "iolab.toml").write_text(f"study = {toml(STUDY)}\nbaseline = {toml(SYSTEMS['acme'])}\n")
    return study


# ``two_releases``: a study whose system Dual was measured on two firmware releases, the OLDER 1.5x
# faster (issue 52, item 1): no page but the trends, and no view but those of every measurement, may
# show a run or a number of the older release.
RELEASES = {"1.0": 1.5, "2.0": 1.0}  # firmware -> how much faster than the baseline (the older one: 1.5x)
REPEATS = (1.0, 1.02, 0.98)  # three repeats a point, 2 % apart: every point has an interval


def scaled_fio(doc: dict, up: float) -> dict:
    """A fio JSON document with every job's I/O counts and throughput x ``up`` (over the same runtime)
    and its latencies / ``up``."""
    for job in doc["jobs"]:
        for ddir in ("read", "write", "trim"):
            side = job.get(ddir) or {}
            for k in ("total_ios", "io_bytes", "iops_mean", "iops_min", "iops_max", "bw_mean", "bw_min", "bw_max"):
                if isinstance(side.get(k), (int, float)):
                    side[k] = type(side[k])(side[k] * up) if isinstance(side[k], float) else round(side[k] * up)
            fio_rates(side)  # its IOPS and bandwidth from the counts, as fio writes them (the parser checks)
            for lat in ("slat_ns", "clat_ns", "lat_ns", "slat", "clat", "lat"):
                stats = side.get(lat) or {}
                for k in ("min", "max", "mean", "stddev"):
                    if isinstance(stats.get(k), (int, float)):
                        stats[k] = stats[k] / up
                for p, v in (stats.get("percentile") or {}).items():
                    stats["percentile"][p] = v / up
    return doc


def two_releases(root: Path) -> Path:
    """Write the study under ``root`` and return its folder.

    * Base (the baseline): the real Iometer sweep tests/corpus/iometer/sqlserverio__iometeroutput.csv at
      x 0.9, three repeats (x 1.00, 1.02, 0.98 of that: derived-x*), one drive behind every target;
    * Dual, firmware 1.0 (the older: firmware_order = ["1.0", "2.0"]): that sweep x 1.5 (three repeats),
      the real fio QD sweep of data/samples/fio-intel-d3-s4610-qd-sweep x 1.5 (latencies / 1.5), the
      Iometer 1.1.0 file with latency bins tests/corpus/iometer/adisireesha__results.csv x 1.5, and the
      fio histogram log tests/corpus/fio-log's job 1;
    * Dual, firmware 2.0 (current): the same at x 1.0 (fio's and adisireesha's files as they are, the log
      of job 2).

    The study declares a QoS criterion and a sizing rule (rows of data/samples/criteria/criteria.csv, copied
    into the study), an SLA and each system's price: every page but the time series has something to draw."""
    study = root / "two-releases"
    iometer = corpus("iometer/sqlserverio__iometeroutput.csv")
    bins = corpus("iometer/adisireesha__results.csv")
    fio = ROOT / "data" / "samples" / "fio-intel-d3-s4610-qd-sweep"
    logs = sorted((ROOT / "data" / "samples" / "fio-pkb-clat-hist-2017").glob("*.log"))
    drives = '[[targets]]\ntarget = "*"\ndrives = 1\n'
    (study / "base").mkdir(parents=True)
    (study / "base" / "iolab.toml").write_text(f'system = "Base"\nprice_usd = 1000\n{drives}')
    for x in REPEATS:
        (study / "base" / f"derived-x{0.9 * x:g}-{iometer.name}").write_text(
            scaled_iometer(iometer, 0.9 * x, 1 / (0.9 * x))
        )
    for (fw, up), log in zip(RELEASES.items(), logs):
        d = study / "dual" / fw
        d.mkdir(parents=True)
        (d / "iolab.toml").write_text(f'system = "Dual"\nfirmware = "{fw}"\nprice_usd = 2000\n{drives}')
        for x in REPEATS:
            (d / f"derived-x{up * x:g}-fw{fw}-{iometer.name}").write_text(scaled_iometer(iometer, up * x, 1 / (up * x)))
        (d / f"derived-x{up:g}-fw{fw}-{bins.name}").write_text(scaled_iometer(bins, up, 1 / up))
        for f in sorted(fio.glob("*.json")):
            doc = scaled_fio(json.loads(f.read_text()), up)
            (d / f"derived-x{up:g}-fw{fw}-{f.name}").write_text(json.dumps(doc, indent=1))
        shutil.copyfile(log, d / f"fw{fw}-{log.name}")
    (study / "criteria").mkdir()
    shutil.copyfile(ROOT / "data" / "samples" / "criteria" / "criteria.csv", study / "criteria" / "criteria.csv")
    (study / "iolab.toml").write_text(
        'study = "two releases"\nbaseline = "Base"\nfirmware_order = ["1.0", "2.0"]\nsla = "mean<=5ms"\n'
        'criteria = ["ds4300_measurement_point", "ibm_iops_per_disk_guideline"]\n'
    )
    return study
