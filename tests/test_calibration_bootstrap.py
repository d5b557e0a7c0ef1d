"""Seeded subset of benchmarks/calibration_bootstrap.py: the coverage of the bootstrap intervals that
``evaluate(ci=0.95)`` gives the measures with no closed form is what docs/calibration_bootstrap.md says.

The truths are scikit-learn's values of the population table (cell probabilities as sample weights);
the rates are checked against the docs table with tolerance 4 binomial standard errors of the
difference of two simulated rates, ``4·sqrt(p(1 − p)(1/R + 1/R_docs))``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from sklearn import metrics

import batcheval as be
from batcheval.inference.intervals import intervals

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "calibration_bootstrap.md"
sys.path.insert(0, str(ROOT / "benchmarks"))
import calibration_bootstrap as cb  # noqa: E402

TABLES = 600
DOCS_TABLES = 400


def _population(k: int, prevalence: float, informed: float) -> np.ndarray:
    """benchmarks/calibration_intervals.py's model, written again."""
    r = np.full(k, (1.0 - prevalence) / (k - 1))
    r[-1] = prevalence
    return r[:, None] * (informed * np.eye(k) + (1.0 - informed) * r[None, :])


def _sklearn_truths(pop: np.ndarray) -> dict[str, float]:
    """scikit-learn's measures of the population: one row per cell, weighted by its probability."""
    k = pop.shape[0]
    y_true, y_pred = np.repeat(np.arange(k), k), np.tile(np.arange(k), k)
    w = pop.ravel()
    out = {
        "mcc": metrics.matthews_corrcoef(y_true, y_pred, sample_weight=w),
        "macro_recall": metrics.balanced_accuracy_score(y_true, y_pred, sample_weight=w),
        "macro_f1": metrics.f1_score(y_true, y_pred, average="macro", sample_weight=w),
        "macro_precision": metrics.precision_score(y_true, y_pred, average="macro", sample_weight=w),
        "weighted_f1": metrics.f1_score(y_true, y_pred, average="weighted", sample_weight=w),
        "mutual_information": metrics.mutual_info_score(
            None, None, contingency=np.round(pop * 1e9).astype(np.int64)
        )
        / np.log(2),
    }
    if k == 2:
        out["f_beta"] = metrics.fbeta_score(y_true, y_pred, beta=cb.BETA, sample_weight=w)
        out["g_measure"] = np.sqrt(
            metrics.precision_score(y_true, y_pred, sample_weight=w)
            * metrics.recall_score(y_true, y_pred, sample_weight=w)
        )
    return {m: float(v) for m, v in out.items()}


@pytest.mark.parametrize(
    "k, prevalence, informed", [(2, 0.1, 0.5), (2, 0.5, 0.9), (3, 0.1, 0.5), (5, 0.2, 0.0)]
)
def test_benchmark_truths_are_sklearns(k: int, prevalence: float, informed: float) -> None:
    pop = _population(k, prevalence, informed)
    np.testing.assert_allclose(pop, cb.population(k, prevalence, informed), rtol=0, atol=1e-15)
    expect = _sklearn_truths(pop)
    got = cb.truths(pop, list(expect))
    for m, v in expect.items():
        assert got[m] == pytest.approx(v, abs=1e-7), m


def _docs_rate(k: int, n: int, prevalence: float, informed: float, measure: str) -> float:
    """The default's coverage at one grid point of docs/calibration_bootstrap.md."""
    text = DOCS.read_text()
    section = text.split(f"## K = {k}: coverage")[1].split("\n## ")[0]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) < 8 or not cells[0].isdigit():
            continue
        if (int(cells[0]), float(cells[1]), float(cells[2]), cells[4]) == (n, prevalence, informed, measure):
            return float(re.match(r"[0-9.]+", cells[7]).group())
    raise AssertionError(f"no row for {(k, n, prevalence, informed, measure)} in {DOCS}")


def test_evaluate_gives_these_measures_the_bootstrap_of_intervals() -> None:
    """The benchmark calls ``intervals(..., "bootstrap")`` on stacked tables: that is what
    ``evaluate(ci=0.95, measures=[...])`` reports for a measure with no closed form."""
    rng = np.random.default_rng(3)
    pop = _population(3, 0.1, 0.5)
    y = rng.choice(9, size=(4, 30), p=pop.ravel())
    frame = pl.DataFrame(
        {"run": np.repeat(np.arange(4), 30), "label": (y // 3).ravel(), "prediction": (y % 3).ravel()}
    )
    out = be.evaluate(frame, by="run", measures=["macro_recall", "mcc"], ci=0.95, seed=11).sort("run")
    counts = np.zeros((4, 3, 3), dtype=np.int64)
    np.add.at(counts, (np.repeat(np.arange(4), 30), (y // 3).ravel(), (y % 3).ravel()), 1)
    ends = intervals(counts, ["macro_recall", "mcc"], 0.95, "bootstrap", n_boot=1000, seed=11)
    for m, (low, high) in ends.items():
        np.testing.assert_allclose(out[f"{m}_ci_low"].to_numpy(), low, rtol=0, atol=1e-12)
        np.testing.assert_allclose(out[f"{m}_ci_high"].to_numpy(), high, rtol=0, atol=1e-12)


#: (K, n, prevalence, informedness, measure): an under-covering point of the docs table (a
#: margin of 10 whose tables are often perfect), one where a class of 10 has about one true
#: positive, and a large-n point in the band
POINTS = [
    (2, 20, 0.5, 0.9, "macro_recall"),
    (2, 100, 0.1, 0.0, "mcc"),
    (5, 400, 0.2, 0.5, "macro_f1"),
]


@pytest.mark.parametrize("point", POINTS)
def test_default_bootstrap_coverage_is_the_docs_table(point: tuple) -> None:
    k, n, prevalence, informed, measure = point
    expect = _docs_rate(k, n, prevalence, informed, measure)
    pop = _population(k, prevalence, informed)
    truth = _sklearn_truths(pop)[measure]
    rng = np.random.default_rng(20261124 + n + k)
    counts = rng.multinomial(n, pop.ravel(), size=TABLES).reshape(TABLES, k, k)
    low, high = intervals(counts, [measure], 0.95, "bootstrap", n_boot=1000, seed=5)[measure]
    ok = np.isfinite(low) & np.isfinite(high)
    rate = float(np.mean((low[ok] <= truth + 1e-9) & (truth - 1e-9 <= high[ok])))
    tol = 4 * np.sqrt(expect * (1 - expect) * (1 / ok.sum() + 1 / DOCS_TABLES))
    assert abs(rate - expect) <= tol, (rate, expect, tol)
