"""data/ is the truth: whatever was done to the folder and however it was ingested, the analysis
equals what a brand-new database ingesting the same folder holds (issue 27).

The stateful test drives a data folder through adds, edits (same-size ones with the mtime set
back too), deletions, renames, copies into another study, sidecar edits (a folder marked `root =
true` among them) and moves, moves of the
whole folder (issue 40), and ingests of the folder, a subfolder or one file, spelled absolutely,
relatively from another current folder, through a symlinked parent or with `..` in it; after each
ingest of the whole folder every view must hold exactly the rows a fresh ingest gives, ids included,
and a plan made right after an ingest is empty. `make fuzz`
runs it long (IOLAB_MIRROR_EXAMPLES); `make test-slow` runs 6 histories."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from iolab import batch, cli, db, files, plan
from iolab.store import index, places
from tests.conftest import corpus, q

# small real files of several formats (tests/corpus, provenance in MANIFEST.tsv), one a time series
FILES = [
    corpus("iometer/adisireesha__results.csv"),
    corpus("fio-json/louwrentius__fio-plot__fio31_d3s4610_randread-8-1.json"),
    corpus("fio-json/louwrentius__fio-plot__fio31_d3s4610_randread-16-1.json"),
    corpus("esxtop/visualesxtoponline__origincsv_short.csv"),
    corpus("diskspd-text/microsoft__VirtualClient__v2.2.0_singlegroup.txt"),
]
STUDIES = ["alpha", "beta", 'we"ird <b>=1+1', "deep/runs"]
SYSTEMS = ["Acme X1", "Zeta Z9", '=HYPERLINK("x")', "Omega\x1b[31m"]
NAMES = ["a.csv", "b.json", "run 1.txt", "r[2].csv"]


def snapshot(con) -> dict[str, list[str]]:
    """Every view's rows, ids included (derived from content and place: ingest/store/ids.py), without
    the columns that say when iolab did something (export.OWN_COLUMNS), sorted, as text."""
    from iolab.cli.export import OWN_COLUMNS

    out = {}
    views = [v for (v,) in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY 1").fetchall()]
    for v in views:
        cols = [
            c
            for (c,) in con.execute(
                "SELECT column_name FROM duckdb_columns() WHERE table_name = ? ORDER BY column_index", [v]
            ).fetchall()
            if c not in OWN_COLUMNS
        ]
        listed = ", ".join(f'"{c}"' for c in cols)
        rows = con.execute(f'SELECT {listed} FROM "{v}"').fetchall()
        out[v] = sorted(repr(r) for r in rows)
    return out


def fresh(data: Path, where: Path) -> dict[str, list[str]]:
    """What a brand-new database holds after ingesting ``data`` once."""
    con = db.open_db(where)
    try:
        batch.ingest_paths(con, [data])
        return snapshot(con)
    finally:
        con.close()


def diff(a: dict, b: dict) -> list[str]:
    out = []
    for v in sorted(set(a) | set(b)):
        x, y = a.get(v, []), b.get(v, [])
        if x != y:
            extra, lack = sorted(set(x) - set(y))[:2], sorted(set(y) - set(x))[:2]
            out.append(f"{v}: {len(x)} rows incremental, {len(y)} fresh; only incremental {extra}; only fresh {lack}")
    return out


@contextlib.contextmanager
def cwd(folder: Path):
    old = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(old)


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


class _Reopen:
    def __init__(self, machine) -> None:
        self.machine = machine

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        self.machine.con = db.open_db(self.machine.tmp / "t.duckdb")


@contextlib.contextmanager
def _pages_unexecuted():
    """`iolab report` with each page's HTML a line instead of its notebook run (the writes are tested)."""
    from iolab.reports import render

    def run_pages(jobs, execute, finish, first):
        value = first()
        for job in jobs:
            finish(job, f"<html><body>{job}</body></html>", value)

    with mock.patch.object(render, "run_pages", run_pages):
        yield


