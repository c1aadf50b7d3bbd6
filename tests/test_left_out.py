"""Pages say which systems a chart cannot draw, instead of leaving them out without a word (found on
user-built studies: sidecars that named the targets wrongly, a fio system beside Iometer ones).

- Per-drive page: a system whose targets match no volume with drives has no IOPS per drive. The study
  is two real Iometer files (tests/corpus/iometer): the sqlserverio sweep, whose disk target
  `8: "Pliant LS300S P10"` the sidecar maps to one drive, and adisireesha's results, whose target
  `1: "( ATP ENG SAMPLE SSD OR221013"` no sidecar entry names, under a hostile system name.
- Comparison page: a system none of whose points matches the baseline's has no panel. The study is the
  real sqlserverio sweep (baseline), the same file with throughput x1.1 and response times /1.1 (a
  hand-made change, tests.test_comparison.scaled_iometer) and the real fio-plot D3-S4610 iodepth sweep
  (4 KiB random reads: nothing at the sweep's 8 and 64 KiB), under a hostile name.
"""

from __future__ import annotations

import html
import re

from iolab import batch, db
from iolab.reports import oracle
from tests.conftest import ROOT, corpus, q, rendered_page
from tests.test_comparison import scaled_iometer

UNMAPPED = "<b>ATP</b> & co"
FIO = "<i>Fio</i> box"


def _render(tmp_path, study, name: str, page: str) -> str:
    dbf = tmp_path / "d.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [study])
    con.close()
    return rendered_page(dbf, tmp_path / "out", name, page)


def text(raw: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", raw)))


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
    raw = rendered_page(dbf, tmp_path / "out", "drives", "02-per-drive-iops.html")
    (chart,), _ = oracle.charts(raw)
    assert {r["system"] for r in oracle.drawn(chart)} == {"Mapped"}
    assert "<b>ATP</b>" not in raw  # the name stays text
    text = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", raw)))
    assert (
        "Not in the chart or the table above: 1 run of 1 system state no drive count, so their IOPS per drive "
        f'is unknown: {UNMAPPED} (1 run; targets: 1: "( ATP ENG SAMPLE SSD OR221013").' in text
    )


def test_a_system_matching_no_baseline_point_is_named_under_each_chart(tmp_path):
    study = tmp_path / "data" / "cmp"
    for folder, system in (("base", "Base"), ("up", "Up"), ("fio", FIO)):
        (study / folder).mkdir(parents=True)
        (study / folder / "iolab.toml").write_text(f'system = "{system}"\n')
    src = corpus("iometer/sqlserverio__iometeroutput.csv")
    (study / "base" / "sqlserverio.csv").write_bytes(src.read_bytes())
    (study / "up" / "derived-x1.1-sqlserverio.csv").write_text(scaled_iometer(src, 1.1, 1 / 1.1))
    for f in (ROOT / "data" / "samples" / "fio-intel-d3-s4610-qd-sweep").glob("randread-*.json"):
        (study / "fio" / f.name).write_bytes(f.read_bytes())
    (study / "iolab.toml").write_text('study = "cmp"\nbaseline = "Base"\n')
    raw = _render(tmp_path, study, "cmp", "05-comparison.html")
    charts, _ = oracle.charts(raw)
    assert [c.title.split(":")[0] for c in charts] == ["IO/s", "MB/s", "average latency (ms)"]
    assert all({r["system"] for r in oracle.drawn(c)} == {"Up"} for c in charts)
    assert "<i>Fio</i>" not in raw  # the name stays text
    said = re.findall(r'<figcaption class="note">([^<]*)</figcaption>', raw)
    assert [html.unescape(s) for s in said] == [
        f"No marks for {FIO}: no point of theirs matches the baseline's at {m} (listed under 'Points without a match')."
        for m in ("IO/s", "MB/s", "average latency (ms)")
    ]
    assert f"{FIO} has no point at this workload, load, scope and metric" in text(raw)  # ... and there it is
