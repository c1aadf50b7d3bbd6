"""Comparisons that know their noise: repeats of known spread, built from a real Iometer file.

Every repeat is tests/corpus/iometer/sqlserverio__iometeroutput.csv with its IO/s and MB/s cells
x f and its response times x 1/f, f drawn with a fixed seed around a known mean with a known
relative spread (the file names say "scaled"). Because one factor scales a whole file, every
point of a system has the same relative noise, so the verdict must be the same at every point.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.conftest import corpus, ingest, q
from tests.test_comparison import scaled_iometer

SPREAD = 0.05  # relative run-to-run standard deviation of every system
# the metrics scaled_iometer scales (CPU figures, for one, are the same in every repeat)
SCALED = "('iops', 'mbps', 'avg_latency_ms', 'max_latency_ms')"


def factors(mean: float, n: int, seed: int) -> list[float]:
    rng = random.Random(seed)
    return [mean * (1 + rng.gauss(0, SPREAD)) for _ in range(n)]


def noisy_study(root: Path, systems: dict[str, list[float]]) -> Path:
    study = root / "noise"
    src = corpus("iometer/sqlserverio__iometeroutput.csv")
    for system, fs in systems.items():
        folder = study / system.replace(" ", "_")
        folder.mkdir(parents=True)
        (folder / "iolab.toml").write_text(f'system = "{system}"\n')
        for i, f in enumerate(fs):
            name = f"scaled-x{f:.6f}-run{i}-sqlserverio__iometeroutput.csv"
            (folder / name).write_text(scaled_iometer(src, f, 1 / f))
    (study / "iolab.toml").write_text('study = "noise"\nbaseline = "Base"\n')
    return study


def verdicts(con, system: str) -> list[tuple]:
    return q(
        con,
        f"""SELECT DISTINCT verdict, n_baseline, n FROM comparison
            WHERE system = '{system}' AND metric IN {SCALED} AND baseline_value > 0 ORDER BY 1""",
    )


def test_noise_decides_the_verdict(con, tmp_path):
    systems = {
        "Base": factors(1.0, 5, seed=1),
        "Close": factors(1.01, 5, seed=2),  # 1 % apart, 5 % noise
        "Far": factors(1.5, 5, seed=3),  # 50 % apart, 5 % noise
        "Slow": factors(0.6, 4, seed=4),
        "Once": [1.5],
    }
    ingest(con, noisy_study(tmp_path / "data", systems))
    assert verdicts(con, "Close") == [("within noise", 5, 5)]
    assert verdicts(con, "Far") == [("better", 5, 5)]
    assert verdicts(con, "Slow") == [("worse", 5, 4)]
    # one run on a side: never a claim, and no interval
    assert verdicts(con, "Once") == [("single run", 5, 1)]
    assert q(con, "SELECT count(*) FROM comparison WHERE system = 'Once' AND ci95_low_pct IS NOT NULL") == [(0,)]
    # the interval is centred on pct_better and holds it
    off = q(
        con,
        f"""SELECT max(abs((ci95_low_pct + ci95_high_pct) / 2 - pct_better)), min(ci95_high_pct - ci95_low_pct)
           FROM comparison WHERE system = 'Far' AND metric IN {SCALED} AND baseline_value > 0""",
    )[0]
    assert off[0] < 1e-6 and off[1] > 0


def test_interval_matches_welch_by_hand(con, tmp_path):
    """Two runs a side: the fractional Welch-Satterthwaite df and t(0.975, df) of the t distribution, as
    scipy gives them (the table of three decimals, with the df rounded down, is gone)."""
    from scipy import stats

    ingest(con, noisy_study(tmp_path / "data", {"Base": [1.0, 1.1], "Other": [1.2, 1.4]}))
    row = q(
        con,
        """SELECT baseline_value, value, sd_baseline, sd, ci95_low_pct, ci95_high_pct FROM comparison
           WHERE system = 'Other' AND metric = 'iops' ORDER BY load LIMIT 1""",
    )[0]
    b, v, sb, sv, lo, hi = row
    vb, vs = sb * sb / 2, sv * sv / 2
    df = (vb + vs) ** 2 / (vb * vb + vs * vs)  # n - 1 = 1 on each side
    assert 1 < df < 2  # rounded down, it was 1: t 12.706 where the t distribution says 7.9 here
    half = stats.t.ppf(0.975, df) * (vb + vs) ** 0.5 / b * 100
    assert lo == pytest.approx((v - b) / b * 100 - half, rel=1e-9)
    assert hi == pytest.approx((v - b) / b * 100 + half, rel=1e-9)


def test_compare_prints_interval_and_verdict(tmp_path, capsys):
    from iolab import cli

    data = noisy_study(tmp_path / "data", {"Base": factors(1.0, 3, 1), "Close": factors(1.01, 3, 2)})
    f = tmp_path / "t.duckdb"
    assert cli.main(["ingest", "-q", str(data), "--db", str(f)]) == 0
    capsys.readouterr()
    assert cli.main(["compare", "--db", str(f), "--study", "noise", "--metric", "iops", "--all"]) == 0
    out = capsys.readouterr().out
    assert "within noise" in out and "95 % CI" in out and "verdicts" in out
    said = "\n".join(line for line in out.splitlines() if not line.startswith("system "))  # not the headings
    assert "better" not in said.replace("% better", "").replace("is better", "").replace("better or worse", "")
    assert "0 are, at 0 findings" in " ".join(out.split())  # what noise alone would claim, and none is
    assert cli.main(["compare", "--db", str(f), "--study", "noise", "--metric", "iops", "--format", "csv"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert head.endswith("n_baseline,n,ci95_low_pct,ci95_high_pct,verdict,p_value,fdr_q,verdict_fdr,repeats_metric")
