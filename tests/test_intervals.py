"""Confidence intervals: Wilson, delta method and bootstrap, checked against independent sources.

The default intervals of the chance-corrected measures at small n: tests/test_calibration_intervals.py."""

from __future__ import annotations

import re

import numba
import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import batcheval as be
from batcheval.errors import InvalidArgumentError
from batcheval.inference.intervals import (
    DELTA_MEASURES,
    bootstrap_replicates,
    intervals,
    standard_errors,
)
from batcheval.kernels.bootstrap import percentiles
from tests.helpers import sweep_frame
from tests.reference import intervals as ref
from tests.reference.score_diff import score_interval

Z95 = stats.norm.ppf(0.975)


def _tables(rng: np.random.Generator, g: int, k: int, n_max: int = 300) -> np.ndarray:
    n = rng.integers(20, n_max, g)
    p = rng.dirichlet(np.ones(k * k) * 2.0, g)
    return np.stack([rng.multinomial(n[i], p[i]) for i in range(g)]).reshape(g, k, k)


# -- Wilson --------------------------------------------------------------------


@pytest.mark.parametrize("level", [0.8, 0.95, 0.99])
def test_wilson_matches_scipy_binomtest(level: float):
    rng = np.random.default_rng(1)
    counts = _tables(rng, 40, 2)
    counts[0] = [[3, 0], [0, 5]]  # precision 1, inverse_precision 1: the interval's edge cases
    counts[1] = [[0, 4], [0, 6]]  # no real negatives: inverse_recall has no trials
    out = intervals(counts, ["recall", "precision", "inverse_recall", "inverse_precision", "accuracy"], level)
    for g, t in enumerate(counts):
        tn, fp, fn, tp = t.ravel()
        for name, (x, m) in {
            "recall": (tp, tp + fn), "precision": (tp, tp + fp), "inverse_recall": (tn, tn + fp),
            "inverse_precision": (tn, tn + fn), "accuracy": (tp + tn, t.sum()),
        }.items():  # fmt: skip
            low, high = out[name][0][g], out[name][1][g]
            if m == 0:
                assert np.isnan(low) and np.isnan(high)
                continue
            expect = stats.binomtest(int(x), int(m)).proportion_ci(level, method="wilson")
            assert low == pytest.approx(expect.low, abs=1e-12)
            assert high == pytest.approx(expect.high, abs=1e-12)


def test_wilson_multiclass_accuracy_and_positive_class():
    rng = np.random.default_rng(2)
    counts = _tables(rng, 10, 3)
    low, high = intervals(counts, ["accuracy"])["accuracy"]
    for g, t in enumerate(counts):
        expect = stats.binomtest(int(np.trace(t)), int(t.sum())).proportion_ci(0.95, method="wilson")
        assert (low[g], high[g]) == pytest.approx((expect.low, expect.high), abs=1e-12)
    binary = _tables(rng, 10, 2)
    # recall of class 0 is inverse_recall of class 1
    swapped = intervals(binary, ["recall"], positive=0)["recall"]
    direct = intervals(binary, ["inverse_recall"])["inverse_recall"]
    np.testing.assert_array_equal(swapped, direct)


@given(x=st.integers(0, 500), extra=st.integers(0, 500), level=st.floats(0.5, 0.999))
def test_wilson_contains_the_estimate(x: int, extra: int, level: float):
    m = x + extra
    low, high = be.intervals.wilson(np.array([x]), np.array([m]), level)
    if m == 0:
        assert np.isnan(low[0])
    else:
        assert 0.0 <= low[0] <= x / m + 1e-12 and x / m - 1e-12 <= high[0] <= 1.0


# -- delta method ----------------------------------------------------------------


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("name", DELTA_MEASURES)
def test_delta_variance_matches_numerical_derivative(name: str, k: int):
    rng = np.random.default_rng(10 + k)
    counts = _tables(rng, 12, k) + 1  # interior points: every measure is smooth there
    if name == "correlation" and k > 2:  # sqrt(B·M) is only smooth where B and M share a sign
        point = be.measures.compute(counts, ["informedness", "markedness"])
        counts = counts[point["informedness"] * point["markedness"] > 0]
    se = standard_errors(counts, [name])[name]
    for g, t in enumerate(counts):
        assert se[g] ** 2 == pytest.approx(ref.delta_variance_numeric(t, name), rel=1e-5)


def test_delta_binary_closed_forms():
    rng = np.random.default_rng(3)
    counts = _tables(rng, 50, 2) + 1
    se = standard_errors(counts, ["informedness", "markedness"])
    for g, t in enumerate(counts):
        tn, fp, fn, tp = (int(v) for v in t.ravel())
        assert se["informedness"][g] ** 2 == pytest.approx(ref.youden_variance(tp, fp, fn, tn), rel=1e-10)
        # markedness is informedness of the transposed table (spec §2)
        assert se["markedness"][g] ** 2 == pytest.approx(ref.youden_variance(tp, fn, fp, tn), rel=1e-10)


def test_default_interval_nan_when_undefined_and_never_zero_width():
    counts = np.array([[[40, 10], [20, 30]], [[10, 5], [0, 0]], [[0, 0], [0, 0]], [[50, 0], [0, 50]]])
    out = intervals(counts, list(DELTA_MEASURES))
    point = be.measures.compute(counts, list(DELTA_MEASURES))
    for name in DELTA_MEASURES:
        low, high = out[name]
        assert low[0] < point[name][0] < high[0]
        assert np.isnan(low[2]) and np.isnan(high[2])  # empty table
        assert low[3] < high[3] == 1.0  # a perfect table: the interval still has a width
    # one real class: informedness (0 by convention) has no interval, markedness has none either
    # here because only one class is predicted as well
    assert np.isnan(out["informedness"][0][1]) and np.isnan(out["correlation"][0][1])


# -- bootstrap -----------------------------------------------------------------


