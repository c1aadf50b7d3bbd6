"""elbencho --csvfile, --livecsv and --resfile text: the real 2.1-0 files, values checked by hand."""

from __future__ import annotations

import csv
import io
from datetime import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from iolab import registry
from iolab.formats import elbencho_csv, elbencho_text
from iolab.model import MB_PER_MIB, MIB, ParseError
from tests.conftest import CORPUS, FIXTURES, corpus, ingest, q

CSV = "elbencho-csv/glennklockwood__elbencho-test__2.1-0_cgpu_08threads.csv"
LIVE = "elbencho-csv/glennklockwood__elbencho-test__2.1-0_cgpu_08threads.live.csv"
TEXT = "elbencho-text/glennklockwood__elbencho-test__2.1-0_cgpu_08threads.out"
CLEANUP = "elbencho-text/glennklockwood__elbencho-test__2.1-0_coribb_08threads.cleanup.out"
MIX_TEXT = FIXTURES / "elbencho-text" / "handmade-3x_rwmix_latency.txt"
MIX_CSV = FIXTURES / "elbencho-csv" / "handmade-2.1_rwmix.csv"


def parse(rel):
    mod = elbencho_text if rel.startswith("elbencho-text") else elbencho_csv
    return mod.parse(corpus(rel).read_bytes(), rel)


def values(res, key):
    return {s.metric: s.value for s in res.samples if s.run_key == key}


def signature(run):
    return (run.block_size_bytes, run.read_pct, run.random_pct, run.queue_depth, run.workers, run.outstanding_ios)


def test_mib_is_mebibytes():
    """elbencho divides bytes by 1024*1024 for its MiB/s (Statistics.cpp): 1 MiB/s = 1.048576 MB/s."""
    assert MB_PER_MIB == 1.048576 == 2**20 / 10**6


def test_csv_phases_signature_and_values():
    res = parse(CSV)
    assert [(r.key, r.workload, r.status) for r in res.runs] == [
        ("1-SYNC", "SYNC", "complete"),
        ("2-MKDIRS", "MKDIRS", "complete"),
        ("3-SYNC", "SYNC", "complete"),
        ("4-WRITE", "WRITE", "complete"),
    ]
    assert res.tool_version == "2.1-0"
    w = res.runs[3]
    # hosts 4, threads 8, block size 1048576, random 0, IO depth 1, operation WRITE
    assert signature(w) == (1048576, 0.0, 0.0, 1, 32, 32)
    assert w.ended_at == datetime(2022, 3, 9, 15, 41, 14)  # 2022-03-09T15:41:14-0800: written at the phase's end
    assert signature(res.runs[1]) == (None,) * 6  # MKDIRS: no I/O workload
    # WRITE,45247,45253,,,4792,4831,4792,4831,0,0,,,216852,218627,,,,2379,6621,93525
    v = values(res, "4-WRITE")
    assert (v["iops"], v["write_iops"], v["runtime_s"], v["cpu_util_pct"]) == (4831, 4831, 45.253, 0)
    assert v["mbps"] == v["write_mbps"] == pytest.approx(4831 * 1.048576) == pytest.approx(5065.670656)
    assert (v["min_latency_ms"], v["avg_latency_ms"], v["max_latency_ms"]) == (2.379, 6.621, 93.525)
    assert v["avg_write_latency_ms"] == 6.621
    assert v["bytes_written"] == 218627 * 2**20
    assert "read_iops" not in v and "entries_per_s" not in v
    # MKDIRS,0,3,14492,8324,,,,,0,0,8,32,,,147,181,216
    m = values(res, "2-MKDIRS")
    assert m == {
        "entries_per_s": 8324,
        "entries": 32,
        "min_entry_latency_ms": 0.147,
        "avg_entry_latency_ms": 0.181,
        "max_entry_latency_ms": 0.216,
        "runtime_s": 0.003,
        "cpu_util_pct": 0,
    }
    assert values(res, "3-SYNC") == {"runtime_s": 0.001, "cpu_util_pct": 3}


