"""The SLA headline: the highest load and IOPS at which a latency bound holds, per system.

The study is the real Iometer queue-depth sweep tests/corpus/iometer/sqlserverio__iometeroutput.csv
("Acme") and the same file with IO/s x 2 and response times x 1/2 ("Fast", named scaled-...). The
bound is placed between two measured loads, so the crossing is known by hand from the file.
"""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest

from iolab import db
from tests.conftest import corpus, ingest, q
from tests.test_comparison import scaled_iometer

ROOT = Path(__file__).resolve().parent.parent

CURVE = "block_size_bytes = 65536 AND read_pct = 0 AND random_pct = 100 AND scope = 'all'"


def sla_study(root: Path, sla: str | None) -> Path:
    study = root / "sla"
    src = corpus("iometer/sqlserverio__iometeroutput.csv")
    for folder, system, text in (
        ("acme", "Acme", src.read_text()),
        ("fast", "Fast", scaled_iometer(src, 2.0, 0.5)),
    ):
        (study / folder).mkdir(parents=True)
        (study / folder / "iolab.toml").write_text(f'system = "{system}"\n')
        name = "sqlserverio__iometeroutput.csv" if system == "Acme" else "scaled-x2-sqlserverio__iometeroutput.csv"
        (study / folder / name).write_text(text)
    (study / "iolab.toml").write_text('study = "sla"\n' + (f'sla = "{sla}"\n' if sla else ""))
    return study


def curve(con, system: str) -> list[tuple]:
    return q(
        con,
        f"""SELECT l.load, l.value, i.value FROM comparison_points l JOIN comparison_points i USING (system, load)
            WHERE l.system = '{system}' AND l.metric = 'avg_latency_ms' AND i.metric = 'iops'
              AND l.{CURVE.replace(" AND ", " AND l.")} AND i.{CURVE.replace(" AND ", " AND i.")} ORDER BY 1""",
    )


def test_crossing_between_two_loads_is_interpolated(con, tmp_path):
    ingest(con, sla_study(tmp_path / "data", "mean<=5ms"))
    for system in ("Acme", "Fast"):
        pts = curve(con, system)
        k = next(i for i, (_, lat, _) in enumerate(pts) if lat > 5)
        (l0, a0, i0), (l1, a1, i1) = pts[k - 1], pts[k]
        frac = (5 - a0) / (a1 - a0)
        got = q(
            con,
            f"""SELECT hold_load, fail_load, sla_load, sla_iops, interpolated FROM sla_headline
                WHERE system = '{system}' AND {CURVE}""",
        )
        assert got == [(l0, l1, pytest.approx(l0 + frac * (l1 - l0)), pytest.approx(i0 + frac * (i1 - i0)), True)]
    # halving the latency moves the crossing to a higher load
    loads = dict(q(con, f"SELECT system, sla_load FROM sla_headline WHERE {CURVE}"))
    assert loads["Fast"] > loads["Acme"]
    # each of the two points is a mean, and says of how many runs: one here (a file per system)
    assert q(con, "SELECT DISTINCT hold_n, fail_n FROM sla_headline WHERE fail_load IS NOT NULL") == [(1, 1)]


def test_the_sla_headline_of_repeats_says_their_n(con, tmp_path):
    """Three repeats a point: the holding and failing points are means of 3, and the table says so."""
    study = sla_study(tmp_path / "data", "mean<=5ms")
    src = corpus("iometer/sqlserverio__iometeroutput.csv")
    for k in (1.01, 0.99):
        (study / "acme" / f"scaled-x{k}-{src.name}").write_text(scaled_iometer(src, k, 1 / k))
    ingest(con, study)
    assert q(con, f"SELECT hold_n, fail_n FROM sla_headline WHERE system = 'Acme' AND {CURVE}") == [(3, 3)]


def test_a_bound_that_always_holds(con, tmp_path):
    ingest(con, sla_study(tmp_path / "data", "mean<=100s"))
    assert q(con, f"SELECT sla_load, interpolated, how FROM sla_headline WHERE system = 'Acme' AND {CURVE}") == [
        (128, False, "holds at every measured load")
    ]


