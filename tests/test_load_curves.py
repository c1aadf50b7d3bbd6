"""Scaling curves and the SLA headline where a study runs a load two ways (view load_curves).

fio-plot sweeps run 16 I/Os in flight as iodepth 16 x 1 job and as iodepth 1 x 16 jobs. A curve by
load alone took the best of the two splits at each load, so its IOPS could come from one run and its
latency from another; the SLA headline, on the comparison's points (one per split since 4cecfe4),
paired every split's latency with every split's IOPS and gave a curve four headlines.

The study, from real files (louwrentius/fio-plot, Intel D3-S4610, 4 KiB random reads):
  "D3": the iodepth sweep randread-<1..64>-1.json (data/samples) and randread-1-16.json and
        randread-16-4.json (tests/corpus/fio-json): the load run both ways;
  "Faster": the iodepth sweep alone, every "iops" written 1.25x (a hand-made change of the real
        files: the same bytes in two systems would count once).
Expected values are the files' own "iops" and clat means (ns / 1e6).
"""

from __future__ import annotations

import json
import shutil

import pytest

from iolab.reports import oracle
from tests.conftest import ROOT, corpus, ingest, q, rendered_page, set_fio_iops

SWEEP = ROOT / "data" / "samples" / "fio-intel-d3-s4610-qd-sweep"
WL = "4 KiB random read"
# (queue depth, workers) -> ("iops", clat mean in ms) of the real files
RUN = {
    (16, 1): (50151.214146, 0.317810642655),
    (1, 16): (49355.421486, 0.31962534710999996),
    (64, 1): (44733.69221, 1.4294162626009999),
    (16, 4): (34589.587187, 1.848464427204),
}


@pytest.fixture
def study(con, tmp_path):
    root = tmp_path / "data" / "splits"
    for system in ("D3", "Faster"):
        (root / system).mkdir(parents=True)
        (root / system / "iolab.toml").write_text(f'system = "{system}"\n')
    for f in SWEEP.glob("randread-*.json"):
        shutil.copy(f, root / "D3" / f.name)
        doc = json.loads(f.read_text())
        for job in doc["jobs"]:
            set_fio_iops(job["read"], job["read"]["iops"] * 1.25)
        (root / "Faster" / f.name).write_text(json.dumps(doc))
    for n in ("1-16", "16-4"):
        shutil.copy(corpus(f"fio-json/louwrentius__fio-plot__fio31_d3s4610_randread-{n}.json"), root / "D3")
    (root / "iolab.toml").write_text('study = "splits"\nbaseline = "D3"\nsla = "mean<=0.5ms"\n')
    assert {o.status for o in ingest(con, tmp_path / "data").outcomes} == {"ingested"}
    return con, tmp_path


def test_each_split_is_on_the_curves_it_shares(study):
    con, _ = study
    curves = q(
        con,
        """SELECT system, curve, list(queue_depth || ' x ' || workers ORDER BY queue_depth * workers, queue_depth)
           FROM load_curves WHERE study = 'splits' GROUP BY ALL ORDER BY ALL""",
    )
    sweep = [f"{d} x 1" for d in (1, 2, 4, 8, 16, 32, 64)]
    assert curves == [
        ("D3", "1 worker", sweep),
        ("D3", "QD 1", ["1 x 1", "1 x 16"]),
        ("D3", "QD 16", ["16 x 1", "16 x 4"]),
        ("Faster", "1 worker", sweep),  # one way only, but its panel is the study's: the same label
    ]


def test_a_curve_point_is_one_run_never_the_best_of_two_splits(study):
    con, _ = study
    pts = {
        (w, m, ld): v
        for w, m, ld, v in q(
            con,
            """SELECT workload, metric, load, value FROM scaling
               WHERE study = 'splits' AND system = 'D3' AND metric IN ('iops', 'avg_latency_ms')""",
        )
    }
    assert {w for w, _, _ in pts} == {f"{WL}, 1 worker", f"{WL}, QD 1", f"{WL}, QD 16"}
    for curve, load, split in (
        ("1 worker", 16, (16, 1)),
        ("1 worker", 64, (64, 1)),
        ("QD 1", 16, (1, 16)),
        ("QD 16", 16, (16, 1)),
        ("QD 16", 64, (16, 4)),  # before: 64 x 1's 44,733 IO/s, the best at 64 in flight
    ):
        iops, lat = RUN[split]
        assert pts[(f"{WL}, {curve}", "iops", load)] == pytest.approx(iops)
        assert pts[(f"{WL}, {curve}", "avg_latency_ms", load)] == pytest.approx(lat)
    # the hockey stick's IOPS and latency at every point are one run's own
    runs = set(
        q(
            con,
            """SELECT i.system, round(i.value, 6), round(l.value, 9) FROM measurements i JOIN measurements l
               USING (run_id) WHERE i.study = 'splits' AND i.scope = 'all' AND l.scope = 'all' AND i.target IS NULL
               AND l.target IS NULL AND i.metric = 'iops' AND l.metric = 'avg_read_latency_ms'""",
        )
    )
    stick = q(
        con, "SELECT system, round(iops, 6), round(latency_ms, 9) FROM scaling_hockey_stick WHERE study = 'splits'"
    )
    assert len(stick) == 7 + 2 + 2 + 7 and set(stick) <= runs


def test_one_sla_headline_per_curve_from_one_split_at_each_load(study):
    con, _ = study
    rows = q(
        con,
        """SELECT workload_label, points, hold_load, hold_latency_ms, hold_iops, fail_load, fail_iops FROM sla_headline
           WHERE study = 'splits' AND system = 'D3' ORDER BY workload_label""",
    )
    assert [r[:3] for r in rows] == [(f"{WL}, 1 worker", 7, 16), (f"{WL}, QD 1", 2, 16), (f"{WL}, QD 16", 2, 16)]
    one, qd1, qd16 = rows
    assert one[3:5] == pytest.approx(RUN[(16, 1)][::-1]) and one[5:] == (32, pytest.approx(47192.763454))
    assert qd1[3:5] == pytest.approx(RUN[(1, 16)][::-1]) and qd1[5:] == (None, None)  # holds at every load
    assert qd16[3:5] == pytest.approx(RUN[(16, 1)][::-1]) and qd16[5:] == (64, pytest.approx(RUN[(16, 4)][0]))


def test_the_scaling_page_draws_every_curve_of_every_system(study):
    con, tmp_path = study
    dbf = tmp_path / "t.duckdb"  # the con fixture's database
    con.close()  # the render opens it read-only
    raw = rendered_page(dbf, tmp_path / "out", "splits", "03-scaling-curves.html")
    charts, _ = oracle.charts(raw)
    iops = next(c for c in charts if c.title.startswith("IO/s") and "outstanding" in c.title)
    drawn = {(r["system"], r["workload"]) for r in oracle.drawn(iops)}
    assert drawn == {
        ("D3", f"{WL}, 1 worker"),
        ("D3", f"{WL}, QD 1"),
        ("D3", f"{WL}, QD 16"),
        ("Faster", f"{WL}, 1 worker"),
    }
