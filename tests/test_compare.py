"""be.compare: corrected resampled t, Bayesian correlated t (baycomp), 5x2cv, plain t (scipy)."""

from __future__ import annotations

import itertools
import re

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import batcheval as be
from batcheval.errors import InvalidArgumentError, InvalidScoreError
from tests.reference import cv as ref

baycomp = pytest.importorskip("baycomp")


def cv_frame(n_runs=6, n_repeats=3, n_folds=5, seed=0, measure="accuracy"):
    rng = np.random.default_rng(seed)
    runs = np.repeat(np.arange(n_runs), n_repeats * n_folds)
    reps = np.tile(np.repeat(np.arange(n_repeats), n_folds), n_runs)
    folds = np.tile(np.arange(n_folds), n_runs * n_repeats)
    shared = rng.normal(0, 0.03, n_repeats * n_folds)[np.tile(np.arange(n_repeats * n_folds), n_runs)]
    values = 0.7 + 0.01 * runs + shared + rng.normal(0, 0.02, len(runs))
    return pl.DataFrame({"run": runs, "repeat": reps, "fold": folds, measure: values})


def _vectors(df, run, measure="accuracy"):
    return df.filter(pl.col("run") == run).sort("repeat", "fold").get_column(measure).to_numpy()


def test_plain_t_equals_scipy_ttest_rel():
    df = cv_frame()
    out = be.compare(df, repeat="repeat", measure="accuracy", reference=0, test="t")
    for row in out.iter_rows(named=True):
        expected = stats.ttest_rel(_vectors(df, row["run"]), _vectors(df, 0))
        assert row["t"] == pytest.approx(expected.statistic, rel=1e-12)
        assert row["p_value"] == pytest.approx(expected.pvalue, rel=1e-10)
        assert row["df"] == 14


def test_a_pandas_frame_converts_only_the_named_columns():
    df = cv_frame(n_runs=2, n_repeats=1)
    pdf = df.to_pandas().assign(notes=[1, "n/a", 2.5, None, "x"] * 2)  # arrow cannot read it
    row = be.compare(pdf, measure="accuracy", reference=0, test="t").row(0, named=True)
    expected = stats.ttest_rel(_vectors(df, 1), _vectors(df, 0))
    assert row["t"] == pytest.approx(expected.statistic, rel=1e-12)


@pytest.mark.parametrize("test_fraction", [None, 0.3])
def test_corrected_t_matches_reference_and_baycomp_variance(test_fraction):
    df = cv_frame(seed=1)
    out = be.compare(df, repeat="repeat", measure="accuracy", reference=2, test_fraction=test_fraction)
    for row in out.iter_rows(named=True):
        x, y = _vectors(df, 2), _vectors(df, row["run"])
        t, p = ref.corrected_t(list(y), list(x), n_folds=5, test_fraction=test_fraction)
        assert row["t"] == pytest.approx(t, rel=1e-12)
        assert row["p_value"] == pytest.approx(p, rel=1e-10)
        if test_fraction is None:  # baycomp's correction is the k-fold one, 1/J + 1/(k-1)
            mean, var, dof = baycomp.CorrelatedTTest.compute_statistics(x, y, runs=3)
            assert row["mean_diff"] == pytest.approx(mean, rel=1e-12)
            assert row["se"] == pytest.approx(np.sqrt(var), rel=1e-12)
            assert row["df"] == dof


@pytest.mark.parametrize("rope", [0.0, 0.005, 0.02])
def test_bayesian_correlated_t_equals_baycomp(rope):
    df = cv_frame(seed=2)
    out = be.compare(df, repeat="repeat", measure="accuracy", reference=0, test="bayes", rope=rope)
    for row in out.iter_rows(named=True):
        probs = baycomp.two_on_single(_vectors(df, 0), _vectors(df, row["run"]), rope=rope, runs=3)
        if rope == 0:
            assert row["p_left"] == pytest.approx(probs[0], abs=1e-9)
            assert row["p_right"] == pytest.approx(probs[1], abs=1e-9)
            assert row["p_rope"] == pytest.approx(0.0, abs=1e-9)
        else:
            for name, p in zip(("p_left", "p_rope", "p_right"), probs, strict=True):
                assert row[name] == pytest.approx(p, abs=1e-9)


def test_bayes_zero_variance_follows_baycomp():
    df = pl.DataFrame({"run": [0] * 4 + [1] * 4, "fold": [0, 1, 2, 3] * 2, "m": [0.5] * 4 + [0.6] * 4})
    out = be.compare(df, measure="m", reference=0, test="bayes", rope=0.01)
    probs = baycomp.two_on_single(np.full(4, 0.5), np.full(4, 0.6), rope=0.01)
    assert out.select("p_left", "p_rope", "p_right").row(0) == pytest.approx(probs, abs=1e-12)


def test_asymmetric_rope_is_the_t_posterior_mass():
    df = cv_frame(seed=3)
    out = be.compare(df, repeat="repeat", measure="accuracy", reference=0, test="bayes", rope=(-0.01, 0.03))
    for row in out.iter_rows(named=True):
        post = stats.t(14, loc=row["mean_diff"], scale=row["se"])
        assert row["p_left"] == pytest.approx(post.cdf(-0.01), abs=1e-12)
        assert row["p_right"] == pytest.approx(post.sf(0.03), abs=1e-12)


