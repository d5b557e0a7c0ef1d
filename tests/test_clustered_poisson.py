"""Clustered proportions take the unclustered interval's Poisson ends (issue #20 audit).

Single-row clusters (``example=`` naming each row) are the independent case, where the clustered
interval should keep the unclustered one's coverage. With plain Wilson at t's critical value it did
not next to 0 and 1: 5 positives at recall 0.975 covered 0.8811 (exact), below the floor of 0.92.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

import batcheval as be
from batcheval.inference.clustered import modified_wilson_z, wilson_z


def _recall_bounds(m: int, neg: int, **kwargs) -> tuple[np.ndarray, np.ndarray]:
    """Intervals of recall for k = 0 … m found of m positives (and neg negatives, 2 false alarms),
    each row its own example."""
    rows = [
        pl.DataFrame(
            {
                "g": k,
                "label": [1] * m + [0] * neg,
                "prediction": [1] * k + [0] * (m - k) + [1, 1] + [0] * (neg - 2),
            }
        )
        for k in range(m + 1)
    ]
    df = pl.concat(rows).with_columns(ex=pl.int_range(pl.len()))
    out = be.evaluate(df, by="g", measures=["recall"], ci=0.95, **kwargs).sort("g")
    return out["recall_ci_low"].to_numpy(), out["recall_ci_high"].to_numpy()


def _coverage(low: np.ndarray, high: np.ndarray, p: float) -> float:
    k = np.arange(len(low))
    return float(np.sum(stats.binom.pmf(k, len(low) - 1, p) * ((low <= p) & (p <= high))))


@pytest.mark.parametrize(("m", "p"), [(5, 0.975), (5, 0.025), (10, 0.985)])
def test_single_row_clusters_keep_the_floor_next_to_0_and_1(m, p):
    # exact coverage over the binomial number found (scipy's pmf); before: 0.8811, 0.8811, 0.8597
    low, high = _recall_bounds(m, 10, example="ex")
    assert _coverage(low, high, p) >= 0.92
    plain_low, plain_high = _recall_bounds(m, 10)  # the unclustered interval, exact as well
    assert _coverage(plain_low, plain_high, p) >= 0.92


def test_poisson_ends_are_the_gamma_quantiles_and_never_narrow_wilson():
    rng = np.random.default_rng(4)
    m = rng.uniform(2, 80, 5000)
    x = m * rng.uniform(0, 1, 5000)
    x = np.where(rng.random(5000) < 0.3, np.floor(x), x)  # whole counts too
    x[:50] = 0.0
    x[50:100] = m[50:100]
    z = stats.t.ppf(0.975, rng.integers(1, 60, 5000))
    for x_star in (1, None):
        low, high = modified_wilson_z(x, m, z, 0.95, x_star=x_star)
        w_low, w_high = wilson_z(x, m, z)
        assert np.all(low <= w_low) and np.all(high >= w_high)
        cut = 1.0 if x_star == 1 else np.where(m <= 50, 2.0, 3.0)
        # ½ χ²_{2x, α} / m: for fractional x, the Gamma(x) quantile
        lam_low = stats.gamma.ppf(0.05, np.where(x > 0, x, 1.0)) / m
        lam_high = 1.0 - stats.gamma.ppf(0.05, np.where(m - x > 0, m - x, 1.0)) / m
        at_low = (x > 0) & (x <= cut)
        at_high = (m - x > 0) & (m - x <= cut)
        np.testing.assert_allclose(low[at_low], np.minimum(w_low, lam_low)[at_low], rtol=1e-9, atol=1e-15)
        np.testing.assert_allclose(high[at_high], np.maximum(w_high, lam_high)[at_high], rtol=1e-9)
        assert np.array_equal(low[~at_low], w_low[~at_low]) and np.array_equal(
            high[~at_high], w_high[~at_high]
        )
    # whole x: the χ² form of Brown, Cai & DasGupta
    low, _ = modified_wilson_z(
        np.array([1.0, 2.0]), np.array([40.0, 40.0]), np.array([1.96, 1.96]), x_star=None
    )
    np.testing.assert_allclose(low, stats.chi2.ppf(0.05, [2, 4]) / 2 / 40, rtol=1e-12)
