"""The command line says the real cause: detect walks folders, reads only regular files and answers
what ingest answers; a missing PATH, a --db where no database can be, and the "Add a format" hint
only where no parser recognised a file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from iolab import batch, cli, db, registry
from tests.conftest import ROOT

FIO = ROOT / "data" / "samples" / "fio-intel-d3-s4610-qd-sweep"


def odd_files(folder: Path) -> dict[str, Path]:
    """Files no parser reads, each for its own reason."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "zip": folder / "results.zip",
        "junk": folder / "junk.txt",
        "empty": folder / "empty.txt",
        "hist": folder / "t_20200101_1200_hist.txt",
    }
    files["zip"].write_bytes(b"PK\x03\x04" + bytes(60))
    files["junk"].write_text("hello world\n")
    files["empty"].write_bytes(b"")
    files["hist"].write_text("anything\n")
    return files


def test_detect_walks_a_folder_as_ingest_does(capsys):
    assert cli.main(["detect", str(FIO)]) == 0
    out = capsys.readouterr().out
    for f in FIO.glob("*.json"):
        assert f.name in out
    assert "iolab.toml" not in out  # the sidecar is not a result file, as in ingest
    assert out.count("fio-json") == len(list(FIO.glob("*.json")))


def test_detect_answers_what_ingest_answers(tmp_path, capsys):
    files = odd_files(tmp_path / "data")
    con = db.open_db(tmp_path / "x.duckdb")
    reasons = {Path(o.path).name: o.reason for o in batch.ingest_paths(con, [tmp_path / "data"]).outcomes}
    con.close()
    for f in files.values():
        claim = registry.claim(f.read_bytes()[: registry.HEAD_BYTES], f.name)
        assert claim.module is None and claim.reason == reasons[f.name], f.name
    assert reasons["results.zip"].startswith("a ZIP archive: unpack it")
    assert cli.main(["detect", str(tmp_path / "data")]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "a ZIP archive: unpack it" in out and "no parser recognises the first" not in out


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_detect_never_reads_a_fifo(tmp_path):
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    p = subprocess.run(
        [sys.executable, "-m", "iolab", "detect", str(fifo), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,  # a read of the FIFO would block for ever
    )
    assert p.returncode == 1
    assert " ".join(p.stdout.split()).count("a named pipe (FIFO), not a regular file: never read") == 2


def test_ingest_of_a_path_that_does_not_exist_says_so(tmp_path, capsys):
    code = cli.main(["ingest", str(tmp_path / "nonexistent"), "--db", str(tmp_path / "x.duckdb")])
    err = capsys.readouterr().err
    assert code == cli.EXIT_USAGE and f"{tmp_path / 'nonexistent'} does not exist" in err
    assert "moved or deleted" not in err and not (tmp_path / "x.duckdb").exists()


@pytest.mark.parametrize("where", ["proc", "under-a-file", "a-folder"])
def test_a_db_where_none_can_be_says_why(tmp_path, capsys, where):
    if where == "proc" and not Path("/proc/self").is_dir():
        pytest.skip("no /proc here")
    (tmp_path / "file").write_text("x")
    target = {
        "proc": "/proc/nope.duckdb",
        "under-a-file": str(tmp_path / "file" / "x.duckdb"),
        "a-folder": str(tmp_path),
    }
    assert cli.main(["ingest", str(FIO), "--db", target[where]]) == cli.EXIT_ENVIRONMENT
    out = " ".join(capsys.readouterr().out.split())
    assert "damaged" not in out
    assert (
        "it is a folder, not a database file" if where == "a-folder" else "iolab cannot create a database file there"
    ) in out


def test_the_add_a_format_hint_only_for_unrecognised_files(tmp_path, capsys):
    typo = tmp_path / "typo"
    shutil.copytree(FIO, typo)
    (typo / "iolab.toml").write_text('sytem = "x"\n')
    assert cli.main(["ingest", str(typo), "--db", str(tmp_path / "a.duckdb")]) == 1
    out = capsys.readouterr().out
    assert "did you mean 'system'" in out and "Add a format" not in out
    files = odd_files(tmp_path / "odd")
    files["zip"].unlink()
    assert cli.main(["ingest", str(files["junk"]), "--db", str(tmp_path / "a.duckdb")]) == 1
    assert capsys.readouterr().out.count("'Add a format'") == 1  # in the file's own reason, once