def test_five_by_two_matches_dietterich_reference():
    df = cv_frame(n_runs=4, n_repeats=5, n_folds=2, seed=4)
    out = be.compare(df, repeat="repeat", measure="accuracy", reference=1, test="5x2cv")
    for row in out.iter_rows(named=True):
        x = _vectors(df, 1).reshape(5, 2).tolist()
        y = _vectors(df, row["run"]).reshape(5, 2).tolist()
        t, p = ref.five_by_two(y, x)
        assert row["t"] == pytest.approx(t, rel=1e-12)
        assert row["p_value"] == pytest.approx(p, rel=1e-10)
        assert row["df"] == 5


@pytest.mark.parametrize(
    "shifts", [[0.1, -0.2, 0.05, -0.1, 0.3], [0.1, 0.1, 0.1, 0.1, 0.2], [0.0, 0.1, -0.1, 0.2, 0.05]]
)
def test_five_by_two_with_no_spread_within_repeats_takes_the_exact_sign_flip_test(shifts):
    # each repeat's two differences equal: s² = 0 in every repeat, t = ±inf (or 0/0) and p = 0,
    # where the corrected t gives 0.88; now the exact sign-flip test of the ten differences
    rows = [("a", i, j, 0.7 + 0.01 * j + 0.02 * i) for i in range(5) for j in range(2)]
    rows += [("b", i, j, 0.7 + 0.01 * j + 0.02 * i + shifts[i]) for i in range(5) for j in range(2)]
    df = pl.DataFrame(rows, schema=["run", "repeat", "fold", "accuracy"], orient="row")
    out = be.compare(df, repeat="repeat", measure="accuracy", reference="a", test="5x2cv").row(0, named=True)
    d = np.repeat(shifts, 2)
    reaching = sum(
        abs(np.dot(signs, d)) >= abs(d.sum()) - 1e-12 for signs in itertools.product([1, -1], repeat=10)
    )
    assert out["se"] == 0 and np.isnan(out["t"])
    assert out["p_value"] == pytest.approx(reaching / 2**10, abs=1e-15)
    assert out["p_value"] >= 2 / 2**10


def test_five_by_two_rejects_other_layouts():
    with pytest.raises(InvalidArgumentError, match=r"5 repeats of 2 folds, got 3 repeats of 5 folds"):
        be.compare(cv_frame(), repeat="repeat", measure="accuracy", test="5x2cv")


def test_all_pairs_and_best_reference():
    df = cv_frame(n_runs=4, seed=5)
    out = be.compare(df, repeat="repeat", measure="accuracy", pairs="all")
    assert out.height == 6
    assert out.select("run", "reference_run").rows() == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    best = df.group_by("run").agg(pl.col("accuracy").mean()).sort("accuracy").get_column("run")[-1]
    out = be.compare(df, repeat="repeat", measure="accuracy")
    assert set(out.get_column("reference_run")) == {best}
    assert best not in out.get_column("run").to_list()
    worst = df.group_by("run").agg(pl.col("accuracy").mean()).sort("accuracy").get_column("run")[0]
    out = be.compare(df, repeat="repeat", measure="accuracy", higher_is_better=False)
    assert set(out.get_column("reference_run")) == {worst}
    # Holm over the rows, as be.adjust computes it
    np.testing.assert_allclose(out["p_holm"].to_numpy(), be.adjust(out["p_value"].to_numpy(), "holm"))


def test_predictions_are_counted_per_fold_like_evaluate(sweep):
    per_fold = be.evaluate(sweep, by=["run", "fold"], measures=["accuracy"])
    direct = be.compare(sweep, measure="accuracy", reference=0)
    via = be.compare(per_fold, measure="accuracy", reference=0)
    assert direct.equals(via)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"label": ["lab"]}, "label= takes a column name (a string), got a list (['lab'])"),
        ({"label": "lab", "prediction": None}, "prediction= takes a column name (a string), got None"),
        ({"label": "lab", "prediction": ("prediction",)},
         "prediction= takes a column name (a string), got a tuple (('prediction',))"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("evaluated", [False, True])
def test_label_and_prediction_that_are_not_column_names_are_named(kwargs, message, evaluated):
    # a list or None was not among the columns, so the frame was read as evaluated: "measure column
    # 'informedness' not found", a column the caller never named
    df = pl.DataFrame({"run": ["a", "a", "b", "b"] * 3, "fold": [0, 1, 0, 1] * 3,
                       "lab": [0, 1, 1, 0] * 3, "prediction": [0, 1, 0, 0] * 3})  # fmt: skip
    if evaluated:  # refused there too, though an evaluated frame does not read them
        df = be.evaluate(df, by=["run", "fold"], label="lab", measures=["informedness"])
    for data in (df, df.lazy(), df.to_pandas()):
        with pytest.raises(InvalidArgumentError) as err:
            be.compare(data, **kwargs)
        assert str(err.value) == message
    if not evaluated:  # the message leaderboard gives for the same argument
        with pytest.raises(InvalidArgumentError) as err:
            be.leaderboard(df, **kwargs)
        assert str(err.value) == message


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"label": "lbl"}, "label column 'lbl' not found"),
        ({"label": "y", "prediction": "pred"}, "prediction column 'pred' not found"),
        ({"label": "lbl", "prediction": "pred"}, "label column 'lbl' not found"),
        ({}, "label column 'label' not found"),  # a prediction column, and no label column
    ],
)
def test_a_missing_label_or_prediction_column_is_named_not_the_measure(kwargs, message):
    # a frame lacking label or prediction was read as an evaluated one: "measure column
    # 'informedness' not found", a column the caller never named, where evaluate names the label
    df = pl.DataFrame({"run": ["a"] * 4 + ["b"] * 4, "fold": [0, 0, 1, 1] * 2,
                       "y": [0, 1, 0, 1] * 2, "prediction": [0, 1, 1, 1, 0, 0, 0, 1]})  # fmt: skip
    expected = f"{message}; the frame has columns ['run', 'fold', 'y', 'prediction']"
    for data in (df, df.lazy(), df.to_pandas(), df.to_dict(as_series=False)):
        with pytest.raises(be.errors.ColumnNotFoundError) as err:
            be.compare(data, **kwargs)
        assert str(err.value) == expected
    with pytest.raises(be.errors.ColumnNotFoundError) as same:  # the message evaluate gives
        be.evaluate(df, by=["run", "fold"], **kwargs)
    assert str(same.value) == expected


