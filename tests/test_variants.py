"""Real-file variants a lab meets every week (issue 30): each loads with its numbers exact, or is
refused with a reason naming the line; none ends in "internal error".

The variants are made from real corpus files by the exact transformation a harness or an editor
applies (a BOM added, tabs expanded, CRLF, UTF-16 with its declaration, a name without fio's job
index); real files of a variant, where one was found, are in tests/corpus with their golden twins."""

from __future__ import annotations

import codecs
import gzip
import json
import re
import shutil
import tarfile
import zipfile

import pytest

from iolab import registry
from iolab.formats import diskspd_text, jetstress_config, profile
from iolab.model import ParseError, decode_text

from .conftest import corpus, ingest, q

# the Windows DiskSpd reports a test harness keeps (the Linux port's reports need their command line: its
# options say what its sections hold)
DISKSPD = sorted(p for p in corpus("diskspd-text").iterdir() if "diskspd-for-linux" not in p.name)


def harness_capture(raw: bytes) -> bytes:
    """DiskSpd text as a test harness keeps it: a UTF-8 BOM, tabs expanded, CRLF, no `Command Line`."""
    text = raw.decode("utf-8")
    kept = [line for line in text.splitlines() if not line.startswith("Command Line: ")]
    return codecs.BOM_UTF8 + ("\r\n".join(kept).expandtabs() + "\r\n").encode()


def fingerprint(res) -> list:
    return sorted((s.run_key, s.scope, s.target or "", s.metric, s.value, s.unit) for s in res.samples)


@pytest.mark.parametrize("path", DISKSPD, ids=lambda p: p.name)
def test_diskspd_harness_capture_loads_the_same_numbers(path):
    raw = path.read_bytes()
    variant = harness_capture(raw)
    assert b"Command Line" not in variant and b"\t" not in variant
    assert [m.FORMAT for m in registry.sniff(variant, path.name)] == ["diskspd-text"]
    original, captured = diskspd_text.parse(raw, path.name), diskspd_text.parse(variant, path.name)
    assert fingerprint(captured) == fingerprint(original) and len(fingerprint(original)) > 100
    assert [(r.key, r.block_size_bytes, r.queue_depth, r.workers) for r in captured.runs] == [
        (r.key, r.block_size_bytes, r.queue_depth, r.workers) for r in original.runs
    ]


def test_diskspd_two_runs_without_command_lines_stay_two_runs():
    path = corpus("diskspd-text/BasilKisel__trying-out-diskspd__2.0.x_azure_2runs.txt")
    res = diskspd_text.parse(harness_capture(path.read_bytes()), path.name)
    assert [r.key for r in res.runs] == ["run1", "run2"]


JETSTRESS = "jetstress/jacobklitzke__JetstressConfig.xml"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_jetstress_config_saved_as_utf16_with_its_declaration(encoding):
    text = corpus(JETSTRESS).read_text("utf-8")
    assert text.startswith('<?xml version="1.0"?>')
    variant = text.replace('<?xml version="1.0"?>', '<?xml version="1.0" encoding="utf-16"?>', 1).encode(encoding)
    assert [m.FORMAT for m in registry.sniff(variant, "JetstressConfig.xml")] == ["jetstress-config-xml"]
    got = jetstress_config.parse(variant, "JetstressConfig.xml")
    want = jetstress_config.parse(corpus(JETSTRESS).read_bytes(), "JetstressConfig.xml")
    assert got.tables == want.tables and len(got.tables["jetstress_config"]) == 70


def test_old_santricity_layout_is_read_and_its_cut_is_named():
    """storageArrayProfile6 lists `VOLUME GROUP n (RAID 1)` entries; the real file stops inside the
    22nd of the 30 its SUMMARY states (the later sections follow, indented), so it is refused with
    that count and line, not "lists 0"."""
    path = corpus("profile/jmrunkle__storageArrayProfile6_old_layout_cut.txt")
    with pytest.raises(ParseError) as e:
        profile.parse(path.read_bytes(), path.name)
    assert "states 30 arrays/volume groups" in e.value.reason and "lists 22" in e.value.reason
    assert e.value.line == 754


