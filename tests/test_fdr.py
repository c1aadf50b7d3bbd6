"""Many verdicts at once: the Welch p-value of each verdict (macro t_p2, 073_t_test.sql) and the
Benjamini-Hochberg adjusted verdict of the comparison (view comparison_fdr) and the trends (view
trends), each checked against an independent computation in plain Python: the p-value from the
regularized incomplete beta function (a continued fraction), the adjustment from its definition."""

from __future__ import annotations

import math

import pytest

from tests.conftest import ingest, q
from tests.test_comparison_noise import factors, noisy_study
from tests.test_trends import fleet


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta I_x(a, b), by Lentz's continued fraction."""
    if x <= 0 or x >= 1:
        return 0.0 if x <= 0 else 1.0
    if x > (a + 1) / (a + b + 2):
        return 1 - betainc(b, a, 1 - x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x)) / a
    tiny, f, c, d = 1e-300, 1.0, 1.0, 0.0
    for i in range(10_000):
        m = i // 2
        if i == 0:
            num = 1.0
        elif i % 2 == 0:
            num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        else:
            num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        d = 1 + num * d
        d = tiny if abs(d) < tiny else d
        d = 1 / d
        c = 1 + num / c
        c = tiny if abs(c) < tiny else c
        f *= c * d
        if abs(1 - c * d) < 1e-16:
            return front * (f - 1)
    raise AssertionError("no convergence")


def p_two_sided(t: float, df: int) -> float:
    return betainc(df / 2, 0.5, df / (df + t * t))


def bh(ps: list[float]) -> list[float]:
    """Benjamini-Hochberg adjusted p-values, from the definition: min over k >= rank of p_(k) m / k."""
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    out = [0.0] * m
    for r, i in enumerate(order, 1):
        out[i] = min(1.0, min(ps[j] * m / k for k, j in enumerate(order, 1) if k >= r))
    return out


def test_t_p2_is_the_t_distribution(con):
    """Against an independent reading: the regularized incomplete beta by Lentz's continued fraction (the
    SQL evaluates its own fraction backwards from a fixed depth, with its own front); scipy's agreement is
    tests/test_t_distribution.py's."""
    dfs = [*range(1, 41), 57, 120, 999, 1.5, 2.25, 7.9, 33.3, 4321.5]
    grid = [(t, df) for df in dfs for t in (0.0, 0.01, 0.5, 1.0, 2.0, 3.5, 8.0, -2.5, 40.0)]
    got = q(
        con,
        "SELECT t_p2(t, df) FROM (SELECT unnest(?::DOUBLE[]) AS t, unnest(?::DOUBLE[]) AS df, "
        "generate_subscripts(?::DOUBLE[], 1) AS i) ORDER BY i",
        [[t for t, _ in grid], [df for _, df in grid], [df for _, df in grid]],
    )
    for (t, df), (p,) in zip(grid, got, strict=True):
        assert p == pytest.approx(p_two_sided(t, df), abs=1e-300, rel=1e-9), (t, df)
    # t975 is the t whose two-sided tail is 5 %
    for df in (1, 1.5, 2, 3, 4, 9, 19, 2.7182818):
        assert q(con, "SELECT t_p2(t975(?), ?)", [df, df])[0][0] == pytest.approx(0.05, rel=1e-12)
    assert q(con, "SELECT t_p2(0, 7), t_p2(NULL, 3), t_p2(2.0, 0)") == [(1.0, None, None)]


def welch_p(diff: float, vb: float, nb: int, vs: float, ns: int) -> float | None:
    """Welch's test as scipy's: the fractional df; no p-value where neither side varies."""
    if vb + vs == 0:
        return None
    df = (vb + vs) ** 2 / (vb * vb / (nb - 1) + vs * vs / (ns - 1))
    return p_two_sided(diff / math.sqrt(vb + vs), df)


def family(rows: list[dict], numbers: tuple[str, ...]) -> tuple[list[dict], dict[int, dict]]:
    """The rows that are hypotheses of the family (a p-value, first at their finding and numbers), and for
    each row the hypothesis it is (itself, or the row whose numbers it repeats)."""
    first: dict[tuple, dict] = {}
    of: dict[int, dict] = {}
    for r in sorted(rows, key=lambda r: (r["scope"] != "all", r["scope"], r["metric"])):
        key = (r["finding"], r["direction"], *(r[c] for c in numbers))
        of[id(r)] = first.setdefault(key, r)
    return [r for r in rows if of[id(r)] is r and r["p_value"] is not None], of


