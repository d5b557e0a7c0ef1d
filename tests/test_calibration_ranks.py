"""Seeded subset of benchmarks/calibration_ranks.py: the size of 5×2cv, of ``rank_methods``' omnibus
and post-hoc tests and of its Wilcoxon signed-rank test under the null (docs/comparing.md,
"Calibration of the 5×2cv and rank tests").

Tolerances are 4 binomial standard errors of the simulated rate, ``4·sqrt(p(1 − p)/R)``: around the
exact size where it is known (k = 3 methods without ties, by convolution of the rank sums; a fixed
pattern of ties, by enumerating its sign flips), else ``rate ≤ α + 4·se`` for tests that are
conservative by construction (5×2cv, Nemenyi, Holm, the exact Wilcoxon, the permutation p-value of
Friedman and Iman–Davenport).
"""

from __future__ import annotations

import math
from itertools import permutations

import numpy as np
import polars as pl
import pytest
from scipy import stats

import batcheval as be
from batcheval.inference.ranks import friedman_tests, nemenyi_cd, wilcoxon_pairs


def _tol(p: float, reps: int) -> float:
    return 4 * math.sqrt(p * (1 - p) / reps)


def _five_by_two_accuracy(n: int, pos: int, reps: int, seed: int) -> np.ndarray:
    """Fold accuracy of classifier 0 minus classifier 1, ``[reps, 5, 2]``: each thresholds its own,
    equally informative feature at the midpoint of its training fold's class means."""
    rng = np.random.default_rng(seed)
    y = np.r_[np.ones(pos), np.zeros(n - pos)]
    x = y + np.sqrt(0.5) * rng.normal(size=(reps, 1, n)) + np.sqrt(0.5) * rng.normal(size=(reps, 2, n))
    acc = np.empty((reps, 2, 5, 2))
    for r in range(5):
        fold = np.empty((reps, n), dtype=bool)  # stratified halves
        for lo, hi in ((0, pos), (pos, n)):
            rank = np.argsort(np.argsort(rng.random((reps, hi - lo)), axis=1), axis=1)
            fold[:, lo:hi] = rank >= (hi - lo) // 2
        for test in (0, 1):
            train = (fold != bool(test))[:, None, :]
            m1 = (x * (train & (y == 1))).sum(-1) / (train & (y == 1)).sum(-1)
            m0 = (x * (train & (y == 0))).sum(-1) / (train & (y == 0)).sum(-1)
            hit = (x > ((m1 + m0) / 2)[..., None]) == (y == 1)
            acc[:, :, r, test] = (hit & ~train).sum(-1) / (~train).sum(-1)
    return acc[:, 0] - acc[:, 1]


@pytest.mark.parametrize(("n", "pos"), [(40, 20), (100, 10)])
def test_five_by_two_cv_holds_its_level(n, pos):
    reps = 1500
    d = _five_by_two_accuracy(n, pos, reps, seed=n + pos)
    values = np.vstack([np.zeros((1, 10)), d.reshape(reps, 10)])  # every replicate against zeros
    df = pl.DataFrame({
        "run": np.repeat(np.arange(reps + 1), 10), "repeat": np.tile(np.repeat(np.arange(5), 2), reps + 1),
        "fold": np.tile(np.arange(2), 5 * (reps + 1)), "acc": values.reshape(-1),
    })  # fmt: skip
    p = be.compare(df, repeat="repeat", measure="acc", reference=0, test="5x2cv")["p_value"].to_numpy()
    for alpha in (0.01, 0.05):
        assert np.mean(p < alpha) <= alpha + _tol(alpha, reps)


def _exact_k3(n: int, alpha: float) -> dict[str, float]:
    """Exact sizes for k = 3 untied methods on N datasets, from the distribution of the rank sums."""
    top = 3 * n
    dist = np.zeros((top + 1, top + 1))
    dist[0, 0] = 1.0
    for _ in range(n):
        new = np.zeros_like(dist)
        for r1, r2, _r3 in permutations((1, 2, 3)):
            new[r1:, r2:] += dist[: top + 1 - r1, : top + 1 - r2] / 6.0
        dist = new
    r1, r2 = np.nonzero(dist)
    prob = dist[r1, r2]
    rank_sums = np.stack([r1, r2, 6 * n - r1 - r2]).astype(float)
    chi2 = 12.0 / (n * 3 * 4) * np.sum(rank_sums**2, axis=0) - 3 * n * 4  # Friedman's, untied
    f = (n - 1) * chi2 / np.maximum(n * 2 - chi2, 1e-300)
    spread = (rank_sums.max(axis=0) - rank_sums.min(axis=0)) / n
    cd = stats.studentized_range.ppf(1 - alpha, 3, np.inf) / np.sqrt(2) * np.sqrt(3 * 4 / (6 * n))
    ss = np.sum(rank_sums**2, axis=0)
    p_perm = np.array([prob[ss >= s].sum() for s in ss])  # the exact permutation p-value
    return {
        "permutation": float(prob[p_perm < alpha].sum()),
        "friedman": float(prob[stats.chi2.sf(chi2, 2) < alpha].sum()),
        "iman_davenport": float(prob[stats.f.sf(f, 2, 2 * (n - 1)) < alpha].sum()),
        "nemenyi": float(prob[spread >= cd - 1e-12].sum()),
    }


