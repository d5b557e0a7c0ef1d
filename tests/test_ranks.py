"""be.rank_methods against scipy (Friedman, Wilcoxon), scikit-posthocs (Nemenyi, Siegel/Holm),
statsmodels (Holm) and Demšar's (2006) table of critical values."""

from __future__ import annotations

import re
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import batcheval as be
from batcheval.errors import BatchevalWarning, InvalidArgumentError, InvalidScoreError, NullValuesError
from batcheval.inference.ranks import (
    friedman_tests,
    friedman_with_method,
    nemenyi_cd,
    studentized_range_sf,
    wilcoxon_pairs,
)

sp = pytest.importorskip("scikit_posthocs")
multipletests = pytest.importorskip("statsmodels.stats.multitest").multipletests


def frame_of(x: np.ndarray) -> pl.DataFrame:
    """x[dataset, method] as a long frame; method names sort like their columns."""
    n, k = x.shape
    return pl.DataFrame({
        "method": [f"m{j:03d}" for _ in range(n) for j in range(k)],
        "dataset": np.repeat(np.arange(n), k), "score": x.reshape(-1),
    })  # fmt: skip


def scores(n, k, seed, ties=False):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, k)) + np.linspace(0, 1, k)[None, :]
    return np.round(x, 0) if ties else x


def by_name(res, col):
    return dict(zip(res.ranks["method"], res.ranks[col], strict=True))


@pytest.mark.parametrize("ties", [False, True])
def test_friedman_equals_scipy(ties):
    x = scores(12, 6, 0, ties)
    res = be.rank_methods(frame_of(x))
    ref = stats.friedmanchisquare(*x.T)
    assert res.friedman_chi2 == pytest.approx(ref.statistic, rel=1e-12)
    assert res.friedman_p == pytest.approx(ref.pvalue, rel=1e-10)
    # Iman–Davenport from scipy's chi2, with scipy's F tail
    n, k = x.shape
    f = (n - 1) * ref.statistic / (n * (k - 1) - ref.statistic)
    assert res.iman_davenport_f == pytest.approx(f, rel=1e-12)
    assert res.iman_davenport_p == pytest.approx(stats.f.sf(f, k - 1, (k - 1) * (n - 1)), rel=1e-10)
    # mean ranks: rank 1 = best = highest score, mid-ranks for ties
    expected = stats.rankdata(-x, axis=1).mean(axis=0)
    got = by_name(res, "mean_rank")
    assert [got[f"m{j:03d}"] for j in range(k)] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("n", "k"), [(10, 5), (25, 30)])
def test_nemenyi_and_holm_equal_scikit_posthocs(n, k):
    x = scores(n, k, 1)
    res = be.rank_methods(frame_of(x))
    nem = sp.posthoc_nemenyi_friedman(x).to_numpy()
    sieg = sp.posthoc_siegel_friedman(x, p_adjust="holm").to_numpy()
    for row in res.pairwise.iter_rows(named=True):
        i, j = int(row["method_a"][1:]), int(row["method_b"][1:])
        assert row["p_nemenyi"] == pytest.approx(nem[i, j], abs=2e-7)
        assert row["p_holm"] == pytest.approx(sieg[i, j], rel=1e-9, abs=1e-15)
        # the critical difference is where scikit-posthocs' Nemenyi p crosses alpha
        assert row["nemenyi_different"] == (nem[i, j] < res.alpha)


def test_critical_difference_matches_demsar_table():
    # Demšar (2006) Table 5(a): q_0.05 for k = 2..10 (three decimals)
    table = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
    for k, q in zip(range(2, 11), table, strict=True):
        res = be.rank_methods(frame_of(scores(7, k, k)), pairwise=False)
        # the table's third decimal is off by one at k = 3 (2.343 for 2.3437) and k = 7 (2.949 for
        # 2.9483), hence 1.1e-3
        assert res.cd / np.sqrt(k * (k + 1) / (6 * 7)) == pytest.approx(q, abs=1.1e-3)


