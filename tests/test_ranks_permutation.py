"""Friedman's and Iman–Davenport's permutation p-values (``friedman_p``/``iman_davenport_p`` when
(k − 1)(N − 1) ≤ 40) against brute-force enumeration of all (k!)^N orderings of the ranks within
datasets in exact rational arithmetic (tests/reference/friedman_exact.py), and the Monte-Carlo
path against the same oracle within its binomial error."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy import stats

import batcheval as be
from batcheval.inference import ranks as ranks_mod
from batcheval.inference.ranks import PERMUTATION_DRAWS, friedman_tests, permutation_p
from tests.reference.friedman_exact import exact_p


def frame_of(x: np.ndarray) -> pl.DataFrame:
    """x[dataset, method] as a long frame."""
    n, k = x.shape
    return pl.DataFrame({
        "method": [f"m{j}" for _ in range(n) for j in range(k)],
        "dataset": np.repeat(np.arange(n), k), "score": x.reshape(-1),
    })  # fmt: skip


CASES = [  # (datasets, methods, decimals the scores keep: 0 gives many ties, tables)
    (3, 3, None, 3),
    (3, 3, 0, 3),
    (4, 3, 0, 3),
    (3, 4, 0, 1),  # 24³ orderings
    (2, 5, 0, 1),  # 120²
]


@pytest.mark.parametrize(("n", "k", "decimals", "tables"), CASES)
def test_exact_p_equals_brute_force_enumeration(n, k, decimals, tables):
    rng = np.random.default_rng(n * 10 + k)
    for _ in range(tables):
        x = rng.normal(size=(n, k)) + np.linspace(0, 1.5, k)
        if decimals is not None:
            x = np.round(x, decimals)
        if np.all(x == x[:, :1]):  # every dataset ties every method: no test
            continue
        ref_chi2, ref_f = exact_p(x.tolist())
        assert ref_chi2 == ref_f  # one distribution serves both statistics
        res = be.rank_methods(frame_of(x), pairwise=False)
        assert res.p_method == "exact"
        assert res.friedman_p == pytest.approx(float(ref_chi2), rel=1e-12)
        assert res.iman_davenport_p == res.friedman_p
        assert "exact permutation" in res.summary()


@pytest.mark.parametrize("k", [3, 4])
def test_rank_sum_grid_equals_brute_force_enumeration(monkeypatch, k):
    # with one-by-one enumeration switched off, 3 and 4 methods take the exact rank-sum grid
    rng = np.random.default_rng(k)
    x = np.round(rng.normal(size=(3, k, 4 if k == 3 else 3)) + np.linspace(0, 1, k)[:, None], 0)
    if k == 3:
        x[0] = rng.normal(size=x.shape[1:])  # one table without ties (24³ orderings at k = 4: slow)
    exact = np.array([float(exact_p(g.T.tolist())[0]) for g in x])
    monkeypatch.setattr(ranks_mod, "PERMUTATION_EXACT_MAX", 0)
    p, is_exact = permutation_p(np.rint(2 * stats.rankdata(-x, axis=1)).astype(np.int64))
    assert is_exact.all()
    np.testing.assert_allclose(p, exact, rtol=1e-12)


def test_monte_carlo_p_agrees_with_the_exact_one(monkeypatch):
    rng = np.random.default_rng(3)
    x = np.round(rng.normal(size=(6, 3, 4)) + np.array([0.0, 0.5, 1.0])[:, None], 0)  # 3 methods, 4 datasets
    exact = np.array([float(exact_p(g.T.tolist())[0]) for g in x])
    monkeypatch.setattr(ranks_mod, "PERMUTATION_EXACT_MAX", 0)  # every table drawn
    monkeypatch.setattr(ranks_mod, "PERMUTATION_GRID_MAX", 0)
    _, _, p, _, p_f = friedman_tests(x)
    b = PERMUTATION_DRAWS
    for got, want in zip(p, exact, strict=True):
        # p = (1 + hits)/(1 + B): the hit rate's binomial error, plus the 1/(1 + B) of the formula
        assert abs(got - want) <= 4 * math.sqrt(want * (1 - want) / b) + 2 / (1 + b), (got, want)
    assert np.array_equal(p, p_f)


def test_a_tables_p_does_not_depend_on_the_rest_of_the_stack():
    rng = np.random.default_rng(5)
    x = rng.binomial(30, 0.8, size=(20, 5, 6)) / 30.0  # k = 5, N = 6: Monte Carlo, many ties
    _, _, p, _, _ = friedman_tests(x)
    perm = rng.permutation(20)
    _, _, q, _, _ = friedman_tests(x[perm])
    assert np.array_equal(p[perm], q)
    # reordering the datasets or the methods of a table leaves its p-value unchanged
    _, _, single, _, _ = friedman_tests(x[3][::-1][:, ::-1])
    assert single == p[3]


def test_permutation_p_of_doubled_ranks():
    # untied k = 3 over N = 3, every dataset in the same order: Σ R_j² at its maximum, reached by
    # the 3! orderings in which datasets 2 and 3 copy dataset 1, of (3!)² = 36
    r = np.array([[[2, 2, 2], [4, 4, 4], [6, 6, 6]]])
    p, exact = permutation_p(r)
    assert exact[0] and p[0] == pytest.approx(1 / 36, rel=1e-15)


def test_above_the_bound_the_p_values_are_scipys_chi2_and_f_tails():
    rng = np.random.default_rng(9)
    x = rng.normal(size=(12, 5))  # (k − 1)(N − 1) = 44 > 40
    res = be.rank_methods(frame_of(x), pairwise=False)
    ref = stats.friedmanchisquare(*x.T)
    assert res.p_method == "asymptotic"
    assert res.friedman_p == pytest.approx(ref.pvalue, rel=1e-10)
    f = 11 * ref.statistic / (12 * 4 - ref.statistic)
    assert res.iman_davenport_p == pytest.approx(stats.f.sf(f, 4, 44), rel=1e-10)
    # and at (k − 1)(N − 1) = 40 the permutation test takes over
    assert be.rank_methods(frame_of(x[:11]), pairwise=False).p_method == "monte_carlo"


@pytest.mark.parametrize("n", [8, 30])
def test_two_methods_give_the_exact_sign_test(n):
    # with k = 2 the permutation test of Friedman's statistic is the two-sided sign test
    # (enumerated one by one at N = 8, on the rank-sum grid at N = 30)
    rng = np.random.default_rng(n)
    x = rng.normal(size=(n, 2)) + np.array([0.4, 0.0])
    res = be.rank_methods(frame_of(x), pairwise=False)
    wins = int(np.sum(x[:, 0] > x[:, 1]))
    assert res.p_method == "exact"
    assert res.friedman_p == pytest.approx(stats.binomtest(wins, n).pvalue, rel=1e-12)