def test_old_santricity_layout_groups_and_drives():
    path = corpus("profile/jmrunkle__storageArrayProfile6_old_layout_cut.txt")
    text = decode_text(path.read_bytes())
    secs = [s for s in profile._sections(text.splitlines(), 0) if s.name == "VOLUME GROUPS"]
    groups, members = profile._groups(secs)
    assert [g["group_name"] for g in groups] == [str(i) for i in range(1, 23)]
    assert {g["raid_level"] for g in groups} == {"1"} and groups[0]["status"] == "Online"
    assert [g["drive_count"] for g in groups] == [2] * 21 + [0]  # the 22nd is cut before its drives
    assert members[:2] == [
        {"group_name": "1", "tray": 1, "slot": 1, "line_no": 351},
        {"group_name": "1", "tray": 3, "slot": 1, "line_no": 352},
    ]


@pytest.mark.parametrize("kind", ["bw", "iops", "lat"])
def test_fio_logs_written_with_per_job_logs_0(con, tmp_path, kind):
    """fio names a log `<prefix>_<kind>.log` (no job index) with per_job_logs=0."""
    src = corpus(f"fio-log/louwrentius__fio-plot__fio218_randread_{kind}.1.log")
    dst = tmp_path / f"randread-4k_{kind}.log"
    shutil.copyfile(src, dst)
    (o,) = ingest(con, dst).outcomes
    assert (o.status, o.format, o.counts["points"]) == ("ingested", "fio-log", 20)
    first = src.read_text().splitlines()[0].split(",")
    value = q(con, "SELECT value FROM series_values WHERE sample_no = 0")[0][0]
    factor = {"bw": 1024 / 1e6, "iops": 1.0, "lat": 1.0}[kind]
    assert value == pytest.approx(float(first[1]) * factor)


def test_fio_log_name_without_a_kind_is_refused_with_the_names_fio_writes(con, tmp_path):
    dst = tmp_path / "randread.csv"
    shutil.copyfile(corpus("fio-log/louwrentius__fio-plot__fio218_randread_bw.1.log"), dst)
    (o,) = ingest(con, dst).outcomes
    assert o.status == "rejected" and "per_job_logs=0" in o.reason and "_bw.N.log" in o.reason


def _lat_folder(tmp_path, json_rel: str | None, log_rel: str):
    shutil.copyfile(corpus(log_rel), tmp_path / corpus(log_rel).name)
    if json_rel:
        shutil.copyfile(corpus(json_rel), tmp_path / corpus(json_rel).name)
    return tmp_path


def test_fio3_latency_log_unit_settled_by_its_companion_json(con, tmp_path):
    folder = _lat_folder(
        tmp_path,
        "fio-json/louwrentius__fio-plot__fio316_randrw-1-16.json",
        "fio-log/louwrentius__fio-plot__fio316_randrw_lat.1.log",
    )
    assert {o.status for o in ingest(con, folder).outcomes} == {"ingested"}
    rows = q(
        con,
        "SELECT metric, stored_unit, waiting_for, samples, max_ms, max_as_written FROM series_summary_resolved ORDER BY metric",
    )
    # the file's largest write latency is 753432989 (line 'msec 56558'): ns in fio 3.16
    assert rows == [
        ("read_lat_raw", "ns", None, 240, pytest.approx(646.670357), 646670357.0),
        ("write_lat_raw", "ns", None, 240, pytest.approx(753.432989), 753432989.0),
    ]
    assert "fio-3.16" in q(con, "SELECT resolved_by FROM series_unit_resolution LIMIT 1")[0][0]