def test_studentized_range_tail_equals_scipy_at_many_methods():
    q = np.array([0.5, 2.0, 4.0, 5.5, 6.5, 8.0])
    for k in (3, 50, 1000):
        np.testing.assert_allclose(studentized_range_sf(q, k), stats.studentized_range.sf(q, k, np.inf),
                                   atol=2e-7)  # fmt: skip
    # many distinct values: the interpolated path
    many = np.linspace(0.0, 7.0, 5001)
    got = studentized_range_sf(many, 40)
    pick = np.arange(0, 5001, 397)
    np.testing.assert_allclose(got[pick], stats.studentized_range.sf(many[pick], 40, np.inf), atol=2e-7)


def test_control_is_holm_over_the_other_methods():
    x = scores(15, 6, 2)
    res = be.rank_methods(frame_of(x), control="m002")
    raw = 2 * stats.norm.sf(np.abs(res.control["z"].to_numpy()))
    np.testing.assert_allclose(res.control["p_value"], raw, rtol=1e-12)
    np.testing.assert_allclose(res.control["p_holm"], multipletests(raw, method="holm")[1], rtol=1e-12)
    ranks = by_name(res, "mean_rank")
    for m, d in res.control.select("method", "rank_diff").rows():
        assert d == pytest.approx(ranks[m] - ranks["m002"], abs=1e-12)
    # the unadjusted control p-values are scikit-posthocs' Siegel–Castellan (Friedman) z-test ones,
    # and Holm over the k − 1 of them is statsmodels'
    sieg = sp.posthoc_siegel_friedman(x).to_numpy()
    for m, p in res.control.select("method", "p_value").rows():
        assert p == pytest.approx(sieg[int(m[1:]), 2], rel=1e-9, abs=1e-15)


@pytest.mark.parametrize(("n", "ties"), [(10, False), (30, False), (60, True)])
def test_wilcoxon_equals_scipy(n, ties):
    x = scores(n, 4, 3, ties)
    if ties:
        x[:5, 1] = x[:5, 0]  # zeros in the differences of m000 and m001
    res = be.rank_methods(frame_of(x))
    for row in res.pairwise.iter_rows(named=True):
        i, j = int(row["method_a"][1:]), int(row["method_b"][1:])
        ref = stats.wilcoxon(x[:, i], x[:, j])
        assert row["w"] == pytest.approx(ref.statistic, abs=1e-9)
        assert row["p_wilcoxon"] == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)
    holm = multipletests(res.pairwise["p_wilcoxon"].to_numpy(), method="holm")[1]
    np.testing.assert_allclose(res.pairwise["p_wilcoxon_holm"], holm)


@pytest.mark.parametrize("n", [13, 14, 40])
def test_identical_methods_count_in_wilcoxons_holm_family_as_p_one(n):
    # a copy of another method has no non-zero difference: scipy's p-value is NaN above N = 13, and
    # adjust left that pair out of Holm's family, so the others got 2p instead of 3p at N = 14
    a, b = np.arange(n) + 0.5, np.arange(n) * 1.0
    x = np.column_stack([a, b, b])  # m002 is m001's exact copy; m000 beats both on every dataset
    res = be.rank_methods(frame_of(x))
    pw = res.pairwise.sort("method_a", "method_b")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns that every difference of the copy is zero
        ref = [stats.wilcoxon(x[:, i], x[:, j]).pvalue for i, j in ((0, 1), (0, 2), (1, 2))]
    np.testing.assert_allclose(pw["p_wilcoxon"].to_numpy(), ref, rtol=1e-12)  # NaN where scipy's is
    holm = multipletests(np.nan_to_num(ref, nan=1.0), method="holm")[1]
    np.testing.assert_allclose(pw["p_wilcoxon_holm"].to_numpy(), holm, rtol=1e-12)
    assert pw["p_wilcoxon_holm"].to_list()[2] == 1.0


def test_lower_is_better_reverses_the_ranks():
    x = scores(9, 4, 4)
    up = be.rank_methods(frame_of(x))
    down = be.rank_methods(frame_of(-x), higher_is_better=False)
    assert up.ranks.equals(down.ranks.with_columns(-pl.col("mean_score")))


