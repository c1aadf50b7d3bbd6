"""`iolab report` off a terminal says what it does page by page (render's on_page), and a --study
naming no study is wrong usage that lists the studies."""

from __future__ import annotations

import shutil

import pytest

from ingest import cli
from ingest.reports import render
from tests.conftest import ROOT

STUDY = "iomark-vm-hp4335-2014"


@pytest.fixture(scope="module")
def dbf(tmp_path_factory):
    root = tmp_path_factory.mktemp("report")
    shutil.copytree(ROOT / "data" / "samples" / STUDY, root / STUDY)
    f = root / "x.duckdb"
    assert cli.main(["ingest", "-q", str(root / STUDY), "--db", str(f)]) == 0
    return f


def test_a_line_per_page_as_it_is_done(dbf, tmp_path, capsys, monkeypatch):
    # the pages' contents are not what this test is about: each "executes" at once
    monkeypatch.setattr(render, "execute_page", lambda snap, study, nb, pages: f"<p>{nb}</p>")
    monkeypatch.setattr(render, "validate", lambda snap, studies: {s: "" for s in studies})
    pages = [nb for s, nb in render.plan(render.snapshot(dbf, tmp_path)) if s == STUDY]
    assert pages
    out_dir = tmp_path / "reports"
    assert cli.main(["report", "--db", str(dbf), "--out", str(out_dir), "--study", STUDY]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("rendering the reports of")
    assert sorted(lines[1 : 1 + len(pages)]) == sorted(f"rendered   {STUDY} / {nb}" for nb in pages)
    assert cli.main(["report", "--db", str(dbf), "--out", str(out_dir), "--study", STUDY]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sorted(lines[1 : 1 + len(pages)]) == sorted(f"unchanged  {STUDY} / {nb}" for nb in pages)


def test_a_study_that_is_not_there_is_wrong_usage(dbf, tmp_path, capsys):
    assert cli.main(["report", "--db", str(dbf), "--out", str(tmp_path), "--study", "nope"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "No study 'nope'" in err and STUDY in err
