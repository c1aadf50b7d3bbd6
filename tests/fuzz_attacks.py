"""Attack harness: the attacks of issue 11, in random combinations, on small data trees of real files.

    python -m tests.fuzz --attacks 1000 --cases 0      (make fuzz runs both phases)

Each case builds a tree in a temp folder from real corpus files: study folders with hostile names
(markup, ``javascript:``, ``../``, braces, newlines, random printable text), sidecars whose study and
system are hostile too, sidecars with typos, wrong types or broken TOML, special files (a FIFO, a
socket, a link to /dev/zero, a link to a real file in another folder, a dangling link) and copies of
one file in two studies. Some cases first try a read-only copy of the database, or let the disk fill
up mid-batch (either must stop the batch once, blame no file; a rerun must complete). It is ingested
with ``batch.ingest_paths`` under a SIGALRM deadline. The invariants (anything else is a violation):
  - no crash, no hang, no environment fault;
  - a FIFO, socket or device is 'skipped', a dangling link 'unreadable'; neither leaves a row (in a
    folder whose sidecar is broken they may be refused for that first: still never read);
  - a folder with a broken sidecar stores nothing, and says why ("its sidecar is broken");
  - every stored place's study is its sidecar's study or else its folder's name, and its system the
    sidecar's; a copy in two studies keeps both; a link is labelled by the folder it sits in;
  - a rejected file leaves no row anywhere (the pollution harness' check), and no outcome is an
    "internal error" (some files go in gzipped: they must load as the file inside);
  - ``reports.render.slug()`` of every stored study is one safe path component.
Reports are not rendered (too slow for thousands of cases): slug() is what names their folders.

Then the doors of issue 53 (``run_doors``, through ``cli.main`` as a user runs them), each family
counted per outcome (refused = exit 2, done = 0/1, fault = 3, stopped, hang, crash, violation):
  - writer_into_kept: a random writer (export --out in any format, report --out, --images, lake
    export --to, lake views --out) aimed at what iolab keeps (a database, another one, a WAL, a store
    and its files, the cache, a data root, a data file): exit 2 and the target byte for byte as it was;
  - forged_marker: an old or forged marker beside a stored result (a text .iolab-output, a views or
    lake manifest holding {}, a list naming the file with its size and another hash): the result
    stays in the analysis (it was dropped as "gone");
  - special_sidecar: a sidecar or marker that is a FIFO or a link to /proc/kmsg: never read, no hang;
  - bad_path: an empty PATH, or one that resolves to / (remove, ingest, detect, export --out): exit 2.
"""

from __future__ import annotations

import errno
import gzip
import json
import os
import random
import re
import shutil
import signal
import socket
import string
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from iolab import batch, db
from iolab.reports.render import slug
from iolab.store import places
from tests.fuzz import rows_left, source_tables

HOSTILE = [
    "<img src=x onerror=alert(1)>",
    "<script>alert('x')</script>",
    "javascript:alert(1)",
    "../../../x",
    "..",
    ".",
    "{x}",
    "{{x}}",
    "{0}",
    "a\nb",
    "line\r\nbreak",
    "tab\there",
    "'; DROP TABLE runs; --",
    '"quoted"',
    "%s%n",
    "$(rm -rf ~)",
    "`id`",
    "C:\\Windows\\x",
    "\u202eevil",
    "nul\u0000byte",
    "é–ü 日本",
    " ",
    "-",
    "~",
    "*",
    "?",
    "a" * 300,
    "CON",
    "study/with/slashes",
    "\\\\server\\share",
]
TYPOS = [
    'sytem = "Acme"\n',
    "price = 100\n",
    "tile = 4\n",
    '[[target]]\ntarget = "x"\n',
    '[[targets]]\ntarget = "x"\nvolme = "V"\n',
    '[files."*"]\nsytem = "A"\n',
]
WRONG_TYPES = [
    "tiles = 'four'\n",
    "tiles = true\n",
    "study = 5\n",
    "system = ['a']\n",
    "[[targets]]\nvolume = 'V'\n",
    "[labels]\nstudy = 'x'\n",
    "watts = -1\n",
]
BAD_TOML = ['study = "unclosed\n', "= 1\n", "study = 'a'\nstudy = 'b'\n", "\xff\xfe"]
SPECIAL = ["fifo", "socket", "devzero", "link_other", "dangling"]
SAFE_SLUG = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,254}")


