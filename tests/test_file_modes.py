"""Files iolab writes for people (pages, the render record, the index, chart images, exports; the print
edition in tests/test_report_pdf.py) honour the umask: 0644 under umask 022, as any new file; only a umask that asks for it makes
them private. They were 0600 whatever the umask (tempfile.mkstemp), unreadable once copied to a web
server or a shared drive."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from iolab import cli, outputs
from iolab.written import replacing, replacing_by_name, write_bytes, write_text
from tests.conftest import ROOT

CHARTED = "esg-ds5020-2009"  # three pages with a chart each


@pytest.fixture
def umask():
    """Set the process umask for the test, and put the old one back after it."""
    old = os.umask(0o022)
    try:
        yield lambda mask: os.umask(mask)
    finally:
        os.umask(old)


def modes(folder: Path) -> dict[str, str]:
    """Every file and folder under ``folder`` with its permission bits, as octal text."""
    return {p.relative_to(folder).as_posix(): oct(stat.S_IMODE(p.stat().st_mode)) for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600), (0o027, 0o640)])
def test_an_atomic_write_gets_the_mode_of_a_new_file_under_the_umask(tmp_path, umask, mask, mode):
    umask(mask)
    write_text(tmp_path / "a.html", "<p>x</p>")
    write_bytes(tmp_path / "b.png", b"\x89PNG")
    with replacing(tmp_path / "c.csv", suffix=".part") as f:
        f.write("a,b\n")
    with replacing_by_name(tmp_path / "d.parquet") as name:  # as DuckDB's COPY writes a lake's part
        name.write_bytes(b"PAR1")
    assert modes(tmp_path) == dict.fromkeys(["a.html", "b.png", "c.csv", "d.parquet"], oct(mode))
    assert (tmp_path / "a.html").read_text() == "<p>x</p>"


def test_a_failed_write_leaves_the_old_file_and_no_temporary_one(tmp_path, umask):
    target = tmp_path / "page.html"
    target.write_text("old")
    with pytest.raises(RuntimeError), replacing(target) as f:
        f.write("half")
        raise RuntimeError("stopped half-way")
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"] and target.read_text() == "old"
    with pytest.raises(RuntimeError), replacing_by_name(target) as name:
        name.write_text("half")
        raise RuntimeError("stopped half-way")
    assert [p.name for p in tmp_path.iterdir()] == ["page.html"] and target.read_text() == "old"


def test_a_link_planted_where_a_temporary_file_would_go_is_never_written_through(tmp_path):
    """An output folder's marker (as the lake's manifests and scripts) is written beside itself under
    a new name, as every page is: a link planted at a name fixed in advance (.iolab-output.tmp, as
    the marker's was) neither has the file it points to overwritten nor becomes the marker."""
    victim = tmp_path / "notes.txt"
    victim.write_text("a user's notes")
    out = tmp_path / "reports"
    out.mkdir()
    (out / f".{outputs.MARK}.tmp").symlink_to(victim)
    outputs.start(out, "report")
    assert victim.read_text() == "a user's notes"
    assert not (out / outputs.MARK).is_symlink()
    assert (out / outputs.MARK).read_text() == '{"iolab_output": 2, "what": "report"}\n'


def test_every_file_report_and_export_write_is_0644_under_umask_022(tmp_path, umask):
    shutil.copytree(ROOT / "data" / "samples" / CHARTED, tmp_path / CHARTED)
    dbf = tmp_path / "x.duckdb"
    assert cli.main(["ingest", "-q", str(tmp_path / CHARTED), "--db", str(dbf)]) == 0
    out, images = tmp_path / "reports", tmp_path / "images"
    args = ["report", "--db", str(dbf), "--out", str(out), "--images", str(images)]
    assert cli.main(args) == 0  # the print edition's modes: tests/test_report_pdf.py (it prints one anyway)
    exported = tmp_path / "exports"
    exported.mkdir()
    for fmt in ("csv", "json", "parquet"):
        assert (
            cli.main(["export", "study_runs", "--db", str(dbf), "--format", fmt, "--out", str(exported / f"s.{fmt}")])
            == 0
        )
    written = {f"{folder.name}/{k}": v for folder in (out, images, exported) for k, v in modes(folder).items()}
    names = [k.rsplit("/", 1)[-1] for k in written]
    assert "index.html" in names and ".iolab-render.json" in names
    for suffix in (".html", ".svg", ".png", ".csv", ".json", ".parquet"):
        assert any(n.endswith(suffix) for n in names), suffix
    expected = {k: "0o755" if (tmp_path / k).is_dir() else "0o644" for k in written}
    assert written == expected
