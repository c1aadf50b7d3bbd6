"""Run keys are unique within a file without a database index (schemas/V080): the writer refuses a
file two of whose runs share a key, and a database made before V080 keeps every run."""

from __future__ import annotations

import shutil

from iolab import db
from iolab.formats import iozone_text
from iolab.store import schema
from tests.conftest import corpus, ingest, q

IOZONE = "iozone-text/psteinb__iozone2csv__3.434_auto.out"
FIO = "fio-json/louwrentius__fio-plot__fio31_randrw-1-1.json"


def test_a_file_whose_runs_share_a_key_is_refused_whole_and_the_others_kept(con, monkeypatch):
    real = iozone_text.parse

    def twice(data, name):  # a parser fault: the first run once more
        res = real(data, name)
        res.runs.append(next(iter(res.runs)))
        return res

    monkeypatch.setattr(iozone_text, "parse", twice)
    report = ingest(con, corpus(IOZONE), corpus(FIO))
    by_format = {o.format: o for o in report.outcomes}
    bad = by_format["iozone-text"]
    assert bad.status == "rejected"
    assert "two runs of the file have the key '1048576/512/write': each run needs its own key" in bad.reason
    assert q(con, "SELECT DISTINCT tool FROM runs") == [("fio",)]  # nothing of the refused file
    assert q(con, "SELECT count(*) FROM iozone_values") == [(0,)]


def test_a_database_made_before_v080_keeps_its_runs_and_loses_only_the_index(tmp_path, monkeypatch):
    today, before = schema.SCHEMAS, tmp_path / "schemas"
    shutil.copytree(today, before)
    (before / "V080__runs_without_key_index.sql").unlink()
    monkeypatch.setattr(schema, "SCHEMAS", before)
    monkeypatch.setattr(schema, "from_template", lambda path: False)
    f = tmp_path / "old.duckdb"
    con = db.open_db(f)
    ingest(con, corpus(IOZONE), corpus(FIO))
    cols = "SELECT * EXCLUDE (run_id) FROM runs ORDER BY source_id, run_key"
    runs, samples = q(con, cols), q(con, "SELECT count(*), sum(value) FROM samples JOIN runs USING (run_id)")
    unique = "SELECT count(*) FROM duckdb_constraints() WHERE table_name = 'runs' AND constraint_type = 'UNIQUE'"
    assert q(con, unique) == [(1,)]
    con.close()

    monkeypatch.setattr(schema, "SCHEMAS", today)
    con = db.open_db(f)  # V080 applied in place
    assert q(con, "SELECT script FROM schema_history WHERE version = 80") == [("V080__runs_without_key_index.sql",)]
    assert q(con, cols) == runs and len(runs) > 100
    assert q(con, "SELECT count(*), sum(value) FROM samples JOIN runs USING (run_id)") == samples
    assert q(con, unique) == [(0,)]
    assert q(con, "SELECT constraint_type FROM duckdb_constraints() WHERE table_name = 'runs' ORDER BY 1") == [
        ("NOT NULL",),
        ("NOT NULL",),
        ("NOT NULL",),
        ("NOT NULL",),
        ("PRIMARY KEY",),
    ]
    comments = q(con, "SELECT count(*) FROM duckdb_columns() WHERE table_name = 'runs' AND comment IS NOT NULL")
    assert comments == q(con, "SELECT count(*) FROM duckdb_columns() WHERE table_name = 'runs'") == [(24,)]
    assert q(con, "SELECT count(*) > 0 FROM measurements") == [(True,)]  # the views read the new table
    con.close()