@settings(max_examples=20)
@given(st.integers(0, 10_000), st.sampled_from(["exp", "cube", "logistic"]))
def test_ranks_are_invariant_under_monotone_transforms(seed, f):
    x = scores(8, 5, seed, ties=seed % 2 == 0)
    g = {"exp": np.exp, "cube": lambda v: v**3 + v, "logistic": lambda v: 1 / (1 + np.exp(-v))}[f]
    a = be.rank_methods(frame_of(x))
    b = be.rank_methods(frame_of(g(x)))
    assert a.ranks.select("method", "mean_rank").equals(b.ranks.select("method", "mean_rank"))
    assert a.friedman_chi2 == pytest.approx(b.friedman_chi2, rel=1e-12)
    assert a.pairwise.select("p_nemenyi", "p_holm").equals(b.pairwise.select("p_nemenyi", "p_holm"))


def test_bad_input_is_named():
    x = frame_of(scores(4, 3, 5))
    with pytest.raises(InvalidArgumentError, match="at least 2 datasets, got 1"):
        be.rank_methods(x.filter(pl.col("dataset") == 0))
    short = x.filter(~((pl.col("method") == "m001") & (pl.col("dataset") >= 2)))
    with pytest.raises(
        InvalidArgumentError, match=r"^1 method is missing on some datasets: 'm001' lacks 2, 3; pass"
    ):
        be.rank_methods(short)
    with pytest.warns(
        BatchevalWarning, match=r"^dropped 1 method missing on some datasets: 'm001' lacks 2, 3"
    ):
        res = be.rank_methods(short, drop_incomplete=True)
    assert res.n_methods == 2 and res.dropped == ["m001"]
    lone = short.filter(pl.col("method") != "m000")
    with (
        pytest.warns(BatchevalWarning, match="^dropped 1 method missing"),
        pytest.raises(
            InvalidArgumentError,
            match=r"^ranking methods needs at least 2 methods, got 1, after "
            r"drop_incomplete=True dropped 1 of 2$",
        ),
    ):
        be.rank_methods(lone, drop_incomplete=True)
    nan = x.with_columns(pl.when(pl.col("dataset") == 1).then(None).otherwise(pl.col("score")).alias("score"))
    with pytest.raises(
        InvalidArgumentError, match=r"3 NaN or null scores, at \(method, dataset\) = \('m000', 1\)"
    ):
        be.rank_methods(nan)
    with pytest.raises(InvalidArgumentError, match="more than one score"):
        be.rank_methods(pl.concat([x, x.head(1)]))
    with pytest.raises(InvalidArgumentError, match="control= method 'zz'"):
        be.rank_methods(x, control="zz")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        be.rank_methods(x)


def test_cd_diagram_bars_join_exactly_the_pairs_nemenyi_cannot_separate(tmp_path):
    pytest.importorskip("matplotlib")
    from batcheval.plot.cd import cliques

    x = scores(20, 9, 6) * 0.6
    res = be.rank_methods(frame_of(x))
    order = res.ranks["method"].to_list()
    groups = cliques(res.ranks["mean_rank"].to_numpy(), res.cd)
    joined = {(order[a], order[b]) for i, j in groups for a in range(i, j + 1) for b in range(a + 1, j + 1)}
    same = {
        (a, b) for a, b, d in res.pairwise.select("method_a", "method_b", "nemenyi_different").rows() if not d
    }
    assert joined == same
    fig = be.plot(res, chart="cd", path=tmp_path / "cd.png")
    assert (tmp_path / "cd.png").stat().st_size > 0
    labels = {t.get_text().split(" ")[0] for t in fig.axes[0].texts}
    assert set(order) <= labels
    with pytest.raises(ValueError, match="chart='cd'"):
        be.plot(res, chart="roc")
    # a numpy integer is an integer (it was refused as "must be an integer")
    top3 = be.plot(res, chart="cd", top=np.int64(3))
    assert {t.get_text().split(" ")[0] for t in top3.axes[0].texts} >= set(order[:3])
    assert not {t.get_text().split(" ")[0] for t in top3.axes[0].texts} & set(order[3:])
    with pytest.raises(InvalidArgumentError, match=r"top= must be an integer of at least 2, got np.True_"):
        be.plot(res, chart="cd", top=np.True_)