# every command that writes into a folder: (database, folder, scratch folder, lake) -> its arguments
OUTPUTS = {
    "report --out": lambda d, f, t, lake: ["report", "--db", str(d), "--out", str(f)],
    "report --images": lambda d, f, t, lake: ["report", "--db", str(d), "--out", str(t / "r"), "--images", str(f)],
    "lake export --to": lambda d, f, t, lake: ["lake", "export", "--db", str(d), "--to", str(f)],
    "lake views --out": lambda d, f, t, lake: ["lake", "views", "--lake", str(lake), "--out", str(f)],
    "export --out": lambda d, f, t, lake: ["export", "measurements", "--db", str(d), "--out", str(f / "m.csv")],
}


class Mirror(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="iolab-mirror-"))
        self.data = self.tmp / "data"
        self.data.mkdir()
        (self.tmp / "link").symlink_to(self.data, target_is_directory=True)
        (self.tmp / "elsewhere").mkdir()
        self.con = db.open_db(self.tmp / "t.duckdb")
        self.n = 0
        self.clean = True  # no file the database may hold was edited, deleted or moved since the last full ingest
        self.slow_done = False
        self.lake: Path | None = None  # a lake write_output exported

    def teardown(self) -> None:
        """Every example ends with the whole folder ingested and checked, whatever came before."""
        try:
            self.ingest_all("absolute")
        finally:
            self.con.close()
            shutil.rmtree(self.tmp, ignore_errors=True)

    def files(self) -> list[Path]:
        return sorted(p for p in self.data.rglob("*") if p.is_file() and p.name != "iolab.toml")

    @rule(k=st.integers(0, len(FILES) - 1), study=st.sampled_from(STUDIES), name=st.sampled_from(NAMES))
    def add(self, k, study, name):
        d = self.data / study
        d.mkdir(parents=True, exist_ok=True)
        shutil.copy(FILES[k], d / f"{k}-{name}")

    @precondition(lambda self: self.files())
    @rule(i=st.integers(0, 99), at=st.integers(0, 10**6), keep_time=st.booleans())
    def edit(self, i, at, keep_time):
        """One digit changed in place: the same size; with keep_time, the mtime set back as cp -p does."""
        f = self.files()[i % len(self.files())]
        data = bytearray(f.read_bytes())
        digits = [j for j, b in enumerate(data) if 0x30 <= b <= 0x39]
        if not digits:
            return
        j = digits[at % len(digits)]
        self.clean = False
        data[j] = 0x30 + (data[j] - 0x30 + 1) % 10
        st_ = f.stat()
        f.write_bytes(bytes(data))
        if keep_time:
            os.utime(f, ns=(st_.st_atime_ns, st_.st_mtime_ns))

    @precondition(lambda self: self.files())
    @rule(i=st.integers(0, 99))
    def delete(self, i):
        self.files()[i % len(self.files())].unlink()
        self.clean = False

    @precondition(lambda self: self.files())
    @rule(i=st.integers(0, 99), study=st.sampled_from(STUDIES), copy=st.booleans())
    def move_or_copy(self, i, study, copy):
        f = self.files()[i % len(self.files())]
        d = self.data / study
        d.mkdir(parents=True, exist_ok=True)
        self.n += 1
        dest = d / f"m{self.n}-{f.name}"
        (shutil.copy2 if copy else shutil.move)(f, dest)
        self.clean = self.clean and copy

    @rule(
        study=st.sampled_from([*STUDIES, ""]),
        system=st.sampled_from([*SYSTEMS, None]),
        named=st.booleans(),
        root=st.sampled_from([False, False, True]),
    )
    def sidecar(self, study, system, named, root):
        """Write, rewrite or remove a sidecar (at the top when study is ''); ``root``: it says
        `root = true`, so its folder is the data root of every file below it."""
        d = self.data / study if study else self.data
        d.mkdir(parents=True, exist_ok=True)
        side = d / "iolab.toml"
        if system is None:
            side.unlink(missing_ok=True)
            return
        text = f"system = {json.dumps(system)}\n"  # JSON's string escapes are TOML's
        if named:
            text += 'study = "named study"\n'
        if root:
            text += "root = true\n"
        side.write_text(text)

    @precondition(lambda self: any(self.data.rglob("iolab.toml")))
    @rule(i=st.integers(0, 99))
    def break_sidecar(self, i):
        """A typo: the sidecar's files leave the analysis until it is fixed (a fresh ingest refuses them)."""
        sides = sorted(self.data.rglob("iolab.toml"))
        sides[i % len(sides)].write_text('sytem = "typo"\n')

    @precondition(lambda self: any(self.data.rglob("iolab.toml")))
    @rule(i=st.integers(0, 99), up=st.booleans())
    def move_sidecar(self, i, up):
        sides = sorted(self.data.rglob("iolab.toml"))
        side = sides[i % len(sides)]
        dest = (side.parent.parent if up and side.parent != self.data else self.data / STUDIES[i % 2]) / "iolab.toml"
        dest.parent.mkdir(parents=True, exist_ok=True)
        if dest != side:
            side.replace(dest)

    @rule(how=st.sampled_from(["absolute", "relative", "link", "dotdot", "inside", "moved"]))
    def ingest_all(self, how):
        """The whole folder, by one of its spellings, or after moving it whole (move_root); then the
        invariant is checked."""
        if how == "moved":
            return self.move_root()
        if how == "absolute":
            batch.ingest_paths(self.con, [self.data])
        elif how == "relative":
            with cwd(self.tmp / "elsewhere"):
                batch.ingest_paths(self.con, [Path("..") / self.data.name])
        elif how == "link":
            batch.ingest_paths(self.con, [self.tmp / "link"])
        elif how == "dotdot":
            batch.ingest_paths(self.con, [self.tmp / "elsewhere" / ".." / self.data.name])
        else:
            with cwd(self.data):
                batch.ingest_paths(self.con, [Path(".")])
        self.clean = True
        self.check()

    def planned_empty(self, paths: list[Path]) -> None:
        """A plan made right after an ingest's application has nothing to do (ingest/plan.py)."""
        again = plan.make(paths, list(files.walk(paths)), index.read(self.con))
        assert again.empty(), [(s.path, s.action, s.reason) for s in again.changes()]

    def check(self) -> None:
        """Every view holds what a fresh ingest of the folder gives, and a plan of it is empty."""
        self.planned_empty([self.data])
        got, want = snapshot(self.con), fresh(self.data, self.tmp / f"fresh{self.n}.duckdb")
        self.n += 1
        if self.files() and not any(self.data.rglob("iolab.toml")):
            assert got["source_files"]  # never two empty databases agreeing
        assert diff(got, want) == []

    def move_root(self) -> None:
        """The action "move the data root", as a spelling of ingest_all (a rule of its own would take
        a share of every example's steps, and the test's runtime with it).
        `mv data data<n>; iolab ingest data<n>`: a move of every root that held files when none
        of them was edited, deleted or moved since the last full ingest; else (a root found only in
        part) the old folder is named beside the new one, as the ingest's note says."""
        held = {r for r in places.roots(self.con) if places.places_in_root(self.con, r)}
        old, new = self.data, self.tmp / f"data{self.n}"
        self.n += 1
        old.rename(new)
        self.data = new
        (self.tmp / "link").unlink()
        (self.tmp / "link").symlink_to(new, target_is_directory=True)
        notes = batch.ingest_paths(self.con, [new]).notes
        moved = {
            n.split(" to ")[0].removeprefix("data root moved from ") for n in notes if n.startswith("data root moved")
        }
        if self.clean:
            assert moved == held, notes
        if moved != held:
            batch.ingest_paths(self.con, [old, new])
        self.clean = True
        self.check()

    @rule(study=st.sampled_from(STUDIES), via_link=st.booleans())
    def ingest_part(self, study, via_link):
        """A subfolder (or one file of it): the rest of the folder is left as it was stored."""
        base = self.tmp / "link" if via_link else self.data
        part = base / study
        files = sorted(part.glob("*")) if part.is_dir() else []
        target = files[0] if files and len(study) % 2 else part
        batch.ingest_paths(self.con, [target])
        if os.path.lexists(target):
            self.planned_empty([target])

    def reopen(self):
        """Close the database for a command run in this process (DuckDB lets one process hold a file
        read-write or read-only, not both), and open it again after."""
        self.con.close()
        return _Reopen(self)

    @rule(where=st.sampled_from(["", *STUDIES, "out"]), what=st.sampled_from(sorted(OUTPUTS)))
    def write_output(self, where, what):
        """One output of iolab into a folder of the data folder: refused (exit 2, the data folder as
        it was) while that folder is in or holds a data root, or holds the user's files; else
        written, and an ingest reads none of it (every measurement stays in place: the invariant of
        the next ingest_all). Reports are rendered without running the notebooks (their writes are
        the point here); a render and a lake export are run at most once per example (seconds each)."""
        folder = self.data / where if where else self.data
        roots = places.roots(self.con)
        canon = str(places.canonical(folder))
        in_root = any(places.inside(canon, r) or (what != "export --out" and places.inside(r, canon)) for r in roots)
        slow = what != "export --out"
        if (slow and not in_root and self.slow_done) or (what == "lake views --out" and self.lake is None):
            return
        before = _tree(self.data)
        with self.reopen(), _pages_unexecuted():
            code = cli.main(OUTPUTS[what](self.tmp / "t.duckdb", folder, self.tmp, self.lake))
        if in_root:
            assert code == 2
        assert code in (0, 2)
        if code == 2:
            assert _tree(self.data) == before
            return
        self.slow_done |= slow
        if what == "lake export --to":
            self.lake = folder
        written = set(_tree(self.data)) - set(before)
        assert written and not [f for _, f in files.walk([self.data]) if str(f) in written]

    @precondition(lambda self: self.files())
    @rule(after=st.integers(0, 3), output=st.booleans())
    def fill_the_disk(self, after, output):
        """The disk fills during a write (ENOSPC from the after+1-th rename: the store's files, a
        marker, an output's files): mid-ingest, or mid-output outside the data folder. Nothing is
        checked now; the next ingest_all must still equal a fresh ingest."""
        real = os.replace
        count = [after]

        def replace(src, dst, *a, **k):
            count[0] -= 1
            if count[0] < 0:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(dst))
            return real(src, dst, *a, **k)

        with mock.patch.object(os, "replace", replace):
            if output:
                with self.reopen():
                    code = cli.main(
                        ["export", "measurements", "--db", str(self.tmp / "t.duckdb"), "--out", str(self.tmp / "m.csv")]
                    )
                assert code in (0, 3)
            else:
                batch.ingest_paths(self.con, [self.data])

    @invariant()
    def one_place_per_file(self):
        rows = q(
            self.con,
            "SELECT abs_path, count(*) FROM source_history WHERE left_at IS NULL GROUP BY 1 HAVING count(*) > 1",
        )
        assert rows == []


