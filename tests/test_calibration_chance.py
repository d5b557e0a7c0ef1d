"""Seeded subset of benchmarks/calibration_chance.py: the chance tests hold their size under independence.

Tables are drawn under the null (multinomial with cell probabilities
prevalence_i·bias_j at fixed n). Target (spec §3): size within [0.04, 0.06]
at α = 0.05 where the smallest expected margin holds ≥ 10 examples, ≤ 0.06
everywhere. Tolerances are 4 binomial standard errors of the simulated rate.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from batcheval.measures import compute

REPS = 20_000
ALPHA = 0.05
TOL = 4 * math.sqrt(ALPHA * (1 - ALPHA) / REPS)


def _null_tables(n: int, real: list[float], pred: list[float], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    k = len(real)
    return rng.multinomial(n, np.outer(real, pred).ravel(), size=REPS).reshape(REPS, k, k)


def _size(p: np.ndarray) -> float:
    return float(np.mean(p <= ALPHA))


@pytest.mark.parametrize(
    ("n", "real", "pred"),
    [
        (20, [0.5, 0.5], [0.5, 0.5]),  # smallest margin 10: the exact (mid-p) path
        (1000, [0.98, 0.02], [0.98, 0.02]),  # margin 20, expected tp 0.4: the exact path at its hardest
        (1000, [0.5, 0.5], [0.8, 0.2]),  # the normal path (Var(tp) > 100)
        (40, [1 / 3] * 3, [1 / 3] * 3),
        (1000, [0.02, 0.05, 0.1, 0.3, 0.53], [0.2] * 5),
    ],
)
def test_size_is_on_target_where_the_smallest_margin_holds_10(n, real, pred):
    assert n * min(*real, *pred, 1 - max(real), 1 - max(pred)) >= 10
    got = compute(_null_tables(n, real, pred, seed=n), ["p_informedness", "p_markedness"])
    for name in ("p_informedness", "p_markedness"):
        assert 0.04 - TOL <= _size(got[name]) <= 0.06 + TOL, (name, _size(got[name]))


@pytest.mark.parametrize(
    ("n", "real", "pred"),
    [
        (100, [0.95, 0.05], [0.95, 0.05]),  # expected tp 0.25: Pearson's χ² overshoots here
        (10, [0.8, 0.2], [0.8, 0.2]),
        (10, [0.02, 0.05, 0.1, 0.3, 0.53], [0.02, 0.05, 0.1, 0.3, 0.53]),
        (20, [0.02, 0.49, 0.49], [0.02, 0.49, 0.49]),
    ],
)
def test_size_never_exceeds_the_target_on_small_or_skewed_tables(n, real, pred):
    got = compute(_null_tables(n, real, pred, seed=7 * n), ["p_informedness", "p_markedness"])
    for name in ("p_informedness", "p_markedness"):
        assert _size(got[name]) <= 0.06 + TOL, (name, _size(got[name]))


def test_the_kb_figures_are_conservative_not_tests():
    # spec §3: for K = 2, chi2_kb = 2·evenness_predicted·chi2 ≤ chi2/2, so its χ²(1) p is far too large
    got = compute(_null_tables(100, [0.5, 0.5], [0.5, 0.5], seed=1), ["p_informedness", "p_chi2_kb"])
    assert _size(got["p_chi2_kb"]) < 0.04 - TOL
    assert 0.04 - TOL <= _size(got["p_informedness"]) <= 0.06 + TOL
