"""The Parquet lake: export of the demo database; the views computed from the lake alone by DuckDB
and by iolab on a Spark standalone cluster started here, row for row the same, and by Spark's own
spark-sql from the lake's own SQL with Spark's default settings; the cluster's processes always stopped;
incremental export; the manifest; what the lake may remove and when its views are stale."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iolab import batch, db, lake
from tests import lakecheck
from tests.conftest import ROOT, q

pyspark = pytest.importorskip("pyspark", reason="the [lake] extra (pip install -e '.[lake]')")
SAMPLES = ROOT / "data" / "samples"
IOLAB = Path(sys.executable).parent / "iolab"


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("lake") / "demo.duckdb"
    con = db.open_db(path)
    batch.ingest_paths(con, [SAMPLES])
    con.close()
    return path


@pytest.fixture(scope="module")
def exported(demo) -> tuple[Path, dict]:
    out = demo.parent / "lake"
    return out, lake.export(demo, out)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A Spark standalone master and two workers on 127.0.0.1, shared by the module's Spark tests."""
    with lake.LocalCluster(workers=2, memory="2g", where=tmp_path_factory.mktemp("cluster")) as c:
        yield c


@pytest.fixture(scope="module")
def by_duckdb(exported, tmp_path_factory) -> tuple[Path, dict[str, int]]:
    lake_dir, _ = exported
    out = tmp_path_factory.mktemp("duckdb-views")
    return out, lake.views(lake_dir, "duckdb", out=out)


def _not_empty_by_accident(counts: dict[str, int]) -> None:
    # every view of schemas/views/*.sql is there; the views of every point are not copied (ROW_VIEWS)
    rows = {"series_points", "series_values", "current_measurements"}  # a number of a current measurement too
    assert rows == lake.ROW_VIEWS and not set(counts) & lake.ROW_VIEWS
    assert {
        "measurements",
        "per_drive_iops",
        "comparison",
        "comparison_unmatched",
        "generation_comparison",
        "target_volumes",
        "study_declarations",
        "series_summary",
        "series_summary_resolved",
        "latency_percentiles",
    } <= set(counts)
    # the demo has rows in the views the reports use
    for name in ("measurements", "per_drive_iops", "comparison", "generation_comparison", "series_summary"):
        assert counts[name] > 0, name


# make test computes these on the cluster (and what they read: a dozen views, the table, the time
# series and the comparison paths); make bench-lake computes and compares every view there
ON_THE_CLUSTER = ["comparison", "series_summary"]


