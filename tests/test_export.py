"""`iolab export`: every view and table in CSV, Parquet and JSON; nested columns flattened for CSV;
--study; and no CSV iolab writes (export, compare, the reports' downloads) can carry a formula."""

from __future__ import annotations

import base64
import csv
import io
import json
import re
import shutil

import polars as pl
import pyarrow.parquet as pq
import pytest

from iolab import cli, csvsafe, db
from tests.conftest import ROOT

HOSTILE_STUDY = "=evil"
BASE = '=HYPERLINK("http://x","y")'
NEW = "@SUM(1+1)"
FIO = ROOT / "tests" / "corpus" / "fio-json"


@pytest.fixture(scope="module")
def dbf(tmp_path_factory):
    """The bundled studies plus a study whose names are formulas (two real fio files, matched points)."""
    root = tmp_path_factory.mktemp("export")
    data = root / "data"
    shutil.copytree(ROOT / "data" / "samples", data / "samples")
    ev = data / "evil"
    for sub, system, name in (
        ("base", BASE, "louwrentius__fio-plot__fio218_randread-01-01.json"),
        ("new", NEW, "louwrentius__fio-plot__fio31_d3s4610_randread-1-1.json"),
    ):
        (ev / sub).mkdir(parents=True)
        shutil.copy(FIO / name, ev / sub / name)
        (ev / sub / "iolab.toml").write_text(f"system = {json.dumps(system)}\n")
    (ev / "iolab.toml").write_text(f"study = {json.dumps(HOSTILE_STUDY)}\nbaseline = {json.dumps(BASE)}\n")
    f = root / "x.duckdb"
    assert cli.main(["ingest", "-q", str(data), "--db", str(f)]) == 0
    return f


def relations(dbf) -> list[str]:
    con = db.connect(dbf, read_only=True)
    try:
        return sorted(cli.export.relations(con))
    finally:
        con.close()


def count(dbf, name: str, study: str | None = None) -> int:
    con = db.connect(dbf, read_only=True)
    try:
        where = " WHERE study = ?" if study is not None else ""
        return con.execute(f'SELECT count(*) FROM "{name}"{where}', [study] if study is not None else []).fetchone()[0]
    finally:
        con.close()


def export(dbf, tmp_path, name: str, fmt: str, *extra: str) -> tuple[int, object]:
    out = tmp_path / f"{name}.{fmt}"
    code = cli.main(["export", name, "--db", str(dbf), "--format", fmt, "--out", str(out), *extra])
    return code, out


@pytest.mark.slow  # every view in every format, each a process: make test-slow
def test_every_view_and_table_exports_in_every_format(dbf, tmp_path):
    names = relations(dbf)
    assert {"measurements", "comparison", "source_files", "validation_results"} <= set(names)
    for name in names:
        n = count(dbf, name)
        code, out = export(dbf, tmp_path, name, "csv")
        assert code == 0, name
        rows = list(csv.reader(out.open(encoding="utf-8", newline="")))
        assert len(rows) == n + 1, name  # header + every row
        code, out = export(dbf, tmp_path, name, "json")
        assert code == 0 and len(json.loads(out.read_text(encoding="utf-8"))) == n, name
        code, out = export(dbf, tmp_path, name, "parquet")
        table = pq.read_table(out)
        assert code == 0 and table.num_rows == n and table.column_names == rows[0], name
    assert not list(tmp_path.glob(".*.part"))  # every temporary file became its --out


def test_nested_columns_are_json_text_in_csv_and_nested_in_json(dbf, tmp_path):
    _, out = export(dbf, tmp_path, "source_files", "csv", "--study", "fio-intel-d3-s4610-qd-sweep")
    rows = list(csv.DictReader(out.open(encoding="utf-8", newline="")))
    assert rows and all(json.loads(r["tags"]) == ["fio", "ssd", "queue-depth-sweep", "public-sample"] for r in rows)
    assert all(json.loads(r["labels"])["study"] == "fio-intel-d3-s4610-qd-sweep" for r in rows)
    _, out = export(dbf, tmp_path, "source_files", "json", "--study", "fio-intel-d3-s4610-qd-sweep")
    docs = json.loads(out.read_text(encoding="utf-8"))
    assert docs[0]["tags"] == ["fio", "ssd", "queue-depth-sweep", "public-sample"]
    assert docs[0]["labels"]["study"] == "fio-intel-d3-s4610-qd-sweep"  # a JSON column stays JSON


def _starts_formula(cell: str) -> bool:
    """A cell a spreadsheet would run: starts with a trigger and is not a plain number."""
    if not cell.startswith(csvsafe.TRIGGERS):
        return False
    try:
        float(cell)
        return False
    except ValueError:
        return True


def test_no_csv_cell_of_any_view_is_a_formula(dbf, tmp_path):
    seen = set()
    for name in relations(dbf):
        _, out = export(dbf, tmp_path, name, "csv")
        for row in csv.reader(out.open(encoding="utf-8", newline="")):
            assert not [c for c in row if _starts_formula(c)], name
            seen.update(c for c in row if c in ("'" + BASE, "'" + NEW, "'" + HOSTILE_STUDY))
    assert seen == {"'" + BASE, "'" + NEW, "'" + HOSTILE_STUDY}


def test_study_selects_that_studys_rows(dbf, tmp_path, capsys):
    n = count(dbf, "measurements", HOSTILE_STUDY)
    assert 0 < n < count(dbf, "measurements")
    code, out = export(dbf, tmp_path, "measurements", "json", "--study", HOSTILE_STUDY)
    docs = json.loads(out.read_text(encoding="utf-8"))
    assert code == 0 and len(docs) == n and {d["study"] for d in docs} == {HOSTILE_STUDY}
    capsys.readouterr()
    code, _ = export(dbf, tmp_path, "measurements", "csv", "--study", "nope")
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2 and "No study 'nope'" in err and "fio-intel-d3-s4610-qd-sweep" in err
    code, _ = export(dbf, tmp_path, "schema_history", "csv", "--study", HOSTILE_STUDY)
    assert code == 2 and "has no study column" in capsys.readouterr().err


def test_export_to_standard_output(dbf, capsys):
    assert cli.main(["export", "study_baseline", "--db", str(dbf), "--study", HOSTILE_STUDY]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["baseline_system"] for r in rows] == ["'" + BASE]


def test_compare_csv_is_neutralised(dbf, capsys):
    assert cli.main(["compare", "--db", str(dbf), "--study", HOSTILE_STUDY, "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert rows and {(r["study"], r["baseline_system"], r["system"]) for r in rows} == {
        ("'" + HOSTILE_STUDY, "'" + BASE, "'" + NEW)
    }


def test_report_download_is_neutralised():
    from iolab.reports.tables import download_link

    link = download_link(pl.DataFrame({"system": [BASE, "plain"], "delta": [-1.5, 2.0]}), "t")
    text = base64.b64decode(re.search(r"base64,([^\"]+)", link).group(1)).decode()
    assert text.splitlines() == ["system,delta", '"\'=HYPERLINK(""http://x"",""y"")",-1.5', "plain,2.0"]


@pytest.mark.parametrize("text", ["=1", "+1", "-x", "@a", "\tx", "\rx"])
def test_csvsafe_cell(text):
    assert csvsafe.cell(text) == "'" + text and csvsafe.cell("a" + text) == "a" + text