@given(st.lists(st.floats(-1, 1, allow_nan=False), min_size=6, max_size=6),
       st.lists(st.floats(-1, 1, allow_nan=False), min_size=6, max_size=6))  # fmt: skip
def test_swapping_runs_flips_the_sign(a, b):
    df = pl.DataFrame({"run": ["a"] * 6 + ["b"] * 6, "fold": list(range(6)) * 2, "m": a + b})
    ab = be.compare(df, measure="m", reference="b", test="corrected_t").row(0, named=True)
    ba = be.compare(df, measure="m", reference="a", test="corrected_t").row(0, named=True)
    assert ab["mean_diff"] == pytest.approx(-ba["mean_diff"], abs=1e-12)
    if np.isfinite(ab["t"]):
        assert ab["t"] == pytest.approx(-ba["t"], rel=1e-9, abs=1e-12)
        assert ab["p_value"] == pytest.approx(ba["p_value"], rel=1e-9, abs=1e-12)
    bab = be.compare(df, measure="m", reference="b", test="bayes", rope=0.01).row(0, named=True)
    bba = be.compare(df, measure="m", reference="a", test="bayes", rope=0.01).row(0, named=True)
    assert bab["p_left"] == pytest.approx(bba["p_right"], abs=1e-12)
    assert bab["p_rope"] == pytest.approx(bba["p_rope"], abs=1e-12)


def test_corrected_test_holds_its_level_where_the_plain_one_does_not():
    """Nadeau & Bengio's model: J fold differences, equicorrelated with rho = n_test/n = 1/k.

    Under it the corrected statistic is exactly t on J − 1 df, so a 5 % test rejects 5 % of the
    time; the plain t-test rejects far more. Tolerance: 4 binomial standard errors.
    """
    rng = np.random.default_rng(11)
    reps, k, r = 4000, 10, 10
    rho = 1 / k
    diffs = np.sqrt(rho) * rng.normal(size=(reps, 1)) + np.sqrt(1 - rho) * rng.normal(size=(reps, r * k))
    n_runs = reps + 1
    values = np.vstack([np.zeros((1, r * k)), diffs])
    df = pl.DataFrame({
        "run": np.repeat(np.arange(n_runs), r * k), "repeat": np.tile(np.repeat(np.arange(r), k), n_runs),
        "fold": np.tile(np.arange(k), n_runs * r), "m": values.reshape(-1),
    })  # fmt: skip
    corrected = be.compare(df, repeat="repeat", measure="m", reference=0)
    plain = be.compare(df, repeat="repeat", measure="m", reference=0, test="t")
    rate = float((corrected["p_value"] < 0.05).mean())
    assert abs(rate - 0.05) <= 4 * np.sqrt(0.05 * 0.95 / reps)
    assert float((plain["p_value"] < 0.05).mean()) > 0.05 + 8 * np.sqrt(0.05 * 0.95 / reps)


def test_bad_input_is_named():
    df = cv_frame(n_runs=3, n_repeats=1, n_folds=4)
    with pytest.raises(InvalidArgumentError, match="at least 2 folds, got 1"):
        be.compare(df.filter(pl.col("fold") == 0), measure="accuracy")
    with pytest.raises(InvalidArgumentError, match=r"low 0\.1 is greater than high -0\.1"):
        be.compare(df, measure="accuracy", test="bayes", rope=(0.1, -0.1))
    with pytest.raises(InvalidArgumentError, match=r"run=1 lacks fold=2, fold=3"):
        be.compare(df.filter(~((pl.col("run") == 1) & (pl.col("fold") >= 2))), measure="accuracy")
    nan = df.with_columns(
        pl.when(pl.col("fold") == 1).then(float("nan")).otherwise(pl.col("accuracy")).alias("accuracy")
    )
    with pytest.raises(
        InvalidArgumentError, match=r"3 NaN, infinite or null values, at \(run, fold\) = \(0, 1\)"
    ):
        be.compare(nan, measure="accuracy")
    with pytest.raises(InvalidArgumentError, match="reference= run 9 is not in the frame"):
        be.compare(df, measure="accuracy", reference=9)
    with pytest.raises(InvalidArgumentError, match="unknown test 'z'"):
        be.compare(df, measure="accuracy", test="z")
    with pytest.raises(InvalidArgumentError, match="measured more than once"):
        be.compare(pl.concat([df, df.head(1)]), measure="accuracy")
    with pytest.raises(InvalidArgumentError, match="test_fraction= must lie in"):
        be.compare(df, measure="accuracy", test_fraction=1.0)
    with pytest.raises(InvalidArgumentError, match="a comparison needs at least 2 runs, got 1"):
        be.compare(df.filter(pl.col("run") == 0), measure="accuracy")


