"""IOzone auto-mode text (3.434, 3.465): every corpus file, values checked by hand against the raw lines."""

from __future__ import annotations

import pytest

from iolab import registry
from iolab.formats import iozone_text
from iolab.model import ParseError
from tests.conftest import CORPUS, corpus, ingest, q

OLD = "iozone-text/psteinb__iozone2csv__3.434_auto.out"
ODIRECT = "iozone-text/ilkermanap__iozoneparser__3.465_auto_odirect.txt"


def parse(rel):
    return iozone_text.parse(corpus(rel).read_bytes(), rel)


def values(res, key):
    return {s.metric: s.value for s in res.samples if s.run_key == key}


def test_kbytes_per_second_to_mb_per_second():
    """IOzone kB are 1024 bytes: 1,000,000 kBytes/sec = 1024 MB/s."""
    res = iozone_text.parse(corpus(OLD).read_bytes().replace(b" 5169375 ", b" 1000000 ", 1), "a.out")
    assert values(res, "1048576/512/write")["mbps"] == pytest.approx(1024.0)


def test_old_auto_table():
    res = parse(OLD)
    assert res.tool_version == "3.434" and len(res.runs) == 8 * 13
    # 1048576  512  5169375  7712220  7634280  7649870  7541971  8989992  7688128  11968815 7556588 ...
    r = {x.key: x for x in res.runs}
    rr = r["1048576/512/random read"]
    assert (rr.block_size_bytes, rr.read_pct, rr.random_pct, rr.queue_depth, rr.workers, rr.outstanding_ios) == (
        524288,
        100.0,
        100.0,
        1,
        1,
        1,
    )
    assert values(res, "1048576/512/random read") == {
        "mbps": pytest.approx(7541971 * 1024 / 1e6),
        "read_mbps": pytest.approx(7541971 * 1024 / 1e6),
    }
    assert values(res, "1048576/512/write")["write_mbps"] == pytest.approx(5293.44)
    assert values(res, "1048576/512/record rewrite")["mbps"] == pytest.approx(11968815 * 1024 / 1e6)
    assert (r["1048576/512/stride read"].random_pct, r["1048576/512/fwrite"].read_pct) == (None, 0.0)
    # last line: 2097152  4096 ... freread 6736193
    assert values(res, "2097152/4096/freread")["mbps"] == pytest.approx(6736193 * 1024 / 1e6)
    assert str(rr.started_at) == "2018-02-14 14:29:28"


def test_odirect_full_matrix():
    res = parse(ODIRECT)
    assert res.tool_version == "3.465" and len(res.runs) == 126 * 13
    # 512  512  368615  359062  352635 ...
    assert values(res, "512/512/read")["read_mbps"] == pytest.approx(352635 * 1024 / 1e6)
    # 131072  16384  181010 ... random write 182023
    w = values(res, "131072/16384/random write")
    assert w == {"mbps": pytest.approx(182023 * 1024 / 1e6), "write_mbps": pytest.approx(182023 * 1024 / 1e6)}
    assert {x.block_size_bytes for x in res.runs} == {2**k * 1024 for k in range(2, 15)}  # reclen 4 .. 16384 kB
    rows = res.tables["iozone_values"]
    banner = [x["text"] for x in rows if x["column_name"] == "(banner)"]
    assert "O_DIRECT feature enabled" in banner and "Command line used: /root/iozone -I -a" in banner
    cell = next(x for x in rows if x["run_key"] == "524288/64/bkwd read")
    assert (cell["file_kb"], cell["reclen_kb"], cell["value"], cell["line_no"]) == (524288, 64, 163230, 145)


def test_operations_per_second_are_iops():
    data = corpus(OLD).read_bytes().replace(b"Output is in kBytes/sec", b"Output is in operations per second")
    v = values(iozone_text.parse(data, "a.out"), "1048576/512/write")
    assert v == {"iops": 5169375, "write_iops": 5169375}