def hostile(rng: random.Random) -> str:
    """A name from the list, or hypothesis-style random printable text (with a stray non-ASCII char)."""
    if rng.random() < 0.6:
        return rng.choice(HOSTILE)
    alphabet = string.printable + "é日\u00a0\u2028<>{}"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 40)))


def folder_name(name: str, used: set[str]) -> str:
    """``name`` made into a folder name a file system accepts (no / or NUL, not . or .., <= 200 bytes)."""
    name = name.replace("/", "_").replace("\0", "_")
    while len(name.encode()) > 200:
        name = name[:-1]
    if name in ("", ".", "..") or name.startswith("."):  # dot folders are skipped by design
        name = "_" + name
    while name in used:
        name += "_"
    used.add(name)
    return name


def toml_str(s: str) -> str:
    """A TOML basic string (JSON escapes are valid TOML escapes when ASCII-only)."""
    return json.dumps(s, ensure_ascii=True)


@dataclass
class Expect:
    """What one path in the tree must become."""

    attack: str
    study: str | None = None  # for files that must be stored
    system: str | None = None
    status: set[str] = field(default_factory=set)  # allowed outcome statuses
    stored: bool = True
    sha_group: int | None = None  # copies of one file share a group


def pool(con) -> list[Path]:
    """Small real corpus files that load on their own (the raw material of every tree)."""
    from tests.fuzz import FILES

    out = []
    for f in FILES:
        if f.stat().st_size < 64_000 and batch.ingest_paths(con, [f]).outcomes[0].status == "ingested":
            out.append(f)
    return out


def _sidecar(rng: random.Random) -> tuple[str, str | None, dict]:
    """(attack, text, labels it sets) for one folder's sidecar; text None means no sidecar."""
    kind = rng.choice(["none"] * 3 + ["hostile"] * 3 + ["typo", "wrong_type", "bad_toml"])
    if kind == "none":
        return kind, None, {}
    if kind == "hostile":
        labels = {k: hostile(rng) for k in rng.sample(["study", "system"], rng.randint(1, 2))}
        return "hostile_sidecar", "".join(f"{k} = {toml_str(v)}\n" for k, v in labels.items()), labels
    return kind, rng.choice({"typo": TYPOS, "wrong_type": WRONG_TYPES, "bad_toml": BAD_TOML}[kind]), {}


def _special(kind: str, d: Path, other: Path | None) -> Path:
    """Make one special file in ``d``; its path."""
    if kind == "link_other":
        assert other is not None
        (d / f"linked-{other.name}").symlink_to(other)
        return d / f"linked-{other.name}"
    if kind == "fifo":
        os.mkfifo(d / "pipe.csv")
    elif kind == "socket":  # AF_UNIX paths are short (108 bytes): bind relative to the folder
        here = os.getcwd()
        os.chdir(d)
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.bind("sock.csv")
        finally:
            os.chdir(here)
    elif kind == "devzero":
        (d / "zero.csv").symlink_to("/dev/zero")
    elif kind == "dangling":
        (d / "gone.csv").symlink_to(d / "no-such-file.csv")
    return d / {"fifo": "pipe.csv", "socket": "sock.csv", "devzero": "zero.csv", "dangling": "gone.csv"}[kind]