def test_bootstrap_reproducible_across_seeds_threads_and_slices():
    rng = np.random.default_rng(4)
    counts = _tables(rng, 300, 2)
    names = ["informedness", "f1", "precision"]
    a = intervals(counts, names, method="bootstrap", n_boot=200, seed=42)
    b = intervals(counts, names, method="bootstrap", n_boot=200, seed=42)
    c = intervals(counts, names, method="bootstrap", n_boot=200, seed=43)
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        d = intervals(counts, names, method="bootstrap", n_boot=200, seed=42)
    finally:
        numba.set_num_threads(threads)
    for m in names:
        np.testing.assert_array_equal(a[m], b[m])
        np.testing.assert_array_equal(a[m], d[m])
        assert not np.array_equal(a[m], c[m])
    whole = bootstrap_replicates(counts, 50, seed=9)
    part = bootstrap_replicates(counts[100:120], 50, seed=9, first=100)
    np.testing.assert_array_equal(whole[100:120], part)


def test_bootstrap_replicates_are_multinomial():
    """Each table's replicates against numpy's multinomial sampler and the multinomial moments."""
    table = np.array([[120, 30], [45, 5]])
    n, p = table.sum(), (table / table.sum()).ravel()
    ours = bootstrap_replicates(table[None], 20_000, seed=5)[0].reshape(-1, 4)
    theirs = np.random.default_rng(5).multinomial(n, p, size=20_000)
    assert (ours.sum(axis=1) == n).all()
    np.testing.assert_allclose(ours.mean(axis=0), n * p, rtol=0.01)
    np.testing.assert_allclose(np.cov(ours.T), n * (np.diag(p) - np.outer(p, p)), atol=0.06 * n * p.max())
    for cell in range(4):
        assert stats.ks_2samp(ours[:, cell], theirs[:, cell]).pvalue > 1e-3


@pytest.mark.parametrize(
    "cells",
    [
        (3, 997),  # n·p < 10: inversion
        (300, 700),  # transformed rejection
        (930, 70),  # p > 1/2, drawn as n - Binomial(n, 1 - p)
        (995, 5),  # p > 1/2 and small n·(1 - p)
        (6_000, 14_000),  # log-factorials beyond the table
        (1, 1),
        (40, 3),
    ],
)
def test_bootstrap_sampler_draws_the_binomial_distribution(cells: tuple[int, int]):
    """A two-cell table's first cell is one Binomial(n, c0/n) draw per replicate:
    a chi-squared goodness of fit against scipy's pmf, and its two moments."""
    n, p = sum(cells), cells[0] / sum(cells)
    draws = bootstrap_replicates(np.array([cells]), 2_000_000, seed=11)[0, :, 0]
    values, observed = np.unique(draws, return_counts=True)
    support = np.arange(n + 1)
    expected = stats.binom.pmf(support, n, p) * draws.size
    seen = np.zeros(n + 1)
    seen[values] = observed
    # pool the tails so every bin expects at least 20 draws
    big = np.flatnonzero(expected >= 20)
    lo, hi = big[0], big[-1]
    obs = np.concatenate([[seen[: lo + 1].sum()], seen[lo + 1 : hi], [seen[hi:].sum()]])
    exp = np.concatenate([[expected[: lo + 1].sum()], expected[lo + 1 : hi], [expected[hi:].sum()]])
    if obs.size > 1:
        assert stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue > 1e-4
    assert draws.mean() == pytest.approx(n * p, abs=5 * np.sqrt(n * p * (1 - p) / draws.size))
    assert draws.var() == pytest.approx(n * p * (1 - p), rel=0.01)


def test_replicates_drawn_in_parts_are_the_replicates_drawn_at_once():
    from batcheval.inference.intervals import seeds_for
    from batcheval.kernels.bootstrap import resample_more, start_state
    from batcheval.kernels.jit import readonly

    counts = _tables(np.random.default_rng(4), 3, 3)
    for pseudo in (0.0, 0.4):
        whole = bootstrap_replicates(counts, 11, seed=6, pseudo=pseudo).reshape(3, 11, 9)
        for g in range(3):
            state = np.empty(4, dtype=np.uint64)
            start_state(seeds_for(6, g, 1)[0], state)
            parts = []
            for n in (3, 1, 7):
                out = np.empty((n, 9), dtype=np.int64)
                resample_more(readonly(np.ascontiguousarray(counts.reshape(3, 9))), g, pseudo, n, state, out)
                parts.append(out)
            np.testing.assert_array_equal(np.concatenate(parts), whole[g])


@pytest.mark.parametrize("chunk", [1, 500, 2_000])
def test_bootstrap_of_a_group_larger_than_a_chunk_gives_the_same_intervals(monkeypatch, chunk):
    # a group's n_boot·K² replicate cells were allocated whole, past _CHUNK_CELLS (30 GiB for
    # 1,000 replicates of 2,000 classes); now drawn in parts from the same generator
    from batcheval.inference import intervals as iv

    rng = np.random.default_rng(8)
    for k in (2, 3):
        counts = _tables(rng, 3, k)
        counts[1] = 0
        names = iv.interval_measures(k, "bootstrap")
        for pseudo in (0.0, 0.5):
            want = intervals(counts, names, 0.9, "bootstrap", n_boot=101, seed=3, pseudo=pseudo, beta=2.0)
            monkeypatch.setattr(iv, "_CHUNK_CELLS", chunk)
            got = intervals(counts, names, 0.9, "bootstrap", n_boot=101, seed=3, pseudo=pseudo, beta=2.0)
            monkeypatch.undo()
            for m in names:
                np.testing.assert_array_equal(got[m], want[m], err_msg=f"{m} {k} {pseudo}")