@pytest.mark.parametrize(("n", "alpha"), [(5, 0.01), (10, 0.05), (20, 0.05)])
def test_friedman_family_matches_its_exact_size_at_three_methods(n, alpha):
    # the χ² and F approximations (the default p-value is the permutation one up to (k − 1)(N − 1)
    # = 40): at N = 5 the F rejects 2.4 % of the time at α = 0.01, the excess that led to it
    reps = 6000
    x = np.random.default_rng(n).normal(size=(reps, 3, n))
    mean_rank, _, p_chi2, _, p_f = friedman_tests(x, permutation_max_df=0)
    spread = mean_rank.max(axis=1) - mean_rank.min(axis=1)
    rates = {
        "friedman": np.mean(p_chi2 < alpha),
        "iman_davenport": np.mean(p_f < alpha),
        "nemenyi": np.mean(spread >= nemenyi_cd(3, n, alpha)),
    }
    exact = _exact_k3(n, alpha)
    for name, rate in rates.items():
        assert abs(rate - exact[name]) <= _tol(exact[name], reps), (name, rate, exact[name])


@pytest.mark.parametrize("alpha", [0.01, 0.05])
def test_permutation_p_matches_its_exact_size_at_five_datasets(alpha):
    # k = 3, N = 5 without ties: the library enumerates (3!)⁴ orderings; its size is that of the
    # exact test, 0.0085 at α = 0.01 where the F tail's was 0.0239
    reps = 6000
    x = np.random.default_rng(55).normal(size=(reps, 3, 5))
    _, _, p_chi2, _, p_f = friedman_tests(x)
    exact = _exact_k3(5, alpha)["permutation"]
    assert exact <= alpha
    assert np.array_equal(p_chi2, p_f)
    assert abs(np.mean(p_f < alpha) - exact) <= _tol(exact, reps)


@pytest.mark.parametrize(("k", "n", "reps"), [(5, 5, 2000), (3, 20, 1000), (10, 5, 600)])
def test_permutation_p_with_ties_holds_its_level(k, n, reps):
    # accuracies on 30 examples (many ties): the Monte-Carlo permutation p-value, where the F tail
    # rejected 0.0630 ± 0.0038 (k = 5, N = 5) and 0.0585 ± 0.0037 (k = 3, N = 20) at α = 0.05
    rng = np.random.default_rng(k * 100 + n)
    x = rng.binomial(30, np.broadcast_to(rng.uniform(0.6, 0.95, (reps, 1, n)), (reps, k, n))) / 30.0
    _, _, p_chi2, _, p_f = friedman_tests(x)
    assert np.array_equal(p_chi2, p_f, equal_nan=True)
    for alpha in (0.01, 0.05):
        assert np.mean(p_f < alpha) <= alpha + _tol(alpha, reps)


def test_rank_tests_with_ties_hold_their_level():
    # five exchangeable methods scored by accuracy on 30 test examples (many ties) on 10 datasets
    reps, k, n, alpha = 2000, 5, 10, 0.05
    rng = np.random.default_rng(11)
    x = rng.binomial(30, np.broadcast_to(rng.uniform(0.6, 0.95, (reps, 1, n)), (reps, k, n))) / 30.0
    # the χ² and F tails (the library's p-value here is the permutation one, checked above; the
    # benchmark has both)
    mean_rank, _, p_chi2, _, p_f = friedman_tests(x, permutation_max_df=0)
    spread = mean_rank.max(axis=1) - mean_rank.min(axis=1)
    se = np.sqrt(k * (k + 1) / (6 * n))
    p_pair = 2 * stats.norm.sf(spread / se)  # Holm over the 10 pairs rejects iff 10·min p < α
    limit = alpha + _tol(alpha, reps)
    assert np.mean(p_chi2 < alpha) <= limit
    assert abs(np.mean(p_f < alpha) - alpha) <= _tol(alpha, reps)  # 0.0503 in the benchmark
    assert np.mean(spread >= nemenyi_cd(k, n, alpha)) <= limit
    assert np.mean(10 * p_pair < alpha) <= limit
    # rank_methods' own columns agree with the stacked statistics on the first tables
    for g in range(5):
        df = pl.DataFrame({
            "method": np.tile(np.arange(k), n), "dataset": np.repeat(np.arange(n), k),
            "score": x[g].T.reshape(-1),
        })  # fmt: skip
        res = be.rank_methods(df, alpha=alpha)
        assert res.iman_davenport_p == friedman_tests(x[g])[4]
        assert bool(res.pairwise["nemenyi_different"].any()) == (spread[g] >= res.cd)
        assert bool((res.pairwise["p_holm"] < alpha).any()) == (10 * p_pair[g] < alpha)


@pytest.mark.parametrize("n", [5, 6, 7, 9, 10])
def test_wilcoxon_is_exact_given_any_pattern_of_ties_and_zeros(n):
    # every sign flip of a fixed pattern of |differences| is equally likely under the null, so the
    # exact size is the share of flips rejected; the former normal approximation reached 0.0625 here
    rng = np.random.default_rng(n)
    for _ in range(5):
        mags = rng.integers(0, 4, size=n).astype(float)  # zeros and ties
        nz = np.flatnonzero(mags)
        m = len(nz)
        signs = 1.0 - 2.0 * ((np.arange(2**m)[:, None] >> np.arange(m)[None, :]) & 1)
        x = np.zeros((2**m + 1, n))
        x[: 2**m, nz] = signs * mags[nz]
        _, p = wilcoxon_pairs(x, np.arange(2**m), np.full(2**m, 2**m))
        for alpha in (0.01, 0.05):
            assert np.mean(p < alpha) <= alpha + 1e-12, (mags, alpha)


def test_wilcoxon_with_many_ties_holds_its_level():
    reps, n = 4000, 8
    rng = np.random.default_rng(8)
    x = rng.binomial(30, np.repeat(rng.uniform(0.6, 0.95, (reps, n)), 2, axis=0)) / 30.0
    _, p = wilcoxon_pairs(x, np.arange(0, 2 * reps, 2), np.arange(1, 2 * reps, 2))
    for alpha in (0.01, 0.05):
        assert np.mean(p < alpha) <= alpha + _tol(alpha, reps)
