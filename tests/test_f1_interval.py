"""F1's interval (intervals.f1_interval): the binomial interval of Jaccard's J = tp/(tp + fp + fn),
mapped through F1 = 2J/(1 + J). Before, a named f1 got the percentile bootstrap, which covered
0.375-0.405 at n = 20, informedness 0.95 (docs/calibration_f1.md)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl
import pytest

import batcheval as be
from batcheval.inference.intervals import f1_interval
from tests.reference.intervals import wilson_poisson_one


def test_f1_interval_is_the_mapped_wilson_interval_of_jaccard():
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 12, (400, 2, 2))
    counts[:20, 1, 1] = 1  # one true positive: the Poisson lower end
    counts[20:40, 0, 1] = 0
    counts[20:40, 1, 0] = 1  # one error among the non-negatives: the Poisson upper end
    counts[40:45, 1, 1] = counts[40:45, 0, 1] = counts[40:45, 1, 0] = 0  # only true negatives: NaN
    for positive in (1, 0):
        low, high = f1_interval(counts, 0.95, positive)
        other = 1 - positive
        for i, c in enumerate(counts):
            tp, fp, fn = c[positive, positive], c[other, positive], c[positive, other]
            jl, jh = wilson_poisson_one(int(tp), int(tp + fp + fn), 0.95)
            if math.isnan(jl):
                assert math.isnan(low[i]) and math.isnan(high[i])
                continue
            assert (low[i], high[i]) == pytest.approx((2 * jl / (1 + jl), 2 * jh / (1 + jh)), abs=1e-12)


def test_f1_interval_covers_where_the_bootstrap_collapsed():
    # n = 20, prevalence 0.1, informedness 0.95 (recall 0.975, fallout 0.025): true F1 from the
    # population cells; the bootstrap covered 0.375 here, with zero width in 62 % of the tables
    tables, n, prev, tpr, fpr = 2000, 20, 0.1, 0.975, 0.025
    rng = np.random.default_rng(8)
    probs = [(1 - prev) * (1 - fpr), (1 - prev) * fpr, prev * (1 - tpr), prev * tpr]
    counts = rng.multinomial(n, probs, tables).reshape(tables, 2, 2)
    ppv = prev * tpr / (prev * tpr + (1 - prev) * fpr)
    truth = 2 * ppv * tpr / (ppv + tpr)
    low, high = f1_interval(counts)
    ok = np.isfinite(low)
    coverage = np.mean((low[ok] <= truth) & (truth <= high[ok]))
    assert coverage >= 0.95 - 4 * math.sqrt(0.95 * 0.05 / ok.sum())
    assert np.all(high[ok] > low[ok])  # never zero width


def test_evaluate_uses_it_for_a_named_f1_and_the_bootstrap_on_request():
    df = pl.DataFrame({"label": [1] * 5 + [0] * 5, "prediction": [1] * 5 + [0] * 5})
    out = be.evaluate(df, measures=["f1"], ci=0.95)
    jl, _ = wilson_poisson_one(5, 5, 0.95)  # a perfect table: J = 5/5
    assert out["f1_ci_low"][0] == pytest.approx(2 * jl / (1 + jl), abs=1e-12)
    assert out["f1_ci_high"][0] == 1.0
    boot = be.evaluate(df, measures=["f1"], ci=0.95, ci_method="bootstrap", seed=1)
    assert boot["f1_ci_low"][0] == boot["f1_ci_high"][0] == 1.0  # what the bootstrap does


def test_evaluate_gives_jaccard_its_binomial_interval():
    df = pl.DataFrame({"label": [1, 1, 1, 0, 0, 0, 1], "prediction": [1, 1, 0, 1, 0, 0, 1]})
    out = be.evaluate(df, measures=["jaccard", "f1"], ci=0.9)
    jl, jh = wilson_poisson_one(3, 5, 0.9)  # tp 3 in tp + fp + fn = 5
    assert (out["jaccard_ci_low"][0], out["jaccard_ci_high"][0]) == pytest.approx((jl, jh), abs=1e-12)
    assert out["f1_ci_low"][0] == pytest.approx(2 * jl / (1 + jl), abs=1e-12)


def test_binary_mcc_takes_the_correlation_interval():
    # binary MCC is Matthews' phi = Powers' correlation (scikit-learn as the oracle of the value)
    from sklearn.metrics import matthews_corrcoef

    rng = np.random.default_rng(12)
    y = rng.integers(0, 2, 40)
    p = np.where(rng.random(40) < 0.8, y, 1 - y)
    out = be.evaluate(pl.DataFrame({"label": y, "prediction": p}), measures=["mcc", "correlation"], ci=0.95)
    assert out["mcc"][0] == pytest.approx(matthews_corrcoef(y, p), abs=1e-12)
    assert out["mcc_ci_low"][0] == out["correlation_ci_low"][0]
    assert out["mcc_ci_high"][0] == out["correlation_ci_high"][0]
    assert out["mcc_ci_low"][0] < out["mcc"][0] < out["mcc_ci_high"][0]


def test_the_default_measure_set_has_the_closed_forms_of_f1_and_jaccard():
    # the default set adds only the intervals that cost nothing: f1's and jaccard's are closed
    # forms, but were left out with the bootstrap's measures (stop 43)
    rng = np.random.default_rng(5)
    df = pl.DataFrame({"run": rng.integers(0, 4, 400), "label": rng.integers(0, 2, 400)})
    df = df.with_columns(prediction=pl.col("label") ^ pl.Series(rng.random(400) < 0.3).cast(pl.Int64))
    out = be.evaluate(df, by="run", ci=0.95).sort("run")
    for row in out.iter_rows(named=True):
        jl, jh = wilson_poisson_one(row["tp"], row["tp"] + row["fp"] + row["fn"], 0.95)
        assert (row["jaccard_ci_low"], row["jaccard_ci_high"]) == pytest.approx((jl, jh), abs=1e-12)
        f1 = (2 * jl / (1 + jl), 2 * jh / (1 + jh))
        assert (row["f1_ci_low"], row["f1_ci_high"]) == pytest.approx(f1, abs=1e-12)
    assert "macro_f1_ci_low" not in out.columns and "g_measure_ci_low" not in out.columns


@pytest.mark.parametrize("cluster", [None, "ex", "pair"])
def test_f_beta_with_beta_one_takes_f1s_interval(cluster: str | None):
    """Binary f_beta with beta=1 is f1 on every table, so it takes f1's interval, plain and
    cluster-robust: it took the smoothed bootstrap ([0.421, 0.870] against f1's [0.463, 0.858] on
    the hunt's seed 9), and with example=/cluster= it had none (a warning; an error named alone)."""
    from sklearn.metrics import fbeta_score

    rng = np.random.default_rng(9)
    y = rng.integers(0, 2, 40)
    p = np.where(rng.random(40) < 0.7, y, 1 - y)
    df = pl.DataFrame({"ex": np.arange(40), "pair": np.arange(40) // 2, "label": y, "prediction": p})
    kw = {"ci": 0.95, "seed": 9} | ({} if cluster is None else {"cluster": cluster})
    for beta in (1.0, 1):
        with warnings.catch_warnings():
            warnings.simplefilter("error", be.BatchevalWarning)  # no "no cluster-robust interval"
            both = be.evaluate(df, beta=beta, measures=["f1", "f_beta"], **kw)
            alone = be.evaluate(df, beta=beta, measures=["f_beta"], **kw)
        assert both["f_beta"][0] == pytest.approx(fbeta_score(y, p, beta=1.0), abs=1e-12)
        ends = [f"f_beta_ci_{end}" for end in ("low", "high")]
        assert [both[c][0] for c in ends] == [both["f1_ci_low"][0], both["f1_ci_high"][0]]
        assert [alone[c][0] for c in ends] == [both[c][0] for c in ends]
    if cluster != "pair":
        # single-row clusters give the unclustered interval: the mapped Wilson interval of Jaccard's
        # tp in tp + fp + fn (statsmodels' Wilson, scipy's Poisson ends)
        tp, fp, fn = (
            int(((y == 1) & (p == 1)).sum()),
            int(((y == 0) & (p == 1)).sum()),
            int(((y == 1) & (p == 0)).sum()),
        )
        jl, jh = wilson_poisson_one(tp, tp + fp + fn, 0.95)
        got = (both["f_beta_ci_low"][0], both["f_beta_ci_high"][0])
        assert got == pytest.approx((2 * jl / (1 + jl), 2 * jh / (1 + jh)), abs=1e-12)
    # another beta is not f1: the smoothed bootstrap (plain), none with cluster=
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", be.BatchevalWarning)
        two = be.evaluate(df, beta=2.0, measures=["f1", "f_beta"], **kw)
    if cluster is None:
        assert two["f_beta_ci_low"][0] != two["f1_ci_low"][0]
    else:
        assert "f_beta_ci_low" not in two.columns


@pytest.mark.parametrize("cluster", [None, "ex", "pair"])
def test_f_beta_with_beta_zero_takes_precisions_interval(cluster: str | None):
    """Binary f_beta with beta=0 is tp/(tp + fp), precision, on every table, so it takes precision's
    interval, plain and cluster-robust: it took the smoothed bootstrap (precision 4/6 got
    [0.20, 1.0] or [0.25, 1.0] from call to call against [0.300, 0.903]), and with
    example=/cluster= it had none (a warning; an error named alone)."""
    from sklearn.metrics import precision_score

    rng = np.random.default_rng(12)
    y = rng.integers(0, 2, 40)
    p = np.where(rng.random(40) < 0.7, y, 1 - y)
    df = pl.DataFrame({"ex": np.arange(40), "pair": np.arange(40) // 2, "label": y, "prediction": p})
    kw = {"ci": 0.95} | ({} if cluster is None else {"cluster": cluster})
    for beta in (0.0, 0):
        with warnings.catch_warnings():
            warnings.simplefilter("error", be.BatchevalWarning)  # no "no cluster-robust interval"
            both = be.evaluate(df, beta=beta, measures=["precision", "f_beta"], **kw)
            alone = be.evaluate(df, beta=beta, measures=["f_beta"], **kw)
        assert both["f_beta"][0] == pytest.approx(precision_score(y, p), abs=1e-12)
        ends = [f"f_beta_ci_{end}" for end in ("low", "high")]
        assert [both[c][0] for c in ends] == [both["precision_ci_low"][0], both["precision_ci_high"][0]]
        assert [alone[c][0] for c in ends] == [both[c][0] for c in ends]
    if cluster != "pair":
        # single-row clusters give the unclustered interval: Wilson's of tp in tp + fp with a Poisson
        # end for one success or failure (statsmodels' Wilson, scipy's Poisson ends)
        tp, fp = int(((y == 1) & (p == 1)).sum()), int(((y == 0) & (p == 1)).sum())
        got = (both["f_beta_ci_low"][0], both["f_beta_ci_high"][0])
        assert got == pytest.approx(wilson_poisson_one(tp, tp + fp, 0.95), abs=1e-12)