def test_bootstrap_of_many_classes_holds_a_chunk_of_replicates_not_all_of_them():
    import tracemalloc

    k, n = 300, 3_000
    rng = np.random.default_rng(300)
    label = rng.integers(0, k, n)
    pred = np.where(rng.random(n) < 0.7, label, rng.integers(0, k, n))
    table = np.zeros((1, k, k), dtype=np.int64)
    np.add.at(table, (0, label, pred), 1)
    intervals(table, ["accuracy"], method="bootstrap", n_boot=3, seed=1)  # compiled outside the count
    tracemalloc.start()
    try:
        low, high = intervals(table, ["accuracy"], method="bootstrap", n_boot=1_000, seed=1)["accuracy"]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 400 * 2**20, peak  # 1,000 replicates of 90,000 cells are 687 MiB; a chunk 128 MiB
    # the percentile bootstrap of a proportion of 3,000 trials is Wald's interval within the
    # Monte Carlo error of its ends (about 0.0007 here)
    acc = np.trace(table[0]) / n
    half = Z95 * np.sqrt(acc * (1 - acc) / n)
    assert (low[0], high[0]) == pytest.approx((acc - half, acc + half), abs=0.003)


def test_bootstrap_replicates_past_the_memory_say_so(monkeypatch):
    from batcheval.core import memory
    from batcheval.errors import MemoryBudgetError

    monkeypatch.setattr(memory, "available_bytes", lambda: 100 * 2**20)
    counts = np.ones((1, 300, 300), dtype=np.int64)
    with pytest.raises(MemoryBudgetError, match=re.escape(
        "1000 bootstrap replicates of 1 table(s) of 90000 cells each needs 686.6 MiB, more than the "
        "100.0 MiB available; resample fewer tables at once, or draw fewer replicates (n_boot)"
    )):  # fmt: skip
        bootstrap_replicates(counts, 1000, seed=1)


def test_bootstrap_percentiles_agree_with_plain_numpy_bootstrap():
    table = np.array([[70, 30], [25, 75]])
    n, p = table.sum(), (table / table.sum()).ravel()
    reps = np.random.default_rng(6).multinomial(n, p, size=20_000).reshape(-1, 2, 2).astype(float)
    ref_values = np.array([ref.informedness(t) for t in reps])
    expect = np.quantile(ref_values, [0.025, 0.975])
    low, high = intervals(table[None], ["informedness"], method="bootstrap", n_boot=20_000, seed=6)[
        "informedness"
    ]
    se = ref_values.std()
    assert low[0] == pytest.approx(expect[0], abs=0.05 * se)
    assert high[0] == pytest.approx(expect[1], abs=0.05 * se)


def test_percentile_kernel_matches_nanquantile():
    rng = np.random.default_rng(7)
    values = rng.normal(size=(50, 101))
    values[rng.random(values.shape) < 0.1] = np.nan
    values[3] = np.nan
    low, high = np.empty(50), np.empty(50)
    expect_low = np.array([np.nanquantile(r, 0.05) if not np.isnan(r).all() else np.nan for r in values])
    expect_high = np.array([np.nanquantile(r, 0.9) if not np.isnan(r).all() else np.nan for r in values])
    percentiles(values.copy(), 0.05, 0.9, low, high)
    np.testing.assert_allclose(low, expect_low, rtol=1e-12)
    np.testing.assert_allclose(high, expect_high, rtol=1e-12)


def _multiclass_measures(t: np.ndarray) -> dict[str, np.ndarray]:
    """Informedness (Σ_k prevalence_k · (recall_k + inverse_recall_k − 1)), Gorodkin's R_K (mcc)
    and macro F1 of tables ``t[..., K, K]`` (real × predicted) from their definitions in plain
    numpy (spec §4), every class with examples on both sides and an F1 defined."""
    t = t.astype(np.float64)
    n = t.sum(axis=(-2, -1))
    diag = np.diagonal(t, axis1=-2, axis2=-1)
    real, predicted = t.sum(axis=-1), t.sum(axis=-2)
    prevalence, bias = real / n[..., None], predicted / n[..., None]
    tpr = diag / real
    tnr = (n[..., None] - real - predicted + diag) / (n[..., None] - real)
    cov = (diag / n[..., None] - prevalence * bias).sum(axis=-1)
    spread = (prevalence * (1 - prevalence)).sum(axis=-1) * (bias * (1 - bias)).sum(axis=-1)
    return {
        "informedness": (prevalence * (tpr + tnr - 1.0)).sum(axis=-1),
        "mcc": cov / np.sqrt(spread),
        "macro_f1": (2 * diag / (real + predicted)).mean(axis=-1),
    }


def test_bootstrap_multiclass_measures():
    """The percentile bootstrap of three-class measures against plain numpy: the same seeded
    multinomial replicates (bootstrap_replicates, checked on its own above), their measures from
    the definitions, and numpy's default ("linear") quantile, which the docs give for the ends."""
    from tests.reference.naive import multiclass_reference

    names = ["informedness", "mcc", "macro_f1"]
    rng = np.random.default_rng(8)
    counts = _tables(rng, 20, 3, n_max=400) + 2
    out = intervals(counts, names, method="bootstrap", n_boot=300, seed=1)
    reps = bootstrap_replicates(counts, 300, seed=1)
    values = _multiclass_measures(reps)
    for i in range(0, 300, 30):  # the vectorised definitions against the spec's reference
        want = multiclass_reference(reps[0, i], chance=False)
        for name in names:
            assert values[name][0, i] == pytest.approx(want[name], rel=1e-12, abs=1e-14), name
    for name in names:
        low, high = out[name]
        # the measures agree to float rounding, so their 2.5 % and 97.5 % quantiles do too
        np.testing.assert_allclose(low, np.quantile(values[name], 0.025, axis=1), rtol=0, atol=1e-12)
        np.testing.assert_allclose(high, np.quantile(values[name], 0.975, axis=1), rtol=0, atol=1e-12)
        assert (high - low > 0.02).all()  # intervals of some width: ends that are not one replicate