@pytest.mark.parametrize("test", ["corrected_t", "bayes", "t"])
def test_sorted_grid_and_shuffled_rows_give_the_same_result(test):
    # the sorted (run, repeat, fold) layout takes a shortcut past the key coding; any row order must
    # give the same numbers, and both must equal plain numpy on the runs x folds matrix
    df = cv_frame(n_runs=7, n_repeats=3, n_folds=4, seed=5)
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=1)
    kw = {"repeat": "repeat", "measure": "accuracy", "reference": 2, "test": test}
    kw |= {"rope": 0.01} if test == "bayes" else {}
    fast, slow = be.compare(df, **kw), be.compare(shuffled, **kw)
    assert fast.equals(slow)
    x = np.vstack([_vectors(df, r) for r in range(7)])
    d = np.delete(x, 2, axis=0) - x[2]
    np.testing.assert_array_equal(fast.get_column("mean_diff").to_numpy(), d.mean(axis=1))
    np.testing.assert_array_equal(fast.get_column("sd_diff").to_numpy(), np.sqrt(d.var(axis=1, ddof=1)))


@pytest.mark.parametrize("n", [3, 8, 100, 129, 1001])
def test_difference_moments_add_in_numpys_order(n):
    # the kernel's mean and variance of the differences must be numpy's to the last bit, for row
    # lengths on both sides of numpy's blocks of 8 and 128
    from batcheval.kernels import ranks

    rng = np.random.default_rng(n)
    x = rng.normal(size=(40, n)) * rng.uniform(0.01, 1000, (40, 1))
    a, b = rng.integers(0, 40, 60), rng.integers(0, 40, 60)
    mean, var = np.empty(60), np.empty(60)
    ranks.diff_moments(x, a, b, mean, var)
    d = x[a] - x[b]
    np.testing.assert_array_equal(mean, d.mean(axis=1))
    np.testing.assert_array_equal(var, d.var(axis=1, ddof=1))


def test_sorted_layout_with_a_gap_or_a_duplicate_is_still_named():
    df = cv_frame(n_runs=3, n_repeats=2, n_folds=3)
    gap = df.filter(~((pl.col("run") == 2) & (pl.col("repeat") == 1) & (pl.col("fold") == 2)))
    with pytest.raises(InvalidArgumentError, match=r"run=2 lacks \{'repeat': 1, 'fold': 2\}"):
        be.compare(gap, repeat="repeat", measure="accuracy")
    dup = pl.concat([df.head(3), df]).sort("run", "repeat", "fold")
    with pytest.raises(InvalidArgumentError, match="measured more than once"):
        be.compare(dup, repeat="repeat", measure="accuracy")


def test_repeated_holdout_needs_test_fraction_and_uses_it():
    # ten repeated 80/20 hold-out splits: one "fold" per repeat, so no k to derive n_test/n_train from
    df = cv_frame(n_runs=3, n_repeats=10, n_folds=1, seed=6)
    with pytest.raises(InvalidArgumentError, match=r"2 folds per repeat, got 1; .* give test_fraction="):
        be.compare(df, repeat="repeat", measure="accuracy", reference=0)
    out = be.compare(df, repeat="repeat", measure="accuracy", reference=0, test_fraction=0.2)
    bayes = be.compare(df, repeat="repeat", measure="accuracy", reference=0, test="bayes", rope=0.01,
                       test_fraction=0.2)  # fmt: skip
    for row, post_row in zip(out.iter_rows(named=True), bayes.iter_rows(named=True), strict=True):
        x, y = _vectors(df, 0), _vectors(df, row["run"])
        t, p = ref.corrected_t(list(y), list(x), n_folds=1, test_fraction=0.2)
        assert row["t"] == pytest.approx(t, rel=1e-12)
        assert row["p_value"] == pytest.approx(p, rel=1e-10)
        # the posterior: Student t on J − 1 df, scale sqrt((1/J + 0.2/0.8) s²)
        d = y - x
        post = stats.t(9, loc=d.mean(), scale=np.sqrt((1 / 10 + 0.25) * d.var(ddof=1)))
        assert post_row["p_left"] == pytest.approx(post.cdf(-0.01), abs=1e-12)
        assert post_row["p_right"] == pytest.approx(post.sf(0.01), abs=1e-12)


def test_test_fraction_of_one_kth_is_baycomps_k_fold_correction():
    df = cv_frame(seed=7)
    out = be.compare(df, repeat="repeat", measure="accuracy", reference=0, test="bayes", rope=0.01,
                     test_fraction=1 / 5)  # fmt: skip
    for row in out.iter_rows(named=True):
        probs = baycomp.two_on_single(_vectors(df, 0), _vectors(df, row["run"]), rope=0.01, runs=3)
        assert out.columns[-3:] == ["p_left", "p_rope", "p_right"]
        for name, p in zip(("p_left", "p_rope", "p_right"), probs, strict=True):
            assert row[name] == pytest.approx(p, abs=1e-9)


@pytest.mark.parametrize("test", ["t", "5x2cv"])
def test_test_fraction_is_refused_by_the_uncorrected_tests(test):
    # test="t" is scipy's ttest_rel; a test_fraction= used to turn it into the corrected t
    df = cv_frame(n_runs=2, n_repeats=5, n_folds=2, seed=8)
    with pytest.raises(InvalidArgumentError, match=f"test_fraction= applies to .* not test='{test}'"):
        be.compare(df, repeat="repeat", measure="accuracy", reference=0, test=test, test_fraction=0.25)
    plain = be.compare(df, repeat="repeat", measure="accuracy", reference=0, test="t")
    expected = stats.ttest_rel(_vectors(df, 1), _vectors(df, 0))
    assert plain["t"][0] == pytest.approx(expected.statistic, rel=1e-12)
    assert plain["p_value"][0] == pytest.approx(expected.pvalue, rel=1e-10)


