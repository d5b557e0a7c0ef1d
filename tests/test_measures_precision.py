"""G², χ², mutual information and conditional entropy keep their precision on large tables.

The references are exact: mpmath at 80 digits over the integer counts, or fractions. Before, each
cell's ``o ln(o/e)`` was summed, terms of the order of ``o − e`` that cancel to G² only in exact
arithmetic: near independence a large table kept only their rounding (G² of 6 where it is
4.4e-16 at n = 2^53, negative at n = 3e10, and p_g2 = 0.014 for an independent table). The
multiclass χ² squared the rounded ``o − e`` likewise (27 % high at n = 4.5e15, 1e-6 at 1.9e10).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from batcheval.measures import compute
from tests.reference.exact import chi2_exact

B = 2**53
# near-independent 2×2 tables of 2^55 and 2.9e10 examples (the report's), and of 6e9 (limbs)
LARGE_BINARY = [
    [[B - 2, B], [B + 1, B - 1]],
    [[6887829848, 9750675060], [5152660357, 7294302844]],
    [[1500000001, 1499999999], [1500000000, 1500000000]],
    [[10**15, 3 * 10**15 + 1], [2 * 10**15, 6 * 10**15 - 7]],
    [[7, 1], [3, 10**17]],
]


def _g2_exact(table) -> mpmath.mpf:
    """2 Σ o ln(o n / (r p)) over the nonzero cells, at 80 digits from the integers."""
    with mpmath.workdps(80):
        t = [[int(v) for v in row] for row in table]
        n = sum(map(sum, t))
        real = [sum(row) for row in t]
        pred = [sum(col) for col in zip(*t, strict=True)]
        total = mpmath.mpf(0)
        for i, row in enumerate(t):
            for j, o in enumerate(row):
                if o:
                    total += o * mpmath.log(mpmath.mpf(o * n) / (real[i] * pred[j]))
        return 2 * total


def _near_independent(k: int, n: int, seed: int) -> np.ndarray:
    """A K×K table of about n examples whose cells are r_i·q_j rounded, nudged by a few counts."""
    rng = np.random.default_rng(seed)
    real = rng.dirichlet(np.ones(k)) * n
    q = rng.dirichlet(np.ones(k))
    cells = np.floor(np.outer(real, q)).astype(np.int64) + rng.integers(0, 5, (k, k))
    return cells


def _close(got: float, want: mpmath.mpf, rel: float) -> bool:
    return abs(mpmath.mpf(got) - want) <= rel * abs(want) + 1e-300


@pytest.mark.parametrize("table", LARGE_BINARY)
def test_binary_g2_of_a_large_table_is_exact(table):
    counts = np.array([table], dtype=np.int64)
    got = compute(counts, ["g2", "mutual_information"])
    want = _g2_exact(table)
    assert got["g2"][0] >= 0
    assert _close(got["g2"][0], want, 1e-13), (got["g2"][0], want)
    n = int(counts.sum())
    assert _close(got["mutual_information"][0], want / (2 * n * mpmath.log(2)), 1e-13)


@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("n", [10**7, 3 * 10**10, 10**16])
def test_multiclass_g2_and_mutual_information_of_large_near_independent_tables(k, n):
    counts = np.stack([_near_independent(k, n, seed) for seed in range(6)])
    got = compute(counts, ["g2", "mutual_information"] if k > 2 else ["mutual_information"])
    for g, table in enumerate(counts):
        want = _g2_exact(table)
        total = int(table.sum())
        mi = want / (2 * total * mpmath.log(2))
        assert got["mutual_information"][g] >= 0
        assert _close(got["mutual_information"][g], mi, 1e-12), (g, got["mutual_information"][g], mi)
        if k > 2:
            assert _close(got["g2"][g], want, 1e-12), (g, got["g2"][g], want)


def test_p_g2_of_an_independent_large_table_is_one():
    """An exactly independent table (G² = 0) of 2^55 examples: before, p_g2 = 0.014."""
    counts = np.array([[[B, 3 * B], [2 * B, 6 * B]], LARGE_BINARY[0]], dtype=np.int64)
    got = compute(counts, ["g2", "p_g2", "chi2", "p_chi2"])
    assert got["g2"][0] == 0.0
    assert got["p_g2"].tolist() == pytest.approx(got["p_chi2"].tolist(), rel=1e-15)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_g2_of_ordinary_tables_is_scipys_log_likelihood_statistic(k):
    rng = np.random.default_rng(k)
    counts = rng.integers(1, 60, (40, k, k))
    counts[::3, 0, 1] = 0  # a zero cell
    names = ["g2", "mutual_information"] if k > 2 else ["g2", "p_g2", "mutual_information"]
    got = compute(counts, names)
    for g, table in enumerate(counts):
        res = stats.chi2_contingency(table, correction=False, lambda_="log-likelihood")
        assert got["g2"][g] == pytest.approx(res.statistic, rel=1e-13)
        n = table.sum()
        assert got["mutual_information"][g] == pytest.approx(res.statistic / (2 * n * math.log(2)), rel=1e-13)
        if k == 2:
            assert got["p_g2"][g] == pytest.approx(res.pvalue, rel=1e-11)


def _h_cond_exact(table) -> mpmath.mpf:
    """H(real | predicted) in bits: −Σ c ln(c/p_j) / (n ln 2), at 80 digits from the integers."""
    with mpmath.workdps(80):
        t = [[int(v) for v in row] for row in table]
        n = sum(map(sum, t))
        pred = [sum(col) for col in zip(*t, strict=True)]
        total = mpmath.mpf(0)
        for row in t:
            for j, c in enumerate(row):
                if c:
                    total -= c * mpmath.log(mpmath.mpf(c) / pred[j])
        return total / (n * mpmath.log(2))


@pytest.mark.parametrize("k", [2, 3, 5])
def test_conditional_entropy_of_a_perfect_classifier_is_zero(k):
    """Before: H(real) − MI, which rounded to −5.2e-16 for 294 of 2000 diagonal 3×3 tables."""
    rng = np.random.default_rng(k)
    counts = np.zeros((2000, k, k), dtype=np.int64)
    diag = rng.integers(0, 10 ** rng.integers(1, 12, (2000, 1)), (2000, k))
    diag[:, 0] += 1  # not empty
    counts[:, np.arange(k), np.arange(k)] = diag
    counts[1::2] = counts[1::2][:, :, rng.permutation(k)]  # a relabelled perfect classifier
    got = compute(counts, ["conditional_entropy", "mutual_information"])
    assert (got["conditional_entropy"] == 0.0).all()


@pytest.mark.parametrize("k", [2, 3, 4])
def test_conditional_entropy_is_exact_near_and_far_from_zero(k):
    rng = np.random.default_rng(10 + k)
    counts = rng.integers(0, 50, (300, k, k))
    big = np.diag(rng.integers(10**6, 10**9, k))
    counts[::3] = big  # nearly diagonal: a few errors among millions
    counts[::3, 0, 1] += rng.integers(0, 3, len(counts[::3]))
    counts[1::3] *= 10**7
    counts[0] = np.diag(np.arange(1, k + 1))
    got = compute(counts, ["conditional_entropy"])["conditional_entropy"]
    for g, table in enumerate(counts):
        want = _h_cond_exact(table)
        assert got[g] >= 0
        assert _close(got[g], want, 1e-12), (g, got[g], want)


def _chi2_tables(k: int, cell: int, spread: int, seed: int) -> np.ndarray:
    """Six K×K tables of cells ``cell`` ± up to ``spread``: near independence when the spread is
    small against sqrt(cell)."""
    rng = np.random.default_rng(seed)
    return cell + rng.integers(-spread, spread + 1, (6, k, k))


@pytest.mark.parametrize("k", [3, 5])
@pytest.mark.parametrize("cell", [2**31, 2**49])
@pytest.mark.parametrize("spread", [0, 1, 7, 1000])
def test_multiclass_chi2_of_large_near_independent_tables_is_exact(k, cell, spread):
    """Before, (o − e)² took the rounded o − e: 9.99e-16 for the report's table where Pearson's χ²
    is 7.89e-16 (cells 2^49), 1e-6 off at cells of 2^31; now it takes the exact n·o − r·p as g2
    does."""
    counts = _chi2_tables(k, cell, spread, seed=100 * k + spread)
    counts[0] = cell
    counts[0, 0, 0] += 1  # the report's table: one example more in a cell
    got = compute(counts, ["chi2", "g2"])
    for g, table in enumerate(counts.tolist()):
        want = float(chi2_exact(table))
        assert got["chi2"][g] == pytest.approx(want, rel=1e-13, abs=0), (g, got["chi2"][g], want)
        # near independence Pearson's χ² and G² agree to far below their size
        assert got["chi2"][g] == pytest.approx(got["g2"][g], rel=1e-6), g


@pytest.mark.parametrize("k", [3, 5])
@pytest.mark.parametrize(("cell", "spread"), [(2**31, 2**17), (2**49, 2**26), (2**49, 2**25)])
def test_multiclass_p_chi2_of_large_tables_is_the_exact_statistics_tail(k, cell, spread):
    """Tables whose χ² is of the order of its degrees of freedom: before, p_chi2 was up to 1.7e-8
    (relative) from the tail of the exact statistic."""
    counts = _chi2_tables(k, cell, spread, seed=7 * k)
    got = compute(counts, ["chi2", "p_chi2"])
    dof = (k - 1) ** 2
    for g, table in enumerate(counts.tolist()):
        want = float(chi2_exact(table))
        assert got["chi2"][g] == pytest.approx(want, rel=1e-13), g
        assert got["p_chi2"][g] == pytest.approx(stats.chi2.sf(want, dof), rel=1e-11), (g, want)


@pytest.mark.parametrize("k", [3, 4, 6])
def test_multiclass_chi2_of_ordinary_tables_is_exact_and_scipys(k):
    rng = np.random.default_rng(30 + k)
    counts = rng.integers(0, 40, (60, k, k))
    counts[::4, 1, :] = 0  # a class without real examples
    counts[1::4, :, 2] = 0  # one never predicted
    got = compute(counts, ["chi2", "p_chi2"])
    for g, table in enumerate(counts):
        want = float(chi2_exact(table.tolist()))
        # the degrees of freedom of the classes present in each margin: (K - 1)² when all are
        dof = (np.count_nonzero(table.sum(axis=1)) - 1) * (np.count_nonzero(table.sum(axis=0)) - 1)
        assert got["chi2"][g] == pytest.approx(want, rel=1e-14), g
        assert got["p_chi2"][g] == pytest.approx(stats.chi2.sf(want, dof), rel=1e-11), g
        # scipy refuses a table with an empty margin: its present sub-table
        res = stats.chi2_contingency(table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0], correction=False)
        assert got["chi2"][g] == pytest.approx(res.statistic, rel=1e-13), g
        assert got["p_chi2"][g] == pytest.approx(res.pvalue, rel=1e-11), g
