"""esxtop batch output and perfmon PDH-CSV: series counts, spot checks against the file text, traps."""

from __future__ import annotations

import csv

import pytest

from iolab import db
from tests.conftest import FIXTURES, corpus, ingest, q

RS2 = "esxtop/rachsharp__small-esxtop-data.csv"


def cells(path):
    return list(csv.reader(open(path, newline="", encoding="utf-8")))


def test_esxtop_rs2_series_counts_and_spot_checks(con):
    rows = cells(corpus(RS2))
    header = rows[0]
    ingest(con, corpus(RS2))
    named = [i for i, h in enumerate(header) if i > 0 and h]
    assert q(con, "SELECT count(*) FROM series") == [(len(named),)] == [(7630,)]
    assert q(con, "SELECT column_no, reason FROM pdh_skipped_columns") == [(7631, "no counter name (trailing comma)")]
    for col in (1, 7, 100, 2500, 5000, 7630):
        got = q(
            con,
            """SELECT smp.ts_text, p.value FROM series_points p JOIN series s USING (series_id)
                        JOIN series_samples smp ON smp.source_id = p.source_id AND smp.sample_no = p.sample_no
                        WHERE s.column_no = ? ORDER BY p.sample_no""",
            [col],
        )
        assert got == [(r[0], float(r[col])) for r in rows[1:]], header[col]
    objects = dict(q(con, "SELECT object, count(*) FROM series GROUP BY 1"))
    assert (objects["Vcpu"], objects["Group Cpu"], objects["Network Port"], objects["Physical Disk SCSI Device"]) == (
        5313,
        655,
        96,
        60,
    )  # as counted in MANIFEST.tsv
    assert q(con, "SELECT min(ts), max(ts) FROM series_samples") == q(
        con, "SELECT TIMESTAMP '2018-04-26 14:06:27', TIMESTAMP '2018-04-26 14:06:37'"
    )


def test_esxtop_instance_parts(con):
    ingest(con, corpus(RS2))
    vcpu = q(
        con,
        """SELECT instance_id, instance_name, sub_instance FROM series
                     WHERE object = 'Vcpu' AND instance = '1:system:65537:idle1' LIMIT 1""",
    )
    assert vcpu == [("1", "system", "65537:idle1")]
    port = q(
        con,
        "SELECT instance_name, instance_id, sub_instance FROM series WHERE object = 'Network Port' "
        "AND instance = 'vSwitch0:33554435:Shadow of vmnic0' LIMIT 1",
    )
    assert port == [("vSwitch0", "33554435", "Shadow of vmnic0")]
    assert (
        q(con, "SELECT count(*) FROM series WHERE counter LIKE 'Average Packet Size  %'")[0][0] > 0
    )  # two spaces kept


def test_perfmon_blanks_are_missing_not_zero(con):
    path = corpus("perfmon/narmadha6790__DataCollector01.csv")
    rows = cells(path)
    ingest(con, path)
    assert q(con, "SELECT time_zone, bias_minutes, series, samples FROM pdh_captures") == [
        ("India Standard Time", -330, 12, 21)
    ]
    first = dict(
        q(
            con,
            """SELECT s.column_no, p.value FROM series_points p JOIN series s USING (series_id)
                           WHERE p.sample_no = 0""",
        )
    )
    assert first == {9: 0.0, 10: 0.0, 11: 0.0, 12: 0.0}  # the 8 averaged counters are " " there
    assert rows[1][1] == " "
    v = q(
        con,
        """SELECT p.value FROM series_points p JOIN series s USING (series_id)
                  WHERE s.column_no = 2 AND p.sample_no = 1""",
    )
    assert v == [(float(rows[2][2]),)] == [(0.032083023520161361,)]
    assert q(con, "SELECT ts FROM series_samples WHERE sample_no = 0")[0][0].microsecond == 73000


def test_perfmon_huge_values_and_crlf(con):
    path = corpus("perfmon/jg185342__DataCollector01.csv")
    ingest(con, path)
    got = q(
        con,
        """SELECT p.value FROM series_points p JOIN series s USING (series_id)
                    WHERE s.instance = '_Total' AND s.counter = 'Virtual Bytes' ORDER BY p.sample_no LIMIT 1""",
    )
    assert got == [(238132991823872.0,)]
    assert q(con, "SELECT instance_name, instance_id FROM series WHERE instance = 'AnyDesk#2' LIMIT 1") == [
        ("AnyDesk", "2")
    ]
    assert q(con, "SELECT samples FROM pdh_captures") == [(208,)]