@pytest.mark.parametrize("test", ["t", "corrected_t", "5x2cv"])
@pytest.mark.parametrize(("rope", "shown"), [(0.5, "0.5"), ((0.3, 0.9), r"\(0\.3, 0\.9\)")])
def test_rope_is_refused_by_the_tests_without_one(test, rope, shown):
    # only test="bayes" has a region of practical equivalence; the t-tests returned their own numbers
    # for any rope=, so a rope under the default corrected_t looked like it had been applied
    df = cv_frame(n_runs=2, n_repeats=5, n_folds=2, seed=8)
    kw = {"repeat": "repeat", "measure": "accuracy", "reference": 0, "test": test}
    with pytest.raises(
        InvalidArgumentError, match=rf"^rope={shown} applies to test='bayes' only, not test='{test}'$"
    ):
        be.compare(df, rope=rope, **kw)
    # the default rope, however written, is no rope: the test is scipy's or Nadeau and Bengio's as before
    plain = be.compare(df, **kw)
    for zero in (0, 0.0, (0, 0), (-0.0, 0.0)):
        assert be.compare(df, rope=zero, **kw).equals(plain)
    if test == "t":
        expected = stats.ttest_rel(_vectors(df, 1), _vectors(df, 0))
        assert plain["t"][0] == pytest.approx(expected.statistic, rel=1e-12)


@pytest.mark.parametrize("chunk_rows", [0, -1, 1.5, True, "2"])
def test_chunk_rows_must_be_a_positive_integer(chunk_rows):
    df = cv_frame(n_runs=3, n_repeats=1, n_folds=4)
    with pytest.raises(InvalidArgumentError, match=r"chunk_rows= must be an integer of at least 1, got "):
        be.compare(df, measure="accuracy", chunk_rows=chunk_rows)


@pytest.mark.parametrize("test", ["corrected_t", "5x2cv"])
def test_chunks_of_one_row_give_the_same_result(test):
    df = cv_frame(n_runs=5, n_repeats=5, n_folds=2, seed=9)
    kw = {"repeat": "repeat", "measure": "accuracy", "reference": 0, "test": test}
    whole, one = be.compare(df, **kw), be.compare(df, chunk_rows=1, **kw)
    d = np.vstack([_vectors(df, r) for r in range(1, 5)]) - _vectors(df, 0)
    np.testing.assert_allclose(one.get_column("sd_diff").to_numpy(), d.std(axis=1, ddof=1), rtol=1e-12)
    assert one.equals(whole)


@pytest.mark.parametrize("reference", ["b", [1], None, 1.5, {"x": 1}])
def test_reference_of_another_type_is_not_in_the_frame(reference):
    # a string against integer runs used to be polars' raw TypeError, a list its ComputeError
    df = cv_frame(n_runs=3, n_repeats=1, n_folds=4)
    if reference is None:  # a None inside a tuple for two run columns
        df, reference = df.with_columns(pl.col("run").alias("model")), (1, None)
        kw = {"run": ["run", "model"]}
    else:
        kw = {}
    if isinstance(reference, dict):
        match = r"reference= dict keys must be the run columns \['run'\]: missing \['run'\], unknown \['x'\]"
    else:
        match = r"reference= run .* is not in the frame; its 3 runs include"
    with pytest.raises(InvalidArgumentError, match=match):
        be.compare(df, measure="accuracy", reference=reference, **kw)


def test_reference_dict_names_each_run_column():
    df = cv_frame(n_runs=3, n_repeats=1, n_folds=4).with_columns(model=pl.col("run").cast(pl.String))
    kw = {"run": ["run", "model"], "measure": "accuracy"}
    by_dict = be.compare(df, reference={"model": "2", "run": 2}, **kw)
    assert by_dict.equals(be.compare(df, reference=(2, "2"), **kw))
    x = _vectors(df, 2)
    expected = [float(np.mean(_vectors(df, r) - x)) for r in (0, 1)]
    assert by_dict.get_column("mean_diff").to_list() == pytest.approx(expected, rel=1e-12)
    with pytest.raises(InvalidArgumentError, match=r"missing \['model'\] in \{'run': 2\}"):
        be.compare(df, reference={"run": 2}, **kw)
    with pytest.raises(InvalidArgumentError, match=r"unknown \['fold'\] in"):
        be.compare(df, reference={"run": 2, "model": "2", "fold": 0}, **kw)


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"test": "bayes", "rope": "a"}, r"^rope= must be a number, got 'a'$"),
        ({"test": "bayes", "rope": float("inf")}, r"^rope= half-width must be finite and >= 0, got inf$"),
        ({"test": "bayes", "rope": (-0.01, "x")}, r"^rope= high must be a number, got 'x'$"),
        ({"test_fraction": "a"}, r"^test_fraction= must be a number, got 'a'$"),
        ({"test_fraction": True}, r"^test_fraction= must be a number, got True$"),
    ],
)
def test_options_that_are_not_numbers_are_named(kw, message):
    df = cv_frame(n_runs=3, n_repeats=1, n_folds=4)
    with pytest.raises(InvalidArgumentError, match=message):
        be.compare(df, measure="accuracy", **kw)