EXAMPLES = int(os.environ.get("IOLAB_MIRROR_EXAMPLES", "6"))
TestMirror = pytest.mark.slow(Mirror.TestCase)  # histories of a data folder: make test-slow (make fuzz: 200)
TestMirror.settings = settings(
    max_examples=EXAMPLES,
    stateful_step_count=10,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=EXAMPLES <= 10,  # the short run in make test is the same every time
)


# ---- one test per case of issue 27 -------------------------------------------------------------------


def _counts(con) -> tuple:
    return (
        q(con, "SELECT count(*) FROM source_files")[0][0],
        q(con, "SELECT count(*) FROM measurements")[0][0],
        q(con, "SELECT count(*) FROM study_runs")[0][0],
    )


def _study(root: Path, name: str, sidecar: str = "", files: tuple[Path, ...] = (FILES[0], FILES[1])) -> Path:
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    if sidecar:
        (d / "iolab.toml").write_text(sidecar)
    for f in files:
        shutil.copy(f, d / f.name)
    return d


def test_four_spellings_of_one_folder_count_once(tmp_path):
    data = tmp_path / "lab" / "data"
    _study(data, "s1", 'system = "Acme X1"\n')
    (tmp_path / "linked").symlink_to(tmp_path / "lab", target_is_directory=True)
    con = db.open_db(tmp_path / "t.duckdb")
    batch.ingest_paths(con, [data])
    once = _counts(con)
    assert once[1] > 100
    with cwd(data):
        batch.ingest_paths(con, [Path(".")])
    with cwd(tmp_path):
        batch.ingest_paths(con, [Path("lab/../lab/data")])
    rep = batch.ingest_paths(con, [tmp_path / "linked" / "data"])
    assert {o.status for o in rep.outcomes} == {"unchanged"}
    assert _counts(con) == once
    assert places.roots(con) == [str(data.resolve())]