def test_csv_command_column_is_kept_as_written():
    """The command column is not RFC 4180: Python's csv module misreads it; the rest of the line is the command."""
    raw = corpus(CSV).read_text().splitlines()
    header, row = raw[0].split(","), raw[4]
    strict = next(csv.reader(io.StringIO(row)))
    assert strict[-1] != row.split(",", len(header) - 1)[-1]  # a csv reader does not give the field back
    cells = {r["column_name"]: r for r in parse(CSV).tables["elbencho_values"] if r["run_key"] == "4-WRITE"}
    assert cells["command"]["text"] == row.split(",", 54)[-1]
    assert cells["command"]["text"].startswith('"/global/u2/g/glock/src/elbencho/bin.cgpu/elbencho" "--hosts" "cgpu05 ')
    assert cells["command"]["text"].endswith('"--nolive" "/vast/glock" ')
    assert (cells["IOPS [first]"]["value"], cells["MiB [first]"]["value"]) == (4792, 216852)  # stonewall kept
    assert cells["ISO date"]["text"] == "2022-03-09T15:41:14-0800" and cells["rwmix read IOPS [last]"]["text"] is None
    assert len(cells) == 55


def test_live_csv_is_a_time_series():
    res = parse(LIVE)
    assert [(r.key, r.workload, r.test_type) for r in res.runs] == [("live", "WRITE", "live")]
    samples = res.tables["series_samples"]
    assert [s["ts_text"] for s in samples[:2]] == ["WRITE 5000 ms", "WRITE 10001 ms"] and len(samples) == 9
    by = {s.original_name: s for s in res.series}
    assert by["Total MiB/s"].metric == "mbps" and by["Total MiB/s"].unit == "MB/s"
    pts = {(r["series_key"], r["sample_no"]): r["value"] for r in res.points.to_dicts()}
    # ,WRITE,5000,Total,,0,23938990080,4566,4566,0,0,32,0,,
    assert pts[(by["Total MiB/s"].key, 0)] == pytest.approx(4566 * 1.048576)
    assert pts[(by["Total IOPS"].key, 8)] == 4879  # ,WRITE,45000,Total,,0,226762948608,4879,4879,...
    assert pts[(by["Total DoneBytes"].key, 1)] == 49343889408 and pts[(by["Total Active"].key, 0)] == 32
    assert "elbencho_values" not in res.tables  # Label and Service are empty in this file


def test_text_agrees_with_the_csv_of_the_same_run():
    text, csvres = parse(TEXT), parse(CSV)
    assert [r.workload for r in text.runs] == [r.workload for r in csvres.runs]
    w = text.runs[3]
    # COMMAND LINE: --hosts "cgpu05,cgpu06,cgpu07,cgpu08," --threads 8 --block 1m, no --iodepth (default 1)
    assert signature(w) == (1048576, 0.0, 0.0, 1, 32, 32)
    assert text.runs[0].started_at == datetime(2022, 3, 9, 15, 40, 28) and w.started_at is None
    t, c = values(text, "1-4-WRITE"), values(csvres, "4-WRITE")
    for m in ("iops", "write_iops", "mbps", "bytes_written", "runtime_s"):
        assert t[m] == c[m], m
    # WRITE     Elapsed ms       :      45247      45253 / IOPS : 4792 4831 / Total MiB : 216852 218627
    assert (t["runtime_s"], t["iops"], t["bytes_written"]) == (45.253, 4831, 218627 * 2**20)
    assert values(text, "1-2-MKDIRS") == {"runtime_s": 0.003, "entries_per_s": 8324, "entries": 32}
    rows = text.tables["elbencho_values"]
    assert {r["column_name"]: r["value"] for r in rows if r["run_key"] == "1-2-MKDIRS"}["Dirs/s [first]"] == 14492
    assert rows[1]["column_name"] == "COMMAND LINE" and rows[1]["text"].endswith('"/vast/glock"')


