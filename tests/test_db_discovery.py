"""Without --db, a command finds the project's database from a subfolder, as git finds its repository
(issue 56): `cd notebooks && iolab info` reads data/iolab.duckdb of the folder above."""

from __future__ import annotations

import json
import shutil

from iolab import cli
from iolab.config import find_db
from tests.conftest import corpus

FIO = corpus("fio-json/louwrentius__fio-plot__fio31_randrw-1-1.json")


def _project(tmp_path):
    study = tmp_path / "lab" / "data" / "study"
    study.mkdir(parents=True)
    shutil.copy2(FIO, study / FIO.name)
    (tmp_path / "lab" / "notebooks" / "deeper").mkdir(parents=True)
    return tmp_path / "lab"


def test_a_command_in_a_subfolder_reads_the_project_s_database(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("IOLAB_DB", raising=False)
    lab = _project(tmp_path)
    monkeypatch.chdir(lab / "data" / "study")  # an ingest from inside the study: the database is made here first
    assert cli.main(["ingest", ".", "--quiet"]) == 0
    made = lab / "data" / "study" / "data" / "iolab.duckdb"
    assert made.is_file()  # none above yet: data/iolab.duckdb of the current folder, as before
    shutil.rmtree(made.parent)
    monkeypatch.chdir(lab)
    assert cli.main(["ingest", "data", "--quiet"]) == 0
    capsys.readouterr()

    monkeypatch.chdir(lab / "notebooks" / "deeper")
    assert cli.main(["info", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["db"] == str(lab / "data" / "iolab.duckdb")
    assert doc["db_found"] == f"found above {lab / 'notebooks' / 'deeper'}"
    assert [s["study"] for s in doc["studies"]] == ["study"]

    monkeypatch.chdir(lab / "data" / "study")  # an ingest from inside the data folder finds it too
    assert cli.main(["ingest", ".", "--quiet"]) == 0
    assert not (lab / "data" / "study" / "data").exists()
    capsys.readouterr()

    monkeypatch.chdir(lab)
    assert cli.main(["info", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["db_found"] == "the default"


def test_iolab_db_and_an_explicit_db_win_and_nothing_found_is_said(tmp_path, monkeypatch, capsys):
    lab = _project(tmp_path)
    monkeypatch.chdir(lab / "notebooks")
    monkeypatch.setenv("IOLAB_DB", str(tmp_path / "elsewhere.duckdb"))
    assert find_db() == (str(tmp_path / "elsewhere.duckdb"), "$IOLAB_DB")
    monkeypatch.delenv("IOLAB_DB")
    assert find_db() == ("data/iolab.duckdb", "the default")
    assert cli.main(["info"]) == 2
    assert "nor data/iolab.duckdb in any folder above this one" in capsys.readouterr().err.replace("\n", " ")
    assert cli.main(["info", "--db", str(tmp_path / "named.duckdb")]) == 2
    assert "any folder above" not in capsys.readouterr().err
