"""The leaderboard's ratio measures (odds_ratio, lr_plus, lr_minus) are compared on the log scale
(batcheval.inference.ratios; docs/calibration_leader.md, "Ratio measures").

On the raw scale the leader's standard error grew with its ratio: a run that got every prediction
wrong (odds ratio 0) was 0.75 standard errors behind a leader of odds ratio 29, p_vs_leader 0.45,
and in the best set. The p-values here are recomputed independently (statsmodels' Table2x2 for
Woolf's log odds ratio, plain numpy for the likelihood ratios' and the paired variance by finite
differences); the null simulations hold the best set's family-wise error within three binomial
standard errors of the simulated rate above 1 − ci.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl
import pytest
from scipy import stats

import batcheval as be
from batcheval.inference import ratios

COLUMNS = ["p_vs_leader", "could_be_best", "p_best", "rank_ci_low", "rank_ci_high"]


def _hunter() -> pl.DataFrame:
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 100)

    def run(name: str, pred: np.ndarray) -> pl.DataFrame:
        return pl.DataFrame({"run": name, "ex": np.arange(100), "label": y, "prediction": pred})

    return pl.concat([run("inverse", 1 - y), run("good", np.where(rng.random(100) < 0.85, y, 1 - y))])


def _table(df: pl.DataFrame, name: str) -> np.ndarray:
    """[[tn, fp], [fn, tp]] of run ``name`` (real class first)."""
    r = df.filter(pl.col("run") == name)
    y, p = r["label"].to_numpy(), r["prediction"].to_numpy()
    return np.array([[np.sum((y == a) & (p == b)) for b in (0, 1)] for a in (0, 1)])


def _log_and_var(t: np.ndarray, measure: str) -> tuple[float, float]:
    """The log ratio of ``t`` plus a half per cell and its delta variance, from the textbook formulas."""
    from statsmodels.stats.contingency_tables import Table2x2

    s = t + 0.5
    tn, fp, fn, tp = s[0, 0], s[0, 1], s[1, 0], s[1, 1]
    if measure == "odds_ratio":  # statsmodels' table is [[a, b], [c, d]] with OR = ad/bc
        tab = Table2x2(np.array([[tp, fn], [fp, tn]]), shift_zeros=False)
        return float(tab.log_oddsratio), float(tab.log_oddsratio_se) ** 2
    if measure == "lr_plus":  # Simel, Samsa & Matchar (1991)
        return math.log(tp / (tp + fn) / (fp / (fp + tn))), 1 / tp - 1 / (tp + fn) + 1 / fp - 1 / (fp + tn)
    return math.log(fn / (tp + fn) / (tn / (fp + tn))), 1 / fn - 1 / (tp + fn) + 1 / tn - 1 / (fp + tn)


@pytest.mark.parametrize("measure", ["odds_ratio", "lr_plus"])
def test_inverse_run_leaves_the_best_set_unpaired(measure):
    df = _hunter()
    board = be.leaderboard(df, measure=measure)
    rows = {r["run"]: r for r in board.iter_rows(named=True)}
    assert rows["good"]["rank"] == 1 and rows["inverse"][measure] == 0.0
    (lg, vg), (li, vi) = (_log_and_var(_table(df, name), measure) for name in ("good", "inverse"))
    expected = 2 * stats.norm.sf(abs(lg - li) / math.sqrt(vg + vi))
    assert rows["inverse"]["p_vs_leader"] == pytest.approx(expected, rel=1e-9)
    assert rows["inverse"]["p_vs_leader"] < 1e-4  # 0.45 (odds ratio) on the raw scale
    assert rows["inverse"]["could_be_best"] is False
    assert (rows["inverse"]["rank_ci_low"], rows["good"]["rank_ci_high"]) == (2, 1)


def _paired_var(joint: np.ndarray, measure: str) -> tuple[float, float]:
    """The paired log difference and its delta variance with the gradient by finite differences:
    ``joint[real, leader's prediction, run's prediction]``, a quarter added to every cell."""
    j = joint + 0.25

    def log_of(t: np.ndarray) -> float:  # t plus the half per cell already: [real, predicted]
        tn, fp, fn, tp = t[0, 0], t[0, 1], t[1, 0], t[1, 1]
        return {
            "odds_ratio": math.log(tp * tn / (fp * fn)),
            "lr_plus": math.log(tp / (tp + fn) * (fp + tn) / fp),
            "lr_minus": math.log(fn / (tp + fn) * (fp + tn) / tn),
        }[measure]

    run, lead = j.sum(axis=1), j.sum(axis=2)
    var, h = 0.0, 1e-5
    for y in range(2):
        for lp in range(2):
            for rp in range(2):
                dr, dl = np.zeros((2, 2)), np.zeros((2, 2))
                dr[y, rp], dl[y, lp] = h, h
                g = (log_of(run + dr) - log_of(run - dr) - log_of(lead + dl) + log_of(lead - dl)) / (2 * h)
                var += j[y, lp, rp] * g * g
    return log_of(run) - log_of(lead), var


@pytest.mark.parametrize("measure", ["odds_ratio", "lr_plus"])
@pytest.mark.parametrize("paired", ["bootstrap", "delta"])
def test_inverse_run_leaves_the_best_set_paired(measure, paired):
    df = _hunter()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the influence matrix: rank intervals, no warning
        board = be.leaderboard(df, measure=measure, example="ex", paired=paired)
    rows = {r["run"]: r for r in board.iter_rows(named=True)}
    g, i = (df.filter(pl.col("run") == name).sort("ex") for name in ("good", "inverse"))
    joint = np.zeros((2, 2, 2))
    np.add.at(joint, (g["label"].to_numpy(), g["prediction"].to_numpy(), i["prediction"].to_numpy()), 1)
    d, var = _paired_var(joint, measure)
    normal = 2 * stats.norm.sf(abs(d) / math.sqrt(var))
    # the swap test's mid-p value is far below the normal one here: the larger of the two
    assert rows["inverse"]["p_vs_leader"] == pytest.approx(normal, rel=1e-5)
    assert rows["inverse"]["p_vs_leader"] < 1e-4  # 0.39 (odds ratio) on the raw scale
    assert rows["inverse"]["could_be_best"] is False
    assert (rows["inverse"]["rank_ci_low"], rows["inverse"]["rank_ci_high"]) == (2, 2)


@pytest.mark.parametrize("measure", ["odds_ratio", "lr_plus", "lr_minus"])
@pytest.mark.parametrize("example", [None, "ex"])
def test_ci_method_changes_only_the_interval(measure, example):
    """The comparisons read the log scale whatever ci_method (and paired=) says."""
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 60)
    df = pl.concat(
        pl.DataFrame({"run": f"r{i}", "ex": np.arange(60), "label": y,
                      "prediction": np.where(rng.random(60) < s, y, 1 - y)})
        for i, s in enumerate([0.9, 0.8, 0.75, 0.6])
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        boards = [
            be.leaderboard(df, measure=measure, example=example, ci_method=m, paired=p)
            for m, p in [("wilson_delta", "bootstrap"), ("bootstrap", "bootstrap"), ("wilson_delta", "delta")]
        ]
    for other in boards[1:]:
        assert other.select("run", *COLUMNS).equals(boards[0].select("run", *COLUMNS))


def test_log_variance_is_woolf():
    t = np.array([[[7, 3], [0, 12]], [[20, 5], [4, 30]]])
    expected = (1 / (t + 0.5)).sum(axis=(1, 2))
    np.testing.assert_allclose(ratios.log_variance(t, "odds_ratio", 1), expected, rtol=1e-12)


# --- the global null: ten runs of one true ratio -------------------------------------------------

BOARDS = 200
ALPHA = 0.05
#: the simulated rate's binomial standard error at the nominal level, times three
TOL = 3 * math.sqrt(ALPHA * (1 - ALPHA) / BOARDS)


def _null_fwer(measure: str, paired: bool, n: int, prevalence: float, seed: int) -> float:
    rng = np.random.default_rng(seed)
    pos = round(prevalence * n)
    base = np.zeros(n, dtype=np.int8)
    base[:pos] = 1
    errors = 0
    for _ in range(BOARDS):
        y = np.stack([rng.permutation(base)] * 10 if paired else [rng.permutation(base) for _ in range(10)])
        pred = (rng.random(y.shape) < np.where(y == 1, 0.8, 0.3)).astype(np.int8)  # OR 9.33 for every run
        df = pl.DataFrame({"run": np.repeat(np.arange(10), n), "ex": np.tile(np.arange(n), 10),
                           "label": y.ravel(), "prediction": pred.ravel()})  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            board = be.leaderboard(df, measure=measure, example="ex" if paired else None)
        errors += bool((board["could_be_best"] == False).any())  # noqa: E712 (null: undefined run)
    return errors / BOARDS


@pytest.mark.parametrize(
    "measure, paired, n, prevalence",
    [
        ("odds_ratio", False, 200, 0.5),
        ("odds_ratio", True, 200, 0.5),
        ("odds_ratio", False, 40, 0.2),
        ("odds_ratio", True, 40, 0.2),
        ("lr_plus", False, 40, 0.2),
        ("lr_minus", True, 40, 0.2),
    ],
)
def test_best_set_holds_its_level_under_the_null(measure, paired, n, prevalence):
    assert _null_fwer(measure, paired, n, prevalence, seed=11) <= ALPHA + TOL