def test_text_without_header_files_phases():
    """The cleanup invocation's result file: the table alone (no ISO DATE / COMMAND LINE), RMFILES and RMDIRS."""
    res = parse(CLEANUP)
    assert [(r.key, r.workload, r.started_at, r.block_size_bytes) for r in res.runs] == [
        ("1-1-RMFILES", "RMFILES", None, None),
        ("1-2-RMDIRS", "RMDIRS", None, None),
    ]
    # RMFILES Elapsed ms 0 3 / Files/s 14209 8866 / Files total 8 32; RMDIRS Elapsed ms 0 1 / Dirs/s 30888 19925
    assert values(res, "1-1-RMFILES") == {"runtime_s": 0.003, "entries_per_s": 8866, "entries": 32}
    assert values(res, "1-2-RMDIRS") == {"runtime_s": 0.001, "entries_per_s": 19925, "entries": 32}
    cells = {(r["run_key"], r["column_name"]): r["value"] for r in res.tables["elbencho_values"]}
    assert cells[("1-1-RMFILES", "Files/s [first]")] == 14209 and cells[("1-2-RMDIRS", "Dirs total [first]")] == 8


def test_handmade_rwmix_text_3x_wording():
    """Made by hand from Statistics.cpp's format strings (no real 3.x result text with --lat was found)."""
    res = elbencho_text.parse(MIX_TEXT.read_bytes(), MIX_TEXT.name)
    (run,) = res.runs
    assert (run.workload, signature(run)) == ("RWMIX70", (4096, 70.0, 100.0, 16, 4, 64))
    v = values(res, run.key)
    assert (v["runtime_s"], v["write_iops"], v["read_iops"], v["iops"]) == (10.010, 29990, 69980, 99970)
    assert v["read_mbps"] == pytest.approx(273 * 1.048576) and v["mbps"] == pytest.approx(390 * 1.048576)
    assert (v["min_write_latency_ms"], v["avg_write_latency_ms"], v["max_write_latency_ms"]) == (0.012, 0.64, 12.5)
    assert v["max_read_latency_ms"] == 1250.0  # max=1.25s
    assert (v["p1_write_latency_ms"], v["p99_write_latency_ms"], v["p99_9_read_latency_ms"]) == (0.02, 2.1, 5.0)
    assert "avg_latency_ms" not in v and "p99_latency_ms" not in v  # a mix: per direction only
    assert v["bytes_read"] == 2735 * 2**20


def test_handmade_rwmix_csv_sums_the_two_parts():
    res = elbencho_csv.parse(MIX_CSV.read_bytes(), MIX_CSV.name)
    (run,) = res.runs
    assert signature(run) == (4096, 70.0, 100.0, 8, 2, 16)
    v = values(res, run.key)
    assert (v["write_iops"], v["read_iops"], v["iops"]) == (300, 700, 1000)
    assert v["mbps"] == pytest.approx(3 * 1.048576) and v["avg_read_latency_ms"] == 0.85
    assert run.description == "mix run"
    total = next(s for s in res.samples if s.metric == "iops")
    assert total.line_no is None  # derived: no line of the file holds it


def test_handmade_1x_latency_wording():
    """elbencho 1.8 printed `IO latency us : [ min=91 avg=120 max=1583 ]` (as quoted in a public README; hand-typed here)."""
    text = b"""OPERATION RESULT TYPE        FIRST DONE  LAST DONE
========= ================   ==========  =========
READ      Elapsed ms       :       6001       6001
          IOPS             :       8219       8219
          Throughput MiB/s :         32         32
          Total MiB        :        192        192
          IO latency us    : [ min=91 avg=120 max=1583 ]
---
"""
    res = elbencho_text.parse(text, "handmade.txt")
    v = values(res, "1-1-READ")
    assert (v["read_iops"], v["min_read_latency_ms"], v["avg_latency_ms"], v["max_latency_ms"]) == (
        8219,
        0.091,
        0.12,
        1.583,
    )
    assert v["bytes_read"] == 192 * 2**20 and res.runs[0].read_pct == 100.0
    # no COMMAND LINE: no block size, threads or depth (that run used -b 4K: defaults would have said 1M)
    assert signature(res.runs[0]) == (None, 100.0, None, None, None, None)


def test_handmade_mix_threads_files_per_direction():
    """MIX-T (--rwmixthr): separate reader threads, entries per direction (wording from Statistics.cpp)."""
    text = b"""OPERATION RESULT TYPE        FIRST DONE  LAST DONE
========= ================   ==========  =========
MIX-T     Elapsed ms       :       1000       1000
          Files/s write    :         10         10
          Files/s read     :         30         30
          Files/s total    :         40         40
          IOPS write       :        100        100
          IOPS read        :        300        300
          IOPS total       :        400        400
---
"""
    res = elbencho_text.parse(text, "handmade.txt")
    v = values(res, "1-1-MIX-T")
    assert (v["write_entries_per_s"], v["read_entries_per_s"], v["entries_per_s"]) == (10, 30, 40)
    assert (v["write_iops"], v["read_iops"], v["iops"]) == (100, 300, 400)
    assert len(res.samples) == len({s.metric for s in res.samples})  # no metric twice
    assert res.runs[0].read_pct is None  # reader threads, not a stated read %


