"""The binary chance test at any cell variance: the exact two-sided hypergeometric mid-p, where a
variance above 100 took the normal tail (n = 1e9, 182 true positives of 10,050 real and 10.1e6
predicted: 9.7e-16 where the mid-p is 2.35e-13). Against tests/reference/hypergeom_mp.py (mpmath,
each tail summed term by term) within 1e-9 relative wherever p ≥ 1e-300 (2e-11 measured on a grid
of 553 tables, n = 10 … 1e9), and against scipy.stats.hypergeom where its own digits hold."""

from __future__ import annotations

import math

import numpy as np
import pytest

from batcheval.measures import compute
from tests.reference import chance as ref
from tests.reference.hypergeom_mp import midp

REL = 1e-9


def _table(n: int, rp: int, pp: int, tp: int) -> list[list[int]]:
    return [[n - rp - pp + tp, pp - tp], [rp - tp, tp]]


def _grid() -> list[tuple[int, int, int, int]]:
    """Balanced, skewed and rare margins at n = 10 … 1e9, the cell from the mean out to p ≈ 1e-300."""
    rows = set()
    for n, zs in [(10, (0, 1, 3)), (1000, (0, 0.5, 2, -4, 9)), (10**5, (0, 0.3, -1, 3, -8, 20)),
                  (10**7, (0.2, -2, 6, -15, 36.5)), (10**9, (0.7, -5, 25))]:  # fmt: skip
        for fr, fp in [(0.5, 0.5), (0.01, 1 / 3), (0.3, 0.7), (0.001, 0.5)]:
            rp, pp = max(1, int(n * fr)), max(1, int(n * fp))
            mean = rp * pp / n
            sd = math.sqrt(rp * (n - rp) * pp * (n - pp) / (n * n * (n - 1)))
            lo, hi = max(0, pp - (n - rp)), min(rp, pp)
            for z in zs:
                rows.add((n, rp, pp, int(min(hi, max(lo, round(mean + z * sd))))))
    return sorted(rows)


def test_the_reported_tables_get_the_exact_mid_p():
    cases = [(10**9, 10050, 10_100_000, 182), (10**5, 1050, 11000, 155)]
    got = compute(np.array([_table(*c) for c in cases]), ["p_informedness", "p_markedness"])
    for g, (n, rp, pp, tp) in enumerate(cases):
        want = midp(tp, n, rp, pp)
        assert got["p_informedness"][g] == pytest.approx(want, rel=REL)
        assert got["p_markedness"][g] == got["p_informedness"][g]
    # no mid-p is below half the observed table's own probability
    half = 0.5 * math.exp(
        sum(math.lgamma(v + 1) for v in (10050, 10**9 - 10050, 10_100_000, 10**9 - 10_100_000))
        - math.lgamma(10**9 + 1)
        - sum(math.lgamma(v + 1) for row in _table(*cases[0]) for v in row)
    )
    assert got["p_informedness"][0] > half
    assert got["p_informedness"][0] == pytest.approx(2.35e-13, rel=1e-3)


def test_a_grid_of_margins_and_sizes_is_the_mpmath_mid_p_down_to_1e_300():
    rows = _grid()
    got = compute(np.array([_table(*r) for r in rows], dtype=np.int64), ["p_informedness"])["p_informedness"]
    smallest = 1.0
    for g, (n, rp, pp, tp) in enumerate(rows):
        want = midp(tp, n, rp, pp, dps=30)
        if want < 1e-300:
            continue
        smallest = min(smallest, want)
        assert got[g] == pytest.approx(want, rel=REL), (n, rp, pp, tp)
    assert smallest < 1e-280  # the grid reaches the far tail


def test_moderate_tables_are_the_mid_p_of_scipy_hypergeom():
    """scipy sums the whole support: its digits hold at these sizes (at n = 1e9 it is off by 1e-7)."""
    rng = np.random.default_rng(11)
    tables = []
    for _ in range(20):
        n = int(10 ** rng.uniform(3.5, 4.5))
        rp, pp = (int(v) for v in rng.integers(n // 20, n // 2, 2))
        sd = math.sqrt(rp * (n - rp) * pp * (n - pp) / (n * n * (n - 1)))
        tp = int(min(rp, pp, max(0, round(rp * pp / n + rng.normal(0, 4) * sd))))
        tables.append(_table(n, rp, pp, tp))
    got = compute(np.array(tables), ["p_informedness"])["p_informedness"]
    for g, ((tn, fp), (fn, tp)) in enumerate(tables):
        want = ref.midp_2x2(tp, tn + fp + fn + tp, tp + fn, tp + fp)
        assert got[g] == pytest.approx(want, rel=REL)


def test_a_multiclass_table_with_one_varying_cell_is_the_binary_mid_p():
    """Two classes present of three: B and M are the binary test of the one varying cell, also at a
    variance of 10⁵ and p of 1e-40."""
    n, rp, pp = 4 * 10**6, 10**6, 2 * 10**6
    for tp in (500_400, 502_000, 505_600):
        t = _table(n, rp, pp, tp)
        table = np.array([[[t[0][0], t[0][1], 0], [t[1][0], t[1][1], 0], [0, 0, 0]]])
        got = compute(table, ["p_informedness", "p_markedness"])
        want = midp(tp, n, rp, pp)
        assert got["p_informedness"][0] == pytest.approx(want, rel=REL)
        assert got["p_markedness"][0] == pytest.approx(want, rel=REL)