@pytest.mark.slow  # a Spark cluster started here: make test-slow
def test_views_on_a_standalone_cluster_equal_duckdb(exported, by_duckdb, cluster, tmp_path):
    """`iolab lake views --master spark://127.0.0.1:PORT` on a master and two workers started here
    (pyspark's own spark-class, loopback only) gives the views DuckDB gives, its executors on both
    workers."""
    lake_dir, _ = exported
    duck_dir, duck_counts = by_duckdb
    _not_empty_by_accident(duck_counts)
    pids = cluster.pids()
    assert len(pids) >= 3 and cluster.state()["aliveworkers"] == 2
    listen = lakecheck.listening(pids)
    assert listen and all(a.startswith(lakecheck.LOOPBACK) for a in listen), listen
    done = {a["id"] for a in cluster.state()["completedapps"]}
    run = subprocess.run(
        [str(IOLAB), "lake", "views", "--engine", "spark", "--master", cluster.master, "--lake", str(lake_dir)]
        + ["--out", str(tmp_path / "spark")]
        + [a for v in ON_THE_CLUSTER for a in ("--view", v)],
        env=cluster.env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    apps = [a for a in cluster.state()["completedapps"] if a["id"] not in done]
    assert [(a["name"], a["state"]) for a in apps] == [("iolab lake", "FINISHED")], apps
    # its executors ran on the two workers (one work folder each, under the application's)
    assert len(list((cluster.dir / "work" / apps[0]["id"]).glob("[0-9]*"))) == 2
    needs = lake.translate.needed(ON_THE_CLUSTER)
    assert {"measurements", "source_files"} < needs
    assert "series_points" not in needs  # the summaries read series_stats, which the export wrote
    names = needs - lake.ROW_VIEWS  # read through, not written
    assert names < set(duck_counts)
    got = lake.owned.read(tmp_path / "spark")
    assert got is not None and got["engine"] == "spark" and sorted(got["views"]) == sorted(names)
    assert {n: lake.parquet_rows(tmp_path / "spark" / n) for n in names} == {n: duck_counts[n] for n in names}
    assert lakecheck.compare(duck_dir, tmp_path / "spark", names) == {}


@pytest.mark.slow  # every view computed over the lake: make test-slow
def test_views_named_are_computed_with_what_they_read(exported, by_duckdb, tmp_path):
    """--view NAME computes that view and the views it reads, no others, the same rows as a full run;
    an unknown name is refused with the list of views."""
    from iolab.cli import main

    lake_dir, _ = exported
    duck_dir, duck_counts = by_duckdb
    names = lake.translate.needed(["generation_comparison"])
    assert names == {
        "generation_comparison",
        # the generations are compared as the comparison compares (075): its points, each system's
        # current measurement and the corrections that apply
        "comparison",
        "comparison_candidates",
        "comparison_measurements",
        "comparison_points",
        "metric_corrections",
        "study_baseline",
        "study_runs",  # each run's system and generation
        "run_drives",
        "run_targets",
        "log_targets",
        "target_volumes",
        "measurements",
        "file_sessions",
        "file_measurements",
        "firmware_order",  # file_measurements reads it (008 computes the order once)
        "orion_latency_points",
        "run_starts",
        "source_files",
        "study_conflicts",
        "study_declarations",
    }
    written = names - lake.ROW_VIEWS
    counts = lake.views(lake_dir, "duckdb", out=tmp_path / "v", only=["generation_comparison"])
    assert counts == {n: duck_counts[n] for n in written}
    assert sorted(p.name for p in (tmp_path / "v").iterdir() if p.is_dir()) == sorted(written)
    assert lakecheck.compare(duck_dir, tmp_path / "v", written) == {}
    out = tmp_path / "none"
    assert main(["lake", "views", "--lake", str(lake_dir), "--out", str(out), "--view", "no_such_view"]) == 2
    assert not out.exists()


def test_the_views_of_every_point_are_read_through_not_copied(exported, by_duckdb, tmp_path):
    """series_points and series_values are the lake's points with their source: the summaries read
    them, views/ holds no copy of them, the Spark script defines them without caching them, and
    asking for one alone says where it is."""
    from iolab.cli import main

    lake_dir, _ = exported
    _, duck_counts = by_duckdb
    counts = lake.views(lake_dir, "duckdb", out=tmp_path / "v", only=["series_summary"])
    assert set(counts) == lake.translate.needed(["series_summary"]) - lake.ROW_VIEWS
    assert counts["series_summary"] == duck_counts["series_summary"] > 0
    assert not any((tmp_path / "v" / n).exists() for n in lake.ROW_VIEWS)
    script = lake.script.spark_script(lake_dir)["create_all.sql"]
    assert "CREATE OR REPLACE TEMPORARY VIEW `series_points` AS" in script
    assert "INSERT OVERWRITE DIRECTORY '${iolab.out}/series_summary' USING parquet" in script
    assert "${iolab.out}/series_points" not in script and "CACHE TABLE" not in script
    with pytest.raises(ValueError, match="series_points: rows of the lake row for row"):
        lake.views(lake_dir, "duckdb", out=tmp_path / "w", only=["series_points"])
    assert (
        main(["lake", "views", "--lake", str(lake_dir), "--out", str(tmp_path / "x"), "--view", "series_values"]) == 2
    )


KILLED = r"""
import sys, time
from pathlib import Path
from iolab import lake

c = lake.LocalCluster(workers=1, where=Path(sys.argv[1]))
c.start()
print(" ".join(map(str, c.pids())), flush=True)
time.sleep(600)
"""


@pytest.mark.slow  # a Spark cluster started here: make test-slow
def test_a_killed_driver_leaves_no_spark_process(tmp_path):
    """The process that started a cluster is killed (SIGKILL: no handler, no atexit runs); its
    master and worker end with it (PR_SET_PDEATHSIG), no JVM left behind."""
    p = subprocess.Popen([sys.executable, "-c", KILLED, str(tmp_path)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        pids = [int(x) for x in p.stdout.readline().split()]  # type: ignore[union-attr]
        assert len(lake.cluster.running(pids)) >= 2  # the master and the worker at least
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    end = time.monotonic() + 60
    while lake.cluster.running(pids) and time.monotonic() < end:
        time.sleep(0.5)
    assert lake.cluster.running(pids) == []


def test_a_master_ui_still_starting_is_not_ready_rather_than_a_failed_start():
    """While the master's web UI starts it has answered /json/ with an empty body: that is "no
    account yet", waited for like no answer at all, never a start that fails on a JSON error."""
    import http.server
    import threading

    class Empty(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer((lake.cluster.HOST, 0), Empty)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        c = lake.cluster.LocalCluster()
        c.ui = server.server_address[1]
        assert c.state() is None
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.slow  # a Spark cluster started here: make test-slow
def test_local_cluster_stops_even_when_the_work_fails(tmp_path):
    """The context manager stops every process it started when the code inside raises."""
    with pytest.raises(RuntimeError, match="the work failed"), lake.LocalCluster(workers=1, where=tmp_path) as c:
        pids = c.pids()
        assert len(pids) >= 2
        raise RuntimeError("the work failed")
    assert lake.cluster.running(pids) == []


def test_views_from_lake_match_the_database(demo, exported, tmp_path):
    """DuckDB over the lake gives what DuckDB over the database gives."""
    lake_dir, _ = exported
    counts = lake.views(lake_dir, "duckdb", out=tmp_path / "v")
    con = db.connect(demo, read_only=True)
    try:
        for name in ("measurements", "per_drive_iops", "comparison", "series_summary", "qos_verdicts"):
            assert counts[name] == q(con, f"SELECT count(*) FROM {name}")[0][0], name
        pct = q(con, "SELECT sum(pct_better) FROM comparison")[0][0]
    finally:
        con.close()
    _, rows = lakecheck.rows(tmp_path / "v" / "comparison")
    cols, _ = lakecheck.rows(tmp_path / "v" / "comparison")
    i = cols.index("pct_better")
    assert sum(r[i] for r in rows if r[i] is not None) == pytest.approx(pct)


# ---- the export and its manifest ------------------------------------------------------------------


def test_manifest_and_any_parquet_reader(demo, exported):
    import pyarrow.dataset as ds

    lake_dir, m = exported
    assert json.loads((lake_dir / lake.MANIFEST).read_text()) == m
    con = db.connect(demo, read_only=True)
    try:
        assert [x["version"] for x in m["schema"]["migrations"]] == [
            v for (v,) in q(con, "SELECT version FROM schema_history ORDER BY version")
        ]
        assert {s: v["sha256"] for s, v in m["sources"].items()} == {
            str(i): sha for i, sha in q(con, "SELECT content_id, sha256 FROM source_files")
        }  # each content once, with its places
        assert sorted(p for v in m["sources"].values() for p in v["places"]) == [
            i for (i,) in q(con, "SELECT source_id FROM source_files ORDER BY 1")
        ]
        tables = [t for (t,) in q(con, "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'")]
        for t in [*tables, "measurements"]:
            n = q(con, f'SELECT count(*) FROM "{t}"')[0][0]
            assert m["row_counts"][t] == n, t
            # pyarrow's own reader, no iolab code: every table reads with the count the manifest states
            assert ds.dataset(lake_dir / t, format="parquet").count_rows() == n, t
        points = q(con, "SELECT sum(points) FROM point_files")[0][0]
    finally:
        con.close()
    assert m["row_counts"]["points"] == points > 0
    assert ds.dataset(lake_dir / "points", format="parquet").count_rows() == points


def _lab(tmp_path: Path, sample: str, folder: str) -> Path:
    """A database of the bundled ``sample`` study, copied to tmp_path/data/``folder``."""
    shutil.copytree(SAMPLES / sample, tmp_path / "data" / folder)
    path = tmp_path / "x.duckdb"
    con = db.open_db(path)
    batch.ingest_paths(con, [tmp_path / "data"])
    con.close()
    return path


def test_export_is_incremental(tmp_path):
    data = tmp_path / "data"
    path = _lab(tmp_path, "ds4300-vs-fastt200-2004", "a")
    out = tmp_path / "lake"
    first = lake.export(path, out)
    assert first["last_run"]["batch"] == 1 and first["last_run"]["new_sources"]
    runs_part = out / "runs" / "part-00001.parquet"
    before = runs_part.read_bytes()
    # nothing new: no batch, nothing rewritten
    again = lake.export(path, out)
    assert again["last_run"] == {"new_sources": [], "rewritten_batches": [], "batch": None}
    # a new study: only its sources go into batch 2; batch 1 stays as it was
    shutil.copytree(SAMPLES / "adisireesha-atp-ssd-2022", data / "b")
    con = db.open_db(path)
    batch.ingest_paths(con, [data])
    new_ids = [i for (i,) in q(con, "SELECT content_id FROM source_files WHERE path LIKE '%adisireesha%' ORDER BY 1")]
    n_runs = q(con, "SELECT count(*) FROM runs")[0][0]
    con.close()
    second = lake.export(path, out)
    assert second["last_run"] == {"new_sources": new_ids, "rewritten_batches": [], "batch": 2}
    assert runs_part.read_bytes() == before
    assert {second["sources"][str(i)]["batch"] for i in new_ids} == {2}
    import pyarrow.dataset as ds

    assert ds.dataset(out / "runs", format="parquet").count_rows() == n_runs == second["row_counts"]["runs"]
    assert (out / "measurements" / "part-00002.parquet").exists()


def test_relabelled_source_rewrites_its_batch(tmp_path):
    data = tmp_path / "data" / "s"
    shutil.copytree(SAMPLES / "adisireesha-atp-ssd-2022", data)
    path = tmp_path / "x.duckdb"
    con = db.open_db(path)
    batch.ingest_paths(con, [data.parent])
    con.close()
    out = tmp_path / "lake"
    lake.export(path, out)
    toml = data / "iolab.toml"
    toml.write_text(toml.read_text().replace('system = "', 'system = "renamed '))
    con = db.open_db(path)
    batch.ingest_paths(con, [data.parent])
    con.close()
    m = lake.export(path, out)
    assert m["last_run"]["rewritten_batches"] == [1] and m["last_run"]["new_sources"] == []
    import pyarrow.dataset as ds

    systems = set(
        ds.dataset(out / "measurements", format="parquet").to_table(columns=["system"]).column("system").to_pylist()
    )
    assert systems and all(s.startswith("renamed ") for s in systems)


@pytest.mark.slow  # every view computed over the lake: make test-slow
def test_notebook_helper_reads_a_lake(demo, exported):
    """page.connect(db_path, lake): the notebooks' SQL answered from DIR/views/ and the tables."""
    from iolab.reports import page

    lake_dir, _ = exported
    lake.views(lake_dir, "duckdb")
    con = page.connect("no-such.duckdb", str(lake_dir))
    got = page.query(con, "SELECT study, count(*) AS n FROM comparison GROUP BY study ORDER BY study")
    d = db.connect(demo, read_only=True)
    try:
        want = q(d, "SELECT study, count(*) FROM comparison GROUP BY study ORDER BY study")
    finally:
        d.close()
    assert [tuple(r) for r in got.iter_rows()] == want and want
    assert page.query(con, "SELECT count(DISTINCT content_id) AS n FROM source_files")["n"][0] == len(
        json.loads((lake_dir / lake.MANIFEST).read_text())["sources"]
    )


def test_places_that_left_stay_in_the_lake(tmp_path):
    """source_history goes to the lake whole (places that left included); source_files is the view
    000_places.sql computed over it, as in the database."""
    data = tmp_path / "data"
    shutil.copytree(SAMPLES / "ds4300-vs-fastt200-2004", data / "a")
    path = tmp_path / "x.duckdb"
    con = db.open_db(path)
    batch.ingest_paths(con, [data])
    gone = sorted(p for p in (data / "a").rglob("*") if p.is_file() and p.name != "iolab.toml")[0]
    gone.unlink()
    batch.ingest_paths(con, [data])
    history = sorted(q(con, "SELECT source_id, left_at IS NULL FROM source_history"))
    files = sorted(i for (i,) in q(con, "SELECT source_id FROM source_files"))
    con.close()
    assert any(not here for _, here in history)
    out = tmp_path / "lake"
    lake.export(path, out)
    import pyarrow.dataset as ds

    got = ds.dataset(out / "source_history", format="parquet").to_table(columns=["source_id", "left_at"])
    assert (
        sorted(zip(got.column("source_id").to_pylist(), [x is None for x in got.column("left_at").to_pylist()]))
        == history
    )
    assert not (out / "source_files").exists()
    lake.views(out, "duckdb")
    assert (
        sorted(ds.dataset(out / "views" / "source_files", format="parquet").to_table().column("source_id").to_pylist())
        == files
    )


# ---- Spark-only users: the lake's own SQL ---------------------------------------------------------


def test_the_lake_sql_sets_what_it_needs_and_reads_each_view_back(exported):
    """create_all.sql: the settings first; each view created, written to ${iolab.out}/<view>/ and
    defined again over that folder, in that order (the views of every point only created); trends
    written without whole-stage code generation, which is turned back on after it; nothing cached."""
    lake_dir, _ = exported
    lines = lake.script.spark_script(lake_dir)["create_all.sql"].splitlines()
    first_view = next(i for i, line in enumerate(lines) if line.startswith("CREATE"))
    assert {
        "SET spark.sql.adaptive.enabled=true;",
        "SET spark.sql.adaptive.coalescePartitions.enabled=true;",
        "SET spark.sql.session.timeZone=UTC;",
        f"SET iolab.lake={lake_dir.resolve()};",
        f"SET iolab.out={lake_dir.resolve()}.spark-views;",
    } <= set(lines[:first_view])
    assert not [line for line in lines if "CACHE" in line]
    for name, _ in lake.spark_statements():
        made = lines.index(next(x for x in lines if x.startswith(f"CREATE OR REPLACE TEMPORARY VIEW `{name}` AS ")))
        written = f"INSERT OVERWRITE DIRECTORY '${{iolab.out}}/{name}' USING parquet SELECT * FROM `{name}`;"
        read_back = f"CREATE OR REPLACE TEMPORARY VIEW `{name}` USING parquet OPTIONS (path '${{iolab.out}}/{name}');"
        if name in lake.ROW_VIEWS:
            assert written not in lines and read_back not in lines
        elif name == "trends":
            assert lines[made + 1 : made + 5] == [
                "SET spark.sql.codegen.wholeStage=false;",
                written,
                "SET spark.sql.codegen.wholeStage=true;",
                read_back,
            ]
        else:
            assert lines[made + 1 : made + 3] == [written, read_back], name


def spark_sql(script: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """Spark's own `spark-sql -f SCRIPT` (pyspark ships bin/spark-sql) with Spark's default settings:
    no SPARK_CONF_DIR nor any other setting of iolab's, so local[*], a 1 GB driver, 200 shuffle
    partitions."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARK_", "PYSPARK_"))}
    home = lake.cluster.spark_home()
    env |= {"SPARK_HOME": str(home), "SPARK_LOCAL_IP": "127.0.0.1"}
    cmd = [str(home / "bin" / "spark-sql"), *args, "--conf", "spark.ui.enabled=false", "-f", str(script)]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=3600)


@pytest.mark.slow
def test_spark_sql_with_default_settings_equals_duckdb(exported, by_duckdb, tmp_path):
    """`spark-sql -f views/_sql/create_all.sql`, nothing of iolab's running, Spark's defaults: the
    script sets what it needs, writes every view to LAKE.spark-views/<view>/ (each read back from
    there by the views after it, nothing cached), and every view equals DuckDB's; no code generation
    failure is logged (the views that would outgrow the JVM run interpreted)."""
    lake_dir, _ = exported
    duck_dir, duck_counts = by_duckdb
    sql = lake_dir / "views" / "_sql"
    every = {*duck_counts, *lake.ROW_VIEWS}  # the views of every point are defined there too
    assert {f"{v}.sql" for v in every} | {"create_all.sql"} == {f.name for f in sql.glob("*.sql")}
    r = spark_sql(sql / "create_all.sql", tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    out = lake.script.out_folder(lake_dir)
    assert out == lake_dir.parent / "lake.spark-views"
    assert sorted(d.name for d in out.iterdir()) == sorted(duck_counts)  # not the views of every point
    assert {n: lake.parquet_rows(out / n) for n in duck_counts} == duck_counts
    assert lakecheck.compare(duck_dir, out, duck_counts) == {}
    for noise in ("Code grows beyond 64 KB", "WholeStageCodegenExec", "Truncated the string representation"):
        assert noise not in r.stderr


# ---- the lake never deletes what it did not write -------------------------------------------------


@pytest.mark.slow  # every view computed over the lake: make test-slow
def test_out_refuses_a_folder_it_does_not_own(exported, tmp_path):
    lake_dir, _ = exported
    mine = tmp_path / "mine"
    (mine / "comparison").mkdir(parents=True)
    (mine / "comparison" / "notes.txt").write_text("my own notes")
    with pytest.raises(lake.owned.NotOurs, match="iolab did not write"):
        lake.views(lake_dir, "duckdb", out=mine)
    assert (mine / "comparison" / "notes.txt").read_text() == "my own notes"
    # a new folder becomes iolab's; a second run may rewrite it
    ours = tmp_path / "ours"
    lake.views(lake_dir, "duckdb", out=ours)
    assert (ours / "comparison").is_dir() and lake.views(lake_dir, "duckdb", out=ours)


@pytest.mark.slow  # every view computed over the lake: make test-slow
def test_a_view_too_big_for_duckdb_names_it_and_leaves_the_folder_ours(exported, tmp_path, monkeypatch):
    """DuckDB out of memory on one view: the error names the view and Spark; the folder is left
    stale, still iolab's, and the next run writes it whole."""
    import importlib

    import duckdb

    from iolab.cli import main

    lake_views = importlib.import_module("iolab.lake.views")  # the module: lake.views is its function
    lake_dir, _ = exported
    out = tmp_path / "v"
    real = lake_views._copy

    def copy(con, sql, path):
        if '"comparison"' in sql:
            raise duckdb.OutOfMemoryException("Out of Memory Error: could not allocate block\nmore")
        real(con, sql, path)

    monkeypatch.setattr(lake_views, "_copy", copy)
    with pytest.raises(
        lake_views.TooBig, match=r"view comparison on this machine \(Out of Memory Error.*--engine spark"
    ):
        lake.views(lake_dir, "duckdb", out=out)
    assert main(["lake", "views", "--lake", str(lake_dir), "--out", str(out)]) == 2
    assert lake.owned.status(lake_dir, out) == "stale" and (out / "measurements").is_dir()
    monkeypatch.setattr(lake_views, "_copy", real)
    counts = lake.views(lake_dir, "duckdb", out=out)
    assert lake.owned.status(lake_dir, out) == "current" and counts["comparison"] > 0


@pytest.mark.slow  # every view computed over the lake: make test-slow
def test_views_after_a_new_export_are_stale_and_recomputed(demo, tmp_path):
    out = tmp_path / "lake"
    lake.export(demo, out)
    assert lake.owned.status(out) == "missing"
    lake.views(out, "duckdb")
    assert lake.owned.status(out) == "current"
    lake.export(demo, out)  # a new export, even of the same database
    assert lake.owned.status(out) == "stale"
    from iolab.cli import main

    assert main(["lake", "status", "--lake", str(out)]) == 1
    lake.views(out, "duckdb")
    assert lake.owned.status(out) == "current"
    assert main(["lake", "status", "--lake", str(out)]) == 0


def test_large_views_are_compared_by_column_profiles(tmp_path, monkeypatch):
    """Past ROWS_IN_PYTHON rows two engines' views are compared by DuckDB column profiles (count,
    sum of numbers, distinct count of text): equal folders pass, one changed value is caught."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    monkeypatch.setattr(lakecheck, "ROWS_IN_PYTHON", 0)
    rows = {"run": ["a", "b", "c"], "iops": [1.5, 2.25, None], "n": [1, 2, 3]}
    for side in ("duckdb", "spark"):
        (tmp_path / side / "v").mkdir(parents=True)
        pq.write_table(pa.table(rows), tmp_path / side / "v" / "part-0.parquet")
    assert lakecheck.compare(tmp_path / "duckdb", tmp_path / "spark", ["v"]) == {}
    pq.write_table(pa.table({**rows, "iops": [1.5, 2.5, None]}), tmp_path / "spark" / "v" / "part-0.parquet")
    assert "column profiles differ" in lakecheck.compare(tmp_path / "duckdb", tmp_path / "spark", ["v"])["v"]


def test_the_bench_lab_has_its_own_numbers_per_run(tmp_path):
    """make bench-lake's lab: RUNS runs, each with its own place, labels, times and values (not a
    template repeated), every store file named by point_files and read by series_points."""
    from tests import lablake

    db_path = lablake.make(tmp_path, 0.4, 9)
    con = db.connect(db_path, read_only=True)
    try:
        runs = con.execute(
            "SELECT count(*), count(DISTINCT path), count(DISTINCT sha256), count(DISTINCT study), count(DISTINCT system) "
            "FROM source_files"
        ).fetchall()[0]
        assert runs == (9, 9, 9, 9, 4)  # run i in study i % 10, on system i % 4
        per_run = con.execute(
            """SELECT f.path, count(*), round(sum(p.value), 6), min(p.ts)
               FROM series_points p JOIN source_files f ON f.content_id = p.source_id GROUP BY 1 ORDER BY 1"""
        ).fetchall()
        derived = con.execute(
            """SELECT count(*) FROM source_files
               WHERE content_id = (('0x' || substr(sha256, 1, 16))::UBIGINT >> 2)::BIGINT"""
        ).fetchall()[0][0]
    finally:
        con.close()
    assert len(per_run) == 9 and derived == 9  # every copy's points, under its id as iolab derives it
    points = {r[0]: r[1] for r in per_run}
    copies = {path: path.split("#run-")[0] for path in points if "#run-" in path}
    assert len(copies) == 5 and all(points[c] == points[t] for c, t in copies.items())  # a template's copies
    assert len({r[2] for r in per_run}) == 9 and len({r[3] for r in per_run}) == 9


# ---- series_stats: the summaries the export writes ------------------------------------------------


def _lake_stats(lake_dir: Path) -> list[tuple]:
    import duckdb

    part = str(lake_dir / "series_stats" / "part-*.parquet")
    return duckdb.connect().execute(f"SELECT * FROM read_parquet('{part}') ORDER BY ALL").fetchall()


def _esxtop_lab(tmp_path: Path) -> Path:
    return _lab(tmp_path, "esxtop-perfmon-samples", "esx")


def test_the_lake_holds_each_series_summary_as_the_database_computes_it(tmp_path, monkeypatch):
    """The export writes series_stats from the store files, a few sources a time; the lake's views read
    those rows instead of every point, so they must be the database's own, row for row (here in
    chunks of 5,000 points, STATS_CHUNK made small: each small file alone, the real esxtop capture's
    22,890 points in parts of its series)."""
    import importlib

    path = _esxtop_lab(tmp_path)
    monkeypatch.setattr(importlib.import_module("iolab.lake.export"), "STATS_CHUNK", 5000)
    m = lake.export(path, tmp_path / "lake")
    con = db.connect(path, read_only=True)
    try:
        mine = q(con, "SELECT * FROM series_stats ORDER BY ALL")
        sources = q(con, "SELECT count(*) FROM point_files")[0][0]
    finally:
        con.close()
    assert len(mine) > 1000 and sources == 4 and _lake_stats(tmp_path / "lake") == mine
    assert m["row_counts"]["series_stats"] == len(mine)
    # the lake's own SQL never defines it: it is one of the lake's tables
    assert "series_stats" in lake.lake_tables(tmp_path / "lake")
    assert "series_stats" not in dict(lake.spark_statements())


def test_a_lake_written_before_series_stats_is_completed_and_a_source_gone_leaves_it(tmp_path):
    path = _esxtop_lab(tmp_path)
    out = tmp_path / "lake"
    lake.export(path, out)
    # as an export of lake format 1 left it: no series_stats
    shutil.rmtree(out / "series_stats")
    manifest = json.loads((out / lake.MANIFEST).read_text())
    (out / lake.MANIFEST).write_text(json.dumps({**manifest, "lake_format": 1}))
    m = lake.export(path, out)
    assert m["last_run"]["rewritten_batches"] == [1] and m["lake_format"] == lake.LAKE_FORMAT
    con = db.connect(path, read_only=True)
    assert _lake_stats(out) == q(con, "SELECT * FROM series_stats ORDER BY ALL")
    con.close()
    # a capture removed from the data: its summaries leave the lake with it
    gone = next((tmp_path / "data" / "esx").glob("rachsharp*"))
    gone.unlink()
    con = db.open_db(path)
    batch.ingest_paths(con, [tmp_path / "data"])
    left = q(con, "SELECT * FROM series_stats ORDER BY ALL")
    con.close()
    lake.export(path, out)
    assert _lake_stats(out) == left and len({r[0] for r in left}) == 3  # of 4 captures


@pytest.mark.slow  # a Spark session started here: make test-slow
def test_the_t_distribution_is_scipys_on_spark_too(tmp_path):
    """The macros of 002_statistics.sql as the lake's Spark SQL puts them in (lambdas folded with Spark's
    aggregate): t_p2, t975 and welch_df on a grid of fractional df from 1 to 1e6 and p from 1e-12 to 1,
    within 1e-9 of scipy, as DuckDB's (tests/test_t_distribution.py)."""
    import sqlglot
    from scipy import stats

    from iolab.lake import translate

    macros = {}
    for kind, name, sql in translate.view_statements():
        if kind == "macro":
            tree = sqlglot.parse_one(sql, read="duckdb")
            macros[name.lower()] = ([p.name for p in tree.this.expressions], tree.expression)
    query = sqlglot.parse_one("SELECT i, t_p2(t, df) AS p, t975(df) AS q FROM g", read="duckdb")
    spark_sql = translate._for_spark(translate._expand_macros(query, macros)).sql(dialect="spark")
    grid = [(df, p) for df in (1, 1.3, 2.5, 7.9, 30, 999, 1e6) for p in (1e-12, 1e-6, 0.01, 0.05, 0.2, 0.9)]
    rows = [(i, float(stats.t.isf(p / 2, df)), float(df)) for i, (df, p) in enumerate(grid)]
    spark = lake.spark_session()
    try:
        spark.createDataFrame(rows, "i long, t double, df double").createOrReplaceTempView("g")
        got = {r["i"]: (r["p"], r["q"]) for r in spark.sql(spark_sql).collect()}
    finally:
        spark.stop()
    for i, t, df in rows:
        assert got[i][0] == pytest.approx(2 * float(stats.t.sf(t, df)), rel=1e-9), (t, df)
        assert got[i][1] == pytest.approx(float(stats.t.ppf(0.975, df)), rel=1e-9), df
