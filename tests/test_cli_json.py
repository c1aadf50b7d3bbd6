"""`--format json` on every command that prints results (issue 42): one JSON object on standard output,
whatever a progress bar or note says on standard error; the values are the database's own.

The study: the published DS4300 vs FAStT200 sample under a hostile name (quotes, markup, a semicolon),
which every document must give back exactly as the sidecar wrote it.
"""

from __future__ import annotations

import json
import shutil

import pytest

from iolab import cli, db
from iolab.cli import formats, steps
from tests.conftest import ROOT

STUDY = 'ds <i>"4300"</i>; rm -rf'
SAMPLE = ROOT / "data" / "samples" / "ds4300-vs-fastt200-2004"


@pytest.fixture(scope="module")
def dbf(tmp_path_factory):
    data = tmp_path_factory.mktemp("data") / "ds"
    shutil.copytree(SAMPLE, data)
    toml = (data / "iolab.toml").read_text().replace('study = "ds4300-vs-fastt200-2004"', f"study = '{STUDY}'")
    (data / "iolab.toml").write_text(toml)
    path = tmp_path_factory.mktemp("db") / "j.duckdb"
    assert cli.main(["ingest", "-q", str(data), "--db", str(path)]) == 0
    return path


def doc(capsys, *argv: str, code: int = 0) -> dict:
    assert cli.main(list(argv)) == code
    out = capsys.readouterr().out
    parsed = json.loads(out)
    assert isinstance(parsed, dict)
    return parsed


def sql(dbf, query: str) -> list[tuple]:
    con = db.connect(dbf, read_only=True)
    try:
        return con.execute(query).fetchall()
    finally:
        con.close()


def test_info(dbf, capsys):
    d = doc(capsys, "info", "--db", str(dbf), "--format", "json")
    systems = [s for (s,) in sql(dbf, "SELECT DISTINCT system FROM measurements ORDER BY 1")]
    (numbers,) = sql(dbf, "SELECT count(*) FROM measurements")[0]
    assert systems == ["IBM DS4300 (dual controllers)", "IBM FAStT200 (dual controllers)"]
    assert d["studies"] == [
        {"study": STUDY, "files": 1, "systems": systems, "formats": ["published-results-csv"], "numbers": numbers}
    ]
    assert d["files"] == [{"format": "published-results-csv", "status": "ok", "files": 1}]
    assert d["totals"]["measurements"] == numbers and d["totals"]["points"] == 0
    assert d["db"] == str(dbf) and d["store_problems"] == [] and d["copies"] == 0 and len(d["data_roots"]) == 1