# -- coverage by simulation (paper 002's informed-plus-chance model) --------------

SETTINGS = [  # prevalence, chance bias, informedness, n
    (0.5, 0.5, 0.3, 500),
    (0.2, 0.7, 0.4, 1000),
    (0.8, 0.1, 0.2, 1000),
    (0.3, 0.3, -0.2, 1000),
    (0.1, 0.5, 0.5, 2000),
]


def _draw(setting: tuple, draws: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    prevalence, q, informed, n = setting
    cells = ref.mixture_cells(prevalence, q, informed)
    counts = np.random.default_rng(seed).multinomial(n, cells.ravel(), size=draws).reshape(draws, 2, 2)
    return counts, cells


def _assert_covers(low: np.ndarray, high: np.ndarray, value: float, label: str) -> None:
    """Every interval finite (no class or prediction is empty at these n), and the share of
    them holding ``value`` within 4 binomial standard errors of 0.95 (the suite's rule)."""
    finite = np.isfinite(low) & np.isfinite(high)
    assert finite.mean() == 1.0, (label, finite.mean())
    coverage = np.mean((low[finite] <= value) & (value <= high[finite]))
    assert abs(coverage - 0.95) <= 4 * np.sqrt(0.95 * 0.05 / finite.sum()), (label, coverage)


@pytest.mark.parametrize("setting", SETTINGS)
def test_delta_and_wilson_cover_the_true_values(setting: tuple):
    counts, cells = _draw(setting, 2000, seed=hash(setting) % 2**32)
    out = intervals(counts, ["informedness", "recall", "precision"])
    truth = {
        "informedness": setting[2],
        "recall": cells[1, 1] / cells[1].sum(),
        "precision": cells[1, 1] / cells[:, 1].sum(),
    }
    for name, value in truth.items():
        _assert_covers(*out[name], value, name)


@pytest.mark.parametrize("setting", [SETTINGS[1], SETTINGS[3]])
def test_bootstrap_covers_the_true_informedness(setting: tuple):
    counts, _ = _draw(setting, 2000, seed=99)
    low, high = intervals(counts, ["informedness"], method="bootstrap", n_boot=1000, seed=3)["informedness"]
    _assert_covers(low, high, setting[2], "informedness")


# -- evaluate(ci=...) ------------------------------------------------------------


def test_evaluate_adds_interval_columns_for_pooled_tables():
    """evaluate's pooled intervals against independent sources: the Miettinen–Nurminen score
    interval (tests/reference/score_diff.py) for informedness = tpr − fpr (two independent
    proportions given the real class sizes), statsmodels' Wilson with a Poisson end for 1 success
    or failure (tests/reference/intervals.py) for recall."""
    from tests.reference.intervals import wilson_poisson_one
    from tests.reference.score_diff import score_interval

    df = sweep_frame()
    out = be.evaluate(df, by=["run", "fold"], pool="fold", measures=["informedness", "recall", "f1"], ci=0.9,
                      seed=5, n_boot=300)  # fmt: skip
    assert out.columns[-6:] == [
        "informedness_ci_low", "informedness_ci_high", "recall_ci_low", "recall_ci_high", "f1_ci_low",
        "f1_ci_high",
    ]  # fmt: skip
    pooled = df.group_by("run").agg(
        tp=((pl.col("label") == 1) & (pl.col("prediction") == 1)).sum(),
        fn=((pl.col("label") == 1) & (pl.col("prediction") == 0)).sum(),
        fp=((pl.col("label") == 0) & (pl.col("prediction") == 1)).sum(),
        tn=((pl.col("label") == 0) & (pl.col("prediction") == 0)).sum(),
    )
    got = out.join(pooled, on="run")
    for row in got.iter_rows(named=True):
        tp, fn, fp, tn = row["tp"], row["fn"], row["fp"], row["tn"]
        low, high = score_interval(tp, tp + fn, fp, fp + tn, stats.norm.ppf(0.95))
        assert row["informedness_ci_low"] == pytest.approx(low, abs=1e-9)
        assert row["informedness_ci_high"] == pytest.approx(high, abs=1e-9)
        low, high = wilson_poisson_one(tp, tp + fn, 0.9)
        assert (row["recall_ci_low"], row["recall_ci_high"]) == pytest.approx((low, high), abs=1e-12)
        # f1 = 2J/(1 + J), J = tp/(tp + fp + fn): the Wilson-with-Poisson-end interval of J, mapped
        low, high = wilson_poisson_one(tp, tp + fp + fn, 0.9)
        want = (2 * low / (1 + low), 2 * high / (1 + high))
        assert (row["f1_ci_low"], row["f1_ci_high"]) == pytest.approx(want, abs=1e-12)


def test_evaluate_bootstrap_per_class_and_multiclass():
    df = sweep_frame(n_classes=3)
    out = be.evaluate(df, by="run", measures=["informedness", "mcc"], ci=0.95, ci_method="bootstrap",
                      n_boot=200, seed=11)  # fmt: skip
    again = be.evaluate(df, by="run", measures=["informedness", "mcc"], ci=0.95, ci_method="bootstrap",
                        n_boot=200, seed=11)  # fmt: skip
    assert out.equals(again)
    assert (out["mcc_ci_low"] <= out["mcc_ci_high"]).all()
    per_class = be.evaluate(df, by="run", measures=["recall"], per_class=True, ci=0.95)
    table = be.ContingencyTable.from_frame(df, by="run").counts
    tp = np.diagonal(table, axis1=1, axis2=2).ravel()
    rp = table.sum(axis=2).ravel()
    from tests.reference.intervals import wilson_poisson_one

    low = [wilson_poisson_one(int(x), int(m))[0] for x, m in zip(tp, rp, strict=True)]
    np.testing.assert_allclose(per_class["recall_ci_low"].to_numpy(), low, atol=1e-12)


def test_evaluate_default_measures_get_every_available_interval():
    out = be.evaluate(sweep_frame(), by="run", ci=0.95)
    for name in ("recall", "precision", "inverse_recall", "inverse_precision", "accuracy", *DELTA_MEASURES):
        assert f"{name}_ci_low" in out.columns and f"{name}_ci_high" in out.columns
    # f1's and jaccard's closed forms cost nothing; g_measure's bootstrap would
    assert "f1_ci_low" in out.columns and "jaccard_ci_high" in out.columns
    assert "g_measure_ci_low" not in out.columns and "p_fisher_ci_low" not in out.columns


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"ci": 1.5}, InvalidArgumentError, r"ci must be a confidence level strictly .* got 1\.5"),
        ({"ci": 0.95, "ci_method": "jackknife"}, InvalidArgumentError, r"unknown ci_method 'jackknife'"),
        ({"ci": 0.9, "ci_method": "bootstrap", "n_boot": 1}, InvalidArgumentError, r"n_boot must .* got 1"),
        ({"ci": 0.95, "seed": -3}, InvalidArgumentError, r"seed must be .* got -3"),
        ({"ci": 0.95, "measures": ["p_fisher"]}, be.UnknownMeasureError, r"none of .*'p_fisher'.* has"),
    ],
)
def test_bad_interval_options(kwargs: dict, error: type, message: str):
    with pytest.raises(error, match=message):
        be.evaluate(sweep_frame(), by="run", **kwargs)
    assert issubclass(error, be.BatchevalError)


