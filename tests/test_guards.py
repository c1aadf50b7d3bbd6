"""No door destroys (issue 53): every writer refuses, with exit 2 and the reason, every path iolab
reads or keeps (a database, the --db one or another, its write-ahead log, its time-series store,
iolab's cache and the template in it, a file in a data root, a link to any of them), and leaves it
byte for byte as it was; an empty path or the file system's top is exit 2 from every command that
takes paths."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from iolab import cli, config, db, guard
from tests.conftest import corpus

FIO = corpus("fio-json/louwrentius__fio-plot__fio31_d3s4610_randread-8-1.json")
SERIES = corpus("esxtop/visualesxtoponline__origincsv_short.csv")  # a time series: the points store


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> Path:
    """tmp/data/s1 ingested into tmp/db/t.duckdb and lake-exported to tmp/lake; tmp/other/o.duckdb,
    another database with its own store."""
    tmp = tmp_path_factory.mktemp("guards")
    (tmp / "data" / "s1").mkdir(parents=True)
    for f in (FIO, SERIES):
        shutil.copy(f, tmp / "data" / "s1" / f.name)
    (tmp / "other" / "d").mkdir(parents=True)
    shutil.copy(SERIES, tmp / "other" / "d" / SERIES.name)
    assert cli.main(["ingest", "-q", str(tmp / "data"), "--db", str(tmp / "db" / "t.duckdb")]) == 0
    assert cli.main(["ingest", "-q", str(tmp / "other" / "d"), "--db", str(tmp / "other" / "o.duckdb")]) == 0
    assert cli.main(["lake", "export", "--db", str(tmp / "db" / "t.duckdb"), "--to", str(tmp / "lake")]) == 0
    (tmp / "db" / "t.duckdb.wal").write_bytes(b"")  # as a write in progress leaves it
    (tmp / "link.csv").symlink_to(tmp / "db" / "t.duckdb")
    return tmp


def targets(lab: Path) -> dict[str, Path]:
    """Every kind of path no writer may touch."""
    template = next(p for p in config.cache_dir().rglob("*") if p.is_file() and guard.is_duckdb(p))
    store = next((lab / "db" / "t.duckdb.points").rglob("*.parquet"))
    other_store = next((lab / "other" / "o.duckdb.points").rglob("*.parquet"))
    return {
        "the database": lab / "db" / "t.duckdb",
        "its write-ahead log": lab / "db" / "t.duckdb.wal",
        "its time-series store": store.parent,
        "a file of its store": store,
        "another database": lab / "other" / "o.duckdb",
        "another database's store file": other_store,
        "the cached template": template,
        "the cache folder": config.cache_dir(),
        "a data file": lab / "data" / "s1" / FIO.name,
        "a link to the database": lab / "link.csv",
        "the folder holding the database": lab / "db",
    }


def writers(lab: Path, target: Path) -> dict[str, list[str]]:
    db = ["--db", str(lab / "db" / "t.duckdb")]
    out = target / "m.csv" if target.is_dir() else target
    return {
        "export --out": ["export", "measurements", *db, "--out", str(out)],
        "report --out": ["report", *db, "--out", str(target)],
        "report --images": ["report", *db, "--out", str(lab / "reports"), "--images", str(target)],
        "print edition": ["report", *db, "--format", "pdf", "--out", str(target)],
        "lake export --to": ["lake", "export", *db, "--to", str(target)],
        "lake views --out": ["lake", "views", "--lake", str(lab / "lake"), "--out", str(target)],
    }


def digest(path: Path) -> str:
    """What ``path`` holds (a folder: every file below it, with its bytes)."""
    h = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for f in files:
        h.update(str(f).encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


WRITERS = ["export --out", "report --out", "report --images", "print edition", "lake export --to", "lake views --out"]
TARGETS = [
    "the database",
    "its write-ahead log",
    "its time-series store",
    "a file of its store",
    "another database",
    "another database's store file",
    "the cached template",
    "the cache folder",
    "a data file",
    "a link to the database",
    "the folder holding the database",
]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("writer", WRITERS)
def test_every_writer_refuses_every_path_iolab_keeps(lab, writer, target, capsys):
    if writer == "print edition" and shutil.which("chromium") is None:
        pytest.skip("no chromium (make tools installs it)")
    if writer == "export --out" and target == "the folder holding the database":
        pytest.skip("a new file beside the database is not in it: allowed")
    path = targets(lab)[target]
    before = digest(path)
    assert cli.main(writers(lab, path)[writer]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "Traceback" not in err and any(w in err for w in ("iolab never writes", "iolab writes only", "data root")), (
        err
    )
    assert digest(path) == before  # byte for byte as it was


@pytest.mark.parametrize(
    "argv",
    [
        ["remove", ""],
        ["remove", "/"],
        ["remove", "//.."],
        ["ingest", ""],
        ["ingest", "/"],
        ["ingest", "/", "--allow-root"],
        ["detect", ""],
        ["info", "--db", ""],
        ["export", "measurements", "--out", ""],
        ["report", "--out", "/"],
        ["lake", "status", "--lake", ""],
    ],
)
def test_an_empty_path_or_the_top_is_wrong_usage(lab, argv, capsys):
    if "--db" not in argv and argv[0] not in ("detect", "lake"):
        argv = [*argv, "--db", str(lab / "db" / "t.duckdb")]
    assert cli.main(argv) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "Wrong usage" in err and ("is empty" in err or "the file system's top" in err) and "Traceback" not in err


def without_permission_override(argv: list[str]) -> subprocess.CompletedProcess:
    """`iolab ARGV` as root without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH: file modes bind it as
    they bind any user (a folder of mode 000 cannot be listed)."""
    caps = "-dac_override,-dac_read_search"
    cmd = ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}", "--", sys.executable, "-m", "iolab", *argv]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"), reason="needs root and setpriv")
def test_a_folder_that_cannot_be_read_is_never_gone(tmp_path):
    data = tmp_path / "data"
    (data / "s1").mkdir(parents=True)
    (data / "s2").mkdir()
    shutil.copy(FIO, data / "s1" / FIO.name)
    shutil.copy(corpus("vdbench-summary/hero0906__jiaoben__50406_fsd.summary.html"), data / "s2" / "run.html")
    dbf = tmp_path / "t.duckdb"
    assert cli.main(["ingest", "-q", str(data), "--db", str(dbf)]) == 0
    (data / "s2").chmod(0)
    try:
        done = without_permission_override(["ingest", str(data), "--db", str(dbf)])
    finally:
        (data / "s2").chmod(0o755)
    assert done.returncode == 1, done.stdout + done.stderr
    out = " ".join(done.stdout.split())
    assert f"unreadable {data / 's2'}: cannot read this folder (Permission denied)" in out
    assert "no longer on disk" not in out and "Traceback" not in done.stderr
    con = db.connect(dbf, read_only=True)
    assert con.execute("SELECT count(*) FROM source_files WHERE path LIKE '%run.html'").fetchall() == [(1,)]
    con.close()


@pytest.mark.parametrize("kind", ["proc", "fifo"])
@pytest.mark.parametrize("name", ["iolab.toml", ".iolab-output", "_iolab_views.json"])
def test_a_sidecar_or_marker_that_is_no_regular_file_is_never_read(tmp_path, kind, name):
    """A sidecar or marker linked to /proc/kmsg blocked the ingest for ever in read(); a FIFO in open()."""
    if kind == "proc" and not Path("/proc/kmsg").exists():
        pytest.skip("no /proc/kmsg here")
    (tmp_path / "data" / "s1").mkdir(parents=True)
    shutil.copy(FIO, tmp_path / "data" / "s1" / FIO.name)
    special = tmp_path / "data" / "s1" / name
    special.symlink_to("/proc/kmsg") if kind == "proc" else os.mkfifo(special)
    said = []
    for argv in (["ingest", str(tmp_path / "data"), "--db", str(tmp_path / "t.duckdb")], ["detect", str(tmp_path)]):
        done = subprocess.run([sys.executable, "-m", "iolab", *argv], capture_output=True, text=True, timeout=120)
        assert "Traceback" not in done.stderr and done.returncode in (0, 1), done.stderr
        said.append(" ".join(done.stdout.split()))
    if name == "iolab.toml":  # its folder's files wait, as under a broken sidecar, and the reason names it
        assert f"{special}: the sidecar is " in said[0] and "never read" in said[0]
    else:  # the data file is read: a marker that cannot be read covers nothing
        assert f"ingested {tmp_path / 'data' / 's1' / FIO.name}" in said[0]


@pytest.fixture
def small_disk(tmp_path):
    """A real 8 MiB file system (a tmpfs: root may mount one), unmounted after; skipped where
    mounting is not allowed."""
    where = tmp_path / "small"
    where.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(where)], capture_output=True)
    if done.returncode:
        pytest.skip("cannot mount a tmpfs here")
    yield where
    subprocess.run(["umount", str(where)], check=False)


def test_a_gzip_bomb_never_blocks_the_files_of_its_batch(tmp_path, small_disk, monkeypatch):
    """One .gz that inflates past the cache folder's disk (a bomb) blocked the batch's good files on
    every rerun: now it is refused, naming the cache folder, and the others land."""
    import gzip

    data = tmp_path / "data"
    data.mkdir()
    good = sorted(corpus("fio-json").glob("*.json"))[:7]
    for f in good:
        shutil.copy(f, data / f.name)
    with gzip.open(data / "aaa-bomb.json.gz", "wb") as g:  # first in the walk: it stopped the batch before
        g.write(b'{"fio version": "fio-3.1", "jobs": [' + b" " * (64 << 20))
    monkeypatch.setenv("IOLAB_CACHE_DIR", str(small_disk))
    for _ in range(2):  # and again: the rerun is not blocked either
        done = subprocess.run(
            [sys.executable, "-m", "iolab", "ingest", str(data), "--db", str(tmp_path / "t.duckdb")],
            capture_output=True,
            text=True,
            timeout=300,
        )
        out = " ".join(done.stdout.split())
        assert done.returncode == 1, out + done.stderr
        assert f"decompressing it filled the disk of the cache folder {small_disk / 'inflated'}" in out
    con = db.connect(tmp_path / "t.duckdb", read_only=True)
    assert con.execute("SELECT count(*) FROM source_files WHERE status = 'ok'").fetchall() == [(len(good),)]
    con.close()


def test_a_full_cache_folder_is_named_not_the_database(tmp_path, small_disk, monkeypatch):
    import gzip

    (tmp_path / "data").mkdir()
    with gzip.open(tmp_path / "data" / "run.json.gz", "wb") as g:
        g.write(FIO.read_bytes())
    subprocess.run(["dd", "if=/dev/zero", f"of={small_disk / 'fill'}", "bs=1M", "count=16"], capture_output=True)
    monkeypatch.setenv("IOLAB_CACHE_DIR", str(small_disk))
    done = subprocess.run(
        [sys.executable, "-m", "iolab", "ingest", str(tmp_path / "data"), "--db", str(tmp_path / "t.duckdb")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    said = " ".join((done.stdout + done.stderr).split())
    assert done.returncode == 3 and "Traceback" not in said, said
    assert f"the disk holding the cache folder is full: {small_disk}" in said and "holding the database" not in said


def test_a_full_disk_before_the_command_starts_is_exit_3(tmp_path, small_disk):
    """remove, validate and ingest --verify printed DuckDB's 'No space left on device' traceback, exit 1."""
    data = tmp_path / "data"
    (data / "s1").mkdir(parents=True)
    shutil.copy(FIO, data / "s1" / FIO.name)
    dbf = small_disk / "t.duckdb"
    assert cli.main(["ingest", "-q", str(data), "--db", str(dbf)]) == 0
    subprocess.run(["dd", "if=/dev/zero", f"of={small_disk / 'fill'}", "bs=1M", "count=16"], capture_output=True)
    for argv in (["remove", str(data / "s1")], ["validate"], ["ingest", "--verify", str(data)]):
        done = subprocess.run(
            [sys.executable, "-m", "iolab", *argv, "--db", str(dbf)], capture_output=True, text=True, timeout=300
        )
        said = " ".join((done.stdout + done.stderr).split())
        assert done.returncode == 3 and "Traceback" not in said, (argv, said)
        assert f"the disk holding the database is full: {small_disk}" in said


