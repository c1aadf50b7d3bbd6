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

from tests.conftest import ROOT, corpus
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