def build(root: Path, files: list[Path], rng: random.Random) -> dict[Path, Expect]:
    """A random tree under ``root``; what every path in it must become."""
    expect: dict[Path, Expect] = {}
    used: set[str] = set()
    folders = []
    for _ in range(rng.randint(1, 3)):
        hostile_folder = rng.random() < 0.7
        name = folder_name(hostile(rng) if hostile_folder else f"study{rng.randrange(1000)}", used)
        d = root / name
        d.mkdir(parents=True)
        kind, text, labels = _sidecar(rng)
        if text is not None:
            (d / "iolab.toml").write_text(text, encoding="utf-8", errors="surrogateescape")
        broken = kind in ("typo", "wrong_type", "bad_toml")
        folders.append((d, name, labels, broken, kind))
        for src in sorted({rng.choice(files) for _ in range(rng.randint(1, 2))}):  # sorted: same seed, same tree
            dst = d / src.name  # names matter (fio logs end in _bw.N.log): keep them
            if rng.random() < 0.15:  # a lab keeps some logs gzipped: read as the file inside
                dst = d / (src.name + ".gz")
                dst.write_bytes(gzip.compress(src.read_bytes(), mtime=0))
            else:
                shutil.copy(src, dst)
            attack = kind if kind != "none" else ("hostile_folder" if hostile_folder else "plain")
            expect[dst] = _expect(attack, name, labels, broken)
    if len(folders) > 1 and rng.random() < 0.5:  # the same file in two studies
        (a, *_), (b, *_) = rng.sample(folders, 2)
        src = rng.choice([p for p in expect if p.parent == a])
        group = rng.randrange(1 << 30)
        dst = b / src.name
        if dst.exists():
            dst = b / f"copy-{src.name}"
        shutil.copy(src, dst)
        expect[src].sha_group = group
        info = next(f for f in folders if f[0] == b)
        expect[dst] = _expect("copy", info[1], info[2], info[3], group)
    for kind in rng.sample(SPECIAL, rng.randint(0, 3)):
        d, name, labels, broken, _ = rng.choice(folders)
        others = [p for p in expect if p.parent != d and os.path.isfile(p) and not os.path.islink(p)]
        other = rng.choice(others) if others else None
        if kind == "link_other" and other is None:
            continue
        path = _special(kind, d, other)
        if kind == "link_other":  # a regular file: labelled by where the link sits
            expect[path] = _expect(kind, name, labels, broken)
        else:  # never read, never stored; in a folder whose sidecar is broken, refused for that first
            status = {"skipped"} if kind != "dangling" else {"unreadable"}
            expect[path] = Expect(kind, status=status | ({"unreadable"} if broken else set()), stored=False)
    return expect


def _expect(attack: str, folder: str, labels: dict, broken: bool, group: int | None = None) -> Expect:
    if broken:
        return Expect(attack, status={"unreadable"}, stored=False)
    return Expect(
        attack,
        labels.get("study", folder),
        labels.get("system"),
        {"ingested", "placed", "unchanged", "relabelled"},
        True,
        group,
    )


class Hang(Exception):
    pass


def _alarm(*_):
    raise Hang()


def check(
    con, tables: list[str], expect: dict[Path, Expect], rep: batch.Report
) -> tuple[list[tuple[str, str]], list[str]]:
    """(attack, status) per file, and the violations."""
    seen, bad = [], []
    by_path = {o.path: o for o in rep.outcomes}
    if rep.fault:
        bad.append(f"environment fault on a healthy disk: {rep.fault}")
    for path, e in expect.items():
        shown = batch.display_path(path)
        o = by_path.get(shown)
        if o is None:
            bad.append(f"{e.attack}: {shown!r} has no outcome")
            continue
        seen.append((e.attack, o.status))
        here = places.text(places.canonical(path))
        rows = con.execute(
            "SELECT study, system, sha256 FROM source_history WHERE abs_path = ? AND status = 'ok' AND left_at IS NULL",
            [here],
        ).fetchall()
        if "internal error" in (o.reason or ""):
            bad.append(f"{e.attack}: {shown!r} ended in an internal error: {o.reason}")
        if o.status not in e.status:
            bad.append(f"{e.attack}: {shown!r} is {o.status} ({o.reason}), expected {sorted(e.status)}")
        stored_here = "SELECT count(*) FROM source_history WHERE abs_path = ? AND left_at IS NULL"
        if not e.stored and con.execute(stored_here, [here]).fetchall()[0][0]:
            bad.append(f"{e.attack}: {shown!r} was stored")
        if (
            e.attack in ("typo", "wrong_type", "bad_toml", "copy")
            and not e.stored
            and "sidecar is broken" not in (o.reason or "")
        ):
            bad.append(f"{e.attack}: {shown!r} not refused for its sidecar: {o.reason}")
        if e.stored and o.status in e.status:
            if len(rows) != 1:
                bad.append(f"{e.attack}: {shown!r} has {len(rows)} stored places")
            elif rows[0][:2] != (e.study, e.system):
                bad.append(f"{e.attack}: {shown!r} stored as {rows[0][:2]!r}, expected {(e.study, e.system)!r}")
        if o.status in ("rejected", "unreadable"):
            bad += [f"{e.attack}: {shown!r}: {m}" for m in rows_left(con, tables, path)]
    groups: dict[int, set[str]] = defaultdict(set)
    for e in expect.values():
        if e.sha_group is not None and e.stored:
            groups[e.sha_group].add(str(e.study))
    for studies in groups.values():
        stored = {
            s
            for (s,) in con.execute(
                "SELECT DISTINCT study FROM source_history WHERE status = 'ok' AND left_at IS NULL AND study IN "
                "(SELECT unnest(?::VARCHAR[]))",
                [sorted(studies)],
            ).fetchall()
        }
        if stored != studies:
            bad.append(f"copy: studies {sorted(studies)!r} stored as {sorted(stored)!r}")
    return seen, bad


