"""A storage lab's study, as issue 59 tried it: two array generations, built from real files.

``lab_study(root)`` writes it under ``root`` and returns the data folder (two studies: the lab's and
the criteria file's, as the demo keeps criteria in a study of their own):

* ``IBM DS4500 (san01)``, generation DS4500, the baseline: the real DS4500 profile
  (tests/corpus/profile/storcs__ibm_DS4500.txt), whose array 1 (RAID 5, 10 Fibre Channel drives)
  holds the volume the Iometer target is mapped to; the real Iometer queue-depth sweep
  tests/corpus/iometer/sqlserverio__iometeroutput.csv (8 workloads x QD 1-128) and two repeats of it
  (derived: every IO/s and MB/s x 1.03 and x 0.97, response times divided by the same: the three
  repeats' factors sum to 3, so a point's mean is the real file's value); the ESG JS-01 Jetstress
  report (tests/fixtures/jetstress, reconstructed from the report's transcription: the only Jetstress
  results iolab has), its database volume mapped to another volume of array 1.
* ``NetApp E2600 (DAMC001-1-7)``, generation E2600: the real SANtricity profile
  (tests/corpus/profile/jmrunkle__storageArrayProfile.txt), volume 0 on volume group 1 (RAID 1, 2 SAS
  drives); the sweep derived x 1.8 x (1.0, 1.02, 0.98) (every point's mean exactly 1.8 x the
  DS4500's); the real esxtop capture tests/corpus/esxtop/rachsharp__small-esxtop-data.csv taken
  "during the runs".

Each system's files carry its controller firmware as the profile states it (``firmware``): the
capture and the Jetstress report are dated other days than the sweeps, and a firmware label is what
makes them one measurement of their system today (issue 59, item 2: the measurement rule is another
engineer's). The study declares the drive-generation correction (x 1.1), the Exchange sizing rule
(0.5 IO/s per mailbox: Jetstress), the Jetstress latency criteria and the DS4300 paper's 20 ms
measurement point (Iometer); prices in the system sidecars.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import FIXTURES, ROOT, corpus
from tests.test_comparison import DOWN, UP

STUDY = "storage-lab"
OLD, NEW = "IBM DS4500 (san01)", "NetApp E2600 (DAMC001-1-7)"
SWEEP = "iometer/sqlserverio__iometeroutput.csv"
TARGET = '8: "Pliant LS300S P10"'  # the sweep's one disk target
JETSTRESS = "Performance_2009_10_16_11_49_42_RECONSTRUCTED-esg-ds5020-js01.html"
# throughput factor of each repeat of each system (response times divided by it)
REPEATS = {OLD: (1.0, 1.03, 0.97), NEW: (1.8, 1.8 * 1.02, 1.8 * 0.98)}
PRICES = {OLD: 48000.0, NEW: 21000.0}
DRIVES = {OLD: 10, NEW: 2}  # the profiles' member counts of the mapped volumes' groups

STUDY_TOML = f"""study = "{STUDY}"
baseline = "{OLD}"
generation_order = ["DS4500", "E2600"]
corrections = ["drive_generation_correction"]
criteria = ["exchange_iops_per_mailbox", "jetstress_db_read_latency", "jetstress_log_write_latency",
            "ds4300_measurement_point"]
"""


def system_toml(system: str, generation: str, firmware: str, targets: list[tuple[str, str, str]]) -> str:
    """A system folder's iolab.toml: its labels, price and [[targets]] (target, volume, array)."""
    head = f'system = "{system}"\ngeneration = "{generation}"\nfirmware = "{firmware}"\nprice_usd = {PRICES[system]}\n'
    return head + "".join(f'\n[[targets]]\ntarget = \'{t}\'\nvolume = "{v}"\narray = "{a}"\n' for t, v, a in targets)


# each array's controller firmware as its profile states it; the volumes the targets are mapped to
OLD_TOML = system_toml(
    OLD,
    "DS4500",
    "12.60.02.00",
    [
        (TARGET, "array1_LUN0_app01_5G", "san01"),
        ("Database (E:)", "array1_LUN1_app01_5G", "san01"),
        ("Log (F:)", "array1_LUN2_app01_5G", "san01"),
    ],
)
NEW_TOML = system_toml(NEW, "E2600", "07.75.36.30", [(TARGET, "0", "DAMC001-1-7")])


def lab_study(root: Path) -> Path:
    """Write the study (and its criteria study) under ``root``/data; return that data folder."""
    data = root / "data"
    lab = data / STUDY
    old, new, crit = lab / "ds4500", lab / "e2600", data / "criteria"
    for d in (old, new, crit):
        d.mkdir(parents=True)
    (lab / "iolab.toml").write_text(STUDY_TOML)
    (old / "iolab.toml").write_text(OLD_TOML)
    (new / "iolab.toml").write_text(NEW_TOML)
    (crit / "iolab.toml").write_text('study = "criteria"\n')
    shutil.copyfile(ROOT / "docs" / "reference" / "criteria.csv", crit / "criteria.csv")
    shutil.copyfile(corpus("profile/storcs__ibm_DS4500.txt"), old / "storcs__ibm_DS4500.txt")
    shutil.copyfile(corpus("profile/jmrunkle__storageArrayProfile.txt"), new / "jmrunkle__storageArrayProfile.txt")
    shutil.copyfile(FIXTURES / "jetstress" / JETSTRESS, old / JETSTRESS)
    shutil.copyfile(corpus("esxtop/rachsharp__small-esxtop-data.csv"), new / "rachsharp__small-esxtop-data.csv")
    src = corpus(SWEEP)
    for folder, system in ((old, OLD), (new, NEW)):
        for i, factor in enumerate(REPEATS[system], 1):
            if factor == 1.0:
                shutil.copyfile(src, folder / src.name)
            else:
                (folder / f"derived-x{factor:.4g}-repeat{i}-{src.name}").write_bytes(scaled(src, factor))
    return data


def scaled(src: Path, factor: float) -> bytes:
    """The Iometer file with its throughput cells x ``factor`` and its response times / ``factor``, every
    other byte as it was: its cells hold no comma or quote of CSV's (a target is named 8: "Pliant
    LS300S P10", quotes and all), so a line is its cells joined by commas, and it is written back so,
    not re-quoted as a CSV writer would."""
    out, header = [], None
    for line in src.read_bytes().decode("ascii").splitlines(keepends=True):
        body = line.rstrip("\r\n")
        cells = body.split(",")
        if cells[0] == "'Target Type":
            header = cells
        elif header and cells[0] in ("ALL", "MANAGER", "WORKER", "DISK"):
            for i, name in enumerate(header[: len(cells)]):
                if cells[i] not in ("", "-1") and name in UP + DOWN:
                    cells[i] = repr(float(cells[i]) * (factor if name in UP else 1 / factor))
        elif cells[0].startswith("'"):
            header = None
        out.append(",".join(cells) + line[len(body) :])
    return "".join(out).encode("ascii")
