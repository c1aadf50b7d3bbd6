"""Pages at study scale: the rule that draws one mark for repeated runs, the kept Vega bundle, and the
generated study of the page benchmark (tests/bench_pages.py)."""

from __future__ import annotations

import hashlib
import json
import sys

import polars as pl
import pytest

from iolab import batch, db
from iolab.reports import early, interactive, marks
from iolab.reports.oracle import charts
from tests import bigstudy
from tests.conftest import rendered_page

KEYS = ["system", "load"]


def runs_frame() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "system": ["A", "A", "A", "B", "B", "C", "C", "D"],
            "load": [1, 1, 1, 1, 1, 4, 4, 4],
            "run_id": [3, 1, 2, 7, 9, 5, 4, 6],
            "latency_ms": [5.0, 1.0, 3.0, 4.0, 2.0, 2.0, 2.0, None],
        }
    )


def test_median_run_is_one_runs_own_value_the_lower_median_ties_by_run_id():
    got = marks.median_runs(runs_frame(), KEYS, "latency_ms").sort(KEYS)
    # A: 1, 3, 5 -> 3 (run 2); B: 2, 4 -> the lower median 2 (run 9); C: a tie -> run 4; D: no value, no mark
    assert got.rows() == [("A", 1, 2, 3.0, 3), ("B", 1, 9, 2.0, 2), ("C", 4, 4, 2.0, 2)]


def test_median_run_is_the_same_row_whatever_order_the_runs_come_in():
    df = runs_frame()
    want = marks.median_runs(df, KEYS, "latency_ms")
    for seed in range(5):
        shuffled = df.sample(fraction=1.0, shuffle=True, seed=seed)
        assert marks.median_runs(shuffled, KEYS, "latency_ms").equals(want)


def test_median_note_says_how_many_points_stand_for_repeats():
    got = marks.median_runs(runs_frame(), KEYS, "latency_ms")
    assert marks.median_note(got.filter(got["runs"] > 1)) == (
        "3 points stand for repeated runs (up to 3 at one load): each is the median run there (the lower "
        "median: that run's own value, named in its tooltip with the number of runs)."
    )
    assert marks.median_note(got.filter(got["runs"] > 3)) == ""


def test_the_vega_bundle_is_kept_and_read_back_as_the_same_bytes(tmp_path, monkeypatch):
    monkeypatch.setenv("IOLAB_CACHE_DIR", str(tmp_path))
    made = interactive.bundle()
    (kept,) = tmp_path.glob("vega-bundle-vl-convert-*-altair-*.js")
    assert kept.read_bytes() == made.encode("utf-8")
    assert "</script" not in made.lower()

    def refuse(*a, **k):
        raise AssertionError("bundled again although a copy is kept")

    monkeypatch.setattr(interactive, "made_bundle", refuse)
    monkeypatch.setitem(sys.modules, "altair", None)  # a render reading the kept copy imports no Altair
    monkeypatch.setitem(sys.modules, "vl_convert", None)  # nor vl-convert
    assert interactive.bundle() == made