def test_validate(dbf, capsys):
    from iolab.validation.run import suites

    assert cli.main(["validate", "--db", str(dbf), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    d = json.loads(out)
    stored = sql(dbf, "SELECT count(*), count(*) FILTER (success) FROM validation_results")[0]
    assert (d["expectations"], d["met"], d["failed"]) == (stored[0], stored[1], 0)
    assert d["expectations"] == len(d["results"]) > 10
    assert set(d["results"][0]) == {
        "suite",
        "expectation",
        "kwargs",
        "success",
        "unexpected_count",
        "examples",
        "rows_validated",
    }
    # progress: one plain line per suite on standard error (no terminal here), none on standard output
    names = [m.SUITE for m in suites()]
    assert err.splitlines() == [f"validate [{i}/{len(names)}] {s}" for i, s in enumerate(names, 1)]


def test_formats(capsys):
    from iolab import registry

    d = doc(capsys, "formats", "--format", "json")
    assert [f["format"] for f in d["formats"]] == [m.FORMAT for m in registry.modules()]
    fio = next(f for f in d["formats"] if f["format"] == "fio-json")
    assert fio["versions_seen"] == formats.shipped_versions()["fio-json"] and fio["module"] == "iolab.formats.fio_json"
    assert {r["suffix"]: r["why"] for r in d["not_read"]} == registry.KNOWN_UNSUPPORTED


def test_detect(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("nothing a parser knows\n")
    shutil.copy(SAMPLE / "ds4300_vs_fastt200_2004.csv", tmp_path / "r.csv")
    d = doc(capsys, "detect", str(tmp_path), "--format", "json", code=cli.EXIT_REJECTED)
    by = {f["path"].rsplit("/", 1)[-1]: f for f in d["files"]}
    assert by["r.csv"]["parsers"] == ["published-results-csv"] and by["r.csv"]["claimed"] is True
    assert by["notes.txt"]["parsers"] == [] and by["notes.txt"]["claimed"] is False
    assert (d["claimed"], d["unclaimed"]) == (1, 1)


def test_ingest_format_json_is_the_json_flag(tmp_path, capsys):
    a = doc(capsys, "ingest", str(SAMPLE), "--db", str(tmp_path / "a.duckdb"), "--format", "json")
    b = doc(capsys, "ingest", str(SAMPLE), "--db", str(tmp_path / "b.duckdb"), "--json")
    assert a["summary"]["ingested"] == b["summary"]["ingested"] == 1  # the csv (iolab.toml is its sidecar)
    assert [(f["path"].rsplit("/", 2)[-2:], f["status"], f["format"]) for f in a["files"]] == [
        (["ds4300-vs-fastt200-2004", "ds4300_vs_fastt200_2004.csv"], "ingested", "published-results-csv")
    ]
    assert [f["path"] for f in b["files"]] == [f["path"] for f in a["files"]]


@pytest.mark.slow  # 50 s on a loaded 2-core machine: DuckDB creates every view of the lake
def test_lake_export_views_status(dbf, tmp_path, capsys):
    lake = tmp_path / "lake"
    assert cli.main(["lake", "export", "--db", str(dbf), "--to", str(lake), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    d = json.loads(out)
    assert err.splitlines() == [  # progress on standard error, a line per part (no terminal here)
        "lake export [1/3] table schemas",
        "lake export [2/3] 1 new sources",
        "lake export [3/3] time-series files",
    ]
    ids = [i for (i,) in sql(dbf, "SELECT DISTINCT content_id FROM source_files ORDER BY 1")]
    assert d["last_run"]["new_sources"] == ids and d["last_run"]["batch"] == 1
    assert d["row_counts"]["measurements"] == sql(dbf, "SELECT count(*) FROM measurements")[0][0]
    assert doc(capsys, "lake", "status", "--lake", str(lake), "--format", "json", code=1) == {
        "lake": str(lake),
        "views": str(lake / "views"),
        "state": "missing",
    }
    assert cli.main(["lake", "views", "--lake", str(lake), "--view", "source_files", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    v = json.loads(out)
    assert v["rows"] == {"source_files": len(ids)} and v["engine"] == "duckdb"
    assert err.splitlines()[:2] == [
        "lake views [1/2] reading the lake's tables, defining the views",
        "lake views [2/2] source_files",
    ]
    assert doc(capsys, "lake", "status", "--lake", str(lake), "--format", "json")["state"] == "current"


def test_doctor_is_an_object_like_the_others(capsys):
    from iolab.cli import doctor

    ready = all(c.found for c in doctor.checks() if c.required)
    d = doc(capsys, "doctor", "--format", "json", code=cli.EXIT_OK if ready else cli.EXIT_ENVIRONMENT)
    assert set(d) == {"ready", "missing", "checks"} and d["ready"] is ready
    assert d["missing"] == [c["item"] for c in d["checks"] if c["found"] is None]


def test_progress_draws_a_bar_on_a_terminal_and_nothing_on_standard_output(monkeypatch, capsys):
    import io

    from rich.console import Console

    from iolab import terminal

    screen = io.StringIO()
    fake = Console(file=screen, force_terminal=True, width=100)
    monkeypatch.setattr(terminal, "console", lambda stderr=False: fake)
    with steps.steps("lake views") as step:
        for i, name in enumerate(["a_view", "b_view"], 1):
            step(i, 2, name)
    assert "lake views" in screen.getvalue() and "b_view" in screen.getvalue()
    assert capsys.readouterr() == ("", "")


def test_remove(tmp_path, capsys):
    dbf = str(tmp_path / "r.duckdb")
    assert cli.main(["ingest", "-q", str(SAMPLE), "--db", dbf]) == 0
    capsys.readouterr()
    d = doc(capsys, "remove", "--study", "ds4300-vs-fastt200-2004", "--db", dbf, "--format", "json")
    assert [(p["path"].rsplit("/", 1)[-1], p["status"]) for p in d["removed"]] == [
        ("ds4300_vs_fastt200_2004.csv", "removed")
    ]
    assert d["still_on_disk"] == [] and d["db"] == dbf
    assert sql(dbf, "SELECT count(*) FROM measurements")[0][0] == 0
