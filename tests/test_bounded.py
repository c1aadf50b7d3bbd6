"""Parsers bounded in memory: the same output whether a big file's rows are packed a chunk at a time
or kept whole, and documents read one at a time (tests/bench_scaling.py times them and measures memory)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from iolab.formats import fio_json
from tests import golden

ROOT = Path(__file__).parent.parent
CORPUS = ROOT / "tests" / "corpus"


def _documents(n: int) -> str:
    """``n`` copies of a real fio 3.1 document, each a run of its own (an hour apart) with its own read
    I/O count over one second (its IOPS, as fio computes them), fio text lines between them."""
    doc = json.loads((CORPUS / "fio-json" / "louwrentius__fio-plot__fio31_randrw-1-1.json").read_text())
    out = []
    for i in range(n):
        doc["timestamp"] += 3600
        read = doc["jobs"][0]["read"]  # its bytes and bandwidth over that second too (the parser checks them)
        read.update(total_ios=4000 + i, runtime=1000, iops=4000.0 + i, io_bytes=read["bw"] * 1024, io_kbytes=read["bw"])
        out.append(f"fio: note {i}\n" + json.dumps(doc, indent=2) + "\n")
    return "".join(out)


def test_many_documents_keep_each_job_line_and_message():
    text = _documents(40)
    res = fio_json.parse(text.encode(), "many.json")
    jobname_lines = [text.count("\n", 0, m.start()) + 1 for m in re.finditer('"jobname"', text)]
    jobs = res.tables["fio_jobs"]
    assert [j["line_no"] for j in jobs] == jobname_lines and len(jobs) == 40
    assert [j["doc_no"] for j in jobs] == list(range(1, 41))
    msgs = res.tables["fio_messages"]
    assert [(m["doc_no"], m["text"]) for m in msgs] == [(i, f"fio: note {i - 1}") for i in range(1, 41)]
    iops = [s.value for s in res.samples if s.metric == "read_iops"]
    assert iops == [4000 + i for i in range(40)]


def test_a_document_after_text_gets_that_text_as_its_description():
    doc = json.loads((CORPUS / "fio-json" / "louwrentius__fio-plot__fio31_randrw-1-1.json").read_text())
    doc["jobs"][0]["error"] = 5
    one = json.dumps(doc, indent=2)
    text = one + "\nfio: pid=1, err=5\n" + one + "\n"
    res = fio_json.parse(text.encode(), "x.json")
    assert [r.description for r in res.runs] == [None, "fio: pid=1, err=5"]


PACKED_DIRS = (
    "iometer",
    "fio-json",
    "fio-terse",
    "vdbench-summary",
    "vdbench-totals",
    "orion",
    "iozone-text",
    "elbencho-csv",
    "elbencho-text",
    "array-perf",
    "fio-log",
)
PACKED = sorted(p for d in PACKED_DIRS for p in (CORPUS / d).iterdir() if p.is_file())


@pytest.mark.parametrize("path", PACKED, ids=lambda p: p.name)
def test_rows_packed_in_small_chunks_yield_the_same_twin(path, monkeypatch):
    """A big file's rows go to compressed batches a chunk at a time: with chunks of a few rows,
    every real file still yields its golden twin (order, types and values)."""
    from iolab.formats import _rows, iometer, iometer_inst

    monkeypatch.setattr(_rows.Rows, "CHUNK", 4)
    monkeypatch.setattr(iometer._Parser, "CHUNK", 50)
    monkeypatch.setattr(iometer_inst._InstParser, "POINTS_CHUNK", 5)
    assert golden.diff(path) is None


@pytest.mark.parametrize(
    "fmt, path, big",
    [
        (
            "published-results-csv",
            "data/samples/ds4300-vs-fastt200-2004/ds4300_vs_fastt200_2004.csv",
            "published_results",
        ),
        ("vscsistats-csv", "tests/fixtures/vscsistats/handmade-vscsistats-c.csv", "vscsi_buckets"),
    ],
)
def test_packed_tables_of_formats_without_a_corpus_file(fmt, path, big, monkeypatch):
    """published_results and vscsi_buckets are packed past a chunk: with chunks of 4 rows the
    tables hold the same rows, in the same order, as the plain lists of a small file."""
    import polars as pl

    from iolab import registry
    from iolab.formats import _rows

    mod = next(m for m in registry.modules() if fmt == m.FORMAT)
    data = (ROOT / path).read_bytes()
    plain = mod.parse(data, Path(path).name).tables
    monkeypatch.setattr(_rows.Rows, "CHUNK", 4)
    packed = mod.parse(data, Path(path).name).tables
    assert plain.keys() == packed.keys() and isinstance(packed[big], pl.DataFrame)
    for table, rows in plain.items():
        if isinstance(packed[table], pl.DataFrame):
            assert len(rows) > 4, table
            assert packed[table].to_dicts() == pl.DataFrame(rows, infer_schema_length=None).to_dicts(), table
        else:
            assert packed[table] == rows, table


def test_rows_refuse_an_unknown_kind_and_pack_past_the_chunk():
    from iolab.formats._rows import Rows

    with pytest.raises(ValueError, match="unknown column kind"):
        Rows({"a": "int"})
    rows = Rows({"a": "i32", "b": "str"}, chunk=2)
    rows += [{"a": 1, "b": "x"}, {"a": 2}, {"b": "z"}]
    assert len(rows) == 3
    table = rows.table()
    assert not isinstance(table, list)
    assert table.to_table().to_pylist() == [{"a": 1, "b": "x"}, {"a": 2, "b": None}, {"a": None, "b": "z"}]
    few = Rows({"a": "i32"})
    few.append({"a": 1})
    assert few.table() == [{"a": 1}]


def test_every_connection_keeps_duckdb_to_the_memory_knob(tmp_path, monkeypatch):
    """IOLAB_DB_MEMORY bounds every connection iolab opens, writing or reading (a render's pages, a
    notebook's queries), and each spills into its process's folder in the cache."""
    from iolab import db

    monkeypatch.setenv("IOLAB_DB_MEMORY", "300MB")
    monkeypatch.setenv("IOLAB_CACHE_DIR", str(tmp_path / "cache"))
    con = db.open_db(tmp_path / "m.duckdb")
    assert con.execute("SELECT current_setting('memory_limit')").fetchall() == [("286.1 MiB",)]
    con.close()
    for ro in (db.connect(tmp_path / "m.duckdb", read_only=True), db.reader(tmp_path / "m.duckdb")):
        assert ro.execute("SELECT current_setting('memory_limit')").fetchall() == [("286.1 MiB",)]
        (spill,) = ro.execute("SELECT current_setting('temp_directory')").fetchall()[0]
        assert Path(spill).parent == tmp_path / "cache" / "spill"
        ro.close()


def test_the_default_memory_limit_is_sized_from_the_machine(monkeypatch):
    """A quarter of the machine's memory (at least 256 MB), at most 512 MB for a connection that writes."""
    from iolab import config

    monkeypatch.delenv("IOLAB_DB_MEMORY", raising=False)
    for machine, reading, writing in ((16_000_000_000, "4000MB", "512MB"), (1_000_000_000, "256MB", "256MB")):
        monkeypatch.setattr(config, "machine_memory", lambda m=machine: m)
        assert (config.db_memory_limit(read_only=True), config.db_memory_limit()) == (reading, writing)
    assert config.memory_bytes("512MB") == 512_000_000 and config.memory_bytes("488.2 MiB") == int(488.2 * 2**20)
    assert config.memory_bytes("a lot") == 0


def test_a_render_s_snapshot_computes_its_views_with_a_reader_s_memory(tmp_path, monkeypatch):
    """The snapshot's connection writes its copy, but computes what the pages read: a reader's quarter
    of the machine, not a writer's 512 MB (a 10,000-run study's trend_runs needs ~600 MB and cannot
    spill); the knob still bounds it."""
    from iolab import config, db
    from iolab.reports import render

    monkeypatch.delenv("IOLAB_DB_MEMORY", raising=False)
    monkeypatch.setattr(config, "machine_memory", lambda: 16_000_000_000)
    seen = []
    monkeypatch.setattr(
        render,
        "materialize",
        lambda con, views: seen.append(con.execute("SELECT current_setting('memory_limit')").fetchall()),
    )
    render.store_views(db.open_db(tmp_path / "s.duckdb"), [])
    monkeypatch.setenv("IOLAB_DB_MEMORY", "300MB")
    render.store_views(db.open_db(tmp_path / "s.duckdb"), [])
    assert seen == [[("3.7 GiB",)], [("286.1 MiB",)]]  # 4000 MB, the reader's; 300 MB, the knob


def test_a_query_past_the_limit_spills_and_an_ended_processs_spill_is_removed(tmp_path, monkeypatch):
    """A sort bigger than the memory limit spills into the process's folder in the cache instead of
    failing, and leaves no file there once closed; the folder of a process that ended without closing
    (killed) is removed by the next connection, while a running process's stays."""
    import os
    import subprocess
    import sys

    from iolab import db, processes

    monkeypatch.setenv("IOLAB_DB_MEMORY", "64MB")
    monkeypatch.setenv("IOLAB_CACHE_DIR", str(tmp_path / "cache"))
    spill = tmp_path / "cache" / "spill"
    spill.mkdir(parents=True)
    ended = subprocess.run(
        [sys.executable, "-c", "from iolab import processes; print(processes.tag())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    running = f"{os.getppid()}.{processes.started(os.getppid())}"  # pytest's parent: still running
    (spill / ended).mkdir()
    (spill / ended / "duckdb_temp_1_0_storage_DEFAULT-0.tmp").write_bytes(b"left by a killed process")
    (spill / running).mkdir()
    con = db.open_db(tmp_path / "s.duckdb")
    assert sorted(p.name for p in spill.iterdir()) == [running]
    con.execute("CREATE TABLE t AS SELECT range AS r, hash(range) AS x FROM range(8000000)")  # 128 MB
    last = con.execute("SELECT r FROM t ORDER BY x DESC LIMIT 1").fetchall()
    con.execute("CREATE TABLE s AS SELECT r FROM t ORDER BY x")  # the whole sort: more than the limit
    assert con.execute("SELECT r FROM s LIMIT 1 OFFSET 7999999").fetchall() == last
    assert (spill / processes.tag()).is_dir()  # made by DuckDB when it spilled
    con.close()
    assert not any((spill / processes.tag()).glob("*")) if (spill / processes.tag()).exists() else True
    assert running in {p.name for p in spill.iterdir()}


def test_a_long_job_name_is_kept_whole_but_cut_in_the_run_key():
    """Every sample repeats its run key: a 1 MB job name would be copied into each. The key keeps
    its first 200 characters (its numbers keep it unique); the run and fio_jobs keep the whole name."""
    doc = json.loads((CORPUS / "fio-json" / "louwrentius__fio-plot__fio31_randrw-1-1.json").read_text())
    name = "n" * 1_000_000
    doc["jobs"].append({**doc["jobs"][0], "jobname": name})
    doc["jobs"][0]["jobname"] = name
    res = fio_json.parse(json.dumps(doc, indent=2).encode(), "long.json")
    keys = [r.key for r in res.runs]
    assert keys == ["1:1:" + "n" * 200 + "...", "1:2:" + "n" * 200 + "..."]
    assert [r.workload for r in res.runs] == [name, name]
    assert [j["jobname"] for j in res.tables["fio_jobs"]] == [name, name]
    assert {s.run_key for s in res.samples} == set(keys)


def test_a_repeated_key_keeps_every_value_and_a_plain_object_its_items():
    a = fio_json._Obj([("filename", "/dev/a"), ("bs", "4k"), ("filename", "/dev/b")])
    assert a.pairs == [("filename", "/dev/a"), ("bs", "4k"), ("filename", "/dev/b")] and a["filename"] == "/dev/b"
    b = fio_json._Obj([("bs", "4k"), ("rw", "read")])
    assert b.pairs == [("bs", "4k"), ("rw", "read")] and b.repeats is None


def test_the_scaling_bench_grows_iometer_with_every_session_perturbed(tmp_path):
    """make bench's Iometer file: the real sessions repeated with their numbers varied (a file of one
    session repeated compresses unusually well), still a file the parser reads whole."""
    from iolab.formats import iometer
    from tests import bench_scaling

    case = next(c for c in bench_scaling.CASES if c.fmt == "iometer-results-csv")
    out = tmp_path / "grown.csv"
    bench_scaling.grow(case, 1.0, out)
    original = iometer.parse(case.path.read_bytes(), case.path.name)
    grown = iometer.parse(out.read_bytes(), out.name)
    n = len(original.runs)
    assert len(grown.runs) == 3 * n and out.stat().st_size > 1e6
    real = [s.value for s in original.samples if s.metric == "iops" and s.scope == "all"]
    iops = [s.value for s in grown.samples if s.metric == "iops" and s.scope == "all"]
    copies = [iops[:n], iops[n : 2 * n], iops[2 * n :]]
    assert copies[0] != copies[1] != copies[2] != real
    assert all(abs(v / r - 1) <= 0.05 + 1e-6 for copy in copies for r, v in zip(real, copy) if r)
    assert [r.workload for r in grown.runs] == [r.workload for r in original.runs] * 3


def test_vary_keeps_the_kind_of_each_number():
    import random

    from tests.bench_scaling import vary

    rng = random.Random(1)
    assert vary("0.000000", rng) == "0.000000" and vary("4", rng) == "4" and vary("18446744073709551615", rng)
    v = vary("30171.173034", rng)
    assert len(v.split(".")[1]) == 6 and abs(float(v) / 30171.173034 - 1) <= 0.05
    n = vary("231736832", rng)
    assert n.isdigit() and abs(int(n) / 231736832 - 1) <= 0.05


def test_diskspd_runs_of_a_long_capture_each_sum_their_own_targets():
    """Each run of a console capture reads only its own rows (linear in runs): three copies of a
    real two-run capture give its per-target sums three times over."""
    from iolab.formats import diskspd_text

    raw = (CORPUS / "diskspd-text" / "BasilKisel__trying-out-diskspd__2.0.x_azure_2runs.txt").read_bytes()
    one = diskspd_text.parse(raw, "one.txt")
    three = diskspd_text.parse(raw + b"\n" + raw + b"\n" + raw, "three.txt")

    def targets(res):
        return [(s.metric, s.target, s.value) for s in res.samples if s.scope == "target"]

    assert len(three.runs) == 3 * len(one.runs) and targets(one)
    assert targets(three) == targets(one) * 3


@pytest.mark.parametrize("columns", [None, {"a": "str"}])
def test_a_value_no_column_can_hold_is_refused_as_the_writer_refuses_it(columns):
    """A lone surrogate (a JSON escape such as \\ud800) cannot be stored: a small file's rows are
    refused by the writer with this reason; a big file's packed rows say the same, not 'internal error'."""
    from iolab.formats._rows import Rows
    from iolab.model import ParseError

    rows = Rows(columns, chunk=1)
    with pytest.raises(ParseError, match=r"could not store the parsed rows \(UnicodeEncodeError: .*surrogates"):
        rows.append({"a": "\ud800"})


def test_a_value_of_megabytes_is_not_fio_output():
    """fio keeps a job name in 128 bytes: a 2 MB one is refused at its job's line, before its copies
    (run, fio_jobs, fio_job_values) cost memory."""
    doc = json.loads((CORPUS / "fio-json" / "louwrentius__fio-plot__fio31_randrw-1-1.json").read_text())
    doc["jobs"][0]["jobname"] = "n" * 2_000_000
    text = json.dumps(doc, indent=2)
    with pytest.raises(fio_json.ParseError, match=r"'jobname' and its value hold 2,000,007 characters") as e:
        fio_json.parse(text.encode(), "huge.json")
    assert e.value.line == text.count("\n", 0, text.index('"jobname"')) + 1
    doc["jobs"][0]["jobname"] = "x"
    doc["jobs"][0]["job options"]["k" * 2_000_000] = "1"
    with pytest.raises(fio_json.ParseError, match=r"'kkkk.*' and its value hold 2,000,001 characters"):
        fio_json.parse(json.dumps(doc, indent=2).encode(), "huge-key.json")


def test_a_big_table_goes_in_a_slice_at_a_time_whole_and_in_order(monkeypatch):
    """Past writer.SLICE rows, a frame or Arrow table is inserted a slice at a time (the whole as one
    Arrow stream held about twice its size more): every row arrives, in order, with its constants."""
    import duckdb
    import polars as pl

    from iolab.store import writer

    monkeypatch.setattr(writer, "SLICE", 3)
    con = duckdb.connect()
    con.execute("CREATE TABLE t (source_id BIGINT, n BIGINT, s VARCHAR)")
    frame = pl.DataFrame({"n": range(10), "s": [f"r{i}" for i in range(10)]})
    w = writer.Writer.__new__(writer.Writer)
    w.con, w.parts, w.rows = con, {}, {}
    inserted, insert = [], writer._insert_table
    monkeypatch.setattr(writer, "_insert_table", lambda c, t, rows: inserted.append(len(rows)) or insert(c, t, rows))
    assert w.put("t", frame, {"source_id": 7}, gather=False) == 10
    assert w.put("t", frame.to_arrow(), {"source_id": 8}, gather=False) == 10
    got = con.execute("SELECT source_id, n, s FROM t").fetchall()
    assert got == [(7, i, f"r{i}") for i in range(10)] + [(8, i, f"r{i}") for i in range(10)]
    assert inserted == [10, 3, 3, 3, 1] * 2