@pytest.mark.parametrize("n", [5, 8, 11, 13])
def test_wilcoxon_with_ties_at_small_n_is_scipys_permutation_test(n):
    # scipy enumerates the 2^N sign flips when N <= 13 has ties or zeros; wilcoxon_pairs counts the
    # same distribution by subset sums of doubled mid-ranks
    rng = np.random.default_rng(n)
    rows = {5: 40, 8: 40, 11: 20, 13: 6}[n]  # scipy takes about 0.2 s a pair at 2^11 flips, 1 s at 2^13
    x = rng.integers(0, 4, size=(rows, n)).astype(float)  # coarse scores: many ties and zeros
    a, b = np.arange(0, rows, 2), np.arange(1, rows, 2)
    w, p = wilcoxon_pairs(x, a, b)
    for i in range(len(a)):
        if (x[a[i]] == x[b[i]]).all():
            continue  # scipy warns (0/0 in its z) on all-zero differences; both give p = 1
        ref = stats.wilcoxon(x[a[i]], x[b[i]])
        assert w[i] == pytest.approx(ref.statistic, abs=1e-12)
        assert p[i] == pytest.approx(ref.pvalue, rel=1e-12, abs=1e-15)
    # and through rank_methods (columns of the frame are methods)
    res = be.rank_methods(frame_of(x[: 4 if n < 13 else 3].T))
    for row in res.pairwise.iter_rows(named=True):
        i, j = int(row["method_a"][1:]), int(row["method_b"][1:])
        if (x[i] != x[j]).any():
            assert row["p_wilcoxon"] == pytest.approx(stats.wilcoxon(x[i], x[j]).pvalue, rel=1e-12)


def test_friedman_tests_stack_equals_rank_methods():
    rng = np.random.default_rng(7)
    x = np.round(rng.normal(size=(6, 4, 9)), 0)  # six tables of 4 methods × 9 datasets, with ties
    mean_rank, chi2, p, f, p_f = friedman_tests(x, permutation_max_df=0)  # the χ² and F tails
    _, _, p_perm, _, p_f_perm = friedman_tests(x)  # (k − 1)(N − 1) = 24: the permutation p-value
    for g in range(6):
        ref = stats.friedmanchisquare(*x[g])
        np.testing.assert_allclose(mean_rank[g], stats.rankdata(-x[g], axis=0).mean(axis=1), rtol=1e-15)
        assert chi2[g] == pytest.approx(ref.statistic, rel=1e-12)
        assert p[g] == pytest.approx(ref.pvalue, rel=1e-10)
        assert p_f[g] == pytest.approx(stats.f.sf(f[g], 3, 24), rel=1e-10)
        res = be.rank_methods(frame_of(x[g].T), pairwise=False)
        assert f[g] == pytest.approx(res.iman_davenport_f, rel=1e-12)
        assert (res.friedman_p, res.iman_davenport_p) == (p_perm[g], p_f_perm[g])
        assert res.p_method == "exact"  # 4 methods on 9 datasets: on the rank-sum grid


@pytest.mark.parametrize("n", [8, 20])
def test_infinite_losses_tie_in_wilcoxon_as_in_friedman(n):
    # a log-loss of inf for every method on one dataset is a tie (a zero difference), and one method's
    # inf on another dataset is its largest difference: scipy gives the same with a big finite value
    # in place of inf (inf − inf used to be NaN: an IndexError at N <= 13, wrong p-values above)
    rng = np.random.default_rng(n)
    x = rng.uniform(0.2, 0.6, size=(n, 3)) + np.array([0.0, 0.01, 0.5])
    x[0] = np.inf
    x[1, 2] = np.inf
    res = be.rank_methods(frame_of(x), higher_is_better=False)
    finite = np.where(np.isinf(x), 1e6, x)
    assert res.pairwise.height == 3
    for row in res.pairwise.iter_rows(named=True):
        i, j = int(row["method_a"][1:]), int(row["method_b"][1:])
        ref = stats.wilcoxon(finite[:, i], finite[:, j])
        assert row["w"] == pytest.approx(ref.statistic, abs=1e-9)
        assert row["p_wilcoxon"] == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-15)
    expected = stats.rankdata(finite, axis=1).mean(axis=0)
    assert by_name(res, "mean_rank") == pytest.approx({f"m{j:03d}": r for j, r in enumerate(expected)})