def test_spreadsheet_resave_time_only(con):
    path = corpus("esxtop/visualesxtoponline__origincsv_short.csv")
    ingest(con, path)
    assert q(con, "SELECT has_date, samples, series FROM pdh_captures") == [(False, 100, 6)]
    assert q(con, "SELECT ts, ts_text FROM series_samples ORDER BY sample_no LIMIT 1") == [(None, "22:42:26")]
    text = path.read_bytes().decode().split("\r")
    assert q(
        con,
        """SELECT p.value FROM series_points p JOIN series s USING (series_id)
                     WHERE s.column_no = 3 AND p.sample_no = 0""",
    ) == [(float(text[1].split(",")[3]),)]


def test_pcpu_glued_tokens_are_split_not_merged(con):
    """Hand-made fixture in the shape of the real 17,427-column capture's PCPU power section."""
    ingest(con, FIXTURES / "pdh" / "handmade-esxtop-pcpu-glitch.csv")
    got = q(
        con,
        """SELECT s.counter, s.instance, list(p.value ORDER BY p.sample_no) FROM series s
                    JOIN series_points p USING (series_id) GROUP BY s.counter, s.instance, s.column_no ORDER BY s.column_no""",
    )
    assert got == [
        ("%T-State T7", "PCPU 0", [0.0, 1.0]),
        ("%C-State C0", "PCPU 1", [8.93, 9.5]),
        ("Commands/sec", "naa.600a0b80", [120.5, 130.25]),
    ]
    skipped = q(con, "SELECT column_no, reason FROM pdh_skipped_columns ORDER BY 1")
    assert [c for c, _ in skipped] == [4] and "'-' token" in skipped[0][1]


def test_cp1251_header_and_truncated_zone(con, tmp_path):
    """Hand-made, in the shape of the real cp1251 capture the formats page describes (PDH2)."""
    f = tmp_path / "handmade-cp1251.csv"
    f.write_bytes(
        '"(PDH-CSV 4.0) (RTZ 2 (","\\\\DESKTOP-LRPVSK4\\Процесс(Idle)\\% загруженности процессора"\r\n'
        '"04/28/2023 05:55:48.490"," "\r\n"04/28/2023 05:55:49.490","99.5"\r\n'.encode("cp1251")
    )
    rep = ingest(con, f)
    assert rep.outcomes[0].status == "ingested", rep.outcomes[0].reason
    assert q(con, "SELECT object, counter FROM series") == [("Процесс", "% загруженности процессора")]
    assert q(con, "SELECT time_zone, bias_minutes, tool FROM pdh_captures") == [("RTZ 2 (", None, "perfmon")]
    assert q(con, "SELECT value FROM series_points") == [(99.5,)]


def test_resxtop_junk_line_before_header(con, tmp_path):
    f = tmp_path / "handmade-resxtop.csv"
    f.write_text(
        'Junk line from resxtop\n"(PDH-CSV 4.0) (UTC)(0)","\\\\h\\Memory\\Free MBytes"\n"01/02/2020 03:04:05","512"\n'
    )
    ingest(con, f)
    assert q(con, "SELECT header_line FROM pdh_captures") == [(2,)]
    assert q(con, "SELECT value FROM series_points") == [(512.0,)]


@pytest.mark.parametrize(
    "mutate, reason",
    [
        (lambda t: t.replace('"0.78"', '"0.7x8"', 1), "is not a number"),
        (lambda t: t.replace('"04/26/2018 14:06:32"', '"yesterday"', 1), "time stamp"),
        (lambda t: t.replace('"\\\\', '"', 1), "is not \\\\host\\Object(instance)\\Counter"),
        (lambda t: t.split("\n", 1)[0] + "\n", "no data rows"),
        (lambda t: t.rstrip("\n")[:-40] + ',"', "cut"),  # found by make fuzz: Polars panicked on this
        (lambda t: t.rstrip("\n").rsplit(",", 30)[0], "cut"),
    ],
)
def test_bad_cells_reject_the_whole_file(con, tmp_path, mutate, reason):
    f = tmp_path / "bad.csv"
    f.write_text(mutate(corpus(RS2).read_text()))
    out = ingest(con, f).outcomes[0]
    assert out.status == "rejected" and reason in out.reason
    assert q(con, "SELECT count(*) FROM series") == [(0,)]
    assert q(con, "SELECT count(*) FROM series_samples") == [(0,)]
    store = db.store_dir(con)  # nothing of the points' pass is left, not even its temporary file
    assert not store.exists() or not [p.name for p in store.iterdir()]