def test_fio2_latency_log_unit_settled_as_usec(con, tmp_path):
    folder = _lat_folder(
        tmp_path,
        "fio-json/louwrentius__fio-plot__fio218_randread-01-01.json",
        "fio-log/louwrentius__fio-plot__fio218_randread_lat.1.log",
    )
    ingest(con, folder)
    ((unit, to_ms, max_ms),) = q(
        con,
        "SELECT r.stored_unit, u.to_ms, r.max_ms FROM series_summary_resolved r JOIN series_unit_resolution u USING (series_id)",
    )
    assert (unit, to_ms, max_ms) == ("us", 1e-3, pytest.approx(15.084))


def test_latency_log_alone_keeps_its_numbers_and_says_what_it_waits_for(con, tmp_path):
    folder = _lat_folder(tmp_path, None, "fio-log/louwrentius__fio-plot__fio316_randrw_lat.1.log")
    ingest(con, folder)
    rows = q(
        con, "SELECT stored_unit, max_ms, max_as_written, waiting_for FROM series_summary_resolved ORDER BY metric"
    )
    assert [r[:3] for r in rows] == [(None, None, 646670357.0), (None, None, 753432989.0)]
    assert all("no result file in its folder states one (fio 3.x logs latency in ns" in r[3] for r in rows)


def test_latency_log_beside_a_json_of_the_switch_releases_stays_unresolved(con, tmp_path):
    folder = _lat_folder(tmp_path, None, "fio-log/louwrentius__fio-plot__fio316_randrw_lat.1.log")
    doc = json.loads(corpus("fio-json/louwrentius__fio-plot__fio316_randrw-1-16.json").read_text())
    doc["fio version"] = "fio-2.21"
    (folder / "randrw-1-16.json").write_text(json.dumps(doc))
    ingest(con, folder)
    ((unit, why),) = set(q(con, "SELECT unit, waiting_for FROM series_unit_resolution"))
    assert unit is None and "2.21 to 2.99, settle nothing" in why and "fio-2.21" in why


# ---- no input ends in "internal error" ------------------------------------------------------------


def _one(con, tmp_path, name: str, data: bytes):
    p = tmp_path / name
    p.write_bytes(data)
    (o,) = ingest(con, p).outcomes
    assert "internal error" not in (o.reason or "")
    return o


def test_a_byte_cp1252_does_not_define_is_refused_at_its_line(con, tmp_path):
    raw = corpus("iometer/quarch__testfile.csv").read_bytes()
    at = raw.index(b"\n", 3000) + 1  # the start of a line
    o = _one(con, tmp_path, "testfile.csv", raw[:at] + b"\x81" + raw[at:])
    assert o.status == "rejected" and "byte 0x81 is not text in cp1252" in o.reason
    assert o.line == raw[:at].count(b"\n") + 1


def test_a_bad_byte_after_a_utf8_bom_is_refused_at_its_line():
    with pytest.raises(ParseError) as e:
        decode_text(codecs.BOM_UTF8 + b"a\nb\n\xff\n")
    assert e.value.line == 3 and "0xff" in e.value.reason


def test_json_nested_100000_deep_is_refused(con, tmp_path):
    data = b'{"fio version": "fio-3.1",\n "jobs": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"
    o = _one(con, tmp_path, "deep.json", data)
    assert o.status == "rejected" and "nests more than 500 levels" in o.reason and o.line == 2


def _fio_json(**change) -> bytes:
    doc = json.loads(corpus("fio-json/louwrentius__fio-plot__fio218_randread-01-01.json").read_text())
    doc.update(change.get("doc", {}))
    for job in doc["jobs"]:
        job["job options"].update(change.get("options", {}))
    return json.dumps(doc, indent=2).encode()


def test_a_timestamp_no_calendar_holds_is_refused(con, tmp_path):
    o = _one(con, tmp_path, "ts.json", _fio_json(doc={"timestamp": 10**30}))
    assert o.status == "rejected" and "timestamp is 1e+30, which is no date" in o.reason and o.line