def test_a_subfolder_keeps_the_labels_given_above_it(tmp_path):
    data = tmp_path / "data"
    (data / "Big").mkdir(parents=True)
    (data / "Big" / "iolab.toml").write_text('study = "Big Study"\nsystem = "Acme X1"\nprice_usd = 1000\n')
    runs = _study(data / "Big", "runs")
    con = db.open_db(tmp_path / "t.duckdb")
    batch.ingest_paths(con, [data])
    labels = q(con, "SELECT DISTINCT study, system, price_usd FROM source_files")
    assert labels == [("Big Study", "Acme X1", 1000.0)]
    for part in (runs, runs / FILES[0].name):
        assert {o.status for o in batch.ingest_paths(con, [part]).outcomes} == {"unchanged"}
        assert q(con, "SELECT DISTINCT study, system, price_usd FROM source_files") == labels


def test_first_ingest_of_a_subfolder_then_its_parent(tmp_path):
    """The root grows to the parent: the studies are then named by the folders under it."""
    data = tmp_path / "data"
    _study(data, "s1")
    _study(data, "s2", files=(FILES[2],))
    con = db.open_db(tmp_path / "t.duckdb")
    batch.ingest_paths(con, [data / "s1"])
    rep = batch.ingest_paths(con, [data])
    assert rep.notes == [f"{data.resolve()} is now the data root in place of {(data / 's1').resolve()}"]
    assert q(con, "SELECT path, study FROM source_files ORDER BY 1") == [
        (f"data/s1/{FILES[0].name}", "s1"),
        (f"data/s1/{FILES[1].name}", "s1"),
        (f"data/s2/{FILES[2].name}", "s2"),
    ]
    assert snapshot(con) == fresh(data, tmp_path / "f.duckdb")