def disk_full(con, root: Path, expect: dict[Path, Expect], after: int) -> tuple[bool, list[str]]:
    """Ingest with a disk that is full after ``after`` stored results; (did it fill, what went wrong)."""
    real = db.write_result
    calls = [0]

    def write(*a, **k):
        calls[0] += 1
        if calls[0] > after:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(*a, **k)

    db.write_result = write
    try:
        rep = batch.ingest_paths(con, [root])
    finally:
        db.write_result = real
    if calls[0] <= after:
        return False, []  # nothing new to store: the disk never filled
    bad = (
        [] if rep.fault and "disk holding the database is full" in rep.fault else [f"disk_full: no fault: {rep.fault}"]
    )
    done = {o.path for o in rep.outcomes}
    for path in expect:
        shown = batch.display_path(path)
        if (
            shown not in done
            and con.execute("SELECT count(*) FROM source_files WHERE path = ?", [shown]).fetchall()[0][0]
        ):
            bad.append(f"disk_full: {shown!r} recorded though the batch stopped before it")
    return True, bad


def read_only(path: Path, con, root: Path, expect: dict[Path, Expect]) -> list[str]:
    """Ingest into a read-only copy of the case's (still empty) database; what went wrong.

    Files refused before any write (special files, broken sidecars) are reported; the first file
    that needs a write stops the batch with the fault.
    """
    con.execute("CHECKPOINT")  # the copy is whole
    shutil.copy(path, path.with_suffix(".ro"))
    ro = db.open_db(path.with_suffix(".ro"), read_only=True)
    try:
        rep = batch.ingest_paths(ro, [root])
    finally:
        ro.close()
    wrote = [o for o in rep.outcomes if o.status not in ("skipped", "unreadable")]
    finished = {o.path for o in rep.outcomes} >= {batch.display_path(p) for p in expect}
    ok = not wrote and (rep.fault and "read-only" in rep.fault or rep.fault is None and finished)
    return [] if ok else [f"read_only_db: fault {rep.fault!r}, outcomes {[o.status for o in rep.outcomes]}"]


def slugs_ok(con) -> list[str]:
    bad = []
    for (study,) in con.execute("SELECT DISTINCT study FROM source_files WHERE study IS NOT NULL").fetchall():
        s = slug(study)
        if not SAFE_SLUG.fullmatch(s) or ".." in s or len(s.encode()) > 255:
            bad.append(f"slug({study!r}) = {s!r} is not one safe path component")
    return bad


def run(cases: int, seed: int = 1, deadline: int = 60) -> tuple[dict, list[str]]:
    """``cases`` random trees; ({attack: {status: count}}, violations)."""
    import tempfile

    rng = random.Random(seed)
    stats: dict[str, Counter] = defaultdict(Counter)
    violations: list[str] = []
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        con = db.open_db(work / "pool.duckdb")
        files = pool(con)
        tables = source_tables(con)
        for n in range(cases):
            con.close()  # a fresh database per case: every file is parsed under its hostile path, not just placed
            con = db.open_db(work / f"case{n}.duckdb")
            root = work / f"case{n}"
            expect = build(root, files, rng)
            old = signal.signal(signal.SIGALRM, _alarm)
            signal.alarm(deadline)
            try:
                if rng.random() < 0.05:  # a read-only database: a fault said once, no file blamed
                    violations += [f"case {n}: {b}" for b in read_only(work / f"case{n}.duckdb", con, root, expect)]
                    stats["read_only_db"]["fault"] += 1
                if rng.random() < 0.15:  # the disk fills up mid-batch: stop once, blame no file, rerun completes
                    fired, bad = disk_full(con, root, expect, rng.randint(0, 2))
                    violations += [f"case {n}: {b}" for b in bad]
                    stats["disk_full"]["fault"] += fired
                rep = batch.ingest_paths(con, [root])
            except Hang:
                batch._rollback(con)
                violations.append(
                    f"case {n}: still running after {deadline} s: {sorted(e.attack for e in expect.values())}"
                )
                stats["(case)"]["hang"] += 1
                continue
            except Exception as e:
                violations.append(f"case {n}: uncaught {type(e).__name__}: {e}")
                stats["(case)"]["crash"] += 1
                continue
            finally:
                signal.alarm(0)
                signal.signal(signal.SIGALRM, old)
            seen, bad = check(con, tables, expect, rep)
            for attack, status in seen:
                stats[attack][status] += 1
            violations += [f"case {n}: {b}" for b in bad] + [f"case {n}: {b}" for b in slugs_ok(con)]
            shutil.rmtree(root, ignore_errors=True)
        con.close()
    return {k: dict(v) for k, v in sorted(stats.items())}, violations