def test_no_bundle_kept_when_asked_not_to(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("IOLAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("IOLAB_BUNDLE_CACHE", "0")
    assert "vegaEmbed" in interactive.bundle()
    assert list(tmp_path.iterdir()) == []
    # vl-convert 2's bundler writes its passes ("tree-shaker; pass=1") on the standard error: made
    # by a process of its own, the bundle leaves the user's terminal as it was
    assert capfd.readouterr() == ("", "")


def test_a_bundle_vl_convert_cannot_make_says_why_in_one_line():
    with pytest.raises(RuntimeError, match=r"live charts' script: RuntimeError: Unsupported Vega-Lite version") as e:
        interactive.made_bundle("0.0")
    assert "\n" not in str(e.value)


def tree(folder) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.rglob("*.*")}


def test_generated_study_is_four_systems_of_repeated_workloads_same_bytes_each_time(tmp_path):
    a = bigstudy.generate(tmp_path / "a", runs=10, workloads=2)
    b = bigstudy.generate(tmp_path / "b", runs=10, workloads=2)
    assert tree(a) == tree(b)
    runs = sorted(p.relative_to(a).as_posix() for p in a.rglob("*.json"))
    # 10 runs: 3, 3, 2, 2 a system, the two workloads round-robin
    assert runs == [
        "alpha/randread-1-r01.json",
        "alpha/randread-1-r02.json",
        "alpha/randread-4-r01.json",
        "beta/randread-1-r01.json",
        "beta/randread-1-r02.json",
        "beta/randread-4-r01.json",
        "delta/randread-1-r01.json",
        "delta/randread-4-r01.json",
        "gamma/randread-1-r01.json",
        "gamma/randread-4-r01.json",
    ]
    doc = json.loads((a / "beta" / "randread-4-r01.json").read_text())
    assert doc["jobs"][0]["job options"]["iodepth"] == "4"
    template = json.loads(bigstudy.TEMPLATE.read_text())["jobs"][0]["read"]["iops"]
    # Beta x1.3, at iodepth 4 (the template's 8) x sqrt(4/8); +-5 % noise
    assert template * 1.3 * 0.5**0.5 * 0.95 <= doc["jobs"][0]["read"]["iops"] <= template * 1.3 * 0.5**0.5 * 1.05


@pytest.mark.slow  # a render of five pages (~20 s on a busy machine)
def test_percentile_chart_draws_the_median_run_of_repeats_and_says_so(tmp_path):
    data = bigstudy.generate(tmp_path / "data", runs=24, workloads=2)  # 3 repeats of 2 workloads a system
    dbf = tmp_path / "s.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [data])
    con.close()
    html = rendered_page(dbf, tmp_path / "out", bigstudy.STUDY, "08-latency-percentiles.html")  # the oracle passes
    (chart,), _ = charts(html, "08")
    (rows,) = chart.spec["datasets"].values()
    # 4 systems x 2 loads x 4 percentiles, one panel: one point each, standing for 3 runs
    assert len(rows) == 32 and {r["runs"] for r in rows} == {3}
    ro = db.connect(dbf, read_only=True)
    try:
        for r in rows:  # the median of the three runs' values there, one run's own
            values = sorted(
                v
                for (v,) in ro.execute(
                    "SELECT latency_ms FROM latency_percentiles WHERE study = ? AND system = ? AND load = ? "
                    "AND percentile = ? AND scope = 'all'",
                    [bigstudy.STUDY, r["system"], r["load"], r["percentile"]],
                ).fetchall()
            )
            assert len(values) == 3 and r["latency_ms"] == values[1]
    finally:
        ro.close()
    assert "32 points stand for repeated runs (up to 3 at one load): each is the median run there" in chart.caption


class Kernel:
    def __init__(self, n: int) -> None:
        self.n, self.closed = n, False


def test_kernels_started_early_are_handed_over_and_the_rest_closed(monkeypatch):
    monkeypatch.setenv("IOLAB_REPORT_WORKERS", "3")
    monkeypatch.setattr(early, "import_validation", lambda: None)
    made: list[Kernel] = []

    def start() -> Kernel:
        made.append(Kernel(len(made)))
        return made[-1]

    with early.started(start, lambda k: setattr(k, "closed", True), eager=True) as ready:
        assert ready is not None
        taken = [ready.take(), ready.take()]
    assert len(made) == 3 and all(isinstance(k, Kernel) and not k.closed for k in taken)
    assert [k.closed for k in made if k not in taken] == [True]


def test_nothing_is_started_when_the_render_will_run_no_page(monkeypatch):
    started = []
    monkeypatch.setattr(early, "import_validation", lambda: started.append("gx"))
    with early.started(lambda: started.append("kernel"), lambda k: None, eager=False) as ready:
        assert ready is None
    assert started == []


def test_a_kernel_that_fails_to_start_early_leaves_the_worker_to_start_its_own(monkeypatch):
    monkeypatch.setenv("IOLAB_REPORT_WORKERS", "1")
    monkeypatch.setattr(early, "import_validation", lambda: None)

    def start():
        raise RuntimeError("no kernel")

    with early.started(start, lambda k: None, eager=True) as ready:
        assert ready is not None and ready.take() is None


@pytest.mark.slow  # two renders (~40 s on a busy machine)
def test_a_render_uses_its_early_kernel_and_an_unchanged_one_starts_none(tmp_path, monkeypatch):
    data = bigstudy.generate(tmp_path / "data", runs=4, workloads=1)
    dbf = tmp_path / "s.duckdb"
    con = db.open_db(dbf)
    batch.ingest_paths(con, [data])
    con.close()
    monkeypatch.setenv("IOLAB_REPORT_WORKERS", "1")
    warmed, imported = [], []
    real_warmed, real_import = early.warmed, early.import_validation
    monkeypatch.setattr(early, "warmed", lambda *a: warmed.append(1) or real_warmed(*a))
    monkeypatch.setattr(early, "import_validation", lambda: imported.append(1) or real_import())
    from iolab.reports import render

    assert render.render(dbf, tmp_path / "out", force=True) == 0
    assert (warmed, imported) == ([1], [1])  # the kernel started with the snapshot rendered the pages
    pages = sorted(p.name for p in (tmp_path / "out").glob("*/*.html"))
    assert "08-latency-percentiles.html" in pages
    assert render.render(dbf, tmp_path / "out") == 0  # every page unchanged: no kernel, no import
    assert (warmed, imported) == ([1], [1])


def test_a_render_kernel_checks_each_chart_whole_and_its_parts_not_again():
    """page.render_kernel turns Altair's debug mode off (each part checked as it is made); a chart
    with a wrong part still fails, when it is drawn."""
    import subprocess
    import sys

    code = (
        "import altair as alt, pandas as pd\n"
        "from altair.utils import schemapi\n"
        "from iolab.reports import page\n"
        "before = schemapi.DEBUG_MODE\n"
        "page.render_kernel()\n"
        "x = alt.X('x:Q', scale=alt.Scale(type='no such scale'))  # made without a word\n"
        "try:\n"
        "    alt.Chart(pd.DataFrame({'x': [1]})).mark_point().encode(x=x).to_dict()\n"
        "except schemapi.SchemaValidationError:\n"
        "    print(before, schemapi.DEBUG_MODE, 'refused when drawn')\n"
    )
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=bigstudy.ROOT)
    assert got.stdout.split("\n")[-2] == "True False refused when drawn"