def test_deleted_and_renamed_files_leave_and_move(tmp_path):
    data = tmp_path / "data"
    s = _study(data, "s1")
    con = db.open_db(tmp_path / "t.duckdb")
    batch.ingest_paths(con, [data])
    before = _counts(con)
    (s / FILES[0].name).rename(s / "renamed.csv")
    rep = batch.ingest_paths(con, [data])
    assert [(o.status, o.reason) for o in rep.outcomes if o.status != "unchanged"] == [
        ("moved", f"moved from data/s1/{FILES[0].name}")
    ]
    assert _counts(con) == before
    (s / "renamed.csv").unlink()
    rep = batch.ingest_paths(con, [data])
    assert [(o.status, o.path) for o in rep.outcomes if o.status != "unchanged"] == [("gone", "data/s1/renamed.csv")]
    assert _counts(con)[0] == before[0] - 1 and _counts(con)[1] < before[1]
    assert q(con, "SELECT count(*) FROM runs WHERE tool = 'Iometer'") == [(0,)]  # its parsed rows are gone too
    # its history stays queryable
    assert q(con, "SELECT path, left_reason FROM source_history WHERE left_at IS NOT NULL") == [
        ("data/s1/renamed.csv", "deleted")
    ]
    assert snapshot(con) == fresh(data, tmp_path / "f.duckdb")


