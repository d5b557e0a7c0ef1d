"""be.adjust against plain step-down/step-up loops, scipy, and the textbook example; p-values of §3."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import batcheval as be
from tests.reference import intervals as ref

# Benjamini & Hochberg (1995, §4.1): fifteen p-values from a study of myocardial
# infarction treatments; Bonferroni-type control rejects three, BH rejects four at 0.05.
BH_1995 = [0.0001, 0.0004, 0.0019, 0.0095, 0.0201, 0.0278, 0.0298, 0.0344, 0.0459,
           0.3240, 0.4262, 0.5719, 0.6528, 0.7590, 1.0000]  # fmt: skip

pvalues = st.lists(
    st.one_of(st.floats(0.0, 1.0), st.just(math.nan), st.sampled_from([0.0, 0.01, 0.05, 1.0])),
    max_size=40,
)


@given(p=pvalues)
def test_holm_and_bh_match_plain_reference(p: list[float]):
    np.testing.assert_allclose(be.adjust(p, "holm"), ref.holm(p), rtol=1e-12, atol=0)
    np.testing.assert_allclose(be.adjust(p, "bh"), ref.benjamini_hochberg(p), rtol=1e-12, atol=0)


@given(p=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=40))
def test_bh_matches_scipy_false_discovery_control(p: list[float]):
    np.testing.assert_allclose(be.adjust(p, "bh"), stats.false_discovery_control(p, method="bh"), rtol=1e-12)


def test_textbook_example():
    assert int(np.sum(be.adjust(BH_1995, "bh") <= 0.05)) == 4
    assert int(np.sum(be.adjust(BH_1995, "holm") <= 0.05)) == 3


def test_series_in_series_out_with_nulls():
    s = pl.Series("p_vs_leader", [0.01, None, 0.04, float("nan"), 0.03])
    out = be.adjust(s, "holm")
    assert isinstance(out, pl.Series) and out.name == "p_vs_leader"
    assert out.is_null().to_list() == [False, True, False, False, False]
    assert math.isnan(out[3])
    np.testing.assert_allclose(out.drop_nulls().to_numpy(), ref.holm([0.01, 0.04, math.nan, 0.03]))


@pytest.mark.parametrize(("method", "sm_method"), [("holm", "holm"), ("bh", "fdr_bh")])
def test_masked_entries_are_tests_not_made(method: str, sm_method: str):
    # np.asarray dropped the mask: the hidden 0.5 counted as a fourth test (holm 0.09 where 0.06 is right)
    multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests
    p = np.ma.masked_array([0.01, 0.04, 0.03, 0.5, 0.2], mask=[0, 0, 0, 1, 0])
    out = be.adjust(p, method)
    assert type(out) is np.ndarray and out.dtype == np.float64 and np.isnan(out[3])
    np.testing.assert_allclose(out[~p.mask], multipletests(p.compressed(), method=sm_method)[1], rtol=1e-12)
    np.testing.assert_array_equal(out, be.adjust([0.01, 0.04, 0.03, math.nan, 0.2], method))
    # the value under a mask is never read: out of range, or not a number, it is still a test not made
    hidden = np.ma.masked_array([0.01, 7.0, 0.04], mask=[0, 1, 0])
    made = multipletests([0.01, 0.04], method=sm_method)[1]
    np.testing.assert_allclose(be.adjust(hidden, method), [made[0], math.nan, made[1]], rtol=1e-12)
    text = np.ma.masked_array(np.array([0.01, "n/a", 0.04], dtype=object), mask=[0, 1, 0])
    np.testing.assert_array_equal(be.adjust(text, method), be.adjust(hidden, method))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (([0.1, 1.2], "holm"), r"pvalues must lie in \[0, 1\]; 1 do not \(first: 1\.2\)"),
        (([0.1], "bonferroni"), r"unknown adjust method 'bonferroni'"),
        ((0.3, "bh"), r"pvalues must be a sequence of p-values, got 0\.3"),
        ((["a"], "holm"), r"^pvalues must be numbers, got 'a' \(1 of 1 entries\)$"),
        (([0.1, "0.5"], "holm"), r"^pvalues must be numbers, got '0\.5' \(1 of 2 entries\)$"),
        (([0.1, True], "bh"), r"^pvalues must be numbers, got True \(1 of 2 entries\)$"),
        ((pl.Series(["0.1", "0.2"]), "holm"), r"^pvalues must be numbers, got a Series of dtype String$"),
        (([0.1, [0.2]], "holm"), r"^pvalues must be a flat sequence of p-values, got \[0\.1, \[0\.2\]\]$"),
        (
            ([[0.01, 0.04], [0.03, 0.2]], "holm"),
            r"^pvalues must be one-dimensional .* got shape \(2, 2\); adjust each",
        ),
    ],
)
def test_bad_input(args: tuple, message: str):
    with pytest.raises(be.InvalidArgumentError, match=message):
        be.adjust(*args)


def test_every_significance_statistic_has_its_p_value():
    """Spec §3: each statistic's p_ column is its chi-squared tail with (K-1)² dof (every class
    present in these tables; (K_real-1)(K_pred-1) otherwise, tests/test_measures_present_dof.py)."""
    for names, k in ((be.BINARY_MEASURES, 2), (be.MULTICLASS_MEASURES, 3)):
        stats_names = [m for m in names if m in ("chi2", "g2") or m.startswith("chi2_")]
        assert stats_names and all(f"p_{m}" in names for m in stats_names)
        rng = np.random.default_rng(k)
        counts = rng.integers(0, 30, size=(25, k, k))
        out = be.measures.compute(counts, [*stats_names, *(f"p_{m}" for m in stats_names)])
        for m in stats_names:
            # multiclass chi2_kbm is negative when informedness and markedness disagree in
            # sign (where correlation is NaN too); its p-value is then left undefined
            ok = out[m] >= 0
            np.testing.assert_allclose(out[f"p_{m}"][ok], stats.chi2.sf(out[m][ok], (k - 1) ** 2), rtol=1e-9)
    assert {"p_fisher", "alpha_sbb"} <= set(be.BINARY_MEASURES)


def test_p_fisher_agrees_with_scipy_fisher_exact():
    rng = np.random.default_rng(12)
    counts = rng.integers(0, 25, size=(200, 2, 2))
    counts[:5] = [[[0, 0], [0, 7]], [[3, 0], [0, 0]], [[0, 4], [6, 0]], [[9, 0], [0, 9]], [[1, 1], [1, 1]]]
    for positive in (1, 0):
        p = be.measures.compute(counts, ["p_fisher"], positive=positive)["p_fisher"]
        for g, t in enumerate(counts):
            # scipy's rows are the real class and columns the prediction, positive class first
            order = [positive, 1 - positive]
            expect = stats.fisher_exact(t[np.ix_(order, order)], alternative="greater").pvalue
            assert p[g] == pytest.approx(expect, rel=1e-9, abs=1e-300)


def test_p_fisher_on_large_and_negatively_associated_tables():
    """Tables of thousands, many far from the hypergeometric mode: a classifier worse
    than chance must get p near 1 (its pmf at the observed count underflows, and the
    tail has to be summed from the other side), and cell products past int64 must not
    wrap (n ≈ 1.8e10)."""
    rng = np.random.default_rng(7)
    tables = [[[50, 950], [950, 50]], [[0, 1000], [1000, 0]], [[5, 995], [995, 5]], [[990, 10], [10, 990]]]
    for _ in range(400):
        n = int(rng.choice([200, 2_000, 20_000, 200_000]))
        shares = rng.dirichlet(np.full(4, rng.choice([0.3, 1.0, 5.0])))
        tables.append(rng.multinomial(n, shares).reshape(2, 2))
    scipy_order = np.asarray(tables)  # [[tp, fp], [fn, tn]]: real class rows, positive first
    counts = scipy_order[:, ::-1, ::-1]  # batcheval's [real, predicted], class 1 positive
    p = be.measures.compute(counts, ["p_fisher"], positive=1)["p_fisher"]
    expect = [stats.fisher_exact(t, alternative="greater").pvalue for t in scipy_order]
    np.testing.assert_allclose(p, expect, rtol=1e-9, atol=1e-15)
    assert p[0] == pytest.approx(1.0) and p[1] == 1.0

    tp, fp, fn, tn = 2_000_060_000, 4_000_000_000, 4_000_000_000, 8_000_000_000
    huge = np.array([[[tn, fp], [fn, tp]]], dtype=np.int64)
    p = be.measures.compute(huge, ["p_fisher"], positive=1)["p_fisher"][0]
    n, rp, pp = tp + fp + fn + tn, tp + fn, tp + fp
    # lgamma of 1.8e10 carries ~1e-5 relative error into the pmf; int64 wrap-around was off by 10^4
    assert p == pytest.approx(stats.hypergeom.sf(tp - 1, n, rp, pp), rel=1e-4)


def test_p_fisher_keeps_its_digits_when_nearly_every_example_is_predicted_positive():
    """The saddle-point pmf's ½ ln(x (n − x)/n) took ln((n − x)/n) as log1p(−x/n): where x is the
    predicted positives and nearly all of n, the rounding of x/n was all that was left of it
    (2e-10 of the p-value at n = 1e9). Against mpmath's exact upper tail."""
    import mpmath as mp

    n, rp, pp = 10**9, 300_000_000, 10**9 - 20  # 20 predicted negatives
    for tp in [299_999_990, 299_999_995, 300_000_000 - 3]:
        fp, fn = pp - tp, rp - tp
        tn = n - tp - fp - fn
        counts = np.array([[[tn, fp], [fn, tp]]], dtype=np.int64)
        got = be.measures.compute(counts, ["p_fisher"], positive=1)["p_fisher"][0]
        with mp.workdps(50):
            # P(TP >= tp) = P(FN <= fn): FN ~ Hypergeometric(n, rp, n - pp) over 0..20
            want = sum(mp.binomial(rp, k) * mp.binomial(n - rp, n - pp - k) for k in range(fn + 1))
            want = float(want / mp.binomial(n, n - pp))
        assert got == pytest.approx(want, rel=1e-13), tp