def test_device_and_cpu_views(con):
    ingest(con, corpus(RS2))
    dev = q(
        con,
        "SELECT count(*), count(iops_avg), count(davg_ms_avg) FROM device_io WHERE object = 'Physical Disk SCSI Device'",
    )
    assert dev[0][0] > 0 and dev[0][1] == dev[0][0]
    ready = q(con, "SELECT count(*) FROM cpu_usage WHERE metric = 'cpu_ready_pct' AND object = 'Group Cpu'")[0][0]
    assert ready > 0
    rows = cells(corpus(RS2))
    col = next(i for i, h in enumerate(rows[0]) if h.endswith("Physical Cpu(0)\\% Util Time"))
    vals = [float(r[col]) for r in rows[1:]]
    got = q(
        con,
        """SELECT avg, max, samples FROM cpu_usage WHERE object = 'Physical Cpu' AND instance = '0'
                    AND metric = 'cpu_util_pct'""",
    )
    assert got == [(pytest.approx(sum(vals) / 3), max(vals), 3)]


def test_device_io_one_row_per_device(con):
    ingest(con, corpus("perfmon/narmadha6790__DataCollector01.csv"))
    rows = q(con, "SELECT instance, queue_length_avg FROM device_io ORDER BY instance")
    assert [r[0] for r in rows] == ["C:", "D:", "HarddiskVolume2", "_Total"]  # the first sample's blanks split nothing
    assert all(r[1] == 0.0 for r in rows)


def test_series_summary_equals_its_definition_over_the_points(con):
    """series_summary aggregates the raw store first: it must give what the points themselves give."""
    for f in ("esxtop/rachsharp__small-esxtop-data.csv", "perfmon/narmadha6790__DataCollector01.csv"):
        ingest(con, corpus(f))
    got = q(con, "SELECT series_id, samples, avg, max, min, first_ts, last_ts FROM series_summary ORDER BY 1")
    want = q(
        con,
        """SELECT s.series_id, count(p.value), avg(p.value), max(p.value), min(p.value), min(p.ts), max(p.ts)
                     FROM series s LEFT JOIN series_points p USING (series_id) GROUP BY 1 ORDER BY 1""",
    )
    assert len(got) == len(want) > 7000
    for g, w in zip(got, want):
        assert g[0:2] == w[0:2] and g[3:] == w[3:] and g[2] == pytest.approx(w[2], rel=1e-12), g


def test_points_carry_their_sample_times_and_older_stores_are_upgraded(tmp_path):
    """The store keeps each point's time, so series_points needs no join; a store written before
    (series_id, sample_no, value only) is rewritten with the times from series_samples: in a report's
    snapshot (the user's file untouched), and in place at the next writable open."""
    import pyarrow.parquet as pq

    from iolab.reports import render

    dbf = tmp_path / "s.duckdb"
    con = db.open_db(dbf)
    ingest(con, corpus(RS2))
    want = q(con, "SELECT series_id, sample_no, ts, value FROM series_points ORDER BY ALL")
    assert len(want) == 7630 * 3 and all(r[2] is not None for r in want)
    times = dict(q(con, "SELECT sample_no, ts FROM series_samples"))
    assert all(ts == times[no] for _, no, ts, _ in want) and len(set(times.values())) == 3
    plan = "".join(r[1] for r in q(con, "EXPLAIN SELECT count(*) FROM series_points"))
    assert "JOIN" not in plan.upper()
    (name,) = (n for (n,) in q(con, "SELECT file_name FROM point_files WHERE has_times"))
    store = db.store_dir(con) / name
    old = tmp_path / "old.parquet"
    con.execute(
        f"COPY (SELECT column_no + 1 AS series_id, sample_no, value FROM read_parquet('{store}')) TO '{old}' (FORMAT parquet)"
    )
    old.replace(store)  # what iolab wrote before, as V058 and V100 find it (series counted from 1)
    con.execute("UPDATE point_files SET has_times = false, series_base = 1")
    con.close()
    (tmp_path / "snap").mkdir()
    snap = render.snapshot(dbf, tmp_path / "snap")
    assert "ts" not in pq.read_schema(store).names  # the user's store is left as it is
    with db.connect(snap, read_only=True) as s:
        assert q(s, "SELECT series_id, sample_no, ts, value FROM series_points ORDER BY ALL") == want
    con = db.open_db(dbf)  # writable: upgraded in place
    assert "ts" in pq.read_schema(store).names
    assert q(con, "SELECT series_id, sample_no, ts, value FROM series_points ORDER BY ALL") == want
    assert q(con, "SELECT has_times, series_base, bytes FROM point_files") == [(True, None, store.stat().st_size)]
    con.close()