def test_a_deleted_study_folder_leaves_when_it_is_named(tmp_path):
    data = tmp_path / "data"
    _study(data, "s1")
    s2 = _study(data, "s2", files=(FILES[2],))
    con = db.open_db(tmp_path / "t.duckdb")
    batch.ingest_paths(con, [data])
    shutil.rmtree(s2)
    rep = batch.ingest_paths(con, [s2])  # the folder is gone: naming it is enough
    assert [o.status for o in rep.outcomes] == ["gone"]
    assert q(con, "SELECT DISTINCT study FROM source_files") == [("s1",)]


def test_an_edited_criteria_file_replaces_its_old_version(tmp_path):
    data = tmp_path / "data"
    crit = data / "criteria"
    crit.mkdir(parents=True)
    shutil.copy(Path(__file__).parent.parent / "data" / "samples" / "criteria" / "criteria.csv", crit / "criteria.csv")
    con = db.open_db(tmp_path / "t.duckdb")
    batch.ingest_paths(con, [data])
    rule = "SELECT threshold FROM qos_criteria WHERE criterion = 'jetstress_db_read_latency'"
    assert q(con, rule) == [(20.0,)]
    text = (crit / "criteria.csv").read_text()
    (crit / "criteria.csv").write_text(
        text.replace("avg database read latency,<=,20,", "avg database read latency,<=,0.5,")
    )
    assert [o.status for o in batch.ingest_paths(con, [data]).outcomes] == ["ingested"]
    assert q(con, rule) == [(0.5,)]


def test_iolab_never_ingests_its_own_outputs(tmp_path):
    """The store beside its database and a lake (copied into the data folder: its marker's list
    still names its files) are never read; a marker with no list over a user's file hides nothing."""
    data = tmp_path / "data"
    _study(data, "s1", files=(FILES[3],))  # a time series: the points store gets a file
    dbf = data / "iolab.duckdb"
    assert cli.main(["ingest", str(data / "s1"), "--db", str(dbf)]) == 0
    assert any((data / "iolab.duckdb.points").rglob("*.parquet"))
    assert cli.main(["lake", "export", "--db", str(dbf), "--to", str(tmp_path / "lake")]) == 0
    shutil.copytree(tmp_path / "lake", data / "lake")
    old = data / "old-lake" / "runs"  # a lake manifest of an earlier iolab (no list) beside a result file
    old.mkdir(parents=True)
    (data / "old-lake" / "_iolab_manifest.json").write_text("{}")
    shutil.copy(FILES[1], old / "part-00001.json")
    shutil.copy(tmp_path / "lake" / "runs" / "part-00001.parquet", old / "part-00002.parquet")
    rep = batch.ingest_paths(db.open_db(tmp_path / "other.duckdb"), [data])
    # a marker with no list covers nothing (issue 53): the old lake's Parquet is offered as data too
    old_files = [str(data / "old-lake" / "runs" / n) for n in ("part-00001.json", "part-00002.parquet")]
    assert sorted(o.path for o in rep.outcomes) == sorted([str(data / "s1" / FILES[3].name), *old_files])
    assert [w for w in rep.warnings if "old-lake" in w and "covers none" in w and "runs/part-00001.json" in w]
    assert not [w for w in rep.warnings if str(data / "lake") + ":" in w]


def test_the_points_store_belongs_to_its_database(tmp_path):
    data = tmp_path / "data"
    _study(data, "s1", files=(FILES[3],))
    con = db.open_db(tmp_path / "t.duckdb")
    batch.ingest_paths(con, [data])
    points = q(con, "SELECT count(*) FROM series_points")[0][0]
    old_store = db.store_dir(con)
    con.close()
    (tmp_path / "t.duckdb").rename(tmp_path / "old.duckdb")
    con = db.open_db(tmp_path / "t.duckdb")  # a new database of the old one's name
    batch.ingest_paths(con, [data])
    con.close()
    assert old_store.is_dir() and list(old_store.glob("*.parquet"))  # the old database's files are still there
    con = db.open_db(tmp_path / "old.duckdb", read_only=True)
    problems = db.store_problems(con)
    assert len(problems) == 1 and "1 of 1 time-series files are missing" in problems[0]
    assert str(old_store) in problems[0]  # it says where they are
    con.close()
    shutil.move(old_store, db.store_dir(db.connect(tmp_path / "old.duckdb", read_only=True)))
    con = db.open_db(tmp_path / "old.duckdb")
    assert db.store_problems(con) == [] and q(con, "SELECT count(*) FROM series_points")[0][0] == points
    con.close()