REFUSED = {
    "attach": "ATTACH '{tmp}/other.duckdb' AS o (READ_ONLY false)",
    "detach": "DETACH {db}",
    "copy to": "COPY (SELECT 1 AS a) TO '{tmp}/x.csv'",
    "copy over a store file": "COPY (SELECT 1 AS a) TO '{store}' (FORMAT parquet, USE_TMP_FILE false)",
    "export database": "EXPORT DATABASE '{tmp}/exported'",
    "install": "INSTALL httpfs",
    "load": "LOAD httpfs",
    "read a file": "SELECT * FROM read_csv('/etc/passwd')",
    "unlock": "SET enable_external_access = true",
}


@pytest.mark.parametrize("what", list(REFUSED))
def test_lab_connect_is_read_only(lab, tmp_path, what):
    import duckdb

    from iolab import lab as lab_api

    store = next((lab / "db" / "t.duckdb.points").rglob("*.parquet"))
    before = digest(store)
    con = lab_api.connect(str(lab / "db" / "t.duckdb"))
    try:
        with pytest.raises(duckdb.Error):
            con.execute(REFUSED[what].format(tmp=tmp_path, db="t", store=store))
    finally:
        con.close()
    assert digest(store) == before and list(tmp_path.iterdir()) == []


def test_lab_connect_still_reads_everything_it_needs(lab):
    """The views, the time series (read through pyarrow, not DuckDB's file access), the store's
    state, and a lake's views: the same rows as an unlocked connection."""
    from iolab import lab as lab_api

    dbf = lab / "db" / "t.duckdb"
    queries = (
        "SELECT source_id, count(*), sum(value), min(ts), max(ts) FROM series_points GROUP BY ALL ORDER BY ALL",
        "SELECT * FROM series_stats ORDER BY ALL",
        "SELECT source_id, file_name, present FROM store_files ORDER BY ALL",
        "SELECT * FROM measurements ORDER BY ALL",
    )
    plain = db.connect(dbf, read_only=True)  # closed first: DuckDB shares one instance (and its settings) per file
    want = [plain.execute(sql).fetchall() for sql in queries]
    plain.close()
    locked = lab_api.connect(str(dbf))
    assert [locked.execute(sql).fetchall() for sql in queries] == want
    assert want[0] and locked.execute("SELECT count(*) FROM series_points").fetchall()[0][0] > 0
    assert lab_api.connect(str(dbf)) is not None  # a second connect of the same database
    locked.close()
    assert cli.main(["lake", "views", "--lake", str(lab / "lake"), "--view", "study_files"]) == 0
    con = lab_api.connect(lake=str(lab / "lake"))
    assert con.execute("SELECT count(*) FROM study_files").fetchall()[0][0] > 0
    with pytest.raises(Exception, match="disabled"):
        con.execute(f"COPY (SELECT 1) TO '{lab}/x.csv'")