def test_an_infinite_difference_beside_a_zero_one_takes_the_largest_rank():
    # the zero differences were parked at +inf to rank them last, so a real infinite difference tied
    # with them and got a shared mid-rank: p 0.546875 where scipy's exact test gives 0.578125
    a = [np.inf, np.inf, 0.30, 0.40, 0.50, 0.60, 0.70, 0.80]
    b = [np.inf, 0.20, 0.25, 0.42, 0.47, 0.64, 0.61, 0.90]
    res = be.rank_methods(frame_of(np.array([a, b]).T), higher_is_better=False)
    d = np.subtract(a, b, where=np.isfinite(a) | np.isfinite(b), out=np.zeros(8))
    d[1] = 1e9  # the infinite difference is the largest
    ref = stats.wilcoxon(d, zero_method="wilcox", method="exact")
    (row,) = res.pairwise.iter_rows(named=True)
    assert row["w"] == pytest.approx(ref.statistic, abs=1e-12)
    assert row["p_wilcoxon"] == pytest.approx(ref.pvalue, rel=1e-12)


@pytest.mark.parametrize(("column", "where"), [("method", [2]), ("dataset", [3, 4])])
def test_null_method_or_dataset_is_named(column, where):
    x = frame_of(scores(3, 3, 6))
    bad = x.with_columns(pl.when(pl.int_range(pl.len()).is_in(where)).then(None).otherwise(pl.col(column))
                         .alias(column))  # fmt: skip
    plural = "s" if len(where) > 1 else ""
    with pytest.raises(
        NullValuesError, match=f"^{column} column '{column}' has {len(where)} null value{plural} out of 9$"
    ):
        be.rank_methods(bad)


@pytest.mark.parametrize("control", [[1], 1, ("m000",)])
def test_control_of_another_type_is_not_among_the_methods(control):
    # string methods against control=[1] used to be polars' raw ComputeError
    with pytest.raises(InvalidArgumentError, match=r"^control= method .* is not among the 3 methods$"):
        be.rank_methods(frame_of(scores(4, 3, 5)), control=control)


def test_a_decimal_or_fraction_alpha_is_read_as_its_float():
    # alpha=Decimal("0.1") passed the check and raised TypeError (float - Decimal) in 1 - alpha
    from decimal import Decimal
    from fractions import Fraction

    x = np.array([[0.1, 0.2, 0.3], [0.3, 0.5, 0.1], [0.4, 0.6, 0.7], [0.2, 0.9, 0.8]])
    k, n = 3, 4
    # Demšar (2006): CD = q_alpha sqrt(k (k + 1) / (6 N)), q_alpha the studentized range's / sqrt(2)
    cd = stats.studentized_range.ppf(0.9, k, np.inf) / np.sqrt(2) * np.sqrt(k * (k + 1) / (6 * n))
    for alpha in (Decimal("0.1"), Fraction(1, 10)):
        res = be.rank_methods(frame_of(x), alpha=alpha)
        assert res.alpha == 0.1 and type(res.alpha) is float
        assert res.cd == pytest.approx(cd, rel=1e-9)
        assert nemenyi_cd(k, n, alpha) == pytest.approx(cd, rel=1e-9)


def test_alpha_and_text_scores_that_are_not_numbers_are_named():
    x = frame_of(scores(4, 3, 5))
    with pytest.raises(InvalidArgumentError, match=r"^alpha= must be a number, got 'x'$"):
        be.rank_methods(x, alpha="x")
    as_text = pl.col("score").cast(pl.String)
    text = x.with_columns(
        pl.when(pl.col("dataset") == 2).then(pl.lit("failed")).otherwise(as_text).alias("score")
    )
    with pytest.raises(
        InvalidArgumentError,
        match=r"^measure column 'score' of dtype String has 3 non-numeric values \(first: 'failed'\)$",
    ):
        be.rank_methods(text)


@pytest.mark.parametrize(
    ("dtype", "shown"),
    [(pl.Categorical, "Categorical"), (pl.Date, "Date"), (pl.Duration("us"), "Duration(time_unit='us')")],
)
def test_scores_that_are_not_numbers_are_refused_by_dtype(dtype, shown):
    # a Categorical raised polars' own ComputeError; a Date or Duration was ranked as day or tick counts
    x = frame_of(scores(4, 3, 5))
    text = pl.col("score").round(3).cast(pl.String)
    ticks = (pl.col("score") * 1000).cast(dtype) if dtype != pl.Categorical else None
    bad = x.with_columns(text.cast(dtype) if ticks is None else ticks)
    assert bad.schema["score"] == dtype
    with pytest.raises(InvalidArgumentError) as err:
        be.rank_methods(bad)
    assert str(err.value) == (
        f"measure column 'score' has dtype {shown}; measures must be numbers "
        "(a numeric, Boolean or text column)"
    )


