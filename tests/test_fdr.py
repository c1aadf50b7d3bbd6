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
    grid = [(t, df) for df in [*range(1, 41), 57, 120, 999] for t in (0.0, 0.01, 0.5, 1.0, 2.0, 3.5, 8.0, -2.5, 40.0)]
    got = q(
        con,
        "SELECT t_p2(t, df) FROM (SELECT unnest(?::DOUBLE[]) AS t, unnest(?::INTEGER[]) AS df)",
        [[t for t, _ in grid], [df for _, df in grid]],
    )
    for (t, df), (p,) in zip(grid, got, strict=True):
        assert p == pytest.approx(p_two_sided(t, df), abs=1e-12, rel=1e-9), (t, df)
    # the 95 % table of 074_noise.sql is t(0.975, df) to three decimals: its two-sided p is 5 %
    for df, t in ((1, 12.706), (2, 4.303), (3, 3.182), (4, 2.776), (9, 2.262), (19, 2.093)):
        assert q(con, "SELECT t_p2(?, ?)", [t, df])[0][0] == pytest.approx(0.05, abs=1e-4)
    assert q(con, "SELECT t_p2(1.0, 1), t_p2(0, 7), t_p2(NULL, 3), t_p2(2.0, 0)") == [(0.5, 1.0, None, None)]


def welch_p(diff: float, vb: float, nb: int, vs: int, ns: int) -> float:
    if vb + vs == 0:
        return 1.0 if diff == 0 else 0.0
    df = math.floor((vb + vs) ** 2 / (vb * vb / (nb - 1) + vs * vs / (ns - 1)))
    return p_two_sided(diff / math.sqrt(vb + vs), df)


def test_comparison_fdr_is_benjamini_hochberg(con, tmp_path):
    """Five systems against one baseline at every point of a real Iometer sweep (5 % noise): the p-value
    of every verdict is the Welch t test's, fdr_q is BH over the study's verdicts with an interval,
    and verdict_fdr keeps a 'better'/'worse' only where fdr_q < 0.05."""
    systems = {
        "Base": factors(1.0, 5, seed=1),
        "Close": factors(1.01, 5, seed=2),
        "Edge": factors(1.06, 4, seed=8),  # better at p = 0.015, not after BH
        "Far": factors(1.5, 5, seed=3),
        "Once": [1.5],
    }
    ingest(con, noisy_study(tmp_path / "data", systems))
    rows = q(
        con,
        """SELECT direction, value, baseline_value, correction, sd, sd_baseline, n, n_baseline, verdict,
                  p_value, fdr_family, fdr_q, verdict_fdr
           FROM comparison_fdr WHERE study = 'noise' ORDER BY ALL""",
    )
    assert len(rows) == q(con, "SELECT count(*) FROM comparison WHERE study = 'noise'")[0][0]
    fam = [r for r in rows if r[0] is not None and r[6] >= 2 and r[7] >= 2]
    assert all(r[9] is None and r[11] is None for r in rows if r not in fam)
    ps = []
    for d, v, b, k, sd, sdb, n, nb, *_ in fam:
        bm, bsd = (b * k, sdb * k) if d == "higher" else (b / k, sdb / k)
        diff = v - bm if d == "higher" else bm - v
        ps.append(welch_p(diff, bsd * bsd / nb, nb, sd * sd / n, n))
    assert [r[9] for r in fam] == pytest.approx(ps, abs=1e-12)
    assert {r[10] for r in fam} == {len(fam)}
    qs = bh([r[9] for r in fam])  # the view's own p-values: the adjustment alone is under test here
    assert [r[11] for r in fam] == pytest.approx(qs, abs=1e-12)
    for r, qv in zip(fam, qs, strict=True):
        kept = r[8] in ("better", "worse") and qv < 0.05
        assert r[12] == (r[8] if kept or r[8] not in ("better", "worse") else "within noise")
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
    rows = q(
        con,
        """SELECT direction, previous_value, value, previous_sd, sd, previous_n, n, verdict, p_value, fdr_q,
                  verdict_fdr, fdr_family
           FROM trends WHERE study = 'fleet' ORDER BY ALL""",
    )
    fam = [r for r in rows if r[8] is not None]
    assert {r[11] for r in rows} == {len(fam)} and len(fam) > 100
    ps = [
        welch_p(v - pv if d == "higher" else pv - v, psd * psd / pn, pn, sd * sd / n, n)
        for d, pv, v, psd, sd, pn, n, *_ in fam
    ]
    assert [r[8] for r in fam] == pytest.approx(ps, abs=1e-12)
    assert [r[9] for r in fam] == pytest.approx(bh([r[8] for r in fam]), abs=1e-12)
    assert {r[10] for r in fam if r[7] == "worse"} <= {"worse", "within noise"}