def test_infinite_or_text_measures_are_named():
    # an infinite measure used to give a row of NaN statistics without a word, and text polars' own error
    df = cv_frame(n_runs=3, n_repeats=1, n_folds=4)
    inf = df.with_columns(pl.when(pl.int_range(pl.len()) == 5).then(float("-inf")).otherwise("accuracy")
                          .alias("accuracy"))  # fmt: skip
    with pytest.raises(
        InvalidArgumentError, match=r"1 NaN, infinite or null values, at \(run, fold\) = \(1, 1\)$"
    ):
        be.compare(inf, measure="accuracy")
    text = df.with_columns(pl.col("accuracy").cast(pl.String))
    numbers = be.compare(text, measure="accuracy")  # text that reads as numbers is still accepted
    assert numbers.equals(be.compare(df, measure="accuracy"))
    text = text.with_columns(pl.when(pl.int_range(pl.len()) >= 10).then(pl.lit("n/a")).otherwise("accuracy")
                             .alias("accuracy"))  # fmt: skip
    with pytest.raises(
        InvalidArgumentError,
        match=r"^measure column 'accuracy' of dtype String has 2 non-numeric values \(first: 'n/a'\)$",
    ):
        be.compare(text, measure="accuracy")


_NOT_NUMBERS = [
    # Categorical, Enum, List, Array and Binary raised polars' own cast error, a Struct failed at
    # is_finite, and the temporal dtypes were compared as day or tick counts
    (pl.Categorical, "Categorical"),
    (pl.Enum(["0.5", "0.75"]), "Enum(categories=['0.5', '0.75'])"),
    (pl.List(pl.Float64), "List(Float64)"),
    (pl.Array(pl.Float64, 1), "Array(Float64, shape=(1,))"),
    (pl.Binary, "Binary"),
    (pl.Struct({"x": pl.Float64}), "Struct({'x': Float64})"),
    (pl.Date, "Date"),
    (pl.Datetime("ms"), "Datetime(time_unit='ms', time_zone=None)"),
    (pl.Duration("ms"), "Duration(time_unit='ms')"),
    (pl.Time, "Time"),
]


def _measure_of_dtype(dtype, values):
    """``values`` (numbers in [0, 1]) as a column of ``dtype``."""
    s = pl.Series("accuracy", values)
    if dtype in (pl.Categorical, pl.Binary) or isinstance(dtype, pl.Enum):
        s = s.cast(pl.String)
        return s.cast(pl.Binary) if dtype == pl.Binary else s.cast(dtype)
    if isinstance(dtype, pl.List | pl.Array):
        return pl.Series("accuracy", [[v] for v in values], dtype=dtype)
    if isinstance(dtype, pl.Struct):
        return pl.Series("accuracy", [{"x": v} for v in values], dtype=dtype)
    return (s * 1000).cast(pl.Int64).cast(dtype)


@pytest.mark.parametrize(("dtype", "shown"), _NOT_NUMBERS)
def test_a_measure_column_that_is_not_numbers_is_refused_by_dtype(dtype, shown):
    values = [0.5, 0.75, 0.75, 0.5]
    df = pl.DataFrame({"run": ["a", "a", "b", "b"], "fold": [0, 1, 0, 1]}).with_columns(
        _measure_of_dtype(dtype, values)
    )
    assert df.schema["accuracy"] == dtype
    expected = (
        f"measure column 'accuracy' has dtype {shown}; measures must be numbers "
        "(a numeric, Boolean or text column)"
    )
    with pytest.raises(InvalidArgumentError) as err:
        be.compare(df, measure="accuracy", reference="a")
    assert str(err.value) == expected
    # Boolean and all-null columns are still read: as 0/1, and as nulls the NaN check names
    flags = df.with_columns(pl.Series("accuracy", [True, False, True, True]))
    assert be.compare(flags, measure="accuracy", reference="a").get_column("mean_diff").to_list() == [0.5]
    nulls = df.with_columns(pl.Series("accuracy", [None] * 4, dtype=pl.Null))
    with pytest.raises(InvalidArgumentError, match=r"^measure column 'accuracy' has 4 NaN, infinite or null"):
        be.compare(nulls, measure="accuracy", reference="a")


@pytest.mark.parametrize("name", ["se", "t", "n_folds", "p_holm", "reference_run"])
def test_a_run_column_named_like_an_output_is_refused(name):
    # it was polars' raw DuplicateError while the result was put together
    df = cv_frame(n_runs=3)
    if name == "reference_run":  # a second run key whose name the reference's copy of run takes
        df, runs = df.with_columns(pl.col("run").alias(name)), ["run", name]
    else:
        df, runs = df.rename({"run": name}), [name]
    with pytest.raises(
        be.DuplicateColumnError, match=f"^run column '{name}' has the name of an output column"
    ):
        be.compare(df, run=runs, repeat="repeat", measure="accuracy", test="t")
    renamed = df.rename({name: f"{name}_key"})
    out = be.compare(renamed, run=[f"{name}_key" if r == name else r for r in runs], repeat="repeat",
                     measure="accuracy", test="t")  # fmt: skip
    assert out.height == 2


@pytest.mark.parametrize("reference", ["02", " 2", "2.0", True])
def test_reference_matches_an_integer_run_only_as_its_plain_text(reference):
    # "02" and True silently chose runs 2 and 1; "2" (the command line's text) and 2 still choose run 2
    df = cv_frame(n_runs=3)
    with pytest.raises(InvalidArgumentError, match=f"reference= run {re.escape(repr(reference))} is not"):
        be.compare(df, repeat="repeat", measure="accuracy", reference=reference, test="t")
    for ok in ("2", 2, np.int64(2)):
        out = be.compare(df, repeat="repeat", measure="accuracy", reference=ok, test="t")
        assert out["reference_run"].to_list() == [2, 2]