def test_a_capture_is_stored_without_pyarrow_or_pandas(tmp_path):
    """The writer hands DuckDB Polars frames through the Arrow C stream interface: an esxtop ingest
    never imports pyarrow and numpy (0.1 s) or pandas (0.3 s), on every command that stores one."""
    import subprocess
    import sys

    code = (
        "import sys; from iolab.cli import main; "
        f"code = main(['ingest', {str(corpus('esxtop/rachsharp__small-esxtop-data.csv'))!r}, "
        f"'--db', {str(tmp_path / 'x.duckdb')!r}, '--quiet']); "
        "print(code, sorted(m for m in ('pyarrow', 'numpy', 'pandas') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "0 []"
    con = db.open_db(tmp_path / "x.duckdb")
    assert (
        q(con, "SELECT count(*) FROM series") == [(7630,)] and q(con, "SELECT sum(points) FROM point_files")[0][0] > 0
    )


@pytest.mark.parametrize("fails", ["archives.record", "Writer._flush_table"])
def test_a_capture_whose_other_rows_fail_leaves_nothing_of_its_points(con, tmp_path, monkeypatch, fails):
    """The points stream in a thread of their own while the rest of the file is stored; when that
    rest fails (here: recording where it came from, or inserting the queued rows), the pass is waited for and
    its file removed, the whole file rolled back, and the next ingest stores it whole."""
    import threading

    from iolab import batch
    from iolab.store import writer

    f = tmp_path / "capture.csv"
    f.write_bytes(corpus(RS2).read_bytes())
    owner, name = (batch.archives, "record") if fails == "archives.record" else (writer.Writer, "_flush_table")

    def broken(*a, **k):
        raise RuntimeError("simulated failure")

    before = threading.active_count()
    with monkeypatch.context() as m:
        m.setattr(owner, name, broken)
        out = ingest(con, f).outcomes[0]
    assert out.status == "rejected" and "simulated failure" in out.reason
    assert threading.active_count() == before  # the pass was waited for
    assert q(con, "SELECT count(*) FROM series") == [(0,)]
    store = db.store_dir(con)
    assert not store.exists() or not [p.name for p in store.iterdir()]
    out = ingest(con, f).outcomes[0]
    assert out.status == "ingested"
    assert q(con, "SELECT count(*) FROM series_points") == q(con, "SELECT sum(points) FROM point_files")
    assert q(con, "SELECT count(*) FROM series_points")[0][0] > 0
    assert [p.name for p in store.iterdir()] == [f"{q(con, 'SELECT source_id FROM point_files')[0][0]}.parquet"]


@pytest.mark.parametrize("ended_first", [False, True])
def test_a_pass_abandoned_without_waiting_removes_its_file_when_it_ends(tmp_path, ended_first):
    """Ctrl-C does not wait for a capture's pass: the pass removes its file itself when it ends
    (or at once, when it has ended already)."""
    from iolab.formats import pdh
    from iolab.store.points import StreamingPoints

    res = pdh.parse_path(corpus(RS2), "capture.csv")
    tmp = tmp_path / ".1.parquet.tmp"
    streaming = StreamingPoints(res.points, None, tmp)
    if ended_first:
        streaming.thread.join()
        assert tmp.exists()
    streaming.abandon(wait=False)
    streaming.thread.join()
    assert not tmp.exists()