def test_a_bound_that_fails_at_the_lowest_load(con, tmp_path):
    ingest(con, sla_study(tmp_path / "data", "mean<100us"))
    assert q(con, f"SELECT sla_load, interpolated, how FROM sla_headline WHERE system = 'Acme' AND {CURVE}") == [
        (None, False, "fails already at the lowest load")
    ]


def test_a_bound_in_another_form_is_refused(con, tmp_path):
    report = ingest(con, sla_study(tmp_path / "data", "p99 under 1ms"))
    assert q(con, "SELECT count(*) FROM sla_bounds") == [(0,)]
    assert "not a latency bound" in str(report.__dict__)


def test_compare_sla_for_an_ad_hoc_bound(tmp_path, capsys):
    from iolab import cli

    f = tmp_path / "t.duckdb"
    assert cli.main(["ingest", "-q", str(sla_study(tmp_path / "data", None)), "--db", str(f)]) == 0
    capsys.readouterr()
    args = ["compare", "--db", str(f), "--study", "sla", "--sla", "mean<=5ms", "--format", "csv"]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "interpolated between load 8 (holds) and 16 (fails)" in out and "command line" not in out
    assert cli.main(["compare", "--db", str(f), "--study", "sla", "--sla", "mean<=5ms"]) == 0
    assert "holds" in capsys.readouterr().out
    assert cli.main(["compare", "--db", str(f), "--study", "sla", "--sla", "5ms"]) == 2


def test_a_percentile_bound_on_fio_holds_each_direction_it_reports(tmp_path, capsys):
    """fio reports percentiles per direction (p99_read_latency_ms), not over all I/Os: "p99<=1ms" on
    the real D3-S4610 QD sweep holds at QD 16 (0.55296 ms) and fails at QD 32 (1.26976 ms); by hand,
    16 + (1 - 0.55296) / (1.26976 - 0.55296) x 16 = 25.9786 and 50,151.21 + 0.62366 x (47,192.76 -
    50,151.21) = 48,306.14 IO/s."""
    from iolab import cli

    study = tmp_path / "data" / "fio-intel-d3-s4610-qd-sweep"
    shutil.copytree(ROOT / "data" / "samples" / study.name, study)
    f = tmp_path / "t.duckdb"
    assert cli.main(["ingest", "-q", str(tmp_path / "data"), "--db", str(f)]) == 0
    capsys.readouterr()
    args = ["compare", "--db", str(f), "--study", study.name, "--sla", "p99<=1ms", "--format", "csv"]
    assert cli.main(args) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["metric"], r["hold_load"], r["fail_load"]) for r in rows] == [("p99_read_latency_ms", "16", "32")]
    assert float(rows[0]["sla_load"]) == pytest.approx(25.978571, abs=1e-5)
    assert float(rows[0]["sla_iops"]) == pytest.approx(48306.1447, abs=1e-3)


def test_the_page_table_names_the_direction_a_fio_bound_holds_in(tmp_path, monkeypatch):
    """On a page, each SLA headline row says which metric it holds: a fio sweep's p99 bound is held
    per direction (p99_read_latency_ms), which the table must name."""
    from iolab.reports import headline

    study = tmp_path / "data" / "fio-intel-d3-s4610-qd-sweep"
    shutil.copytree(ROOT / "data" / "samples" / study.name, study)
    toml = study / "iolab.toml"
    toml.write_text(toml.read_text().replace("tags = [", 'sla = "p99<=1ms"\ntags = [', 1))
    con = db.open_db(tmp_path / "t.duckdb")
    ingest(con, tmp_path / "data")
    tables = []
    monkeypatch.setattr(headline.r, "note", lambda *a, **k: None)
    monkeypatch.setattr(headline.r, "table", lambda frame, *a, **k: tables.append(frame))
    headline.sla_block(con, study.name)
    assert [tables[0]["metric"].to_list(), tables[0]["hold_load"].to_list()] == [["p99_read_latency_ms"], [16]]