def named(con, sql: str) -> list[dict]:
    cur = con.execute(sql)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def test_comparison_fdr_is_benjamini_hochberg(con, tmp_path):
    """Five systems against one baseline at every point of a real Iometer sweep (5 % noise): the p-value
    of every verdict is the Welch t test's, fdr_q is BH over the study's distinct hypotheses with a
    p-value (a metric that repeats another's numbers at a point counts once and shares its q), and
    verdict_fdr keeps a 'better'/'worse' only where fdr_q < 0.05."""
    systems = {
        "Base": factors(1.0, 5, seed=1),
        "Close": factors(1.01, 5, seed=2),
        "Edge": factors(1.06, 4, seed=18),  # better at p = 0.041 and 0.045 (IO/s, latency), not after BH
        "Far": factors(1.5, 5, seed=3),
        "Once": [1.5],
    }
    ingest(con, noisy_study(tmp_path / "data", systems))
    rows = named(con, "SELECT * FROM comparison_fdr WHERE study = 'noise' ORDER BY ALL")
    assert len(rows) == q(con, "SELECT count(*) FROM comparison WHERE study = 'noise'")[0][0]
    tested = [r for r in rows if r["direction"] is not None and r["n"] >= 2 and r["n_baseline"] >= 2]
    assert all(r["p_value"] is None and r["fdr_q"] is None for r in rows if r not in tested)
    for r in tested:
        d, k = r["direction"], r["correction"]
        b, sdb = (
            (r["baseline_value"] * k, r["sd_baseline"] * k)
            if d == "higher"
            else (r["baseline_value"] / k, r["sd_baseline"] / k)
        )
        diff = r["value"] - b if d == "higher" else b - r["value"]
        want = welch_p(diff, sdb * sdb / r["n_baseline"], r["n_baseline"], r["sd"] ** 2 / r["n"], r["n"])
        assert r["p_value"] == (None if want is None else pytest.approx(want, abs=1e-300, rel=1e-9))
    # CPU figures are the same in every repeat: no noise, no p-value
    assert {r["p_value"] for r in tested if r["sd"] == 0 and r["sd_baseline"] == 0} == {None}
    fam, of = family(rows, ("baseline_value", "value", "sd_baseline", "sd", "n_baseline", "n", "correction"))
    repeats = [r for r in tested if of[id(r)] is not r]
    assert repeats and all(r["repeats_metric"] for r in repeats)
    assert {r["fdr_family"] for r in rows} == {len(fam)} and len(fam) < len([r for r in tested if r["p_value"]])
    qs = bh([r["p_value"] for r in fam])  # the view's own p-values: the adjustment alone is under test here
    assert [r["fdr_q"] for r in fam] == pytest.approx(qs, abs=1e-12)
    assert all(r["fdr_q"] == of[id(r)]["fdr_q"] for r in repeats)
    for r in rows:
        kept = r["verdict"] in ("better", "worse") and r["fdr_q"] is not None and r["fdr_q"] < 0.05
        assert r["verdict_fdr"] == (
            r["verdict"] if kept or r["verdict"] not in ("better", "worse") or r["fdr_q"] is None else "within noise"
        )
    by_system = q(
        con,
        """SELECT system, verdict, verdict_fdr, count(*) FROM comparison_fdr
           WHERE metric IN ('iops', 'mbps') GROUP BY ALL ORDER BY ALL""",
    )
    assert by_system == [
        ("Close", "within noise", "within noise", 128),
        ("Edge", "better", "within noise", 128),
        ("Far", "better", "better", 128),
        ("Once", "single run", "single run", 128),
    ]


def test_trends_fdr_is_benjamini_hochberg(con, tmp_path):
    ingest(con, fleet(tmp_path / "data"))
    rows = named(con, "SELECT * FROM trends WHERE study = 'fleet' ORDER BY ALL")
    tested = [r for r in rows if r["p_value"] is not None]
    fam, of = family(rows, ("previous_value", "value", "previous_sd", "sd", "previous_n", "n"))
    assert {r["fdr_family"] for r in rows} == {len(fam)} and len(fam) > 100
    for r in tested:
        d = r["direction"]
        diff = r["value"] - r["previous_value"] if d == "higher" else r["previous_value"] - r["value"]
        vp, vn = r["previous_sd"] ** 2 / r["previous_n"], r["sd"] ** 2 / r["n"]
        assert r["p_value"] == pytest.approx(welch_p(diff, vp, r["previous_n"], vn, r["n"]), abs=1e-300, rel=1e-9)
    assert [r["fdr_q"] for r in fam] == pytest.approx(bh([r["p_value"] for r in fam]), abs=1e-12)
    assert all(r["fdr_q"] == of[id(r)]["fdr_q"] for r in tested)
    assert {r["verdict_fdr"] for r in rows if r["verdict"] == "worse"} <= {"worse", "within noise"}