def test_a_baseline_naming_no_system_is_refused_with_a_did_you_mean(tmp_path):
    data = tmp_path / "data"
    _study(data / "s", "x1", 'system = "Acme X1"\n', files=(FILES[1],))
    _study(data / "s", "z9", 'system = "Zeta Z9"\n', files=(FILES[2],))
    (data / "s" / "iolab.toml").write_text('study = "S"\nbaseline = "Acme X 1"\n')
    con = db.open_db(tmp_path / "t.duckdb")
    rep = batch.ingest_paths(con, [data])
    bad = [o for o in rep.outcomes if o.status == "rejected"]
    assert len(bad) == 1 and bad[0].line == 2 and bad[0].path.endswith("s/iolab.toml")
    assert "baseline names 'Acme X 1', which is no system of study 'S'; did you mean 'Acme X1'?" in bad[0].reason
    assert rep.failed
    (data / "s" / "iolab.toml").write_text('study = "S"\nbaseline = "Acme X1"\n')
    assert not batch.ingest_paths(con, [data]).failed


def test_iolab_remove_takes_files_and_studies_out(tmp_path, capsys):
    data = tmp_path / "data"
    s1 = _study(data, "s1")
    _study(data, "s2", files=(FILES[2],))
    dbf = tmp_path / "t.duckdb"
    assert cli.main(["ingest", str(data), "--db", str(dbf)]) == 0
    assert cli.main(["remove", str(s1 / FILES[0].name), "--db", str(dbf)]) == 0
    assert cli.main(["remove", "--study", "s2", "--db", str(dbf)]) == 0
    out = capsys.readouterr().out
    assert "removed" in out and "still on disk" in out
    con = db.connect(dbf, read_only=True)
    assert q(con, "SELECT path FROM source_files") == [(f"data/s1/{FILES[1].name}",)]
    assert q(con, "SELECT count(*) FROM source_history WHERE left_reason = 'removed'") == [(2,)]
    con.close()


@pytest.mark.parametrize("edit", ["same-size, mtime kept", "longer"])
def test_any_change_of_bytes_is_seen(tmp_path, edit):
    data = tmp_path / "data"
    s = _study(data, "s1", files=(FILES[0],))
    con = db.open_db(tmp_path / "t.duckdb")
    batch.ingest_paths(con, [data])
    f = s / FILES[0].name
    st_ = f.stat()
    new = f.read_bytes().replace(b"3364.250468", b"3364.250469" if edit.startswith("same") else b"3364.2504689", 1)
    f.write_bytes(new)
    if edit.startswith("same"):
        os.utime(f, ns=(st_.st_atime_ns, st_.st_mtime_ns))
    assert [o.status for o in batch.ingest_paths(con, [data]).outcomes] == ["ingested"]
    assert snapshot(con) == fresh(data, tmp_path / "f.duckdb")


def test_a_database_copied_without_its_store_fails_validation(tmp_path):
    from iolab.validation import run as validation

    data = tmp_path / "data"
    _study(data, "s1", files=(FILES[3],))
    con = db.open_db(tmp_path / "t.duckdb")
    batch.ingest_paths(con, [data])
    con.close()
    shutil.copy(tmp_path / "t.duckdb", tmp_path / "copy.duckdb")
    con = db.open_db(tmp_path / "copy.duckdb")
    assert q(con, "SELECT present FROM store_files") == [(False,)]
    results = [r for r in validation.validate(con, store=False) if r["suite"] == "store_files"]
    con.close()
    assert [(r["success"], r["unexpected_count"]) for r in results] == [(False, 1)]


