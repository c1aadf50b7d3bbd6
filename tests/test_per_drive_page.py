"""The per-drive page says which systems it cannot draw: a system whose targets match no volume with
drives has no IOPS per drive, and before this it left the chart, the table and the page without a word
(found on a user-built study whose sidecars named the targets wrongly).

The study is two real Iometer files (tests/corpus/iometer): the sqlserverio sweep, whose disk target
`8: "Pliant LS300S P10"` the sidecar maps to one drive, and adisireesha's results, whose target
`1: "( ATP ENG SAMPLE SSD OR221013"` no sidecar entry names, under a hostile system name.
"""

from __future__ import annotations

import html
import re

from ingest import batch, db
from ingest.reports import oracle, render
from tests.conftest import corpus, q

UNMAPPED = "<b>ATP</b> & co"


def test_a_system_without_drive_counts_is_named_not_dropped(tmp_path):
    study = tmp_path / "data" / "drives"
    (study / "mapped").mkdir(parents=True)
    (study / "unmapped").mkdir()
    (study / "mapped" / "iolab.toml").write_text(
        'system = "Mapped"\n\n[[targets]]\ntarget = \'8: "Pliant LS300S P10"\'\nvolume = "v1"\ndrives = 1\n'
    )
    (study / "unmapped" / "iolab.toml").write_text(f'system = "{UNMAPPED}"\n')
    (study / "mapped" / "sqlserverio.csv").write_bytes(corpus("iometer/sqlserverio__iometeroutput.csv").read_bytes())
    (study / "unmapped" / "results.csv").write_bytes(corpus("iometer/adisireesha__results.csv").read_bytes())
    (study / "iolab.toml").write_text('study = "drives"\n')
    dbf = tmp_path / "d.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [study])
    mapped, unmapped = (
        q(con, "SELECT count(*) FROM per_drive_iops WHERE level = 'run' AND system = ? AND drives IS NOT NULL", [s])[0][
            0
        ]
        for s in ("Mapped", UNMAPPED)
    )
    assert (mapped, unmapped) == (64, 0)
    (n_unmapped,) = q(con, "SELECT count(*) FROM per_drive_iops WHERE level = 'run' AND system = ?", [UNMAPPED])[0]
    con.close()
    assert n_unmapped == 1
    assert render.render(dbf, tmp_path / "out", ["drives"]) == 0
    page = next((tmp_path / "out").glob("*/02-per-drive-iops.html"))
    ro = db.connect(dbf, read_only=True)
    try:
        assert oracle.check_page(page, ro) == []
    finally:
        ro.close()
    (chart,), _ = oracle.charts(page.read_text())
    assert {r["system"] for r in oracle.drawn(chart)} == {"Mapped"}
    raw = page.read_text()
    assert "<b>ATP</b>" not in raw  # the name stays text
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", raw)))
    assert (
        "Not in the chart or the table above: 1 run of 1 system state no drive count, so their IOPS per drive "
        f'is unknown: {UNMAPPED} (1 run; targets: 1: "( ATP ENG SAMPLE SSD OR221013").' in text
    )