HOSTILE = "\x1b]8;;http://evil\x07link\x1b]8;;\x07 \x1b[2J \x1b[31;1mRED \u202eevil"


def on_a_terminal(argv: list[str]) -> str:
    """What `iolab ARGV` writes on a terminal (a pseudo-terminal as its standard output and error)."""
    import pty

    master, slave = pty.openpty()
    p = subprocess.Popen([sys.executable, "-m", "iolab", *argv], stdout=slave, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the process closed its end
            break
        if not chunk:
            break
        out += chunk
    p.wait(timeout=120)
    os.close(master)
    return out.decode("utf-8", errors="replace")


def test_the_terminal_is_safe_from_every_command(tmp_path):
    """A job name's OSC 8 link, a clear-screen, colours and U+202E reach the terminal escaped, from
    export as from info and ingest; a file written with --out keeps them byte for byte."""
    data = tmp_path / "data" / "s1"
    data.mkdir(parents=True)
    shutil.copy(FIO, data / FIO.name)
    (data / "iolab.toml").write_text(f"study = {json.dumps(HOSTILE)}\nsystem = {json.dumps(HOSTILE)}\n")
    dbf = str(tmp_path / "t.duckdb")
    assert cli.main(["ingest", "-q", str(tmp_path / "data"), "--db", dbf]) == 0
    raw = ("\x1b]8;;", "\x1b[2J", "\x1b[31;1mRED", "\u202e")
    for argv in (
        ["export", "measurements", "--db", dbf],
        ["export", "measurements", "--db", dbf, "--format", "json"],
        ["export", "study_runs", "--db", dbf],
        ["info", "--db", dbf],
        ["ingest", str(tmp_path / "data"), "--db", dbf],
        ["completion", "--list", "studies", "--db", dbf],
    ):
        shown = on_a_terminal(argv)
        assert not [r for r in raw if r in shown], (argv, shown[:2000])
        assert "\\u202e" in shown or argv[0] not in ("export", "info"), (argv, shown[:2000])
    out = tmp_path / "m.csv"
    assert cli.main(["export", "study_runs", "--db", dbf, "--out", str(out)]) == 0
    assert HOSTILE in out.read_text(encoding="utf-8")  # the file is as the data holds it


def export_stopped(dbf: Path, lake: Path, sig: int, after_files: int) -> int:
    """`iolab lake export` stopped by ``sig`` once the lake holds ``after_files`` files; its exit code."""
    import time

    p = subprocess.Popen(
        [sys.executable, "-m", "iolab", "lake", "export", "--db", str(dbf), "--to", str(lake)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    while p.poll() is None and sum(1 for f in lake.rglob("*") if f.is_file()) < after_files:
        time.sleep(0.02)
    assert p.poll() is None, "the export ended before it could be stopped"
    p.send_signal(sig)
    _, err = p.communicate(timeout=300)
    assert "Traceback" not in err, err
    return p.returncode


def lake_files(lake: Path) -> list[str]:
    """The files an export writes (views/ aside: `lake views` writes there, another test does)."""
    files = (f.relative_to(lake).as_posix() for f in lake.rglob("*") if f.is_file() and f.name[0] != ".")
    return sorted(f for f in files if not f.startswith("views/") or f.startswith("views/_sql/"))


@pytest.mark.parametrize(("sig", "code"), [(9, -9), (15, 143), (2, 130)])
def test_a_stopped_lake_export_goes_on_when_run_again(lab, tmp_path, sig, code):
    dbf = lab / "db" / "t.duckdb"
    lake = tmp_path / "lake"
    assert export_stopped(dbf, lake, sig, after_files=60) == code
    done = subprocess.run(
        [sys.executable, "-m", "iolab", "lake", "status", "--lake", str(lake)], capture_output=True, text=True
    )
    assert done.returncode == 1 and "the lake is incomplete" in " ".join(done.stdout.split())
    assert cli.main(["lake", "export", "--db", str(dbf), "--to", str(lake)]) == 0  # no cleaning by hand
    assert lake_files(lake) == lake_files(lab / "lake")  # what a whole export writes, no more
    assert not [f for f in lake.rglob(".*") if f.suffix in (".tmp", ".part")]
    assert cli.main(["lake", "status", "--lake", str(lake)]) == 1  # views missing, the lake whole


def connects(trace: Path) -> list[str]:
    """The AF_INET and AF_INET6 connect() calls an strace log holds."""
    return [line for line in trace.read_text().splitlines() if "connect(" in line and "AF_INET" in line]


needs_strace = pytest.mark.skipif(
    not shutil.which("strace") or not shutil.which("chromium"), reason="needs strace and chromium (make tools)"
)


@needs_strace
def test_chromium_prints_with_no_network_attempt(tmp_path):
    """Its flags left Chromium's IPv6 probe (a UDP connect() to a public resolver): under the filter
    of iolab.reports.offline it cannot make an Internet socket, so it never calls connect() for one."""
    page = tmp_path / "p.html"
    page.write_text("<html><body><h1>print me</h1></body></html>")
    script = (
        "import sys; from pathlib import Path; from iolab.reports import check; "
        "check.run(Path(sys.argv[1]), '--no-pdf-header-footer', f'--print-to-pdf={sys.argv[2]}')"
    )
    trace = tmp_path / "trace.txt"
    argv = [sys.executable, "-c", script, str(page), str(tmp_path / "p.pdf")]
    subprocess.run(["strace", "-f", "-qq", "-e", "trace=connect,socket", "-o", str(trace), *argv], timeout=300)
    assert (tmp_path / "p.pdf").stat().st_size > 1000  # printed all the same
    assert connects(trace) == []
    assert "EAFNOSUPPORT" in trace.read_text()  # it tried to make one, and could not


@pytest.mark.slow
@needs_strace
def test_a_print_edition_makes_no_network_attempt(lab, tmp_path):
    trace = tmp_path / "trace.txt"
    argv = [sys.executable, "-m", "iolab", "report", "--db", str(lab / "db" / "t.duckdb"), "--format", "pdf"]
    done = subprocess.run(
        ["strace", "-f", "-qq", "-e", "trace=connect", "-o", str(trace), *argv, "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert list((tmp_path / "out").rglob("*.pdf")) and connects(trace) == []


def report_stopped(dbf: Path, out: Path, tmp: Path, sig: int, after_s: float, pdf: bool = False) -> tuple[int, str]:
    """`iolab report` (in its own temporary folder ``tmp``) sent ``sig`` after ``after_s`` seconds."""
    import signal
    import time

    argv = [sys.executable, "-m", "iolab", "report", "--db", str(dbf), "--out", str(out)]
    env = {**os.environ, "TMPDIR": str(tmp), "IOLAB_REPORT_WORKERS": "1"}
    p = subprocess.Popen([*argv, *(["--format", "pdf"] if pdf else [])], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)  # fmt: skip
    time.sleep(after_s)
    if p.poll() is None:
        p.send_signal(sig)
    said, _ = p.communicate(timeout=300)
    return p.returncode, said if p.returncode != 0 or sig != signal.SIGKILL else ""


@pytest.mark.parametrize(("sig", "after_s"), [(15, 1.0), (15, 4.0), (2, 2.5), (9, 3.0)])
def test_a_stopped_report_ends_quietly_and_goes_on(lab, tmp_path, sig, after_s):
    """SIGTERM and Ctrl-C end a render with 143 and 130 and no traceback (nbclient's AssertionError,
    DuckDB's "Query interrupted" were printed), SIGKILL with nothing said; the next run into the same
    --out needs no cleaning, and what the stopped one left in the temporary folder is gone after it."""
    tmp = Path(tempfile.mkdtemp(prefix="iolab-t-"))  # short: Chromium and the kernels put sockets there
    try:
        out = tmp_path / "out"
        code, said = report_stopped(lab / "db" / "t.duckdb", out, tmp, sig, after_s)
        assert code in (128 + sig, -9 if sig == 9 else 0), said  # 0: it was done before the signal came
        assert "Traceback" not in said and "Error" not in said, said
        again = subprocess.run(
            [sys.executable, "-m", "iolab", "report", "--db", str(lab / "db" / "t.duckdb"), "--out", str(out)],
            env={**os.environ, "TMPDIR": str(tmp)},
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert again.returncode == 0, again.stdout + again.stderr
        assert [p.name for p in tmp.iterdir() if p.name.startswith("iolab-")] == []
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_duckdb_out_of_memory_is_exit_3_naming_the_knob(lab, tmp_path, monkeypatch, capsys):
    """A capture too big for the memory (issue "Large data all the way to the page" fixes the memory):
    any command's DuckDB OutOfMemoryException is one line naming IOLAB_DB_MEMORY, exit 3."""
    import duckdb

    shutil.copy(lab / "db" / "t.duckdb", tmp_path / "t.duckdb")
    monkeypatch.setenv("IOLAB_DB_MEMORY", "1MB")  # a real one, in a command that writes
    assert cli.main(["remove", str(lab / "data" / "s1"), "--db", str(tmp_path / "t.duckdb")]) == 3
    monkeypatch.delenv("IOLAB_DB_MEMORY")
    from iolab.cli import export

    def out_of_memory(*a, **k):
        raise duckdb.OutOfMemoryException("Out of Memory Error: failed to allocate data of size 2.0 GiB")

    monkeypatch.setattr(export, "query", out_of_memory)  # and one in a command that reads
    assert cli.main(["export", "measurements", "--db", str(lab / "db" / "t.duckdb")]) == 3
    err = " ".join(capsys.readouterr().err.split())
    assert err.count("DuckDB ran out of memory") == 2 and "IOLAB_DB_MEMORY" in err and "Traceback" not in err
