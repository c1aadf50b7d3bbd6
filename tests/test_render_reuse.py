"""What a render does not do again or for nothing: the validation kept beside the pages while the data
and the checks are the same (iolab.reports.validated), views no page of the render reads
(iolab.reports.stored), and any work at all for a render refused for a study that is not in the
database (iolab.reports.early)."""

from __future__ import annotations

import json
import shutil

import duckdb
import pytest

from iolab import cli
from iolab import db as dbm
from iolab.reports import early, render, stored, validated
from tests.conftest import ROOT

STUDY = "iomark-vm-hp4335-2014"
OTHER = "esg-ds5020-2009"


class FakePages:
    """A kernel that runs nothing (the pages are not what these tests are about)."""

    def execute(self, nb):
        pass

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


@pytest.fixture
def dbf(tmp_path):
    shutil.copytree(ROOT / "data" / "samples" / STUDY, tmp_path / "data" / STUDY)
    f = tmp_path / "x.duckdb"
    assert cli.main(["ingest", "-q", str(tmp_path / "data"), "--db", str(f)]) == 0
    return f


@pytest.fixture
def quick(monkeypatch):
    """Renders without kernels; what was started and validated is recorded."""
    seen: dict[str, list] = {"kernels": [], "imports": [], "validated": [], "snapshots": []}
    monkeypatch.setattr(render.kernels, "Pages", FakePages)
    monkeypatch.setattr(
        render, "execute_page", lambda snap, study, nb, pages: f"<p>{nb.name}</p>{render.VALIDATION_SLOT}"
    )
    real_warmed, real_snapshot = early.warmed, render.snapshot
    monkeypatch.setattr(early, "warmed", lambda *a: seen["kernels"].append(1) or real_warmed(*a))
    monkeypatch.setattr(early, "import_validation", lambda: seen["imports"].append(1))
    monkeypatch.setattr(render, "snapshot", lambda *a: seen["snapshots"].append(1) or real_snapshot(*a))

    def validate(snap, studies):
        seen["validated"].append(sorted(studies))
        return {s: f"<footer>validation {len(seen['validated'])} of {s}</footer>" for s in studies}

    monkeypatch.setattr(render, "validate", validate)
    return seen


def test_a_render_refused_for_a_study_not_there_starts_no_kernel_imports_nothing(dbf, tmp_path, quick, capsys):
    assert cli.main(["report", "--db", str(dbf), "--out", str(tmp_path / "r"), "--study", "nope", "--force"]) == 2
    assert "No study 'nope'" in " ".join(capsys.readouterr().err.split())
    assert quick == {"kernels": [], "imports": [], "validated": [], "snapshots": []}
    assert not (tmp_path / "r").exists()


def test_the_validation_is_reused_while_the_data_is_the_same_and_made_again_when_it_changes(dbf, tmp_path, quick):
    out = tmp_path / "r"
    args = ["report", "--db", str(dbf), "--out", str(out), "--force"]
    assert cli.main(args) == 0
    first = (out / STUDY / "01-overview.html").read_text()
    assert first == "<p>01-overview</p><footer>validation 1 of iomark-vm-hp4335-2014</footer>"
    assert quick["validated"] == [[STUDY]] and quick["imports"] == [1]
    # --force again, the same data: every page executed again, the validation read back, GX not imported
    assert cli.main(args) == 0
    assert (out / STUDY / "01-overview.html").read_text() == first
    assert quick["validated"] == [[STUDY]] and quick["imports"] == [1] and len(quick["snapshots"]) == 2
    kept = json.loads((out / validated.KEPT).read_text())
    assert kept["footers"] == {STUDY: "<footer>validation 1 of iomark-vm-hp4335-2014</footer>"}
    # another study's files ingested: the data changed, so every study is validated again
    shutil.copytree(ROOT / "data" / "samples" / OTHER, tmp_path / "data" / OTHER)
    assert cli.main(["ingest", "-q", str(tmp_path / "data"), "--db", str(dbf)]) == 0
    assert cli.main(args) == 0
    assert quick["validated"] == [[STUDY], [OTHER, STUDY]] and quick["imports"] == [1, 1]
    assert (
        out / STUDY / "01-overview.html"
    ).read_text() == "<p>01-overview</p><footer>validation 2 of " + STUDY + "</footer>"


def test_a_database_older_than_its_views_is_the_same_data_at_every_render(dbf, tmp_path, quick):
    """A database only read since iolab changed its views gets them made again in each render's
    snapshot; when that was done is not data. Before, its time changed the content digest at every
    render: every page rendered again, and the validation never reused."""
    con = duckdb.connect(str(dbf))
    con.execute("UPDATE view_state SET checksum = 'views of an older iolab'")
    con.close()
    out = tmp_path / "r"
    assert cli.main(["report", "--db", str(dbf), "--out", str(out)]) == 0
    pages = {p: p.stat().st_mtime_ns for p in out.glob("*/*.html")}
    assert cli.main(["report", "--db", str(dbf), "--out", str(out)]) == 0  # unchanged: kept
    assert {p: p.stat().st_mtime_ns for p in out.glob("*/*.html")} == pages
    assert cli.main(["report", "--db", str(dbf), "--out", str(out), "--force"]) == 0
    assert quick["validated"] == [[STUDY]] and len(quick["snapshots"]) == 3


