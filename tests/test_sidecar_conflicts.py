"""No silent choices in sidecars: a study-wide key set to different values by two sidecars of one
study is refused with both files and lines (and no view uses either value); an sla is read once,
any case, by ingest/sla_bound.py, for the sidecar check, the view and --sla alike; an order that
names an entry twice is refused."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from iolab.sla_bound import parse
from tests.conftest import corpus, ingest, q
from tests.test_comparison import scaled_iometer
from tests.test_sla_headline import sla_study

IOMETER = "iometer/sqlserverio__iometeroutput.csv"


def two_sidecars(root: Path, top: str, sub: str) -> Path:
    """Study 's': SysA's run in s/a (its own sidecar ``sub``), SysB's in s/b; ``top`` in s/iolab.toml."""
    study = root / "s"
    for folder, system in (("a", "SysA"), ("b", "SysB")):
        (study / folder).mkdir(parents=True)
        k = 1.0 if folder == "a" else 1.5  # two runs, not two copies of one (a copy counts once)
        (study / folder / f"scaled-x{k}-{folder}.csv").write_text(scaled_iometer(corpus(IOMETER), k, 1 / k))
        (study / folder / "iolab.toml").write_text(
            f'system = "{system}"\nfirmware = "1.0"\n' + (sub if folder == "a" else "")
        )
    (study / "iolab.toml").write_text('study = "s"\ngeneration = "G1"\n' + top)
    return study


CONFLICTS = [
    ("baseline", 'baseline = "SysB"\n', 'baseline = "SysA"\n', '"SysB"', '"SysA"'),
    ("sla", 'sla = "p99<=2ms"\n', 'sla = "P99<=10MS"\n', '"p99<=2ms"', '"P99<=10MS"'),
    (
        "firmware_order",
        'firmware_order = ["1.0", "2.0"]\n',
        'firmware_order = ["2.0", "1.0"]\n',
        '["1.0","2.0"]',
        '["2.0","1.0"]',
    ),
    (
        "generation_order",
        'generation_order = ["G1", "G2"]\n',
        'generation_order = ["G2", "G1"]\n',
        '["G1","G2"]',
        '["G2","G1"]',
    ),
    ("corrections", 'corrections = ["x"]\n', 'corrections = ["y"]\n', '["x"]', '["y"]'),
]


@pytest.mark.parametrize("key, top, sub, top_said, sub_said", CONFLICTS, ids=[c[0] for c in CONFLICTS])
def test_a_study_wide_key_set_twice_is_refused_naming_both_sidecars(con, tmp_path, key, top, sub, top_said, sub_said):
    study = two_sidecars(tmp_path / "data", top, sub)
    rep = ingest(con, tmp_path / "data")
    assert rep.failed
    (bad,) = [o for o in rep.outcomes if f"set {key} to 2 different values" in (o.reason or "")]
    assert bad.status == "rejected"
    # both files, each with the line that sets the key (line 3 of the top sidecar, line 3 of a/iolab.toml)
    assert f"{study / 'iolab.toml'}, line 3 says {key} = {top_said}" in bad.reason
    assert f"{study / 'a' / 'iolab.toml'}, line 3 says {key} = {sub_said}" in bad.reason
    assert "set it once, in the study's top iolab.toml" in bad.reason
    assert q(con, 'SELECT key, "values" FROM study_conflicts') == [(key, 2)]
    # no view picks one of them
    assert q(con, "SELECT count(*) FROM sla_bounds") == [(0,)]
    assert q(con, "SELECT count(*) FROM firmware_order") == [(0,)]
    if key == "baseline":
        ((system, source),) = q(con, "SELECT baseline_system, baseline_source FROM study_baseline")
        assert system is None and source.startswith("refused: the sidecars of this study name 2 different baselines")
        assert q(con, "SELECT count(*) FROM comparison") == [(0,)]
    if key == "sla":
        ((metric, source),) = q(con, "SELECT metric, sla_source FROM sla_declared")
        assert metric is None and source.startswith("refused: the sidecars of this study state different bounds")
    if key == "corrections":
        assert q(con, "SELECT correction, correction_source FROM study_corrections") == [
            (
                None,
                'refused: the sidecars of this study declare different corrections (["x"] / ["y"]); none is '
                "applied until one is declared once",
            )
        ]


def test_a_key_set_twice_to_the_same_value_is_no_conflict(con, tmp_path):
    """The same bound written twice, in two forms (the same milliseconds), and one baseline said twice."""
    two_sidecars(
        tmp_path / "data", 'sla = "p99<=1ms"\nbaseline = "SysB"\n', 'sla = "P99 <= 1000US"\nbaseline = "SysB"\n'
    )
    rep = ingest(con, tmp_path / "data")
    assert not rep.failed, [o.reason for o in rep.outcomes if o.reason]
    assert q(con, "SELECT count(*) FROM study_conflicts") == [(0,)]
    assert q(con, "SELECT metric, strict, bound_ms FROM sla_bounds") == [("p99_latency_ms", False, 1.0)]
    assert q(con, "SELECT baseline_system FROM study_baseline") == [("SysB",)]


def test_the_compare_command_refuses_a_conflicting_baseline(tmp_path, capsys):
    from iolab import cli

    two_sidecars(tmp_path / "data", 'baseline = "SysB"\n', 'baseline = "SysA"\n')
    f = tmp_path / "t.duckdb"
    assert cli.main(["ingest", "-q", str(tmp_path / "data"), "--db", str(f)]) == 1
    capsys.readouterr()
    assert cli.main(["compare", "--db", str(f), "--study", "s"]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert "Nothing to compare against" in err and "set baseline to 2 different values" in err


@pytest.mark.parametrize("key", ["firmware_order", "generation_order"])
def test_an_order_naming_an_entry_twice_is_refused(con, tmp_path, key):
    study = tmp_path / "data" / "s"
    study.mkdir(parents=True)
    shutil.copy(corpus(IOMETER), study / "r.csv")
    (study / "iolab.toml").write_text(f'system = "A"\n{key} = ["1.0", "2.0", "1.0"]\n')
    (bad,) = ingest(con, tmp_path / "data").outcomes
    assert bad.status == "unreadable"
    assert f"{study / 'iolab.toml'}, line 2: {key} lists '1.0' at positions 1, 3" in bad.reason


@pytest.mark.parametrize(
    "text, metric, strict, bound_ms",
    [
        ("p99<=1ms", "p99_latency_ms", False, 1.0),
        ("P99<=1MS", "p99_latency_ms", False, 1.0),
        (" Mean < 250 us ", "avg_latency_ms", True, 0.25),
        ("p99.90<=2s", "p99_9_latency_ms", False, 2000.0),
        ("p99.999<=5ms", "p99_999_latency_ms", False, 5.0),
        ("p100<=50ms", "max_latency_ms", False, 50.0),
        ("p0<=0.1ms", "min_latency_ms", False, 0.1),
    ],
)
def test_a_bound_is_read_once_in_any_case(text, metric, strict, bound_ms):
    b = parse(text)
    assert (b.metric, b.strict, b.bound_ms, b.sla) == (metric, strict, bound_ms, text)


@pytest.mark.parametrize(
    "text, why",
    [
        ("p12<=1ms", "no tool iolab reads reports the p12 latency; the percentiles it holds are p1, p25, p50"),
        ("p101<=1ms", "a percentile is between p0 and p100"),
        ("maen<=1ms", "did you mean 'mean'?"),
        ("p99<=0ms", "a latency bound is above 0"),
        ("p99 under 1ms", "is not a latency bound"),
    ],
)
def test_a_bound_that_is_none_is_refused_with_the_reason(text, why):
    with pytest.raises(ValueError, match=None) as e:
        parse(text)
    assert why in str(e.value)


def test_an_upper_case_sidecar_bound_gives_the_headline(con, tmp_path):
    """sla = "MEAN<=5MS" (the view once read the text case-sensitively: an empty headline without a word)."""
    ingest(con, sla_study(tmp_path / "data", "MEAN<=5MS"))
    assert q(con, "SELECT metric, bound_ms FROM sla_bounds") == [("avg_latency_ms", 5.0)]
    assert q(con, "SELECT count(*) FROM sla_headline WHERE sla_load IS NOT NULL") != [(0,)]


def test_compare_sla_computes_or_refuses_every_statistic(tmp_path, capsys):
    """--sla takes exactly what the view computes: p100 is the maximum (Iometer's Maximum Response Time);
    p0 (the minimum) and p99.999 are statistics iolab knows that this study has none of: refused
    with the latencies it has (exit 2, as a --metric the study does not state), never an empty table
    with exit 0; p12 no tool reports (exit 2)."""
    from iolab import cli

    f = tmp_path / "t.duckdb"
    assert cli.main(["ingest", "-q", str(sla_study(tmp_path / "data", None)), "--db", str(f)]) == 0
    capsys.readouterr()
    base = ["compare", "--db", str(f), "--study", "sla", "--format", "csv", "--sla"]
    assert cli.main([*base, "p100<=100ms"]) == 0
    assert {ln.split(",")[5] for ln in capsys.readouterr().out.splitlines()[1:]} == {"max_latency_ms"}
    for stat, metric in (("p0", "min_latency_ms"), ("p99.999", "p99_999_latency_ms")):
        assert cli.main([*base, f"{stat}<=1ms"]) == 2
        err = " ".join(capsys.readouterr().err.split())
        assert (
            f"No curve of study sla reports {metric}" in err
            and "Its latency metrics: " in err
            and "avg_latency_ms, " in err
        )
    assert cli.main([*base, "p12<=1ms"]) == 2
    assert "the percentiles it holds are p1, p25" in " ".join(capsys.readouterr().err.split())
