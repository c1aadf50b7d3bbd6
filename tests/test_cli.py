"""The command line: a bare `iolab` prints help, every option explains itself and its default,
plain log lines off a terminal, --quiet/--verbose/--json, and rejections that say what to do next."""

from __future__ import annotations

import argparse
import json

import pytest

from iolab import cli
from tests.conftest import ROOT

FIO = ROOT / "tests" / "corpus" / "fio-json" / "louwrentius__fio-plot__fio31_randrw-1-1.json"


def run(capsys, *argv: str) -> tuple[int, str]:
    rc = cli.main(list(argv))
    return rc, capsys.readouterr().out


def test_bare_iolab_prints_help(capsys):
    rc, out = run(capsys)
    assert rc == 0 and "usage: iolab" in out and "ingest" in out and "validate" in out


def test_every_argument_has_help_and_shows_its_default():
    parser = cli.build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sp in subs.choices.items():
        text = sp.format_help()
        for action in sp._actions:
            assert action.help, f"iolab {name} {action.dest}: no help text"
            hidden = action.help == argparse.SUPPRESS  # what the completion scripts ask (completion --list)
            if isinstance(action.default, str) and action.default != argparse.SUPPRESS and not hidden:
                assert f"(default: {action.default})" in " ".join(text.split()), f"iolab {name} --{action.dest}"


def test_plain_lines_off_a_terminal(tmp_path, capsys):
    rc, out = run(capsys, "ingest", str(FIO), "--db", str(tmp_path / "a.duckdb"))
    lines = out.splitlines()
    assert rc == 0
    assert lines[0].startswith("ingested") and FIO.name in lines[0] and "[fio-json]" in lines[0]
    assert lines[1].startswith("1 files seen: 1 ingested")
    assert "\x1b[" not in out  # no terminal control codes in a log


def test_a_parsers_note_is_printed_once_off_a_terminal(tmp_path, capsys):
    """A file read with a note (IOzone's report inside a script's log) says the note once, as the
    warning a terminal shows too, not also on its own plain log line."""
    report = (
        ROOT / "tests" / "corpus" / "iozone-text" / "Rovanion__iozone-results-comparator__3.327_auto_U_ext2_1.iozone"
    )
    log = tmp_path / "x.log"
    log.write_bytes(b"+ ./run_iozone.sh ext2\n[10:00] starting\n" + report.read_bytes() + b"\nuser@host:~$ \n")
    rc, out = run(capsys, "ingest", str(log), "--db", str(tmp_path / "a.duckdb"))
    note = "read the IOzone report at lines 3-192 of 194; skipped 2 lines before it, 1 line after it"
    lines = out.splitlines()
    assert rc == 0 and out.count(note) == 1, out
    assert lines[0] == f"ingested   {log} [iozone-text]"
    assert lines[1].startswith(f"Warning: {log}: {note}")


def test_a_hostile_file_name_cannot_drive_the_terminal(tmp_path, capsys):
    """A name's control characters are shown as escapes (rich would have passed ESC through and
    turned :smile: into an emoji); markup-like brackets are text. The database keeps the real name."""
    hostile = "a\x1b[31mred\x07\rover [bold]:smile:.json"
    f = tmp_path / hostile
    f.write_bytes(FIO.read_bytes())
    dbf = tmp_path / "a.duckdb"
    rc, out = run(capsys, "ingest", str(f), "--db", str(dbf))
    assert rc == 0
    assert "a\\x1b[31mred\\x07\\x0dover [bold]:smile:.json" in out
    assert not any(c in out for c in "\x1b\x07\r")
    # a PATH that names nothing on disk or in the database is wrong usage, said with the name escaped
    rc = cli.main(["ingest", "-q", str(tmp_path / "missing\x1b]0;title\x07"), "--db", str(dbf)])
    err = capsys.readouterr().err
    assert rc == 2
    assert "missing\\x1b]0;title\\x07 does not exist" in err and "\x1b" not in err
    from iolab import db

    con = db.connect(dbf, read_only=True)
    assert con.execute("SELECT count(*) FROM source_files WHERE path LIKE ?", [f"%{hostile}"]).fetchone() == (1,)
    con.close()


def test_a_plain_ingest_does_not_import_rich(tmp_path):
    """Off a terminal an ingest prints plain lines: rich (2 % of a 100 MB capture's ingest) stays unloaded."""
    import subprocess
    import sys

    code = (
        "import sys; from iolab.cli import main; "
        f"main(['ingest', {str(FIO)!r}, '--db', {str(tmp_path / 'a.duckdb')!r}]); "
        "print('rich loaded' if any(m.split('.')[0] == 'rich' for m in sys.modules) else 'no rich')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "no rich", out


def test_quiet_verbose_json(tmp_path, capsys):
    db = str(tmp_path / "a.duckdb")
    rc, out = run(capsys, "ingest", "-q", str(FIO), "--db", db)
    assert rc == 0 and out.splitlines()[0].startswith("1 files seen: 1 ingested") and len(out.splitlines()) == 1
    rc, out = run(capsys, "ingest", "-v", str(FIO), "--db", db)
    assert out.splitlines()[0].startswith("unchanged") and "1 unchanged" in out
    rc, out = run(capsys, "ingest", "--json", str(FIO), "--db", db)
    doc = json.loads(out)
    assert doc["summary"]["unchanged"] == 1 and doc["files"][0]["status"] == "unchanged"


@pytest.mark.parametrize(
    "name, content, words",
    [
        ("results.docx", b"PK\x03\x04rest of a word file", "Export the results table to CSV"),
        ("results.zip", b"PK\x03\x04rest of an archive", "unpack it"),
        ("capture.blg", b"binary perfmon", "relog file.blg -f csv"),
        ("notes.txt", b"nothing a tool wrote", "CONTRIBUTING.md"),
    ],
)
def test_rejections_say_what_to_do_next(tmp_path, capsys, name, content, words):
    f = tmp_path / name
    f.write_bytes(content)
    rc, out = run(capsys, "ingest", "--json", str(f), "--db", str(tmp_path / "a.duckdb"))
    doc = json.loads(out)
    assert rc == 1 and doc["files"][0]["status"] == "rejected" and words in doc["files"][0]["reason"]


@pytest.mark.parametrize("command", ["ingest", "info"])
def test_a_closed_pipe_ends_quietly(tmp_path, command):
    """`iolab ... | head -1`: the reader is gone, so the output goes nowhere, without a BrokenPipeError
    traceback; an ingest still stores its files."""
    import os
    import subprocess
    import sys

    dbf = tmp_path / "a.duckdb"
    if command == "info":
        assert cli.main(["ingest", str(FIO), "--db", str(dbf)]) == 0
    read, write = os.pipe()
    os.close(read)  # no reader at all: the first write fails with EPIPE
    try:
        argv = ["ingest", "-v", str(FIO)] if command == "ingest" else ["info"]
        p = subprocess.run(
            [sys.executable, "-m", "iolab", *argv, "--db", str(dbf)], stdout=write, stderr=subprocess.PIPE, text=True
        )
    finally:
        os.close(write)
    assert p.returncode == 0 and p.stderr == "", p.stderr
    from iolab import db

    con = db.connect(dbf, read_only=True)
    assert con.execute("SELECT count(*) FROM source_files WHERE status = 'ok'").fetchone() == (1,)
    con.close()