@given(st.integers(0, 3_599_999))
def test_elapsed_human_strings_read_back(ms):
    """UnitTk::elapsedMSToHumanStr, as elbencho 3.x prints 'Elapsed time'."""
    sec, m, s, rest = ms // 1000, ms // 60000, (ms // 1000) % 60, ms % 1000
    text = f"{m}m{s}.{rest:03d}s" if m else f"{s}.{rest:03d}s" if sec else f"{rest}ms"
    assert elbencho_text.human_us(text, "ms") == pytest.approx(ms * 1000)


@given(st.integers(0, 9_999_999))
def test_latency_human_strings_read_back(us):
    """UnitTk::latencyUsToHumanStr rounds; reading it back is within its printed precision."""
    text = (
        f"{us}us"
        if us < 1000
        else f"{us / 1000:.2f}ms"
        if us < 10_000
        else f"{us / 1000:.1f}ms"
        if us < 100_000
        else f"{us / 1000:.0f}ms"
        if us < 1_000_000
        else f"{us / 1e6:.2f}s"
    )
    got = elbencho_text.human_us(text)
    assert abs(got - us) <= max(0.5, us * 0.006)


def test_sizes_are_powers_of_two():
    assert [elbencho_text.size_bytes(t) for t in ("1m", "4k", "4K", "512", "1t", "2g", "x")] == [
        2**20,
        4096,
        4096,
        512,
        2**40,
        2 * 2**30,
        None,
    ]


def test_bad_files_say_why():
    raw = corpus(CSV).read_bytes()
    head = raw.split(b"\n")[0] + b"\n"
    with pytest.raises(ParseError, match="no phase rows"):
        elbencho_csv.parse(head, "a.csv")
    with pytest.raises(ParseError, match="row has 3 fields, the header has 55") as e:
        elbencho_csv.parse(head + b"2022-03-09T15:41:14-0800,,dir\n", "a.csv")
    assert e.value.line == 2
    lines = raw.split(b"\n")
    with pytest.raises(ParseError, match="'IOPS \\[last\\]': '48x1' is not a number"):
        elbencho_csv.parse(b"\n".join([lines[0], lines[4].replace(b",4831,", b",48x1,", 1)]), "a.csv")
    text = corpus(TEXT).read_bytes()
    with pytest.raises(ParseError, match="expected FIRST DONE and LAST DONE"):
        elbencho_text.parse(text.replace(b"4792       4831", b"4792"), "a.out")
    with pytest.raises(ParseError, match="no phase results"):
        elbencho_text.parse(text.split(b"SYNC")[0], "a.out")
    with pytest.raises(ParseError, match="needs its Phase and RuntimeMS"):
        elbencho_csv.parse(corpus(LIVE).read_bytes().replace(b",WRITE,5000,", b",WRITE,,"), "a.csv")


def test_sniff_claims_each_corpus_file_once():
    own = {"elbencho-csv", "elbencho-text"}
    for p in sorted(CORPUS.rglob("*")):
        if not p.is_file() or p.name == "MANIFEST.tsv":
            continue
        claimed = [m.FORMAT for m in registry.sniff(p.read_bytes(), p.name)]
        mine = [c for c in claimed if c.startswith("elbencho")]
        assert mine == ([p.parent.name] if p.parent.name in own else []), p
        if p.parent.name in own:
            assert claimed == mine, p


def test_ingest_into_the_database(con):
    rep = ingest(con, corpus(CSV), corpus(LIVE), corpus(TEXT))
    assert [o.status for o in rep.outcomes] == ["ingested"] * 3
    assert (
        q(
            con,
            """SELECT round(value, 6), outstanding_ios, block_size_bytes, read_pct FROM measurements
                     WHERE tool = 'elbencho' AND metric = 'mbps' ORDER BY 1""",
        )
        == [(5065.670656, 32, 1048576, 0.0)] * 2
    )
    assert q(con, "SELECT count(*) FROM series WHERE object = 'elbencho live'") == [(8,)]
    assert q(con, "SELECT count(*) FROM elbencho_values WHERE file_kind = 'csv'") == [(4 * 55,)]