def test_measure_without_interval_names_the_measure():
    with pytest.raises(be.UnknownMeasureError, match=r"measure 'f1' has no wilson_delta interval .*bootstr"):
        intervals(np.array([[[1, 2], [3, 4]]]), ["f1"])
    frame = pl.DataFrame({"label": [0, 1, 2], "prediction": [0, 1, 1]})
    with pytest.raises(be.UnknownMeasureError, match=r"none of measures=\['p_chi2'\]"):
        be.evaluate(frame, measures=["p_chi2"], ci=0.95)


# -- every level in (0, 1) -----------------------------------------------------

#: the measures with a closed-form interval under ci=, and the range each lies in
_CLOSED_RANGES = {
    **dict.fromkeys(
        ["recall", "precision", "inverse_recall", "inverse_precision", "fallout", "miss_rate",
         "accuracy", "prevalence", "bias", "f1", "jaccard"], (0.0, 1.0),
    ),
    **dict.fromkeys(["informedness", "markedness", "correlation", "mcc", "kappa_cohen"], (-1.0, 1.0)),
}  # fmt: skip


def _rows_of(tables: np.ndarray) -> pl.DataFrame:
    """A frame whose group g holds tables[g] as rows of (label, prediction)."""
    k = tables.shape[1]
    rows = [
        (g, i, j) for g, t in enumerate(tables) for i in range(k) for j in range(k) for _ in range(t[i, j])
    ]
    return pl.DataFrame(rows, schema=["g", "label", "prediction"], orient="row")


def _holds_estimate(out: pl.DataFrame, names: list[str], tol: float) -> None:
    for name in names:
        est, low, high = (out[c].to_numpy() for c in (name, f"{name}_ci_low", f"{name}_ci_high"))
        lo, hi = _CLOSED_RANGES[name]
        both = ~np.isnan(low)
        assert np.array_equal(np.isnan(low), np.isnan(high)), name
        assert (low[both] <= est[both] + tol).all() and (est[both] <= high[both] + tol).all(), name
        assert (low[both] >= lo - tol).all() and (high[both] <= hi + tol).all(), name


@given(
    level=st.floats(0.01, 0.99),
    k=st.sampled_from([2, 3]),
    seed=st.integers(0, 2**32 - 1),
)
def test_every_level_gives_intervals_that_hold_their_estimate(level: float, k: int, seed: int):
    # the docstring allows any level strictly between 0 and 1; at ci=0.3 the Poisson ends of the
    # proportions passed the estimate (recall 4/5 got [0.723, 0.759])
    rng = np.random.default_rng(seed)
    n = rng.integers(1, 25, 6)
    tables = np.stack([rng.multinomial(n[g], rng.dirichlet(np.full(k * k, 0.5))) for g in range(6)])
    frame = _rows_of(tables.reshape(6, k, k))
    names = list(_CLOSED_RANGES) if k == 2 else ["accuracy", "informedness", "markedness", "correlation",
                                                 "kappa_cohen"]  # fmt: skip
    out = be.evaluate(frame, by="g", measures=names, ci=level, classes=list(range(k)))
    _holds_estimate(out, names, 1e-12)


@pytest.mark.parametrize("level", [0.3, 0.4, 0.5])
def test_low_level_proportion_is_wilson_where_the_poisson_end_is_narrower(level: float):
    # recall 4/5 and accuracy 9/10: at a low level the one-sided Poisson end of one failure lies
    # inside Wilson's interval (at ci=0.3 even below the estimate), so the wider, Wilson's, is kept
    frame = pl.DataFrame({"label": [1] * 5 + [0] * 5, "prediction": [1] * 4 + [0] * 6})
    out = be.evaluate(frame, measures=["recall", "accuracy"], ci=level)
    for name, (x, m) in {"recall": (4, 5), "accuracy": (9, 10)}.items():
        expect = stats.binomtest(x, m).proportion_ci(level, method="wilson")
        assert out[f"{name}_ci_high"][0] == pytest.approx(expect.high, abs=1e-12)
    perfect = be.evaluate(
        pl.DataFrame({"label": [0, 0], "prediction": [0, 0]}), measures=["accuracy"], ci=0.4
    )
    expect = stats.binomtest(2, 2).proportion_ci(0.4, method="wilson")
    assert perfect["accuracy_ci_low"][0] == pytest.approx(expect.low, abs=1e-12)
    assert perfect["accuracy_ci_high"][0] == 1.0