def test_bad_files_say_why():
    data = corpus(OLD).read_bytes()
    with pytest.raises(ParseError, match="states no unit iolab reads"):
        iozone_text.parse(data.replace(b"Output is in kBytes/sec", b""), "a.out")
    with pytest.raises(ParseError, match="no IOzone result lines"):
        iozone_text.parse(data.split(b"         1048576     512")[0], "a.out")
    with pytest.raises(ParseError, match="'write': '51x9375' is not a number"):
        iozone_text.parse(data.replace(b"5169375", b"51x9375"), "a.out")
    lines = data.split(b"\n")
    with pytest.raises(ParseError, match="a second write result for 1048576 kB files and 512 kB records") as e:
        iozone_text.parse(b"\n".join(lines[:31] + lines[30:]), "a.out")
    assert e.value.line == 32
    # not next to each other: the later line's keys would still be the earlier line's
    table = [i for i, line in enumerate(lines) if line.strip()[:1].isdigit() and i > 25]
    with pytest.raises(ParseError, match="a second write result") as e:
        iozone_text.parse(b"\n".join(lines[: table[-1] + 1] + [lines[table[0]]] + lines[table[-1] + 1 :]), "a.out")
    assert e.value.line == table[-1] + 2


def test_a_short_line_is_read_by_column():
    """`-i 0 -i 1`: only some tests ran; the values sit under their own columns."""
    data = corpus(OLD).read_bytes()
    lines = data.split(b"\n")
    lines[30] = lines[30][: len(b"         1048576     512  5169375  7712220")]
    v = values(iozone_text.parse(b"\n".join(lines), "a.out"), "1048576/512/rewrite")
    assert v["mbps"] == pytest.approx(7712220 * 1024 / 1e6)


def test_sniff_claims_only_iozone_files():
    for p in sorted(CORPUS.rglob("*")):
        if p.is_file() and p.name != "MANIFEST.tsv":
            claimed = [m.FORMAT for m in registry.sniff(p.read_bytes(), p.name)]
            assert ("iozone-text" in claimed) == (p.parent.name == "iozone-text"), p
            if p.parent.name == "iozone-text":
                assert claimed == ["iozone-text"]


def test_ingest(con):
    ingest(con, corpus(OLD))
    assert q(
        con,
        """SELECT round(value, 2) FROM measurements WHERE tool = 'iozone' AND metric = 'mbps'
                     AND block_size_bytes = 4194304 AND workload = 'read 2097152 kB file'""",
    ) == [(round(6555321 * 1024 / 1e6, 2),)]
    assert q(con, "SELECT count(*) FROM iozone_values WHERE column_name <> '(banner)'") == [(104,)]


def test_packed_runs_store_what_a_list_stores(con, monkeypatch):
    """Runs packed a few at a time (model.Runs) read back and land in the database as the same
    runs, ids and samples as the plain list they replace."""
    from iolab.model import Runs

    res = parse(OLD)
    assert isinstance(res.runs, Runs) and len(res.runs) > 20
    monkeypatch.setattr(Runs, "CHUNK", 7)
    packed = parse(OLD)
    assert len(packed.runs.chunks) == len(res.runs) // 7 and list(packed.runs) == list(res.runs)
    assert packed.runs[-1] == res.runs[-1] and packed.runs[0].key == "1048576/512/write"
    from iolab.store import writer

    monkeypatch.setattr(writer.RunIds, "DICT", 10)  # the samples find their runs by hash
    ingest(con, corpus(OLD))
    cols = (
        "r.run_id, r.run_key, r.tool_version, r.workload, r.block_size_bytes, r.read_pct, r.random_pct, r.queue_depth"
    )
    got = q(con, f"SELECT {cols}, s.metric, s.value FROM runs r JOIN samples s USING (run_id) ORDER BY 1, 9")
    assert len(got) == 2 * len(res.runs) and len({g[0] for g in got}) == len(res.runs)
    assert [g[1] for g in got[::2]] == [r.key for r in res.runs]
    first = got[0]
    assert first[1:8] == ("1048576/512/write", res.tool_version, "write 1048576 kB file", 524288, 0.0, 0.0, 1)