def test_the_largest_pages_of_the_last_render_run_first_new_ones_after_in_plan_order(tmp_path):
    from iolab.reports import plan

    where = {"s": "s", "t": "t-2"}
    for folder, nb, size in [("s", "a", 10), ("s", "b", 30), ("t-2", "a", 20)]:
        (tmp_path / folder).mkdir(exist_ok=True)
        (tmp_path / folder / f"{nb}.html").write_text("x" * size)
    jobs = [("s", "a"), ("s", "new"), ("s", "b"), ("t", "a"), ("t", "new")]
    plan.heavy_first(jobs, tmp_path, where)
    assert jobs == [("s", "b"), ("t", "a"), ("s", "a"), ("s", "new"), ("t", "new")]


def test_a_notebook_read_once_is_read_again_without_jupytext(tmp_path, monkeypatch):
    """plan.read_notebook keeps jupytext's reading under the script's bytes: the next render reads
    it without importing jupytext, the same cells, ids included; a changed script is read anew."""
    import sys

    import jupytext

    from iolab.reports import plan

    monkeypatch.setenv("IOLAB_CACHE_DIR", str(tmp_path / "cache"))
    script = tmp_path / "01-page.py"
    script.write_text((plan.NOTEBOOK_DIR / "01-overview.py").read_text())
    first = plan.read_notebook(script)
    want = jupytext.read(script)
    assert [(c.cell_type, c.source, c.metadata) for c in first.cells] == [
        (c.cell_type, c.source, c.metadata) for c in want.cells
    ]
    assert first.metadata == want.metadata
    monkeypatch.setitem(sys.modules, "jupytext", None)  # an import of jupytext now fails
    again = plan.read_notebook(script)
    assert again == first and [c.id for c in again.cells] == [c.id for c in first.cells]
    script.write_text(script.read_text() + "\n# %%\nprint('one more cell')\n")
    with pytest.raises(ImportError):
        plan.read_notebook(script)  # not read before: jupytext reads it


def test_a_page_s_cells_keep_their_ids_from_render_to_render(tmp_path, monkeypatch):
    """Same input, same bytes: nbconvert writes each cell's id into the page, and both the notebook's
    cells (plan.read_notebook) and the injected parameters' cell keep theirs from one render to the next."""
    from iolab.reports import plan, render

    monkeypatch.setenv("IOLAB_CACHE_DIR", str(tmp_path / "cache"))
    path = plan.NOTEBOOK_DIR / "02-per-drive-iops.py"
    params = {"db_path": "/x.duckdb", "study": "s"}
    ids = [[c.id for c in render.parameterize(plan.read_notebook(path), params).cells] for _ in range(2)]
    assert ids[0] == ids[1] and "injected-parameters" in ids[0] and len(set(ids[0])) == len(ids[0])


@pytest.mark.slow  # every notebook run once over five studies (~30 s on a busy machine)
def test_a_render_s_kernel_runs_every_notebook_without_pandas(tmp_path):
    """The pages hand Altair Polars frames (page.chart_values): pandas, 0.26 s of each kernel's start,
    is never imported. Every notebook is run as a render's kernel runs it (tests.bench_pages'
    page_work), with pandas made unimportable: a page that reached for it would fail here."""
    import subprocess

    from tests.conftest import ROOT
    from tests.studies import four_systems
    from tests.test_trends import fleet

    dbf = tmp_path / "all.duckdb"
    con = db.open_db(dbf)
    samples = ROOT / "data" / "samples"
    extra = [
        "criteria",
        "esxtop-perfmon-samples",
        "fio-pkb-clat-hist-2017",
        "quarch-intel-nvme-2023",
        "iomark-vm-hp4335-2014",
    ]
    batch.ingest_paths(con, [four_systems(tmp_path / "four"), fleet(tmp_path / "fleet"), *(samples / s for s in extra)])
    con.close()
    code = (
        "import json, sys\n"
        "from pathlib import Path\n"
        "sys.modules['pandas'] = None  # import pandas: ImportError\n"
        "from tests import bench_pages\n"
        f"print(json.dumps(sorted({{nb for _, nb, _, _ in bench_pages.page_work(Path({str(dbf)!r}), passes=1)}})))\n"
    )
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert got.returncode == 0, got.stderr[-2000:]
    ran = json.loads(got.stdout.strip().splitlines()[-1])
    assert ran == sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]-*.py")), ran