@pytest.mark.parametrize("option", ["iodepth", "numjobs", "bs"])
def test_a_huge_count_is_refused_naming_the_option(con, tmp_path, option):
    opts = {option: "9" * 40, "group_reporting": ""} if option == "numjobs" else {option: "9" * 40}
    o = _one(con, tmp_path, f"{option}.json", _fio_json(options=opts))
    assert o.status == "rejected" and o.reason.startswith(f"{option} is 999999999999... (40 digits)") and o.line


# ---- the registry hands sniffers the text as a person sees it -------------------------------------

SNIFFED = [p for p in sorted(corpus("").rglob("*")) if p.is_file() and p.name != "MANIFEST.tsv"]


def _wrappers(raw: bytes) -> dict[str, bytes]:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return {}
    return {
        "bom": codecs.BOM_UTF8 + text.encode(),
        "crlf": "\r\n".join(text.splitlines()).encode() + b"\r\n",
        "lf": "\n".join(text.splitlines()).encode() + b"\n",
        "tabs": text.expandtabs().encode(),
        "utf16": text.encode("utf-16"),
    }


@pytest.mark.parametrize("path", SNIFFED, ids=lambda p: p.name[:60])
def test_bom_encoding_line_ends_tabs_and_gzip_never_decide_recognition(path):
    raw = path.read_bytes()
    want = [m.FORMAT for m in registry.sniff(raw, path.name)]
    for kind, data in _wrappers(raw).items():
        assert [m.FORMAT for m in registry.sniff(data, path.name)] == want, kind
    # a small .gz: sniffing sees as much of the file inside as of a plain file, not its compressed size
    assert [m.FORMAT for m in registry.sniff(gzip.compress(raw), path.name + ".gz")] == want


# ---- compressed and archived logs ------------------------------------------------------------------

LAT3 = "fio-log/louwrentius__fio-plot__fio316_randrw_lat.1.log"
JSON3 = "fio-json/louwrentius__fio-plot__fio316_randrw-1-16.json"


def test_a_gz_log_is_read_as_the_file_inside_and_says_so(con, tmp_path):
    src = corpus(LAT3)
    with gzip.open(tmp_path / (src.name + ".gz"), "wb") as g:  # the header keeps the original name
        g.write(src.read_bytes())
    (o,) = ingest(con, tmp_path).outcomes
    assert (o.status, o.format, o.counts["points"]) == ("ingested", "fio-log", 480)
    ((path, archive, member, size),) = q(con, "SELECT path, archive, archive_member, size_bytes FROM source_files")
    assert path.endswith(".log.gz") and (archive, member) == ("gzip", src.name)
    assert size == (tmp_path / (src.name + ".gz")).stat().st_size
    assert q(con, "SELECT max(value) FROM series_values") == [(753432989.0,)]


def test_a_gz_without_an_original_name_is_named_by_dropping_gz(con, tmp_path):
    raw = corpus(JSON3).read_bytes()
    (tmp_path / "randrw-1-16.json.gz").write_bytes(gzip.compress(raw, mtime=0))  # no FNAME field
    (o,) = ingest(con, tmp_path).outcomes
    assert (o.status, o.format) == ("ingested", "fio-json")
    assert q(con, "SELECT archive, archive_member FROM source_files") == [("gzip", "randrw-1-16.json")]
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "randrw-1-16.json").write_bytes(raw)
    ingest(con, plain)
    both = q(con, "SELECT metric, value FROM measurements ORDER BY ALL")
    assert both[::2] == both[1::2] and len(both) > 50  # the same numbers from the .gz and the plain file


def test_a_gz_log_beside_its_gz_json_gets_its_unit(con, tmp_path):
    for rel in (LAT3, JSON3):
        with gzip.open(tmp_path / (corpus(rel).name + ".gz"), "wb") as g:
            g.write(corpus(rel).read_bytes())
    ingest(con, tmp_path)
    assert {r[0] for r in q(con, "SELECT stored_unit FROM series_summary_resolved")} == {"ns"}