def test_run_ids_by_hash_find_every_key_and_refuse_an_unknown_one(monkeypatch):
    import polars as pl
    import pyarrow as pa

    from iolab.store import writer

    monkeypatch.setattr(writer.RunIds, "DICT", 4)
    ids = writer.RunIds()
    ids.add(pl.Series(["a/1", "b/2", "c/3"]), 100)
    assert ids.keys is not None and ids.of(pa.array(["c/3", "a/1"])).to_pylist() == [102, 100]
    ids.add(pl.Series(["d/4", "e/5"]), 103)
    assert ids.keys is None and ids.of(pa.array(["e/5", "a/1", "d/4", "b/2"])).to_pylist() == [104, 100, 103, 101]
    with pytest.raises(KeyError, match="zz"):
        ids.of(pa.array(["a/1", "zz"]))
    ids.add(pl.Series(["f/6"]), 105)  # after a lookup: sorted again
    assert ids.of(pa.array(["f/6", "c/3"])).to_pylist() == [105, 102]
    # keys sharing their first hash (here: their length) are found by both
    real = writer._hashes
    monkeypatch.setattr(
        writer, "_hashes", lambda keys: (keys.str.len_bytes().cast(pl.UInt64).to_numpy(), real(keys)[1])
    )
    again = writer.RunIds()
    again.add(pl.Series(["a/1", "b/2", "c/3", "d/4", "e/55"]), 0)
    assert again.of(pa.array(["e/55", "b/2", "d/4", "a/1"])).to_pylist() == [4, 1, 3, 0] and again.keys is None
    assert len(again.shared) == 4
    # a key no run has, whose first hash is a run's: refused, not given that run's id
    with pytest.raises(KeyError, match="x/1"):
        again.of(pa.array(["b/2", "x/1"]))
    lengths = writer.RunIds()
    lengths.add(pl.Series(["a/1", "b/22", "c/333", "d/4444", "e/55555"]), 10)
    assert lengths.of(pa.array(["c/333", "a/1"])).to_pylist() == [12, 10] and not lengths.shared
    with pytest.raises(KeyError, match="x/1"):
        lengths.of(pa.array(["b/22", "x/1"]))


@pytest.mark.parametrize("many", [False, True], ids=["dict", "hashes"])
def test_run_ids_refuse_a_key_two_runs_share(monkeypatch, many):
    """The database keeps no unique index on run keys (V080): RunIds refuses a repeated key, within
    a chunk or across chunks, whether it holds a dict or hashes."""
    import polars as pl

    from iolab.store import writer

    if many:
        monkeypatch.setattr(writer.RunIds, "DICT", 2)
    within = writer.RunIds()
    with pytest.raises(ValueError, match="two runs of the file") as e:
        within.add(pl.Series(["a/1", "b/2", "a/1"]), 0)
        within.check()
    assert "'a/1'" in str(e.value) if not many else "runs 1 and 3" in str(e.value)
    across = writer.RunIds()
    across.add(pl.Series(["a/1", "b/2"]), 0)
    with pytest.raises(ValueError, match="two runs of the file"):
        across.add(pl.Series(["c/3", "b/2"]), 2)
        across.check()


def test_packed_runs_out_of_range_are_refused_at_their_line():
    from iolab import bounds
    from iolab.model import ParseResult, Run, Runs

    runs = Runs(Run(f"{i}/4/read", "iozone", queue_depth=1) for i in range(5))
    runs.append(Run("9/4/read", "iozone", queue_depth=2**40))
    bounds.check_runs(ParseResult(runs=Runs(list(runs)[:5])), b"")  # every count in range
    with pytest.raises(ParseError, match="run 9/4/read: queue_depth is 1099511627776") as e:
        bounds.check_runs(ParseResult(runs=runs), b"a\nqd 1099511627776\n")
    assert e.value.line == 2


U327 = "iozone-text/Rovanion__iozone-results-comparator__3.327_auto_U_ext2_1.iozone"


def test_3327_auto_mode_with_remounts():
    """3.327 spells the header `KB  reclen` and the unit `Kbytes/sec`; -U adds no line of its own."""
    res = parse(U327)
    assert res.tool_version == "3.327" and len(res.runs) == 163 * 13 and res.notes == []
    # line 26: `4  4  285299  511411 ...`; line 188: `4194304  16384  717889 ... 95904`
    assert values(res, "4/4/write")["mbps"] == pytest.approx(285299 * 1024 / 1e6)
    assert values(res, "4/4/rewrite")["write_mbps"] == pytest.approx(511411 * 1024 / 1e6)
    assert values(res, "4194304/16384/freread")["read_mbps"] == pytest.approx(95904 * 1024 / 1e6)
    assert "32768/4/write" not in {r.key for r in res.runs}  # from 32 MB files up auto mode starts at 64 kB records