STATUSES = ("ingested", "placed", "unchanged", "skipped", "rejected", "unreadable", "fault", "hang", "crash")


def table(stats: dict) -> str:
    lines = [f"{'attack':<16}" + "".join(f"{s:>11}" for s in STATUSES)]
    for attack, c in stats.items():
        lines.append(f"{attack:<16}" + "".join(f"{c.get(s, 0):>11}" for s in STATUSES))
    return "\n".join(lines)


# ---- the doors of issue 53: no writer destroys, no marker hides, no path is the whole machine -------

DOOR_STATUSES = ("refused", "done", "fault", "stopped", "hang", "crash", "violation")
FORGED_MARKERS = [
    ("text", ".iolab-output", "iolab's time-series store: iolab ingest never reads this folder as data.\n"),
    ("views {}", "_iolab_views.json", "{}"),
    ("lake {}", "_iolab_manifest.json", "{}"),
    ("list, other hash", ".iolab-output", None),  # a list naming the data file with its size, not its hash
]
BAD_PATHS = ["", " ", "/", "//", "/..", "/./", "/../.."]


def _door_lab(work: Path) -> Path:
    """A database with a time series and a lake, another database, a data root (cli.main: the doors)."""
    from iolab import cli
    from tests.conftest import corpus

    lab = work / "doors"
    (lab / "data" / "s1").mkdir(parents=True)
    (lab / "other").mkdir()
    for f in (corpus("fio-json/louwrentius__fio-plot__fio31_d3s4610_randread-8-1.json"),
              corpus("esxtop/visualesxtoponline__origincsv_short.csv")):  # fmt: skip
        shutil.copy(f, lab / "data" / "s1" / f.name)
        shutil.copy(f, lab / "other" / f.name)
    cli.main(["ingest", "-q", str(lab / "data"), "--db", str(lab / "t.duckdb")])
    cli.main(["ingest", "-q", str(lab / "other"), "--db", str(lab / "o.duckdb")])
    cli.main(["lake", "export", "--db", str(lab / "t.duckdb"), "--to", str(lab / "lake")])
    return lab


def _kept(lab: Path) -> list[Path]:
    from iolab import config

    stores = [next((lab / f"{n}.duckdb.points").rglob("*.parquet")) for n in ("t", "o")]
    return [lab / "t.duckdb", lab / "t.duckdb.wal", lab / "o.duckdb", *stores, stores[0].parent,
            config.cache_dir(), lab / "data" / "s1", next((lab / "data" / "s1").iterdir())]  # fmt: skip


def _digest(path: Path) -> bytes:
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path] if path.exists() else []
    return b"".join(str(f).encode() + f.read_bytes() for f in files)


def _writer(rng: random.Random, lab: Path, target: Path) -> list[str]:
    db = ["--db", str(lab / "t.duckdb")]
    out = str(target / "m.csv" if target.is_dir() else target)
    return rng.choice([
        ["export", "measurements", *db, "--out", out, "--format", rng.choice(["csv", "json", "parquet"])],
        ["report", *db, "--out", str(target)],
        ["report", *db, "--out", str(lab / "reports"), "--images", str(target)],
        ["lake", "export", *db, "--to", str(target)],
        ["lake", "views", "--lake", str(lab / "lake"), "--out", str(target)],
    ])  # fmt: skip