def test_a_cut_gz_is_refused_saying_so(con, tmp_path):
    (tmp_path / "x.json.gz").write_bytes(gzip.compress(corpus(JSON3).read_bytes())[:600])
    (o,) = ingest(con, tmp_path).outcomes
    assert o.status == "rejected" and "the gzip file is damaged or cut short" in o.reason


def test_a_gz_that_inflates_past_the_limit_is_refused(con, tmp_path, monkeypatch):
    from iolab import archives

    monkeypatch.setattr(archives, "MAX_INFLATED", 4096)
    (tmp_path / "x.json.gz").write_bytes(gzip.compress(corpus(JSON3).read_bytes()))
    (o,) = ingest(con, tmp_path).outcomes
    assert o.status == "rejected" and "over 0 MiB: decompress it (`gunzip -k FILE`)" in o.reason


def test_an_error_inside_a_gz_names_the_member_and_its_line(con, tmp_path):
    raw = corpus(LAT3).read_bytes().replace(b"12836, 16556702", b"12836, 16x56702")
    with gzip.open(tmp_path / "x_lat.1.log.gz", "wb") as g:
        g.write(raw)
    (o,) = ingest(con, tmp_path).outcomes
    assert o.status == "rejected" and o.reason.startswith("in 'x_lat.1.log', the file inside this gzip file")
    assert o.line == 100


@pytest.mark.parametrize("kind", ["tar", "tar.gz", "tgz", "zip"])
def test_archives_of_files_are_refused_with_unpack_it_not_claimed(con, tmp_path, kind):
    src = corpus(JSON3)
    arc = tmp_path / f"runs.{kind}"
    if kind == "zip":
        with zipfile.ZipFile(arc, "w") as z:
            z.write(src, src.name)
    else:
        with tarfile.open(arc, "w:gz" if "gz" in kind else "w") as t:
            t.add(src, arcname=src.name)
    assert registry.sniff(arc.read_bytes(), arc.name) == []  # the fio JSON parser claimed a .tar
    (o,) = ingest(con, arc).outcomes
    assert (o.status, o.format) == ("rejected", None) and "unpack it" in o.reason
    assert ("gunzip -k FILE" in o.reason) == ("gz" in kind)


# ---- the hand-made variants kept in tests/fixtures: no real file of these was found ----------------

HANDMADE = {  # fixture -> (the real corpus file, the transformation that made it), re-checked here
    "diskspd-text/handmade-harness-capture_v2.2.0_singlegroup.txt": (
        "diskspd-text/microsoft__VirtualClient__v2.2.0_singlegroup.txt",
        harness_capture,
    ),
    "jetstress/handmade-utf16-declared_JetstressConfig.xml": (
        JETSTRESS,
        lambda raw: (
            raw.decode().replace('<?xml version="1.0"?>', '<?xml version="1.0" encoding="utf-16"?>', 1).encode("utf-16")
        ),
    ),
    "fio-log/handmade-gzip_fio316_randrw_lat.1.log.gz": (LAT3, None),  # gzip: its content is compared
    "fio-log/handmade-per_job_logs0_randread_lat.log": (
        "fio-log/louwrentius__fio-plot__fio218_randread_lat.1.log",
        bytes,
    ),
}


@pytest.mark.parametrize("rel", sorted(HANDMADE))
def test_handmade_variants_are_their_real_file_transformed_and_load(con, rel):
    from .conftest import FIXTURES

    fixture, (real, transform) = FIXTURES / rel, HANDMADE[rel]
    raw = corpus(real).read_bytes()
    if transform is None:
        assert gzip.decompress(fixture.read_bytes()) == raw
    else:
        assert fixture.read_bytes() == transform(raw)
    (o,) = ingest(con, fixture).outcomes
    assert o.status == "ingested", o.reason
    assert o.counts.get("points") or o.counts.get("samples") or o.counts.get("jetstress_config")


