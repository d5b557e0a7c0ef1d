"""Seeded subset of benchmarks/calibration_bootstrap.py: the coverage of the smoothed bootstrap intervals
that ``evaluate(ci=0.95)`` gives the measures with no closed form is what docs/calibration_bootstrap.md says.

The truths are scikit-learn's values of the population table (cell probabilities as sample weights);
the rates are checked against the docs table with tolerance 4 binomial standard errors of the
difference of two simulated rates, ``4·sqrt(p(1 − p)(1/R + 1/R_docs))``.
"""

from __future__ import annotations

import itertools
import re
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats
from sklearn import metrics

import batcheval as be
from batcheval.inference.intervals import bootstrap_pseudo_count, bootstrap_replicates, intervals

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


#: column of each method's coverage in the detail tables of docs/calibration_bootstrap.md
DOCS_COLUMN = {"percentile": 7, "half": 12}


def _docs_rate(
    k: int, n: int, prevalence: float, informed: float, measure: str, method: str = "half"
) -> float:
    """A method's coverage at one grid point of docs/calibration_bootstrap.md ("half": the default)."""
    text = DOCS.read_text()
    section = text.split(f"## K = {k}: coverage")[1].split("\n## ")[0]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) < 13 or not cells[0].isdigit():
            continue
        if (int(cells[0]), float(cells[1]), float(cells[2]), cells[4]) == (n, prevalence, informed, measure):
            return float(re.match(r"[0-9.]+", cells[DOCS_COLUMN[method]]).group())
    raise AssertionError(f"no row for {(k, n, prevalence, informed, measure)} in {DOCS}")