def _all_tables(n_max: int) -> np.ndarray:
    """Every 2×2 table of 1 to n_max examples, as counts[G, 2, 2]."""
    out = [
        (a, b, c, n - a - b - c)
        for n in range(1, n_max + 1)
        for a in range(n + 1)
        for b in range(n - a + 1)
        for c in range(n - a - b + 1)
    ]
    return np.array(out, dtype=np.int64).reshape(-1, 2, 2)


def test_every_small_table_holds_its_estimate_exactly():
    # rounding left estimates outside: accuracy 1.0 had ci_high 0.9999999999999999, recall 0/7
    # ci_low 2.8e-17, more than 15,000 cells over the 2×2 tables up to n = 100
    tables = _all_tables(30)
    out = be.evaluate(_rows_of(tables), by="g", measures=list(_CLOSED_RANGES), ci=0.95, classes=[0, 1])
    assert out.height == len(tables)
    _holds_estimate(out, list(_CLOSED_RANGES), 0.0)


def test_perfect_correlation_is_one_exactly():
    # det/(√(rp·rn)·√(pp·pn)) = 3/(√3·√3) rounded to 1.0000000000000002, mcc likewise
    from sklearn.metrics import matthews_corrcoef

    y = [1, 0, 0, 0]
    out = be.evaluate(y_true=y, y_pred=y, measures=["correlation", "mcc"], ci=0.95)
    assert out["correlation"][0] == out["mcc"][0] == matthews_corrcoef(y, y) == 1.0
    flipped = be.evaluate(y_true=y, y_pred=[0, 1, 1, 1], measures=["correlation", "mcc"])
    assert flipped["correlation"][0] == flipped["mcc"][0] == -1.0
    three = be.evaluate(y_true=[0, 1, 2, 2, 2, 2], y_pred=[0, 1, 2, 2, 2, 2], measures=["mcc"])
    assert three["mcc"][0] <= 1.0


def test_bootstrap_interval_holds_its_estimate_at_the_edge():
    # the smoothed percentile bootstrap of a perfect balanced 3-class run of 30 lay wholly below
    # its mutual information log2 3 ([1.016, 1.580]): its resamples are shrunk towards chance
    labels = [0, 1, 2] * 10
    out = be.evaluate(y_true=labels, y_pred=labels, measures=["mutual_information"], ci=0.95, seed=0)
    assert out["mutual_information"][0] == pytest.approx(np.log2(3), abs=1e-12)
    assert out["mutual_information_ci_low"][0] < out["mutual_information"][0]
    assert out["mutual_information_ci_high"][0] == out["mutual_information"][0]


@pytest.mark.parametrize(
    ("kwargs", "names"),
    [
        # no positives: recall, auc_single, g_measure, odds_ratio and lr_* are undefined, yet
        # the smoothed bootstrap gave auc_single [0.375, 1.0] and g_measure [0.0, 1.0]
        (
            {"y_true": [0] * 5, "y_pred": [0] * 5, "classes": [0, 1]},
            ["auc_single", "g_measure", "odds_ratio", "lr_plus", "lr_minus"],
        ),
        # three classes whose informedness and markedness differ in sign: correlation is NaN,
        # yet the plain bootstrap gave an interval
        (
            {"y_true": [0, 1, 1, 1, 2, 2, 2], "y_pred": [2, 0, 0, 1, 0, 0, 2], "ci_method": "bootstrap"},
            ["correlation"],
        ),
    ],
)
def test_undefined_estimate_has_no_interval(kwargs: dict, names: list[str]):
    out = be.evaluate(**kwargs, measures=names, ci=0.95, seed=0)
    for name in names:
        assert np.isnan(out[name][0]), name
        assert np.isnan(out[f"{name}_ci_low"][0]) and np.isnan(out[f"{name}_ci_high"][0]), name


_T = np.array([[[40, 10], [20, 30]]])
_X, _M = np.array([7]), np.array([10])


@pytest.mark.parametrize(
    "call",
    [
        lambda iv, level: iv.newcombe(_X, _M, np.array([3]), _M, level),
        lambda iv, level: iv.score_difference(_X, _M, np.array([3]), _M, level),
        lambda iv, level: iv.wilson(_X, _M, level),
        lambda iv, level: iv.modified_wilson(_X, _M, level),
        lambda iv, level: iv.poisson_ends(_X, _M, level),
        lambda iv, level: iv.two_sided_z(level),
        lambda iv, level: iv.adjusted_delta(_T, "informedness", level),
        lambda iv, level: iv.binary_scores(_T, level),
        lambda iv, level: iv.from_scores(_T, "kappa_cohen", level),
        lambda iv, level: iv.chance_interval(_T, "informedness", level),
        lambda iv, level: iv.closed_form_interval(_T, "f1", level),
        lambda iv, level: iv.f1_interval(_T, level),
        lambda iv, level: iv.jaccard_interval(_T, level),
        lambda iv, level: iv.intervals(_T, ["accuracy"], level),
        lambda iv, level: iv.default_intervals(_T, ["accuracy"], level, "wilson_delta", n_boot=100, seed=0),
    ],
)
@pytest.mark.parametrize("level", [1.5, 1.0, 0.0, -0.05, float("nan"), True, "0.95"])
def test_every_function_of_be_intervals_that_takes_level_refuses_one_outside_0_1(call, level):
    # newcombe(level=1.5) returned NaN and wilson(level=1.5) NaN ends; intervals() named it "ci"
    message = f"level must be a confidence level strictly between 0 and 1, got {level!r}"
    with pytest.raises(InvalidArgumentError, match=f"^{re.escape(message)}$"):
        call(be.intervals, level)