@pytest.mark.parametrize("rel", [CSV, TEXT, CLEANUP])
def test_no_metric_twice_per_run(rel):
    res = parse(rel)
    keys = [(s.run_key, s.scope, s.target, s.metric) for s in res.samples]
    assert len(keys) == len(set(keys))


WRAPPED = "elbencho-text/amaczuga__elbencho-docker__1.8-0_console_in_readme.txt"


def test_console_output_wrapped_in_a_readme():
    """elbencho 1.8 console output after a prompt and --help text, before a code fence: the table is
    read (lines 35-42), the rest skipped and said."""
    res = registry.parse(elbencho_text, corpus(WRAPPED).read_bytes(), WRAPPED)
    v = {s.metric: (s.value, s.line_no) for s in res.samples}
    assert v["read_iops"] == (8219.0, 38) and v["runtime_s"] == (6.001, 37)
    assert v["read_mbps"] == (pytest.approx(32 * MB_PER_MIB), 39)
    assert v["bytes_read"] == (192 * MIB, 40) and v["max_read_latency_ms"] == (1.583, 41)
    assert res.notes == [
        "read the elbencho report at lines 35-42 of 43; skipped 22 lines before it, 1 line after it "
        "(not elbencho's output: a script's log, a prompt, progress lines)"
    ]


def test_text_inside_a_phase_block_is_still_an_error():
    text = corpus(TEXT).read_text().replace("          IOPS             :", "some log line\n          IOPS :", 1)
    with pytest.raises(ParseError, match="expected a result line"):
        elbencho_text.parse(text.encode(), "x.out")


def test_live_status_lines_between_phases_are_skipped():
    """On a terminal elbencho rewrites `Phase: ... Elapsed: ...s` with CRs while a phase runs
    (Statistics.cpp); captured with the table, those lines fall between the phases' blocks."""
    live = "Phase: WRITE  CPU:  12%  Active: 8  Elapsed: 5s\rPhase: WRITE  CPU:  13%  Active: 8  Elapsed: 10s\r\n"
    text = corpus(TEXT).read_text()
    wrapped = live + text.replace("---\n\nWRITE", "---\n" + live + "\nWRITE", 1)
    res = elbencho_text.parse(wrapped.encode(), "console.txt")
    want = elbencho_text.parse(corpus(TEXT).read_bytes(), TEXT)
    assert sorted((s.run_key, s.metric, s.value) for s in res.samples) == sorted(
        (s.run_key, s.metric, s.value) for s in want.samples
    )
    assert "skipped 2 lines before it, 2 lines between its tables" in res.notes[0]


def test_figures_checked_against_their_totals():
    """elbencho prints each per-second figure beside the total it is of (Statistics.cpp): a rate the total
    over the elapsed time cannot give, or an RWMIX total that is not its parts', refuses the file."""
    text = corpus("elbencho-text/glennklockwood__elbencho-test__2.1-0_cgpu_08threads.out").read_bytes()
    with pytest.raises(ParseError, match=r"WRITE Throughput MiB/s \[last\] against the total over 45253 ms"):
        elbencho_text.parse(text.replace(b"4792       4831", b"4792       4900"), "x")
    mix = MIX_TEXT.read_bytes()
    with pytest.raises(ParseError, match=r"IOPS total \[last\]: write \+ read"):
        elbencho_text.parse(mix.replace(b"99970", b"99971"), "x")
    csv = corpus("elbencho-csv/glennklockwood__elbencho-test__2.1-0_cgpu_08threads.csv").read_bytes()
    at = csv.index(b",4831,", csv.index(b",4831,") + 1)  # IOPS [last], then MiB/s [last] (1 MiB blocks)
    with pytest.raises(ParseError, match=r"MiB/s \[last\] against the total over 45253 ms"):
        elbencho_csv.parse(csv[:at] + b",4731," + csv[at + 6 :], "x")
