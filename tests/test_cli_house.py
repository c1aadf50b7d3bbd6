"""The command line as its ecosystem expects (issue 42): --version names the engines and the schema;
`iolab doctor` says what is installed and what is missing, with the command that adds it."""

from __future__ import annotations

import json
import re
from importlib import metadata

import pytest

from iolab import cli
from iolab.cli import doctor
from tests.conftest import ROOT


def test_version_names_the_schema_and_the_engines(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["--version"])
    assert e.value.code == 0
    out = capsys.readouterr().out.strip()
    newest = max(int(m.group(1)) for m in re.finditer(r"V(\d{3})__", " ".join(p.name for p in cli_schemas())))
    assert out.startswith(f"iolab 0.5.0 (schema V{newest:03d}; duckdb {metadata.version('duckdb')}, ")
    assert f"polars {metadata.version('polars')}" in out and "Python 3." in out


def cli_schemas():
    from iolab.config import SCHEMAS

    return sorted(SCHEMAS.glob("V*__*.sql"))


def test_doctor_says_what_is_missing_and_how_to_add_it(capsys, monkeypatch):
    monkeypatch.setattr(doctor, "_program", lambda name: None if name == "fio" else f"/usr/bin/{name}")
    real = doctor._package
    monkeypatch.setattr(doctor, "_package", lambda d: None if d == "jupyterlab" else real(d))
    assert cli.main(["doctor", "--format", "json"]) == 0  # only optional parts missing
    doc = json.loads(capsys.readouterr().out)
    assert doc["ready"] is True and doc["missing"] == ["jupyterlab", "fio"]
    rows = {r["item"]: r for r in doc["checks"]}
    assert rows["fio"]["found"] is None and rows["fio"]["fix"] == "apt-get update && apt-get install -y fio"
    assert rows["jupyterlab"]["found"] is None and rows["jupyterlab"]["fix"].endswith("-m pip install 'iolab[lab]'")
    assert rows["duckdb"] == {
        "part": "command line",
        "item": "duckdb",
        "found": metadata.version("duckdb"),
        "required": True,
        "fix": rows["duckdb"]["fix"],
    }
    assert cli.main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "2 missing" in out and "apt-get install -y fio" in out


def test_doctor_fails_when_the_command_line_cannot_run(capsys, monkeypatch):
    real = doctor._package
    monkeypatch.setattr(doctor, "_package", lambda d: None if d == "polars" else real(d))
    assert cli.main(["doctor"]) == cli.EXIT_ENVIRONMENT
    assert "polars" in capsys.readouterr().out


def test_compare_of_a_study_without_system_labels_says_which_sidecar_to_write(tmp_path, capsys):
    """It printed 'each system against None (None)' and an empty table, exit 0."""
    from tests.conftest import ROOT

    dbf = tmp_path / "x.duckdb"
    assert cli.main(["ingest", "-q", str(ROOT / "data" / "samples" / "esxtop-perfmon-samples"), "--db", str(dbf)]) == 0
    capsys.readouterr()
    assert cli.main(["compare", "--db", str(dbf), "--study", "esxtop-perfmon-samples"]) == cli.EXIT_USAGE
    err = " ".join(capsys.readouterr().err.split())
    assert "Nothing to compare in esxtop-perfmon-samples: none of its files is labelled with a system." in err
    assert 'data/esxtop-perfmon-samples/<folder>/iolab.toml with system = "Array A"' in err


def fake(folder, name: str, says: str, stream: str = ">&2") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(f"#!/bin/sh\necho '{says}' {stream}\n")
    (folder / name).chmod(0o755)


def test_doctor_finds_java_as_spark_does_and_says_when_it_is_too_old(tmp_path, monkeypatch, capsys):
    """Java on the PATH, or $JAVA_HOME's first (as pyspark looks); one older than 17 cannot run Spark 4."""
    fake(tmp_path / "bin", "java", 'openjdk version "11.0.2" 2019-01-15')
    fake(tmp_path / "bin", "fio", "fio-3.33", stream="")
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    assert doctor._program("java") is None
    assert doctor._program("fio") == f"fio-3.33 ({tmp_path / 'bin' / 'fio'})"
    assert cli.main(["doctor", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    java = next(c for c in doc["checks"] if c["item"] == "java")
    assert java["found"] is None and java["fix"] == "apt-get update && apt-get install -y openjdk-17-jre-headless"
    assert "java" in doc["missing"] and "Java 17 or newer" in java["part"]
    fake(tmp_path / "jdk" / "bin", "java", 'openjdk version "21.0.7" 2025-04-15')
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "jdk"))
    assert doctor._program("java") == f"21.0.7 ({tmp_path / 'jdk' / 'bin' / 'java'})"
    fake(tmp_path / "jdk" / "bin", "java", 'java version "1.8.0_292"')
    assert doctor._program("java") is None  # Java 8


def test_doctor_knows_each_extra_from_pyproject_and_the_installed_metadata(monkeypatch, tmp_path):
    """Which extra brings which distribution is pyproject.toml's optional-dependencies (lab, lake), read
    from iolab's installed metadata, or from the checkout's pyproject.toml where that metadata is
    missing or stale (an editable install keeps the requirements of its last pip install)."""
    import tomllib

    from iolab import config

    optional = tomllib.loads((config.REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    declared = {re.match(r"[A-Za-z0-9._-]+", r)[0].lower(): e for e in ("lab", "lake") for r in optional[e]}
    assert (
        doctor.extras() == declared == {"jupyterlab": "lab", "papermill": "lab", "pyspark": "lake", "sqlglot": "lake"}
    )
    requires = [
        "duckdb>=1.1",
        'PySpark==4.3.0; extra == "lake"',
        'pytest>=8.3; extra == "dev"',
        'jupyterlab<5,>=4.4; extra == "lab"',
        "Foo_Bar.baz>=1 ; python_version >= \"3.11\" and extra == 'lab'",
    ]
    assert doctor.extras_of(requires) == {"pyspark": "lake", "jupyterlab": "lab", "foo-bar-baz": "lab"}
    monkeypatch.setattr(metadata, "requires", lambda name: requires if name == "iolab" else None)
    assert doctor.extras() == declared  # a checkout's pyproject.toml outranks metadata that disagrees
    monkeypatch.setattr(config, "REPO", tmp_path)  # installed from a wheel: no pyproject.toml beside it
    assert doctor.extras() == {"pyspark": "lake", "jupyterlab": "lab", "foo-bar-baz": "lab"}
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "other"\n[project.optional-dependencies]\nlab = ["x"]\n'
    )
    assert doctor.extras() == {"pyspark": "lake", "jupyterlab": "lab", "foo-bar-baz": "lab"}  # not iolab's

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "requires", missing)
    assert doctor.extras() == {}  # neither: each fix names the distribution itself
    monkeypatch.setattr(config, "REPO", ROOT)  # no metadata, a checkout: its pyproject.toml
    assert doctor.extras() == declared