@pytest.mark.parametrize("name", ["mean_rank", "p_holm", "z"])
def test_a_method_column_named_like_an_output_is_refused(name):
    # it was polars' raw DuplicateError
    df = frame_of(scores(4, 3, 7)).rename({"method": name})
    with pytest.raises(
        be.DuplicateColumnError, match=f"^method column '{name}' has the name of an output column"
    ):
        be.rank_methods(df, method=name, control="m000")


@pytest.mark.parametrize("flag", ["higher_is_better", "pairwise", "drop_incomplete"])
@pytest.mark.parametrize("value", [None, "False", "no", 2, 0.0])
def test_flags_that_are_not_bools_are_named(flag, value):
    # "False" (truthy) ranked losses highest first and None lowest first without a word, and
    # drop_incomplete="no" dropped methods
    x = frame_of(scores(4, 3, 5))
    if flag == "higher_is_better" and value is None:  # the default: the score column ranks highest first
        got = be.rank_methods(x, higher_is_better=None).ranks
        assert got.equals(be.rank_methods(x, higher_is_better=True).ranks)
        return
    with pytest.raises(
        InvalidArgumentError, match=rf"^{flag}= takes True or False, got {re.escape(repr(value))}$"
    ):
        be.rank_methods(x, **{flag: value})


@pytest.mark.parametrize("false", [False, np.False_, 0])
def test_flags_take_numpy_bools_and_zero(false):
    x = scores(6, 4, 8)
    res = be.rank_methods(frame_of(x), higher_is_better=false, pairwise=false)
    want = stats.rankdata(x, axis=1).mean(axis=0)  # lowest score ranks first
    np.testing.assert_allclose([by_name(res, "mean_rank")[f"m{j:03d}"] for j in range(4)], want, rtol=1e-12)
    assert res.pairwise.is_empty()


def test_integer_scores_that_float64_cannot_tell_apart_are_refused_as_compare_auc_refuses_them():
    # a beat b by 1 on every dataset, but both read as 2^53 in float64: they tied at mean rank 1.5
    # with Wilcoxon's p = 1, without a word
    big = 2**53
    df = pl.DataFrame({"method": ["a", "b"] * 6, "dataset": np.repeat(np.arange(6), 2),
                       "score": [big + 1, big] * 6})  # fmt: skip
    message = (
        r"^measure column 'score' holds integers beyond 2\^53 \(from 9007199254740992 to 9007199254740993\) "
        r"that are equal as float64"
    )
    with pytest.raises(InvalidScoreError, match=message):
        be.rank_methods(df)
    # integers beyond 2^53 that float64 holds exactly are read as before: scipy's ranks
    exact = df.with_columns((big + 2 * (pl.col("score") - big) * (pl.col("dataset") + 1)).alias("score"))
    x = exact["score"].to_numpy().reshape(6, 2).astype(float)
    res = be.rank_methods(exact)
    want = stats.rankdata(-x, axis=1).mean(axis=0)
    np.testing.assert_allclose([by_name(res, "mean_rank")[m] for m in "ab"], want)
    assert res.pairwise["p_wilcoxon"].item() == pytest.approx(stats.wilcoxon(x[:, 0], x[:, 1]).pvalue)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"higher_is_better": "False"}, "higher_is_better= takes True or False, got 'False'"),
        ({"higher_is_better": None}, "higher_is_better= takes True or False, got None"),
        ({"permutation_max_df": -1}, "permutation_max_df= must be an integer of at least 0, got -1"),
        ({"permutation_max_df": "40"}, "permutation_max_df= must be an integer of at least 0, got '40'"),
    ],
)
def test_friedman_tests_reads_its_options_strictly(kwargs, message):
    """A string "False" is true: friedman_tests ranked the methods as if higher were better, and a
    df of "40" failed inside numpy's comparison."""
    x = np.array([[0.9, 0.85, 0.7, 0.92], [0.8, 0.86, 0.65, 0.9], [0.7, 0.6, 0.5, 0.91]])
    with pytest.raises(be.InvalidArgumentError) as caught:
        friedman_tests(x, **kwargs)
    assert str(caught.value) == message
    # a whole float and +inf were taken before the check, and still are
    for df in (40.0, np.inf):
        assert friedman_tests(x, permutation_max_df=df)[2] == friedman_tests(x, permutation_max_df=40)[2]
    low = friedman_tests(x, higher_is_better=False, permutation_max_df=0)[0]
    assert low.tolist() == (4.0 - friedman_tests(x, permutation_max_df=0)[0]).tolist()  # ranks mirrored


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((5, 8, 2.0), "alpha= must lie in (0, 1), got 2.0"),  # NaN
        ((5, 8, 0.0), "alpha= must lie in (0, 1), got 0.0"),
        ((5, 8, "0.05"), "alpha= must be a number, got '0.05'"),
        ((1, 8), "k= must be an integer of at least 2, got 1"),  # NaN
        ((5, 0), "n= must be an integer of at least 1, got 0"),  # ZeroDivisionError
        ((5.0, 8), "k= must be an integer of at least 2, got 5.0"),
    ],
)
def test_nemenyi_cd_refuses_what_has_no_critical_difference(args, message):
    with pytest.raises(InvalidArgumentError) as caught:
        nemenyi_cd(*args)
    assert str(caught.value) == message
    # Demšar's Table 5 (q_0.05 = 2.728 for 5 methods) at N = 8, as before
    assert nemenyi_cd(5, 8) == pytest.approx(2.728 * np.sqrt(5 * 6 / 48), abs=2e-4)