def test_newcombe_at_a_valid_level_is_newcombes_hybrid_score_interval():
    # Newcombe (1998) method 10 from scipy's Wilson ends, for 7/10 against 3/10 at 0.9
    from scipy.stats import binomtest

    level = 0.9
    w1 = binomtest(7, 10).proportion_ci(level, method="wilson")
    w2 = binomtest(3, 10).proportion_ci(level, method="wilson")
    p1, p2 = 0.7, 0.3
    low = p1 - p2 - np.sqrt((p1 - w1.low) ** 2 + (w2.high - p2) ** 2)
    high = p1 - p2 + np.sqrt((w1.high - p1) ** 2 + (p2 - w2.low) ** 2)
    got = be.intervals.newcombe(_X, _M, np.array([3]), _M, level)
    np.testing.assert_allclose([got[0][0], got[1][0]], [low, high], rtol=1e-12)


# -- the convention 0 of an empty denominator ------------------------------------


def test_a_conventional_zero_has_a_nan_interval_under_wilson_delta():
    """evaluate's docstring and docs/measures.md (rule 2): informedness, markedness, correlation and
    kappa_cohen are 0 where their denominator is empty, a convention, and under "wilson_delta" that 0
    has a NaN interval (it said "every interval holds its estimate"); everywhere else the interval
    holds the estimate. Every binary table of 1 to 6 examples."""
    tables = [(tp, fp, fn, n - tp - fp - fn) for n in range(1, 7) for tp in range(n + 1)
              for fp in range(n + 1 - tp) for fn in range(n + 1 - tp - fp)]  # fmt: skip
    tp, fp, fn, tn = (np.array(c) for c in zip(*tables, strict=True))
    cells = np.stack([tp, fp, fn, tn], axis=1).reshape(-1)  # each table's rows: tp, fp, fn, tn examples
    frame = pl.DataFrame({"g": np.repeat(np.repeat(np.arange(len(tables)), 4), cells),
                          "label": np.repeat(np.tile([1, 0, 1, 0], len(tables)), cells),
                          "prediction": np.repeat(np.tile([1, 1, 0, 0], len(tables)), cells)})  # fmt: skip
    names = ["informedness", "markedness", "correlation", "kappa_cohen"]
    out = be.evaluate(frame, by="g", measures=names, classes=[0, 1], ci=0.95).sort("g")
    n = tp + fp + fn + tn
    rp, rn, pp, pn = tp + fn, fp + tn, tp + fp, fn + tn
    empty = {  # the spec: the denominator each measure's 0 stands in for
        "informedness": (rp == 0) | (rn == 0),
        "markedness": (pp == 0) | (pn == 0),
        "correlation": (rp == 0) | (rn == 0) | (pp == 0) | (pn == 0),
        "kappa_cohen": ((rp == n) & (pp == n)) | ((rn == n) & (pn == n)),
    }
    assert out["tp"].to_list() == tp.tolist() and out["tn"].to_list() == tn.tolist()
    for name in names:
        est, low, high = (out[c].to_numpy() for c in (name, f"{name}_ci_low", f"{name}_ci_high"))
        conventional = empty[name]
        assert conventional.any() and (~conventional).any()
        assert not np.isnan(est).any()
        assert (est[conventional] == 0.0).all(), name
        assert np.isnan(low[conventional]).all() and np.isnan(high[conventional]).all(), name
        held = ~conventional
        assert not np.isnan(low[held]).any() and not np.isnan(high[held]).any(), name
        assert (low[held] <= est[held]).all() and (est[held] <= high[held]).all(), name
    # the constant classifier of the report: markedness 0 with no interval; the bootstrap gives [0, 0]
    y, p = [0] * 25 + [1] * 25, [1] * 50
    got = be.evaluate(y_true=y, y_pred=p, measures=names, ci=0.95)
    assert got["informedness"][0] == 0.0  # its real margins are full: a measured 0, with an interval
    assert got["informedness_ci_low"][0] < 0.0 < got["informedness_ci_high"][0]
    assert got["markedness"][0] == 0.0 and np.isnan(got["markedness_ci_low"][0])
    boot = be.evaluate(y_true=y, y_pred=p, measures=["markedness"], ci=0.95, ci_method="bootstrap", seed=0)
    assert boot.select("markedness", "markedness_ci_low", "markedness_ci_high").row(0) == (0.0, 0.0, 0.0)


def _evaluate_tables(counts: np.ndarray, names: list[str]) -> pl.DataFrame:
    """evaluate(ci=0.95) of tables ``counts[G, K, K]`` as one frame of examples grouped by "g"."""
    g, real, pred = np.nonzero(counts)
    reps = counts[g, real, pred]
    frame = pl.DataFrame({"g": np.repeat(g, reps), "label": np.repeat(real, reps),
                          "prediction": np.repeat(pred, reps)})  # fmt: skip
    out = be.evaluate(frame, by="g", measures=names, classes=list(range(counts.shape[1])), ci=0.95)
    out = out.sort("g")
    assert out["g"].to_list() == list(range(len(counts)))
    return out


