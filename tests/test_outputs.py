"""Outputs never touch inputs (issue 40): every folder iolab writes is refused inside, equal to or
holding a data root, or when it holds files iolab did not write (exit 2); a marker covers only the
files it lists, so `iolab ingest` reads every other file beside it; a folder that cannot be written
(EACCES, EROFS, ENOSPC) is exit 3, said once, with no traceback and no temporary file left."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from iolab import cli, files, outputs
from tests.conftest import corpus

FIO = corpus("fio-json/louwrentius__fio-plot__fio31_d3s4610_randread-8-1.json")
SERIES = corpus("esxtop/visualesxtoponline__origincsv_short.csv")  # a time series: the points store


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> Path:
    """tmp/data/s1 (a fio result and a time series) ingested into tmp/t.duckdb, exported to tmp/lake."""
    tmp = tmp_path_factory.mktemp("lab")
    (tmp / "data" / "s1").mkdir(parents=True)
    for f in (FIO, SERIES):
        shutil.copy(f, tmp / "data" / "s1" / f.name)
    assert cli.main(["ingest", "-q", str(tmp / "data"), "--db", str(tmp / "t.duckdb")]) == 0
    assert cli.main(["lake", "export", "--db", str(tmp / "t.duckdb"), "--to", str(tmp / "lake")]) == 0
    return tmp


def walked(folder: Path) -> tuple[list[str], list[str]]:
    notes: list[str] = []
    return [f.relative_to(folder).as_posix() for _, f in files.walk([folder], notes)], notes


def leftovers(folder: Path) -> list[Path]:
    """Temporary files a failed write left (iolab's are hidden, named .X.tmp or .X.part)."""
    return [p for p in folder.rglob(".*") if p.suffix in (".tmp", ".part") or ".tmp" in p.name]


# ---- the marker: what it lists is iolab's, anything else is data ------------------------------------


def test_a_marker_covers_only_the_files_it_lists(tmp_path):
    out = tmp_path / "out"
    with outputs.writing(out, "reports"):
        (out / "index.html").write_text("<p>iolab</p>")
        (out / "s").mkdir()
        (out / "s" / "page.html").write_text("<p>page</p>")
    listed = outputs.read_cover(out).files
    assert {f: [e["size"] for e in es] for f, es in listed.items()} == {"index.html": [12], "s/page.html": [11]}
    assert all(len(e["sha256"]) == 64 and e["ino"] for es in listed.values() for e in es)  # proof, not presence
    assert walked(out) == ([], [])
    shutil.copy(FIO, out / "s" / "mine.json")  # a user's file beside iolab's: read, and said so
    (out / "index.html").write_text("<p>the user's own page</p>")  # same name, other size: not iolab's
    got, notes = walked(out)
    assert got == ["index.html", "s/mine.json"]
    assert notes == [f"{out.absolute()}: 2 file(s) there were not written by iolab, whatever its marker says: "
                     "read as data (index.html, s/mine.json)"]  # fmt: skip


def test_a_marker_dropped_into_a_data_folder_hides_nothing(tmp_path):
    data = tmp_path / "data"
    (data / "s1").mkdir(parents=True)
    shutil.copy(FIO, data / "s1" / "run.json")
    (data / outputs.MARK).write_text("iolab's time-series store: iolab ingest never reads this folder as data.\n")
    (data / "s1" / outputs.LAKE_MARK).write_text("{}")
    (data / "s1" / "old.parquet").write_bytes(b"PAR1")
    got, notes = walked(data)
    assert got == ["s1/old.parquet", "s1/run.json"]  # an old marker (no list) covers nothing (issue 53)
    assert len(notes) == 2 and all("lists no files" in n and "covers none" in n for n in notes)


@pytest.mark.parametrize(
    "marker", [(outputs.MARK, "iolab's time-series store\n"), (outputs.VIEWS_MARK, "{}"), (outputs.LAKE_MARK, "{}")]
)
def test_an_old_or_forged_marker_never_makes_data_gone(tmp_path, marker):
    """Issue 53: a text marker or a views record holding {} in a data folder made the next ingest drop
    its Jetstress and vdbench HTML results as "gone: no longer on disk"."""
    from iolab import db

    data = tmp_path / "data"
    shutil.copytree(corpus("vdbench-summary"), data / "js")
    dbf = tmp_path / "t.duckdb"
    assert cli.main(["ingest", "-q", str(data), "--db", str(dbf)]) in (0, 1)
    con = db.connect(dbf, read_only=True)
    before = con.execute("SELECT count(*) FROM source_files WHERE path LIKE '%.html'").fetchall()[0][0]
    con.close()
    assert before > 0
    (data / "js" / marker[0]).write_text(marker[1])
    assert cli.main(["ingest", "-q", str(data), "--db", str(dbf)]) in (0, 1)
    con = db.connect(dbf, read_only=True)
    assert con.execute("SELECT count(*) FROM source_files WHERE path LIKE '%.html'").fetchall()[0][0] == before
    con.close()


def test_an_old_marker_proves_nothing_to_a_writer(tmp_path, capsys):
    out = tmp_path / "reports"
    (out / "s").mkdir(parents=True)
    (out / outputs.MARK).write_text("")  # an early iolab's reports folder, or a forged marker
    (out / "index.html").write_text("x")
    with pytest.raises(outputs.Refused, match="already holds 1 file"):
        outputs.check(out, [], "--out")


# ---- every command that writes a folder: the one rule, exit 2 ---------------------------------------


def commands(lab: Path, folder: Path) -> dict[str, list[str]]:
    db = ["--db", str(lab / "t.duckdb")]
    return {
        "report --out": ["report", *db, "--out", str(folder)],
        "report --images": ["report", *db, "--out", str(lab / "reports"), "--images", str(folder)],
        "lake export --to": ["lake", "export", *db, "--to", str(folder)],
        "lake views --out": ["lake", "views", "--lake", str(lab / "lake"), "--out", str(folder)],
        "export --out": ["export", "measurements", *db, "--out", str(folder / "m.csv")],
    }


@pytest.mark.parametrize("where", ["data", "data/s1", "data/s1/new", "."])
@pytest.mark.parametrize(
    "command", ["report --out", "report --images", "lake export --to", "lake views --out", "export --out"]
)
def test_no_output_goes_into_a_data_root(lab, where, command, capsys):
    folder = lab / where
    before = sorted(p for p in (lab / "data").rglob("*"))
    if command == "export --out" and where == ".":
        pytest.skip("a file beside the data root, not in it: allowed")
    assert cli.main(commands(lab, folder)[command]) == 2
    err = " ".join(capsys.readouterr().err.split())
    # "." holds the database too, which iolab.guard says first
    assert "the data root" in err and str((lab / "data").resolve()) in err or "holds the database" in err
    assert "Traceback" not in err
    assert sorted(p for p in (lab / "data").rglob("*")) == before  # nothing written, no marker dropped


@pytest.mark.parametrize("command", ["report --out", "report --images", "lake export --to", "lake views --out"])
def test_a_folder_holding_a_users_files_is_refused(lab, tmp_path, command, capsys):
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "index.html").write_text("my own page")
    (folder / outputs.MARK).write_text('{"iolab_output": 1, "what": "reports"}\n')  # a marker copied in
    assert cli.main(commands(lab, folder)[command]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "already holds 1 file(s) iolab did not write (index.html)" in err
    assert (folder / "index.html").read_text() == "my own page"


def test_a_lake_written_before_is_written_again(lab):
    assert cli.main(["lake", "export", "--db", str(lab / "t.duckdb"), "--to", str(lab / "lake")]) == 0
    assert outputs.foreign(lab / "lake") == []
    assert walked(lab / "lake") == ([], [])


def test_remove_of_a_path_naming_nothing_exits_2(lab, capsys):
    assert cli.main(["remove", str(lab / "no-such-file"), "--db", str(lab / "t.duckdb")]) == 2
    assert "does not exist, and the database holds nothing from there" in " ".join(capsys.readouterr().err.split())


# ---- a folder that cannot be written: exit 3, said once, nothing half-written -----------------------

FAULTS = [errno.EACCES, errno.EROFS, errno.ENOSPC]


@pytest.fixture
def failing(monkeypatch):
    """failing(code, where): every rename into ``where`` (the last step of each of iolab's writes:
    a temporary file becomes the file) fails with ``code``, as the OS says it; but the marker's,
    unless ``marker`` (so the writes after it are the ones that fail)."""
    real = os.replace

    def arm(code: int, where: Path, marker: bool = False) -> None:
        def replace(src, dst, *a, **k):
            if Path(dst).absolute().is_relative_to(where.absolute()) and (marker or Path(dst).name != outputs.MARK):
                raise OSError(code, os.strerror(code), str(dst))
            return real(src, dst, *a, **k)

        monkeypatch.setattr(os, "replace", replace)

    return arm


def fake_pages(monkeypatch) -> None:
    """Pages without kernels: each page's HTML is a line (the render's writes are what is tested)."""
    from iolab.reports import render

    def run_pages(jobs, execute, finish, first):
        value = first()
        for job in jobs:
            finish(job, f"<html><body>{job}</body></html>", value)

    monkeypatch.setattr(render, "run_pages", run_pages)


def said_once(err: str, code: int) -> None:
    err = " ".join(err.split())
    assert err.count("Cannot write into") == 1 and errno.errorcode[code] in err
    assert "Traceback" not in err


@pytest.mark.parametrize("code", FAULTS)
@pytest.mark.parametrize("writer", ["pages", "images", "export", "lake export", "lake views"])
def test_an_unwritable_output_folder_is_exit_3(lab, tmp_path, monkeypatch, failing, capsys, writer, code):
    fake_pages(monkeypatch)
    folder = tmp_path / "out"
    if writer == "export":
        folder.mkdir()
    option = {"pages": "report --out", "images": "report --images", "export": "export --out"}
    argv = commands(lab, folder)[option.get(writer) or f"{writer} {'--to' if writer == 'lake export' else '--out'}"]
    failing(code, folder, marker=writer == "images")  # the fake pages have no charts: the marker is its write
    assert cli.main(argv) == 3
    said_once(capsys.readouterr().err, code)
    assert leftovers(folder) == [] if folder.exists() else True


@pytest.mark.parametrize("code", FAULTS)
def test_the_pdf_and_image_writers_leave_no_temporary_file(tmp_path, monkeypatch, failing, code):
    import pypdf

    from iolab.reports import images, pdf

    parts = []
    for name in ("cover", "toc"):
        w = pypdf.PdfWriter()
        w.add_blank_page(100, 100)
        w.write(tmp_path / f"{name}.pdf")
        parts.append(pdf.Part(name, tmp_path / f"{name}.pdf", 1, len(parts) + 1))
    monkeypatch.setattr(pdf, "chromium_print", lambda page, out: 0)  # no folios: no Chromium needed
    out = tmp_path / "out"
    out.mkdir()
    failing(code, out)
    with pytest.raises(OSError) as e:
        pdf.join(pdf.Edition("s", [], tmp_path, [parts[0]]), parts[1], tmp_path, out / "s.pdf")
    assert e.value.errno == code and outputs.cannot_write(e.value)
    with pytest.raises(OSError):
        images.write_bytes(out / "chart.svg", b"<svg/>")
    assert list(out.iterdir()) == []  # neither the files nor their temporary files


@pytest.mark.parametrize("code", FAULTS)
def test_the_points_store_when_its_disk_fails(tmp_path, failing, capsys, code):
    (tmp_path / "data").mkdir()
    shutil.copy(SERIES, tmp_path / "data" / SERIES.name)
    dbf = tmp_path / "t.duckdb"
    failing(code, tmp_path / "t.duckdb.points")
    assert cli.main(["ingest", str(tmp_path / "data"), "--db", str(dbf)]) == 3
    assert "Traceback" not in capsys.readouterr().err
    assert leftovers(tmp_path / "t.duckdb.points") == []


@pytest.fixture
def read_only(tmp_path):
    """A real read-only folder: a tmpfs mounted read-only (root ignores file modes). Skipped where
    mounting is not allowed."""
    ro = tmp_path / "ro"
    ro.mkdir()
    try:
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,ro", "tmpfs", str(ro)], capture_output=True)
    except OSError:
        pytest.skip("no mount command")
    if done.returncode:
        pytest.skip("cannot mount a read-only tmpfs here")
    yield ro
    subprocess.run(["umount", str(ro)], check=False)


def test_a_real_read_only_folder_is_exit_3(lab, read_only, capsys):
    for argv in (
        ["export", "measurements", "--db", str(lab / "t.duckdb"), "--out", str(read_only / "m.csv")],
        ["lake", "export", "--db", str(lab / "t.duckdb"), "--to", str(read_only / "lake")],
    ):
        assert cli.main(argv) == 3
        said_once(capsys.readouterr().err, errno.EROFS)


def test_an_exported_file_is_listed_and_never_read_as_data(lab, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    shutil.copy(FIO, out / "run.json")
    assert cli.main(["export", "measurements", "--db", str(lab / "t.duckdb"), "--out", str(out / "m.csv")]) == 0
    assert walked(out) == (["run.json"], [])  # the user's file is data; the export is not; nothing to warn of
