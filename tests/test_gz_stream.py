"""A .gz is decompressed in a stream into the same bounded parsers as its plain file (issue 40):
the same rows, its points streamed from a temporary copy that is gone once the file is stored, a
change seen only when the .gz changed, and a full disk said as the environment's fault.
Memory is measured by `python -m tests.bench_scaling --gz 300`, not asserted here."""

from __future__ import annotations

import gzip
import os
import shutil
from pathlib import Path

import pytest

from iolab import archives, batch, db, files
from tests.conftest import corpus, q
from tests.test_mirror import FILES

ESXTOP = corpus("esxtop/rachsharp__small-esxtop-data.csv")


def _gz(src: Path, dst: Path) -> Path:
    with src.open("rb") as s, gzip.open(dst, "wb") as g:
        shutil.copyfileobj(s, g)
    return dst


def _inflated_open() -> list[str]:
    """The decompressed copies this process holds open (an unnamed file in the cache's inflated/)."""
    out = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if "/inflated/" in target:
            out.append(target)
    return out


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="no /proc here")
def test_a_gz_capture_streams_like_the_plain_file(tmp_path, monkeypatch):
    """Hashed beside its parse as a big file is (the 300 MB case was refused as changed): the same
    rows as the plain capture, its points streamed from the decompressed copy, nothing left open."""
    monkeypatch.setattr(files, "HASH_BESIDE_BYTES", 1)
    plain, packed = tmp_path / "plain", tmp_path / "packed"
    plain.mkdir()
    packed.mkdir()
    shutil.copy(ESXTOP, plain / "capture.csv")
    _gz(ESXTOP, packed / "capture.csv.gz")
    counts = []
    for folder in (plain, packed):
        con = db.open_db(tmp_path / f"{folder.name}.duckdb")
        (o,) = batch.ingest_paths(con, [folder]).outcomes
        assert o.status == "ingested", o.reason
        assert _inflated_open() == []
        counts.append((o.counts, q(con, "SELECT count(*), sum(value) FROM series_points")))
        con.close()
    assert counts[0] == counts[1] and counts[0][0]["points"] > 20_000
    assert not list((Path(os.environ["IOLAB_CACHE_DIR"]) / "inflated").iterdir())


def test_a_gz_changed_while_it_is_read_is_said(tmp_path, monkeypatch):
    _gz(FILES[1], tmp_path / "run.json.gz")
    real = archives.inflate

    def changing(fh, folder):
        _gz(FILES[2], tmp_path / "run.json.gz")  # another writer, between the hash and the parse
        return real(fh, folder)

    monkeypatch.setattr(archives, "inflate", changing)
    con = db.open_db(tmp_path / "t.duckdb")
    (o,) = batch.ingest_paths(con, [tmp_path]).outcomes
    assert (o.status, o.reason) == ("unreadable", "the file changed while it was being read; ingest it again")
    con.close()


def test_a_full_disk_while_decompressing_stops_the_run(tmp_path, monkeypatch):
    import errno

    _gz(FILES[1], tmp_path / "run.json.gz")

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(archives.tempfile, "TemporaryFile", full)
    monkeypatch.setattr(archives.tempfile, "NamedTemporaryFile", full)
    con = db.open_db(tmp_path / "t.duckdb")
    rep = batch.ingest_paths(con, [tmp_path])
    assert rep.fault and rep.fault.startswith("the disk holding the cache folder is full")  # not the database's
    assert "decompressed copy" in rep.fault
    assert q(con, "SELECT count(*) FROM source_history") == [(0,)]  # the file is not blamed
    con.close()