def test_compare_refuses_a_baseline_naming_no_system(tmp_path, capsys):
    data = tmp_path / "data"
    _study(data / "s", "x1", 'system = "Acme X1"\n', files=(FILES[1],))
    _study(data / "s", "z9", 'system = "Zeta Z9"\n', files=(FILES[2],))
    (data / "s" / "iolab.toml").write_text('study = "S"\nbaseline = "Acme X 1"\n')
    dbf = tmp_path / "t.duckdb"
    assert cli.main(["ingest", str(data), "--db", str(dbf)]) == 1
    capsys.readouterr()
    assert cli.main(["compare", "--study", "S", "--db", str(dbf)]) == 1
    err = capsys.readouterr().err
    assert "Nothing to compare against" in err and "did you mean 'Acme X1'?" in err and "line 2" in err


def test_the_time_series_page_names_a_missing_store(tmp_path, monkeypatch):
    from iolab.reports import page

    data = tmp_path / "data"
    _study(data, "s1", files=(FILES[3],))
    con = db.open_db(tmp_path / "t.duckdb")
    batch.ingest_paths(con, [data])
    said: list[str] = []
    monkeypatch.setattr(page, "note", said.append)
    page.store_note(con)
    assert said == []
    for f in db.store_dir(con).glob("*.parquet"):
        f.unlink()
    page.store_note(con)
    assert len(said) == 1 and "1 of 1 time-series files of this database are missing from its store" in said[0]
    assert "store_note(con)" in (Path(__file__).parent.parent / "notebooks" / "06-time-series.py").read_text()
    con.close()


def test_a_copy_labelled_as_another_system_counts_once_and_is_said(tmp_path, capsys):
    """The same result file under two systems of one study (a copy made by mistake) counts once, as
    the copy with the smaller path says; the ingest and `iolab info` say which copy lost its labels.
    A copy under the same labels (a true duplicate) counts once and needs no word."""
    study = tmp_path / "data" / "s"
    fio = corpus("fio-json/louwrentius__fio-plot__fio31_d3s4610_randread-1-1.json")
    for folder, system in (("alpha", "Alpha"), ("gamma", "Gamma\x1b[31m")):
        (study / folder).mkdir(parents=True)
        (study / folder / "iolab.toml").write_text(f"system = {json.dumps(system)}\n")
        shutil.copy(fio, study / folder / "run.json")
    shutil.copy(fio, study / "alpha" / "again.json")  # a true duplicate: same labels
    (study / "iolab.toml").write_text('study = "s"\n')
    dbf = tmp_path / "t.duckdb"
    assert cli.main(["ingest", str(tmp_path / "data"), "--db", str(dbf)]) == 0
    out = capsys.readouterr().out
    warnings = [line for line in out.splitlines() if line.startswith("Warning:")]
    assert len(warnings) == 1, out
    assert "gamma/run.json is a copy of" in warnings[0] and "alpha/again.json" in warnings[0]
    assert "as system 'Gamma\\x1b[31m' where that one says 'Alpha'" in warnings[0]  # escaped, not a colour
    assert "counts the run once, as system 'Alpha'" in warnings[0]
    con = db.open_db(dbf)
    assert q(con, "SELECT DISTINCT system FROM measurements") == [("Alpha",)]
    assert q(con, "SELECT count(DISTINCT run_id) FROM measurements") == [(1,)]
    assert q(con, "SELECT count(*), count(*) FILTER (other_labels) FROM study_copies") == [(2, 1)]
    con.close()
    assert cli.main(["info", "--db", str(dbf)]) == 0
    info = capsys.readouterr().out
    assert "2 file(s) are copies of another file of their study" in info
    assert "Warning: 1 of those copies are labelled otherwise" in info
    # said again while it stands (JSON too); gone once the stray copy is
    assert cli.main(["ingest", str(tmp_path / "data"), "--db", str(dbf), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["warnings"]) == 1
    (study / "gamma" / "run.json").unlink()
    assert cli.main(["ingest", str(tmp_path / "data"), "--db", str(dbf), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["warnings"] == []