@pytest.mark.parametrize("flag", ["higher_is_better", "drop_nulls"])
@pytest.mark.parametrize("value", [None, "False", "no", 2])
@pytest.mark.parametrize("counted", [False, True])
def test_flags_that_are_not_bools_are_named(flag, value, counted):
    # higher_is_better="False" (truthy) made the highest mean of a loss the reference without a word
    rng = np.random.default_rng(3)
    predictions = pl.DataFrame({
        "run": np.repeat([0, 1], 40), "fold": np.tile(np.repeat([0, 1], 20), 2),
        "label": rng.integers(0, 2, 80), "prediction": rng.integers(0, 2, 80),
    })  # fmt: skip
    # per-example predictions are counted per fold first, with drop_nulls
    df = predictions if counted else cv_frame(n_runs=3, n_repeats=1, n_folds=4)
    if flag == "higher_is_better" and value is None:  # the default: the measure's own direction
        default = be.compare(df, measure="accuracy")
        assert be.compare(df, measure="accuracy", higher_is_better=None).equals(default)
        assert default.equals(be.compare(df, measure="accuracy", higher_is_better=True))
        return
    with pytest.raises(
        InvalidArgumentError, match=rf"^{flag}= takes True or False, got {re.escape(repr(value))}$"
    ):
        be.compare(df, measure="accuracy", **{flag: value})


@pytest.mark.parametrize("false", [False, np.False_, 0])
def test_lower_is_better_takes_numpy_bools_and_zero(false):
    df = cv_frame(n_runs=4, n_repeats=1, n_folds=4, measure="loss")
    out = be.compare(df, measure="loss", higher_is_better=false, drop_nulls=false)
    means = [float(np.mean(_vectors(df, r, "loss"))) for r in range(4)]
    assert out["reference_run"].unique().to_list() == [int(np.argmin(means))]


def test_bayes_rope_mass_is_never_negative_and_zero_without_a_rope():
    # p_rope was 1 − p_left − p_right: −5.55e-17 here with rope=0, whose mass is exactly 0
    df = pl.DataFrame({"run": ["a"] * 4 + ["b"] * 4, "fold": [0, 1, 2, 3] * 2,
                       "acc": [0.86, 0.86, 0.88, 0.47, 0.27, 0.01, 0.65, 0.72]})  # fmt: skip
    row = be.compare(df, measure="acc", reference="a", test="bayes").row(0, named=True)
    assert row["p_rope"] == 0.0
    post = stats.t(3, loc=row["mean_diff"], scale=row["se"])
    assert row["p_left"] == pytest.approx(post.cdf(0.0), rel=1e-12)
    assert row["p_right"] == pytest.approx(post.sf(0.0), rel=1e-12)
    out = be.compare(cv_frame(seed=4), repeat="repeat", measure="accuracy", test="bayes")
    assert (out["p_rope"] == 0.0).all()


@pytest.mark.parametrize("rope", [(0.3, 0.5), (-0.5, -0.3), (-0.01, 0.03)])
def test_bayes_rope_mass_is_the_t_posterior_mass_in_either_tail(rope):
    # a ROPE far in one tail of the posterior holds a mass of about 1e-12, which 1 − left − right
    # gave to three or four digits only
    df = cv_frame(seed=3)
    out = be.compare(df, repeat="repeat", measure="accuracy", reference=0, test="bayes", rope=rope)
    for row in out.iter_rows(named=True):
        post = stats.t(14, loc=row["mean_diff"], scale=row["se"])
        low, high = rope
        want = post.sf(low) - post.sf(high) if low > row["mean_diff"] else post.cdf(high) - post.cdf(low)
        assert want > 0
        assert row["p_rope"] == pytest.approx(want, rel=1e-9, abs=0)
        assert row["p_left"] + row["p_rope"] + row["p_right"] == pytest.approx(1.0, abs=1e-14)


def test_integer_measures_that_float64_cannot_tell_apart_are_refused_as_compare_auc_refuses_them():
    # run 1 exceeds run 0 by 1 on every fold, a difference float64 lost beyond 2^53
    big = 2**53
    gaps = [3, 1, 4, 1]
    df = pl.DataFrame({"run": np.repeat([0, 1], 4), "fold": np.tile(np.arange(4), 2),
                       "count": [big] * 4 + [big + 1] * 4})  # fmt: skip
    with pytest.raises(InvalidScoreError, match=r"^measure column 'count' holds integers beyond 2\^53 "):
        be.compare(df, measure="count", reference=0, test="t")
    # exact in float64 (even numbers below 2^54): read as before, as scipy's paired t-test reads them
    exact = df.with_columns((big + 2 * (pl.col("count") - big) * pl.Series(gaps * 2)).alias("count"))
    out = be.compare(exact, measure="count", reference=0, test="t").row(0, named=True)
    x = exact["count"].to_numpy().astype(float).reshape(2, 4)
    assert out["mean_diff"] == float(np.mean(x[1] - x[0]))
    assert out["t"] == pytest.approx(stats.ttest_rel(x[1], x[0]).statistic, rel=1e-12)