def test_a_kept_validation_is_used_only_under_its_own_key_and_only_if_it_is_one(tmp_path):
    made: list[list[str]] = []

    def validate(studies):
        made.append(sorted(studies))
        return {s: f"v{len(made)} {s}" for s in studies}

    db = tmp_path / "x.duckdb"
    db.write_bytes(b"x")
    assert validated.footers(tmp_path, "k1", {"a"}, validate, db) == {"a": "v1 a"}
    # another study under the same key: only it is validated, and both are kept
    assert validated.footers(tmp_path, "k1", {"a", "b"}, validate, db) == {"a": "v1 a", "b": "v2 b"}
    assert validated.kept(tmp_path, "k1") == {"a": "v1 a", "b": "v2 b"}
    assert validated.likely_kept(tmp_path, db, None) and validated.likely_kept(tmp_path, db, ["b"])
    assert not validated.likely_kept(tmp_path, db, ["c"])
    # another key (the data or the checks changed): nothing kept under it is used
    assert validated.footers(tmp_path, "k2", {"a"}, validate, db) == {"a": "v3 a"}
    assert validated.kept(tmp_path, "k1") == {}
    db.write_bytes(b"xy")  # the database's file changed: the guess before the snapshot says so
    assert not validated.likely_kept(tmp_path, db, None)
    for text in ("[1]", '{"key": "k2", "footers": {"a": 5}}', "not json"):
        (tmp_path / validated.KEPT).write_text(text)
        assert validated.kept(tmp_path, "k2") == {}
    assert made == [["a"], ["b"], ["a"]]


def test_the_key_changes_with_the_data_and_with_a_suite(tmp_path, monkeypatch):
    a, b = validated.key("data 1"), validated.key("data 2")
    assert a != b and validated.key("data 1") == a and len(a) == 64
    suites = tmp_path / "validation"
    suites.mkdir()
    (suites / "s.py").write_text("SUITE = 'x'\n")
    monkeypatch.setattr(validated, "SUITES", suites)
    c = validated.key("data 1")
    (suites / "s.py").write_text("SUITE = 'y'\n")
    assert c != a and validated.key("data 1") != c


def test_the_views_a_render_reads_are_named_after_from_or_join_or_as_a_string():
    got = stored.reads(
        ['SELECT * FROM comparison c JOIN "study_runs" r USING (study)', "noise_alone(con, 'comparison_fdr')"]
    )
    assert got == {"comparison", "study_runs", "comparison_fdr"}
    assert stored.reads(["FROM my_table JOIN (SELECT 1) x", "the trends page", "FROM measurements"]) == {"measurements"}


def test_a_view_is_stored_with_every_view_it_is_computed_from_and_no_other():
    trends = stored.chosen({"trends"})
    # trends reads trend_runs and trend_measurements, which read run_starts and system_measurements
    assert {"trends", "trend_runs", "trend_measurements", "system_measurements", "run_starts"} <= set(trends)
    assert "measurements" not in trends and "comparison" not in trends  # a row view; a view it does not read
    assert trends == [v for v in stored.definitions() if v in trends]  # in file order
    pages = render.notebooks()
    always = stored.chosen(stored.before_plan(p.studies for p in pages.values()))
    # the plan reads system_measurements; the trends' views, which join every run, only page 09 reads
    assert "system_measurements" in always and not {"trends", "trend_runs", "trend_measurements"} & set(always)
    with_09 = stored.chosen(
        stored.before_plan(p.studies for p in pages.values()) | stored.reads([pages["09-trends"].path.read_text()])
    )
    assert set(with_09) - set(always) >= {"trends", "trend_runs", "trend_measurements"}


def test_a_view_not_stored_stays_a_view_with_the_same_rows(tmp_path):
    f = tmp_path / "esg.duckdb"  # a study with trends (20 rows) and drives (11 rows of per_drive_iops)
    assert cli.main(["ingest", "-q", str(ROOT / "data" / "samples" / OTHER), "--db", str(f)]) == 0
    con = dbm.connect(f, read_only=True)
    want = {v: sorted(map(repr, con.execute(f"SELECT * FROM {v}").fetchall())) for v in ("trends", "per_drive_iops")}
    con.close()
    assert (len(want["trends"]), len(want["per_drive_iops"])) == (20, 11)
    snap = render.snapshot(f, tmp_path, stored.chosen({"per_drive_iops"}))
    con = dbm.connect(snap, read_only=True)
    kinds = dict(con.execute("SELECT table_name, table_type FROM information_schema.tables").fetchall())
    assert kinds["per_drive_iops"] == "BASE TABLE" and kinds["trends"] == "VIEW"
    for v, rows in want.items():
        assert sorted(map(repr, con.execute(f"SELECT * FROM {v}").fetchall())) == rows
    con.close()
    render.store_more(snap, stored.chosen({"trends"}))  # once the plan has a trends page
    con = dbm.connect(snap, read_only=True)
    assert con.execute("SELECT table_type FROM information_schema.tables WHERE table_name = 'trends'").fetchone() == (
        "BASE TABLE",
    )
    assert sorted(map(repr, con.execute("SELECT * FROM trends").fetchall())) == want["trends"]
    con.close()
