"""Coverage of the cluster-robust intervals at 20 clusters (issue #20): seeded simulations of
the grid points of ``benchmarks/calibration_cluster.py``, with tolerances from the binomial
standard error of the simulated rate.

Before the CR2 design effect, t with the CR1 design effect floored at 1 covered 0.964-0.982
where the rows are independent (single rows, clusters at ICC 0); the pooled rate of the
points below was above 0.96.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

import batcheval as be
from batcheval.errors import BatchevalWarning

REPS = 2000
#: the band the issue asks of every point whose smallest margin holds 10 examples or more
LOW, HIGH = 0.935, 0.965


def _clustered(rng: np.random.Generator, n_clusters: int, size: int, icc: float) -> pl.DataFrame:
    """``REPS`` boards of clusters of ``size`` rows, right with the cluster's Beta probability
    (mean 0.8, intra-cluster correlation ``icc``); fair labels: informedness 0.6, recall 0.8."""
    if icc > 0:
        q = np.repeat(rng.beta(0.8 * (1 - icc) / icc, 0.2 * (1 - icc) / icc, (REPS, n_clusters)), size, 1)
    else:
        q = np.full((REPS, n_clusters * size), 0.8)
    label = rng.integers(0, 2, q.shape)
    return pl.DataFrame({
        "rep": np.repeat(np.arange(REPS), n_clusters * size),
        "passage": np.tile(np.repeat(np.arange(n_clusters), size), REPS),
        "label": label.ravel(), "prediction": np.where(rng.random(q.shape) < q, label, 1 - label).ravel(),
    })  # fmt: skip


def _repeated(rng: np.random.Generator, n: int, seeds: int, keep: float) -> pl.DataFrame:
    """``n`` examples scored under ``seeds`` seeds, each keeping the example's base prediction
    (right with probability 0.8) with probability ``keep``, else a coin."""
    label = rng.integers(0, 2, (REPS, n))
    base = np.where(rng.random((REPS, n)) < 0.8, label, 1 - label)
    parts = []
    for seed in range(seeds):
        pred = np.where(rng.random((REPS, n)) < keep, base, rng.integers(0, 2, (REPS, n)))
        parts.append(pl.DataFrame({"rep": np.repeat(np.arange(REPS), n), "seed": seed,
                                   "example": np.tile(np.arange(n), REPS),
                                   "label": label.ravel(), "prediction": pred.ravel()}))  # fmt: skip
    return pl.concat(parts)


def _cover(out: pl.DataFrame, name: str, truth: float) -> float:
    low, high = out[f"{name}_ci_low"].to_numpy(), out[f"{name}_ci_high"].to_numpy()
    return float(np.mean((low <= truth) & (truth <= high)))


def _rates() -> dict[str, float]:
    rng = np.random.default_rng(2020)
    rates = {}
    for size, icc in ((1, 0.0), (3, 0.0), (3, 0.5), (10, 0.0), (10, 0.3)):
        out = be.evaluate(_clustered(rng, 20, size, icc), by="rep", measures=["informedness", "recall"],
                          ci=0.95, cluster="passage")  # fmt: skip
        rates[f"informedness size={size} icc={icc}"] = _cover(out, "informedness", 0.6)
        rates[f"recall size={size} icc={icc}"] = _cover(out, "recall", 0.8)
    for seeds, keep in ((3, 0.9), (10, 1.0), (10, 0.5)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BatchevalWarning)
            out = be.evaluate(_repeated(rng, 20, seeds, keep), by=["rep", "seed"], pool="seed",
                              measures=["informedness"], ci=0.95, example="example")  # fmt: skip
        truth = 2 * (0.8 * keep + 0.5 * (1 - keep)) - 1
        rates[f"informedness seeds={seeds} keep={keep}"] = _cover(out, "informedness", truth)
    return rates


@pytest.fixture(scope="module")
def rates() -> dict[str, float]:
    return _rates()


def test_every_20_cluster_point_within_the_band(rates: dict[str, float]) -> None:
    # each rate within [0.935, 0.965] widened by 4 binomial standard errors of its simulated rate
    for point, rate in rates.items():
        tol = 4 * np.sqrt(rate * (1 - rate) / REPS)
        assert LOW - tol <= rate <= HIGH + tol, (point, rate)


def test_pooled_coverage_at_20_clusters_is_nominal(rates: dict[str, float]) -> None:
    # the points pooled: 0.95 within 4 binomial standard errors of the pooled rate
    pooled = float(np.mean(list(rates.values())))
    tol = 4 * np.sqrt(0.95 * 0.05 / (REPS * len(rates)))
    assert abs(pooled - 0.95) <= tol, (pooled, rates)