def test_a_number_no_column_holds_is_refused_at_its_line(con, tmp_path):
    """A 400-digit latency in a fio log overflowed float() inside the parser ("internal error")."""
    lines = corpus(LAT3).read_bytes().splitlines(keepends=True)
    lines[2] = b"543, " + b"9" * 400 + b", 0, 0\n"
    o = _one(con, tmp_path, "x_lat.1.log", b"".join(lines))
    assert o.status == "rejected" and o.reason.startswith("a number too large to be a measurement (9999")
    assert o.line == 3


def test_a_json_number_no_column_holds_is_refused_at_its_line(con, tmp_path):
    text = _fio_json().decode()
    at = text.index('"total_ios"')
    data = (text[:at] + '"total_ios" : ' + "9" * 400 + ", " + text[at:]).encode()
    o = _one(con, tmp_path, "x.json", data)
    assert o.status == "rejected" and "too large to be a measurement" in o.reason
    assert o.line == text[:at].count("\n") + 1


def test_a_jetstress_config_nested_100000_deep_is_refused(con, tmp_path):
    text = corpus(JETSTRESS).read_text()
    data = text.replace("</configuration>", "<a>" * 100_000 + "</a>" * 100_000 + "</configuration>").encode()
    o = _one(con, tmp_path, "JetstressConfig.xml", data)
    assert o.status == "rejected" and "nests 101 levels deep" in o.reason


def test_a_diskspd_queue_depth_no_column_holds_is_refused_at_its_line(con, tmp_path):
    raw = corpus("diskspd-text/microsoft__VirtualClient__v2.2.0_singlegroup.txt").read_bytes()
    stated = b"number of outstanding I/O operations per thread: 16"
    o = _one(con, tmp_path, "ds.txt", raw.replace(stated, stated[:-2] + b"99999999999"))
    assert o.status == "rejected" and "queue_depth is 99999999999, more than any test has" in o.reason
    assert o.line == raw[: raw.index(stated)].count(b"\n") + 1


def test_a_table_cell_no_column_holds_is_refused_at_its_row(con, tmp_path):
    raw = corpus("diskspd-text/microsoft__VirtualClient__v2.2.0_singlegroup.txt").read_bytes()
    row = b"     0 |         5181440 |"
    o = _one(con, tmp_path, "ds.txt", raw.replace(row, b"     0 | " + b"9" * 30 + b" |", 1))
    # the file's own check sees it first: its Total row no longer sums its threads (issue 55)
    assert o.status == "rejected" and "Total IO total: bytes of its rows: the file states 20819968" in o.reason
    assert o.line is not None and o.line > raw[: raw.index(row)].count(b"\n") + 1


def test_a_latency_log_in_two_folders_is_resolved_per_folder(con, tmp_path):
    """The same log beside its fio 3.16 JSON in one study and alone in another: each place gets its own answer."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with_json, alone = _lat_folder(tmp_path / "a", JSON3, LAT3), _lat_folder(tmp_path / "b", None, LAT3)
    ingest(con, with_json)
    ingest(con, alone)
    rows = q(con, "SELECT path, stored_unit, waiting_for IS NULL FROM series_summary_resolved ORDER BY path, metric")
    assert [(r[1], r[2]) for r in rows] == [("ns", True), ("ns", True), (None, False), (None, False)]
    assert "a/" in rows[0][0] and "b/" in rows[2][0] and "a/" not in rows[2][0]


def test_a_count_past_its_integer_column_is_refused_at_its_row(con, tmp_path):
    """An 11-digit ORION data-point count fits 64 bits but not the INTEGER column the migrations give it."""
    raw = corpus("orion/databasejournal__11gtest_summary.txt").read_bytes()
    text = raw.decode()
    m = re.search(r"(?m)^(Total Data Points: )(\d+)", text)
    assert m, "the ORION summary states its data points"
    data = (text[: m.start(2)] + "99999999999" + text[m.end(2) :]).encode()
    o = _one(con, tmp_path, "x_summary.txt", data)
    assert o.status == "rejected" and "99999999999" in o.reason and "no column holds it" in o.reason
    assert o.line == text[: m.start()].count("\n") + 1