def _frame_and_counts(k: int, runs: int, n: int, seed: int) -> tuple[pl.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.choice(k * k, size=(runs, n), p=_population(k, 0.1, 0.5).ravel())
    run = np.repeat(np.arange(runs), n)
    frame = pl.DataFrame({"run": run, "label": (y // k).ravel(), "prediction": (y % k).ravel()})
    counts = np.zeros((runs, k, k), dtype=np.int64)
    np.add.at(counts, (run, (y // k).ravel(), (y % k).ravel()), 1)
    return frame, counts


@pytest.mark.parametrize("k", [2, 3])
def test_evaluate_gives_these_measures_the_benchmarks_half_bit_for_bit(k: int) -> None:
    """``evaluate(ci=0.95, seed=s)`` gives a measure with no closed form the benchmark's "half"
    interval (the library's smoothed bootstrap, which the benchmark calls), bit for bit, and
    ``ci_method="bootstrap"`` its "percentile" one."""
    names = ["macro_recall", "macro_f1", "kappa_fleiss"]
    frame, counts = _frame_and_counts(k, 4, 30, 3)
    out = be.evaluate(frame, by="run", measures=names, ci=0.95, seed=11).sort("run")
    plain = be.evaluate(frame, by="run", measures=names, ci=0.95, seed=11, ci_method="bootstrap").sort("run")
    for got, method in ((out, "half"), (plain, "percentile")):
        for m, (low, high) in cb.ends(counts, names, method, 1000, 11).items():
            np.testing.assert_array_equal(got[f"{m}_ci_low"].to_numpy(), low)
            np.testing.assert_array_equal(got[f"{m}_ci_high"].to_numpy(), high)
    # the smoothed one is not the plain one
    assert not np.array_equal(out["macro_f1_ci_low"].to_numpy(), plain["macro_f1_ci_low"].to_numpy())


def test_smoothed_resamples_are_the_multinomial_of_the_smoothed_shares() -> None:
    """The smoothed kernel draws Multinomial(n, (counts + a)/(n + 4a)): every outcome of a 5-example
    table against scipy's pmf (chi-squared goodness of fit), and a = 0 is the plain kernel bit for bit."""
    table = np.array([[[3, 0], [0, 2]]])
    a = bootstrap_pseudo_count(2)
    draws = bootstrap_replicates(table, 40_000, seed=8, pseudo=a)[0].reshape(-1, 4)
    assert (draws.sum(axis=1) == 5).all()
    # every outcome of 5 examples in 4 cells (56), observed or not
    outcomes = np.array([c for c in itertools.product(range(6), repeat=4) if sum(c) == 5])
    code = draws @ 6 ** np.arange(4)
    observed = np.array([(code == o @ 6 ** np.arange(4)).sum() for o in outcomes])
    shares = (table.ravel() + a) / (5 + 4 * a)
    pmf = stats.multinomial.pmf(outcomes, 5, shares)
    assert len(outcomes) == 56 and observed.sum() == len(draws) and pmf.sum() == pytest.approx(1.0, abs=1e-12)
    expected = pmf * len(draws)
    small = expected < 5  # pooled into one cell for the chi-squared approximation
    obs = np.append(observed[~small], observed[small].sum())
    exp = np.append(expected[~small], expected[small].sum())
    assert stats.chisquare(obs, exp).pvalue > 1e-4
    assert np.array_equal(
        bootstrap_replicates(table, 500, seed=8, pseudo=0.0), bootstrap_replicates(table, 500, seed=8)
    )


#: (K, n, prevalence, informedness, measure): points where the percentile bootstrap under-covers
#: (a margin of 10 whose tables are often perfect; a class of 10 with about one true positive; a
#: class of 10 at informedness 0.9 with three classes) and a large-n point in the band
POINTS = [
    (2, 20, 0.5, 0.9, "macro_recall"),
    (2, 100, 0.1, 0.0, "macro_precision"),
    (3, 100, 0.1, 0.9, "macro_recall"),
    (5, 400, 0.2, 0.5, "macro_f1"),
]


@pytest.mark.parametrize("point", POINTS)
def test_default_coverage_is_the_docs_table_and_near_the_level(point: tuple) -> None:
    """The default's (smoothed bootstrap's) coverage: the docs table's within 4 binomial SE of the
    difference of two simulated rates, and at least 0.95 − 4·sqrt(0.95·0.05/R) (the percentile
    bootstrap's at the first three points is far below: the docs table's "percentile" column)."""
    k, n, prevalence, informed, measure = point
    expect = _docs_rate(k, n, prevalence, informed, measure)
    pop = _population(k, prevalence, informed)
    truth = _sklearn_truths(pop)[measure]
    rng = np.random.default_rng(20261124 + n + k)
    counts = rng.multinomial(n, pop.ravel(), size=TABLES).reshape(TABLES, k, k)
    smoothed = intervals(counts, [measure], 0.95, "bootstrap", n_boot=1000, seed=5, pseudo="present")
    low, high = smoothed[measure]
    ok = np.isfinite(low) & np.isfinite(high)
    rate = float(np.mean((low[ok] <= truth + 1e-9) & (truth - 1e-9 <= high[ok])))
    tol = 4 * np.sqrt(expect * (1 - expect) * (1 / ok.sum() + 1 / DOCS_TABLES))
    assert abs(rate - expect) <= tol, (rate, expect, tol)
    assert rate >= 0.95 - 4 * np.sqrt(0.95 * 0.05 / ok.sum()), rate


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"method": "bootstrap", "pseudo": -1.0}, r"pseudo must be a finite number of at least 0, got -1.0"),
        ({"method": "bootstrap", "pseudo": float("nan")}, r"pseudo must be .* got nan"),
        ({"method": "wilson_delta", "pseudo": 0.5}, r"pseudo= is for method='bootstrap' only, got .*0.5"),
    ],
)
def test_bad_pseudo_is_named(kwargs: dict, match: str) -> None:
    with pytest.raises(be.InvalidArgumentError, match=match):
        intervals(np.array([[[5, 1], [2, 7]]]), ["accuracy"], 0.95, n_boot=10, seed=1, **kwargs)