@pytest.mark.parametrize(
    ("x", "message"),
    [
        (np.array([0.9, 0.8, 0.7]),  # IndexError: tuple index out of range
         "x must be methods × datasets (x[..., method, dataset], at least 2-D), got shape (3,)"),
        (np.array(0.5), "x must be methods × datasets (x[..., method, dataset], at least 2-D), got shape ()"),
        (np.ones((1, 6)),
         "x (x[..., method, dataset]) must hold at least 2 methods and 1 dataset, got 1 and 6"),
        (np.ones((4, 3, 0)),
         "x (x[..., method, dataset]) must hold at least 2 methods and 1 dataset, got 3 and 0"),
    ],
)  # fmt: skip
def test_friedman_tests_refuses_what_is_no_table_of_methods_by_datasets(x, message):
    with pytest.raises(InvalidArgumentError) as caught:
        friedman_tests(x)
    assert str(caught.value) == message


def test_all_tied_methods_claim_no_permutation_p_values():
    # every score 0.5: χ² and both p-values NaN (scipy's χ² too), while p_method said "exact" and
    # summary() "exact permutation p-values" beside p = nan
    x = np.full((4, 3), 0.5)
    res = be.rank_methods(frame_of(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy: every dataset ties
        assert np.isnan(stats.friedmanchisquare(*x.T).statistic)
    assert np.isnan(res.friedman_chi2) and np.isnan(res.friedman_p) and np.isnan(res.iman_davenport_p)
    assert res.p_method == "undefined"
    assert res.summary() == (
        "3 methods on 4 datasets: Friedman chi2 = nan (p = nan), Iman-Davenport F = nan (p = nan); "
        "no test: every method ties on every dataset; Nemenyi CD at alpha = 0.05: 1.657"
    )
    # stacked with a table that has a test, each keeps its own method
    hows = friedman_with_method(np.stack([x.T, np.arange(12.0).reshape(3, 4)]))[-1]
    assert hows.tolist() == ["undefined", "exact"]


def test_mean_score_of_huge_finite_scores_stays_finite():
    # the sum of 1e308 and 1.7e308 overflowed: mean_score was inf (NaN in the first version of the fix)
    r = pl.DataFrame({"method": ["a", "b"] * 2, "dataset": [0, 0, 1, 1], "score": [1e308, 1.0, 1.7e308, 2.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ranks = be.rank_methods(r).ranks
    assert ranks["mean_score"].to_list() == [1e308 / 2 + 1.7e308 / 2, 1.5]
    # an infinite loss stays infinite
    r = r.with_columns(score=pl.Series([np.inf, 1.0, 1.0, 2.0]))
    assert be.rank_methods(r).ranks.sort("method")["mean_score"].to_list() == [np.inf, 1.5]