@pytest.mark.parametrize("test", ["corrected_t", "t", "5x2cv"])
def test_differences_without_spread_get_the_sign_test_not_a_t_of_rounding(test):
    """Identical runs had t = 0/0 = NaN and p NaN; a run 0.1 below the reference on every fold had
    the rounding of the subtractions (sd 1.5e-17) for its sd, t = −1.1e16 and p = 1e-79. With no
    spread there is no t-test: identical runs get p 1, a constant shift the exact sign test's p of
    J folds all alike (scipy's binomtest), and the other runs keep scipy's paired t-test."""
    repeats = 5 if test == "5x2cv" else 1
    folds = 2 if test == "5x2cv" else 6
    j = repeats * folds
    base = np.random.default_rng(3).random(j)
    other = base + np.random.default_rng(4).normal(0, 0.05, j)
    df = pl.DataFrame(
        {
            "run": np.repeat(["a", "b", "c", "d"], j),
            "repeat": np.tile(np.repeat(np.arange(repeats), folds), 4),
            "fold": np.tile(np.arange(folds), 4 * repeats),
            "accuracy": np.concatenate([base, base, base - 0.1, other]),
        }
    )
    out = be.compare(df, repeat="repeat", measure="accuracy", reference="a", test=test).sort("run")
    same, shifted, spread = out.iter_rows(named=True)
    assert (same["t"], same["p_value"], same["se"]) == (0.0, 1.0, 0.0)
    assert shifted["se"] == 0.0 and shifted["t"] == -np.inf
    assert shifted["p_value"] == pytest.approx(stats.binomtest(0, j).pvalue, rel=1e-12)
    assert 0 < spread["se"] and np.isfinite(spread["t"])
    if test == "t":
        expected = stats.ttest_rel(other, base)
        assert spread["t"] == pytest.approx(expected.statistic, rel=1e-12)
        assert spread["p_value"] == pytest.approx(expected.pvalue, rel=1e-10)
    ps = [same["p_value"], shifted["p_value"], spread["p_value"]]
    assert out["p_holm"].to_list() == pytest.approx(_holm(ps), rel=1e-12)


def _holm(p):
    """Holm's step-down adjustment, plainly."""
    order = np.argsort(p)
    adjusted = np.maximum.accumulate(np.minimum(1.0, (len(p) - np.arange(len(p))) * np.asarray(p)[order]))
    out = np.empty(len(p))
    out[order] = adjusted
    return out


def test_all_pairs_that_would_not_fit_are_refused_before_any_is_made(monkeypatch):
    """pairs='all' of R runs is R(R − 1)/2 rows: 100,000 runs (5e9 comparisons) filled memory
    before the first. Refused with the size and the way out when they would not fit."""
    from batcheval.core import memory

    rng = np.random.default_rng(5)
    df = pl.DataFrame({"run": np.repeat(np.arange(1000), 3), "fold": np.tile(np.arange(3), 1000),
                       "accuracy": rng.random(3000)})  # fmt: skip
    monkeypatch.setattr(memory, "available_bytes", lambda: 50 * 2**20)
    refused = (r"^pairs='all' of 1,000 runs \(499,500 comparisons\) needs \d+\.\d MiB, more than the "
               r"50\.0 MiB available; compare with one reference")  # fmt: skip
    with pytest.raises(be.MemoryBudgetError, match=refused):
        be.compare(df, measure="accuracy", pairs="all")
    assert (
        be.compare(df.filter(pl.col("run") < 300), measure="accuracy", pairs="all").height == 300 * 299 // 2
    )
    monkeypatch.undo()
    assert be.compare(df, measure="accuracy", pairs="all").height == 499_500


@pytest.mark.parametrize("holds", ["predictions", "measures"])
def test_a_run_column_that_is_also_the_fold_is_named_in_both_roles(holds: str):
    # a frame of predictions was counted first, by runs and folds, and refused there as "column 'fold'
    # is named twice in by=['run', 'fold', 'fold']", an argument compare does not take
    rng = np.random.default_rng(4)
    frame = pl.DataFrame({"run": np.repeat([0, 1], 40), "fold": np.tile(np.repeat([0, 1, 2, 3], 10), 2),
                          "label": rng.integers(0, 2, 80), "prediction": rng.integers(0, 2, 80)})  # fmt: skip
    if holds == "measures":
        frame = be.evaluate(frame, by=["run", "fold"], measures=["informedness"])
    message = "column 'fold' is named twice: as run and as fold"
    with pytest.raises(be.DuplicateColumnError, match=f"^{re.escape(message)}$"):
        be.compare(frame, run=["run", "fold"], fold="fold")


def test_measures_too_large_to_square_are_refused_by_name():
    # a mean of 1e308 and 1e308 overflowed to inf, with t and p NaN and only numpy's warning
    df = pl.DataFrame({"run": ["a", "a", "b", "b"], "fold": [0, 1, 0, 1], "acc": [1e308, 1e308, 1.0, 2.0]})
    with pytest.raises(be.InvalidArgumentError, match=r"measure column 'acc' holds values up to 1e\+308"):
        be.compare(df, measure="acc", reference="b")
    # just below the limit: the corrected t of two folds of k = 2 (n_test/n_train = 1), by hand
    big = df.with_columns(acc=pl.Series([2.0**499, 2.0**498, 1.0, 2.0]))
    got = be.compare(big, measure="acc", reference="b").row(0, named=True)
    d = np.array([2.0**499 - 1.0, 2.0**498 - 2.0])
    assert got["mean_diff"] == pytest.approx(d.mean(), rel=1e-12)
    assert got["t"] == pytest.approx(d.mean() / (d.std(ddof=1) * np.sqrt(1 / 2 + 1)), rel=1e-12)