def _door(rng: random.Random, lab: Path, work: Path, n: int) -> tuple[str, list[str], Callable[[int], list[str]]]:
    """One attack: (family, argv, check(exit code) -> violations)."""
    from tests.conftest import corpus

    family = rng.choice(["writer_into_kept", "forged_marker", "special_sidecar", "bad_path"])
    if family == "writer_into_kept":
        target = rng.choice(_kept(lab))
        before = _digest(target)
        argv = _writer(rng, lab, target)
        return (
            family,
            argv,
            lambda code: (
                ([] if code == 2 else [f"exit {code}"]) + ([] if _digest(target) == before else [f"{target} changed"])
            ),
        )
    if family == "bad_path":
        path = rng.choice(BAD_PATHS)
        argv = rng.choice([["remove", path], ["ingest", path], ["detect", path], ["export", "runs", "--out", path]])
        if argv[0] != "detect":
            argv += ["--db", str(lab / "t.duckdb")]
        return family, argv, lambda code: [] if code == 2 else [f"exit {code}"]
    data = work / f"door{n}"
    (data / "s").mkdir(parents=True)
    html = corpus("vdbench-summary/hero0906__jiaoben__50406_fsd.summary.html")
    shutil.copy(html, data / "s" / "run.html")
    dbf = work / f"door{n}.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [data])  # stored before the attack
    con.close()
    if family == "forged_marker":
        kind, name, text = rng.choice(FORGED_MARKERS)
        line = {"file": "run.html", "size": html.stat().st_size, "ino": 1, "mtime_ns": 1, "sha256": "0" * 64}
        text = text if text is not None else '{"iolab_output": 2, "what": "reports"}\n' + json.dumps(line) + "\n"
        (data / "s" / name).write_text(text)
    else:
        special = data / "s" / rng.choice(["iolab.toml", ".iolab-output"])
        special.symlink_to("/proc/kmsg") if rng.random() < 0.5 and Path("/proc/kmsg").exists() else os.mkfifo(special)
    # a sidecar that cannot be read is a broken sidecar: its folder's files wait until it is fixed (exit 1)
    want = (1, 0) if os.path.lexists(data / "s" / "iolab.toml") else None

    def check(code: int) -> list[str]:
        con = db.connect(dbf, read_only=True)
        try:
            left = con.execute("SELECT count(*) FROM source_files WHERE path LIKE '%run.html'").fetchall()[0][0]
        finally:
            con.close()
        ok = (code, left) == want if want else code in (0, 1) and left == 1
        return [] if ok else [f"exit {code}, run.html in the analysis {left} time(s)"]

    return family, ["ingest", str(data), "--db", str(dbf)], check


def run_doors(cases: int, seed: int = 1, deadline: int = 120) -> tuple[dict, list[str]]:
    """``cases`` random attacks on the doors (issue 53); ({family: {outcome: count}}, violations)."""
    import contextlib
    import io
    import tempfile

    from iolab import cli

    rng = random.Random(seed)
    stats: dict[str, Counter] = defaultdict(Counter)
    violations: list[str] = []
    with tempfile.TemporaryDirectory() as d:
        work = Path(d)
        lab = _door_lab(work)
        (lab / "t.duckdb.wal").write_bytes(b"")
        for n in range(cases):
            family, argv, check = _door(rng, lab, work, n)
            old = signal.signal(signal.SIGALRM, _alarm)
            signal.alarm(deadline)
            try:
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
                    code = cli.main(argv)
                bad = check(code) + (["a traceback"] if "Traceback" in err.getvalue() else [])
                outcome = {2: "refused", 3: "fault", 130: "stopped", 143: "stopped"}.get(code, "done")
            except Hang:
                bad, outcome = [f"still running after {deadline} s"], "hang"
            except BaseException as e:  # noqa: BLE001 - a crash is what the harness counts
                bad, outcome = [f"uncaught {type(e).__name__}: {e}"], "crash"
            finally:
                signal.alarm(0)
                signal.signal(signal.SIGALRM, old)
            stats[family]["violation" if bad else outcome] += 1
            violations += [f"door {n} {family} {argv}: {b}" for b in bad]
    return {k: dict(v) for k, v in sorted(stats.items())}, violations


def door_table(stats: dict) -> str:
    lines = [f"{'door attack':<18}" + "".join(f"{s:>11}" for s in DOOR_STATUSES)]
    for family, c in stats.items():
        lines.append(f"{family:<18}" + "".join(f"{c.get(s, 0):>11}" for s in DOOR_STATUSES))
    return "\n".join(lines)