def test_log_around_the_report_is_skipped_and_said():
    data = b"+ ./run_iozone.sh ext2\n[10:00] starting\n" + corpus(U327).read_bytes() + b"\nuser@host:~$ \n"
    res = iozone_text.parse(data, "x.log")
    assert {s.value for s in res.samples} == {s.value for s in parse(U327).samples}
    assert res.notes == [
        "read the IOzone report at lines 3-192 of 194; skipped 2 lines before it, 1 line after it "
        "(not IOzone's output: a script's log, a prompt, progress lines)"
    ]


def test_unit_lines_as_iozone_c_writes_them():
    """iozone.c: `\\tOPS Mode. Output is in operations per second.` (-O) and `\\tMicroseconds/op Mode.
    Output is in microseconds per operation.` (-N, not read: refused with that reason)."""
    data = corpus(OLD).read_bytes()
    ops = data.replace(b"Output is in kBytes/sec", b"OPS Mode. Output is in operations per second.")
    assert values(iozone_text.parse(ops, "a.out"), "1048576/512/write") == {"iops": 5169375, "write_iops": 5169375}
    per_op = data.replace(b"Output is in kBytes/sec", b"Microseconds/op Mode. Output is in microseconds per operation.")
    with pytest.raises(ParseError, match="-N 'microseconds per operation' is not read yet"):
        iozone_text.parse(per_op, "a.out")


# ---- -R: the Excel-style reports (iozone.c dump_excel/dump_report), written by IOzone 3.489 built here

R = "iozone-text/tool-written__mer-tools-iozone-3.489__"


def test_excel_report_saved_on_its_own_is_the_same_runs():
    """The -R reports of a run, saved without the banner and table, give the runs and samples the
    whole stdout gives (the 32 MB row's four dummy zeros, for records auto mode skips past its crossover,
    are no runs in either); the unit, which only the banner states, is IOzone's default, and said."""
    whole, alone = parse(R + "auto_R_crossover.out"), parse(R + "auto_R_crossover_excel_only.txt")
    key = lambda res: sorted((s.run_key, s.metric, s.value) for s in res.samples)  # noqa: E731
    assert key(whole) == key(alone) and len(whole.runs) == len(alone.runs) == 2 * (12 + 13 + 9) * 2
    assert "32768/4/write" not in {r.key for r in alone.runs} and "32768/64/write" in {r.key for r in alone.runs}
    assert values(alone, "32768/64/write")["mbps"] == pytest.approx(113825 * 1024 / 1e6)
    assert (whole.tool_version, alone.tool_version) == ("3.489", None)
    assert whole.notes == [] and "states the unit: read as IOzone's default, kBytes/sec" in alone.notes[0]
    assert registry.claim(corpus(R + "auto_R_crossover_excel_only.txt").read_bytes(), "x").module is iozone_text


def test_excel_report_checked_against_the_table():
    """Where the stdout holds both the table and the -R reports, each report cell is the table's."""
    raw = corpus(R + "auto_R_crossover.out").read_bytes()
    assert raw.count(b"  0  113825 ") == 1  # the 32 MB, 64 kB write in -R (the table has it too)
    with pytest.raises(ParseError, match=r"write of 32768 kB files, 64 kB records: -R report, table \(line \d+\)"):
        iozone_text.parse(raw.replace(b"  0  113825 ", b"  0  113826 "), "x")
    ops = parse(R + "auto_R_O.out")  # -O: operations per second, in the banner; the reports agree
    assert values(ops, "64/4/write") == {"iops": 231565, "write_iops": 231565}


def test_cpu_utilization_reports():
    """-+u: a CPU utilization report per test (%), zeros not values."""
    res = parse(R + "auto_R_cpu.out")
    assert values(res, "256/64/random write")["cpu_util_pct"] == 36.83
    assert values(res, "64/16/reread")["cpu_util_pct"] == 27.78
    assert len(res.runs) == 3 * 5 * 6  # 3 file sizes x 5 records x (write rewrite read reread random read/write)