def test_one_real_or_predicted_class_of_many_has_a_nan_interval_whatever_the_rounding():
    """evaluate's ci= docstring: under "wilson_delta" the interval is NaN where the estimate is the
    convention 0 of an empty denominator, informedness with one real class, markedness with one
    predicted class, correlation with either. Tables of three or more classes decided that from the
    shares of a margin reaching 1, and 2/6 + 3/6 + 1/6 = 0.9999999999999999: the six examples of one
    real class predicted 1, 1, 0, 1, 2, 0 got informedness [-0.800, 0.800], predicted 0, 1, 2, 0, 1,
    2 NaN (hunt session 54: 5 informedness, 6 markedness, 11 correlation cases of 300 three-class
    tables). The margins are counted here in plain numpy."""
    names = ["informedness", "markedness", "correlation"]
    for pred in ([1, 1, 0, 1, 2, 0], [0, 1, 2, 0, 1, 2]):
        for y_true, y_pred, undefined in ((
            [0] * 6, pred, ("informedness", "correlation")), (pred, [0] * 6, ("markedness", "correlation")
        )):  # fmt: skip
            out = be.evaluate(y_true=y_true, y_pred=y_pred, measures=names, ci=0.95)
            for name in names:
                low, high = out[f"{name}_ci_low"][0], out[f"{name}_ci_high"][0]
                assert out[name][0] == 0.0, (pred, name)
                if name in undefined:
                    assert np.isnan(low) and np.isnan(high), (y_true, y_pred, name, low, high)
                else:  # the other margin holds three classes: a measured 0
                    assert low < 0.0 < high, (y_true, y_pred, name, low, high)

    rng = np.random.default_rng(54)
    for k in (3, 4):
        g = 400
        n = rng.integers(2, 40, g)
        shares = rng.dirichlet(np.full(k, 0.7), g)
        one = np.zeros((g, k, k), dtype=np.int64)
        rows = np.stack([rng.multinomial(m, p) for m, p in zip(n, shares, strict=True)])
        one[np.arange(g), rng.integers(0, k, g)] = rows
        cells = rng.dirichlet(np.ones(k * k), g)
        mixed = np.stack([rng.multinomial(m, p) for m, p in zip(n, cells, strict=True)])
        # one real class, one predicted class (the transposes), and tables of any margins
        counts = np.concatenate([one, one.transpose(0, 2, 1), mixed.reshape(g, k, k)])
        real = np.count_nonzero(counts.sum(axis=2), axis=1)
        predicted = np.count_nonzero(counts.sum(axis=1), axis=1)
        spec = {"informedness": real < 2, "markedness": predicted < 2}
        spec["correlation"] = spec["informedness"] | spec["markedness"]
        out = _evaluate_tables(counts, names)
        for name in names:
            est, low, high = (out[c].to_numpy() for c in (name, f"{name}_ci_low", f"{name}_ci_high"))
            conventional = spec[name]
            assert conventional.sum() >= g and (~conventional).sum() >= g // 2, (k, name)
            assert (est[conventional] == 0.0).all(), (k, name)
            wrong = np.flatnonzero(conventional & ~(np.isnan(low) & np.isnan(high)))
            assert not len(wrong), (k, name, counts[wrong[:3]].tolist(), low[wrong[:3]])
            # two or more classes in the margins the measure divides by: an interval that holds the
            # estimate (correlation's estimate is NaN where informedness and markedness differ in sign)
            held = ~conventional & np.isfinite(est)
            assert np.isfinite(low[held]).all() and np.isfinite(high[held]).all(), (k, name)
            assert (low[held] <= est[held]).all() and (est[held] <= high[held]).all(), (k, name)


# -- the functions of be.intervals refuse a measure they do not handle -----------


@pytest.mark.parametrize("name", ["recall", "accuracy", "informedness", "macro_f1", "f1 "])
def test_closed_form_interval_refuses_a_measure_it_has_no_closed_form_for(name: str):
    # closed_form_interval(t, "recall") returned jaccard_interval's (0.377, 0.623) for 30 of 60 trials
    message = (
        f"measure {name!r} has no closed-form interval; closed_form_interval is for ['f1', 'jaccard', 'mcc']"
    )
    with pytest.raises(be.UnknownMeasureError, match=f"^{re.escape(message)}$"):
        be.intervals.closed_form_interval(_T, name)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        # truncated to 2 before: the interval of 2 of 10
        (([2.5], [10], [3], [10]), "x1 must hold whole numbers, got 2.5 (group 0)"),
        (([2], [10], [3], [10.5]), "m2 must hold whole numbers, got 10.5 (group 0)"),
        (([1, 2], [10, 10], [3, -1], [10, 10]), "x2 must be non-negative, got -1 (group 1)"),
        # 12 successes of 10 trials gave (0.583, 0.992)
        (([12], [10], [3], [10]), "x1 must not exceed m1, got x1=12 and m1=10 (group 0)"),
        (([1, 2], [10, 10], [3, 11], [10, 10]), "x2 must not exceed m2, got x2=11 and m2=10 (group 1)"),
        # the kernel read past the shorter array
        (
            ([3, 4], [10], [3], [10]),
            "x1, m1, x2 and m2 must have the same number of elements, got [2, 1, 1, 1]",
        ),
    ],
)
def test_score_difference_refuses_counts_that_are_not_binomial_counts(args: tuple, message: str):
    with pytest.raises(InvalidArgumentError, match=f"^{re.escape(message)}$"):
        be.intervals.score_difference(*(np.array(v) for v in args))


def test_score_difference_takes_whole_counts_given_as_floats_and_python_ints():
    # tests/reference/score_diff.py: the Miettinen-Nurminen interval by numpy.roots and brentq
    want = score_interval(7, 10, 3, 10, float(Z95))
    for args in ((np.array([7.0]), np.array([10.0]), np.array([3.0]), np.array([10.0])), (7, 10, 3, 10)):
        low, high = be.intervals.score_difference(*args)
        np.testing.assert_allclose([low[0], high[0]], want, atol=1e-9)


@pytest.mark.parametrize("function", ["adjusted_delta", "chance_interval"])
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("name", ["recall", "accuracy", "mcc", "Informedness"])
def test_chance_corrected_intervals_refuse_another_measure_naming_the_function_called(
    function: str, k: int, name: str
):
    # adjusted_delta raised a bare KeyError 'recall' (or UnknownMeasureError for a binary measure of
    # three classes); chance_interval of a 2×2 table named from_scores, which it had called
    counts = np.array([np.eye(k, dtype=np.int64) * 5 + 1])
    message = (
        f"measure {name!r} has no chance-corrected interval; {function} is for "
        "['informedness', 'markedness', 'correlation', 'kappa_cohen']"
    )
    with pytest.raises(be.UnknownMeasureError, match=f"^{re.escape(message)}$"):
        getattr(be.intervals, function)(counts, name)
