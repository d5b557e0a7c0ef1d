"""DeLong intervals (be.auc(ci=)) and the paired DeLong test (be.compare_auc) against the O(P·N)
definition in tests/reference/delong.py, scikit-learn's AUC, and a seeded coverage simulation."""

from __future__ import annotations

import itertools
import re
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import roc_auc_score

import batcheval as be
from batcheval.errors import DuplicateColumnError, InvalidArgumentError, InvalidLabelError, InvalidScoreError
from batcheval.inference.delong import SWAP_DRAWS
from batcheval.scores.auc_interval import hanley_mcneil_variance
from tests.reference import delong as ref


def scored(n_runs=4, n_ex=60, seed=0, ties=False):
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n_ex)
    skill = np.linspace(0.2, 1.5, n_runs)
    s = rng.normal(size=(n_runs, n_ex)) + skill[:, None] * label[None, :]
    if ties:
        s = np.round(s, 1)
    return label, s, pl.DataFrame({
        "run": np.repeat(np.arange(n_runs), n_ex), "example": np.tile(np.arange(n_ex), n_runs),
        "label": np.tile(label, n_runs), "score": s.reshape(-1),
    })  # fmt: skip


@pytest.mark.parametrize("ties", [False, True])
def test_auc_interval_is_delong_by_definition(ties):
    label, s, df = scored(seed=1, ties=ties)
    out = be.auc(df, by="run", ci=0.9).sort("run")
    z = stats.norm.ppf(0.95)
    for r, row in enumerate(out.iter_rows(named=True)):
        a, v = ref.auc_variance(s[r].tolist(), label.tolist())
        assert row["roc_auc"] == pytest.approx(roc_auc_score(label, s[r]), abs=1e-12)
        assert row["roc_auc_se"] == pytest.approx(np.sqrt(v), rel=1e-10)
        low, high = ref.logit_interval(a, v, int(label.sum()), int((1 - label).sum()), z)
        assert row["roc_auc_ci_low"] == pytest.approx(low, rel=1e-10)
        assert row["roc_auc_ci_high"] == pytest.approx(high, rel=1e-10)


@pytest.mark.parametrize("flip", [False, True])
def test_separated_classes_get_an_interval_with_width(flip):
    """AUC ± z·se was [1, 1] (or [0, 0]) whenever the classes separate: DeLong's se is 0 there."""
    label = np.r_[np.zeros(10), np.ones(10)].astype(np.int64)
    score = np.arange(20.0) * (-1 if flip else 1)
    row = be.auc(pl.DataFrame({"label": label, "score": score}), ci=0.95).row(0, named=True)
    assert row["roc_auc"] == (0.0 if flip else 1.0) and row["roc_auc_se"] == 0.0
    low, high = ref.logit_interval(row["roc_auc"], 0.0, 10, 10, stats.norm.ppf(0.975))
    assert (row["roc_auc_ci_low"], row["roc_auc_ci_high"]) == pytest.approx((low, high), rel=1e-12)
    assert row["roc_auc_ci_high"] - row["roc_auc_ci_low"] > 0.15


@settings(max_examples=50)
@given(st.floats(0.0, 1.0), st.integers(2, 10_000), st.integers(2, 10_000))
def test_hanley_mcneil_variance_is_the_q1_q2_form(theta, m, n):
    """Newcombe's factored form in the library equals Hanley & McNeil's Q1, Q2 form."""
    got = hanley_mcneil_variance(np.array([theta]), np.array([m]), np.array([n]))[0]
    assert got == pytest.approx(ref.hanley_mcneil(theta, m, n), rel=1e-12, abs=1e-300)


@settings(max_examples=50)
@given(st.floats(0.0, 1.0), st.integers(2, 10_000))
def test_hanley_mcneil_variance_with_equal_classes_is_theirs(theta, m):
    """Newcombe's N* only evens out unequal classes: with m = n it is Hanley and McNeil's (1982)
    variance itself, (θ(1 − θ) + (m − 1)(Q1 − θ²) + (n − 1)(Q2 − θ²))/(mn). Stop 64's reading took
    N* for m and n and gave 0.01583 for 0.0175 at θ = 0.5, 10 + 10."""
    q1, q2 = theta / (2 - theta), 2 * theta**2 / (1 + theta)
    want = (theta * (1 - theta) + (m - 1) * (q1 - theta**2) + (m - 1) * (q2 - theta**2)) / (m * m)
    got = hanley_mcneil_variance(np.array([theta]), np.array([m]), np.array([m]))[0]
    # the Q1, Q2 form cancels near θ = 1: each (m − 1)(Q − θ²) carries (m − 1)·eps of rounding
    assert got == pytest.approx(want, rel=1e-12, abs=8 * np.finfo(float).eps / m)


def test_auc_interval_is_nan_without_two_of_each_class():
    df = pl.DataFrame({"g": [0, 0, 0, 1, 1, 1], "label": [0, 1, 1, 0, 0, 1], "score": [0.1, 0.2, 0.3] * 2})
    out = be.auc(df, by="g", ci=0.95).sort("g")
    assert np.isnan(out["roc_auc_se"].to_numpy()).all()


@pytest.mark.parametrize("ties", [False, True])
def test_paired_test_equals_definition(ties):
    label, s, df = scored(n_runs=5, seed=2, ties=ties)
    out = be.compare_auc(df, reference=1)
    for row in out.iter_rows(named=True):
        r = row["run"]
        if r == 1:
            assert row["is_reference"] and np.isnan(row["p_value"])
            continue
        d, _ = ref.paired(s[r].tolist(), s[1].tolist(), label.tolist())
        v = ref.unbiased_paired(s[r].tolist(), s[1].tolist(), label.tolist())
        assert row["diff"] == pytest.approx(d, abs=1e-12)
        assert row["se_diff"] == pytest.approx(np.sqrt(v), rel=1e-9)
        z, df, p = ref.paired_t(s[r].tolist(), s[1].tolist(), label.tolist())
        assert (row["z"], row["df"], row["p_value"]) == pytest.approx((z, df, p), rel=1e-9)
        assert row["z"] == pytest.approx(d / np.sqrt(v), rel=1e-9)  # the test's statistic: diff / se_diff
        low, high = ref.mover_difference(s[r].tolist(), s[1].tolist(), label.tolist(), stats.norm.ppf(0.975))
        assert row["diff_ci_low"] == pytest.approx(low, rel=1e-9, abs=1e-12)
        assert row["diff_ci_high"] == pytest.approx(high, rel=1e-9, abs=1e-12)
        assert row["diff_ci_low"] < row["diff"] < row["diff_ci_high"]
    others = out.filter(~pl.col("is_reference"))
    np.testing.assert_allclose(others["p_holm"], be.adjust(others["p_value"].to_numpy(), "holm"))


def test_default_reference_is_the_highest_auc():
    _, _, df = scored(n_runs=6, seed=3)
    out = be.compare_auc(df)
    assert out["is_reference"][0] and out["roc_auc"][0] == out["roc_auc"].max()


@settings(max_examples=25)
@given(st.integers(0, 10_000))
def test_swapping_runs_flips_the_sign(seed):
    _, _, df = scored(n_runs=2, n_ex=30, seed=seed, ties=seed % 2 == 0)
    ab = be.compare_auc(df, reference=0).filter(pl.col("run") == 1).row(0, named=True)
    ba = be.compare_auc(df, reference=1).filter(pl.col("run") == 0).row(0, named=True)
    assert ab["diff"] == pytest.approx(-ba["diff"], abs=1e-12)
    assert ab["se_diff"] == pytest.approx(ba["se_diff"], rel=1e-9, abs=1e-15)
    if np.isfinite(ab["z"]):
        assert ab["z"] == pytest.approx(-ba["z"], rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(
    ("positives", "negatives", "truth", "two_sided"),
    [(150, 150, 0.7602, True), (20, 20, 0.8, True), (50, 450, 0.9, True), (20, 20, 0.95, False),
     (10, 10, 0.99, False)],
)  # fmt: skip
def test_delong_interval_covers_at_its_level(positives, negatives, truth, two_sided):
    """Binormal scores (AUC = Φ(δ/√2)), a seeded subset of docs/calibration_auc.md: a 95 % interval
    covers the true AUC at 95 % within 4 binomial standard errors of 2000 groups, and near AUC 1,
    where it is conservative, at least that (AUC ± z·se: 0.83 and 0.36 at the last two)."""
    rng = np.random.default_rng(7)
    groups, delta = 2000, np.sqrt(2) * stats.norm.ppf(truth)
    one = np.r_[np.zeros(negatives), np.ones(positives)]
    label = np.tile(one, groups).astype(np.int64)
    score = rng.normal(size=len(label)) + delta * label
    df = pl.DataFrame({"g": np.repeat(np.arange(groups), len(one)), "label": label, "score": score})
    out = be.auc(df, by="g", ci=0.95)
    low, high = out["roc_auc_ci_low"].to_numpy(), out["roc_auc_ci_high"].to_numpy()
    rate = float(((low <= truth) & (truth <= high)).mean())
    tolerance = 4 * np.sqrt(0.95 * 0.05 / groups)
    assert rate >= 0.95 - tolerance
    if two_sided:
        assert rate <= 0.95 + tolerance


@pytest.mark.parametrize(
    ("positives", "negatives", "aucs", "rho", "two_sided"),
    [(30, 30, (0.75, 0.85), 0.3, True), (10, 10, (0.95, 0.99), 0.8, False)],
)  # fmt: skip
def test_paired_difference_interval_covers_at_its_level(positives, negatives, aucs, rho, two_sided):
    """Two correlated binormal runs on the same examples, a seeded subset of
    docs/calibration_auc_difference.md run through compare_auc itself: the 95 % interval of the
    difference covers the true one within 4 binomial standard errors of 400 boards, and near AUC 1,
    where it is conservative, at least that (diff ± z·se_diff covered 0.70 at the second)."""
    rng = np.random.default_rng(11)
    boards, size = 400, positives + negatives
    shift = np.sqrt(2) * stats.norm.ppf(np.array(aucs))
    label = np.r_[np.ones(positives), np.zeros(negatives)].astype(np.int64)
    hits = 0
    for _ in range(boards):
        s = rng.multivariate_normal([0.0, 0.0], [[1.0, rho], [rho, 1.0]], size=size) + label[:, None] * shift
        df = pl.DataFrame({"run": np.repeat([1, 2], size), "example": np.tile(np.arange(size), 2),
                           "label": np.tile(label, 2), "score": s.T.reshape(-1)})  # fmt: skip
        row = be.compare_auc(df, reference=1).filter(pl.col("run") == 2).row(0, named=True)
        hits += row["diff_ci_low"] <= aucs[1] - aucs[0] <= row["diff_ci_high"]
    rate, tolerance = hits / boards, 4 * np.sqrt(0.95 * 0.05 / boards)
    assert rate >= 0.95 - tolerance
    if two_sided:
        assert rate <= 0.95 + tolerance


def test_bad_input_is_named():
    _, _, df = scored(n_runs=3, n_ex=20, seed=4)
    with pytest.raises(InvalidArgumentError, match=r"1 runs do not score every example.*\(2,\) lacks 5, 6"):
        be.compare_auc(df.filter(~((pl.col("run") == 2) & pl.col("example").is_in([5, 6]))))
    with pytest.raises(InvalidArgumentError, match="more than once"):
        be.compare_auc(pl.concat([df, df.head(1)]))
    # the class check's "label column 'label' must hold two classes, got []" before
    with pytest.raises(InvalidArgumentError, match=r"^the frame has no rows to compare$"):
        be.compare_auc(df.clear())
    flipped = df.with_columns(
        pl.when((pl.col("run") == 1) & (pl.col("example") == 3)).then(1 - pl.col("label")).otherwise("label")
        .alias("label")
    )  # fmt: skip
    with pytest.raises(InvalidLabelError, match="differs between runs for 1 examples: 3"):
        be.compare_auc(flipped)
    nan = df.with_columns(
        pl.when(pl.col("example") == 0).then(float("nan")).otherwise("score").alias("score")
    )
    # be.auc's class for NaN scores (InvalidArgumentError before), and NullValuesError for nulls
    rows = r"at \(run, example\) = \(0, 0\), \(1, 0\), \(2, 0\)$"
    with pytest.raises(
        be.InvalidScoreError, match=r"^score column 'score' has 3 NaN or infinite values, " + rows
    ):
        be.compare_auc(nan)
    null = df.with_columns(pl.when(pl.col("example") == 0).then(None).otherwise("score").alias("score"))
    with pytest.raises(be.NullValuesError, match=r"^score column 'score' has 3 null values, " + rows):
        be.compare_auc(null)
    with pytest.raises(InvalidArgumentError, match="a comparison needs at least 2 runs, got 1"):
        be.compare_auc(df.filter(pl.col("run") == 0))
    first_pos = df.filter(pl.col("label") == 1)["example"][0]
    one_pos = df.filter((pl.col("label") == 0) | (pl.col("example") == first_pos))
    n_neg = int((one_pos.filter(pl.col("run") == 0)["label"] == 0).sum())
    with pytest.raises(InvalidArgumentError, match=f"2 examples of each class, got 1 and {n_neg}"):
        be.compare_auc(one_pos)
    with pytest.raises(InvalidArgumentError, match=r"ci must be a confidence level strictly .* got 1\.5"):
        be.auc(df, ci=1.5)


@pytest.mark.parametrize("dtype", [pl.String, pl.Boolean])
def test_a_score_column_that_is_not_numeric_is_a_score_error_as_in_auc(dtype):
    # compare_auc raised InvalidLabelError for it, so `except InvalidScoreError` caught be.auc's only
    df = pl.DataFrame({"run": ["a"] * 4 + ["b"] * 4, "example": [0, 1, 2, 3] * 2, "label": [0, 0, 1, 1] * 2,
                       "score": [0, 1, 0, 1] * 2}).with_columns(pl.col("score").cast(dtype))  # fmt: skip
    message = f"^score column 'score' has dtype {dtype}; scores must be numeric$"
    with pytest.raises(InvalidScoreError, match=message) as from_auc:
        be.auc(df, by="run")
    with pytest.raises(InvalidScoreError, match=message) as from_compare:
        be.compare_auc(df)
    assert type(from_compare.value) is type(from_auc.value) is InvalidScoreError


@pytest.mark.parametrize("bad", [float("nan"), 0.5])
def test_a_float_label_that_is_no_class_is_refused(bad):
    # NaN sorted last and became the positive class: run a's AUC 0.889 came out as 0.111 (sklearn)
    label, s, df = scored(n_runs=2, n_ex=12, seed=5)
    odd = df.with_columns(pl.col("label").cast(pl.Float64).replace(0.0, bad))
    with pytest.raises(InvalidLabelError, match=r"label column 'label' is float and holds \d+ non-integer"):
        be.compare_auc(odd)
    whole = be.compare_auc(df.with_columns(pl.col("label").cast(pl.Float64))).sort("run")
    assert whole["roc_auc"].to_list() == pytest.approx([roc_auc_score(label, s[r]) for r in range(2)])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"run": "example"}, "column 'example' is named twice: as run and as example"),
        ({"label": "score"}, "column 'score' is named twice: as score and as label"),
        ({"run": "z_value"}, None),
        ({"run": "z"}, "run column 'z' has the name of an output column"),
    ],
)
def test_columns_named_twice_or_like_an_output_are_refused_naming_both(kwargs, message):
    _, _, df = scored(n_runs=3, n_ex=20, seed=4)
    df = df.with_columns(z=pl.col("run"), z_value=pl.col("run"))
    if message is None:  # a name that is no output column is fine
        assert be.compare_auc(df, **kwargs).height == 3
        return
    with pytest.raises(DuplicateColumnError, match=re.escape(message)):
        be.compare_auc(df, **kwargs)


@pytest.mark.parametrize("kind", ["long_tail", "few_values", "one_value_run"])
def test_paired_test_equals_definition_for_skewed_and_tied_scores(kind):
    # the components kernel bucket-sorts each run; a long tail crowds most scores into a few buckets,
    # few distinct values make large blocks of ties, and a constant run has one bucket-less block
    label, s, _ = scored(n_runs=4, n_ex=300, seed=7)
    if kind == "long_tail":
        s = np.exp(3 * s)
    elif kind == "few_values":
        s = np.round(s)
    else:
        s[2] = 0.5
    df = pl.DataFrame({
        "run": np.repeat(np.arange(4), 300), "example": np.tile(np.arange(300), 4),
        "label": np.tile(label, 4), "score": s.reshape(-1),
    })  # fmt: skip
    out = be.compare_auc(df, reference=0).sort("run")
    for r, row in enumerate(out.iter_rows(named=True)):
        assert row["roc_auc"] == pytest.approx(roc_auc_score(label, s[r]), abs=1e-12)
        if r:
            d, _ = ref.paired(s[r].tolist(), s[0].tolist(), label.tolist())
            v = ref.unbiased_paired(s[r].tolist(), s[0].tolist(), label.tolist())
            assert row["diff"] == pytest.approx(d, abs=1e-12)
            assert row["se_diff"] == pytest.approx(np.sqrt(v), rel=1e-9)


def test_row_order_does_not_change_the_paired_test():
    # a frame sorted by (run, example) is read as the runs x examples matrix directly; shuffled rows
    # go through the key codes and must give the same table
    _, _, df = scored(n_runs=6, n_ex=80, seed=8)
    sorted_out = be.compare_auc(df)
    shuffled_out = be.compare_auc(df.sample(fraction=1.0, shuffle=True, seed=3))
    assert sorted_out.equals(shuffled_out)


def _two_runs(seed, gap, n_ex=600):
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n_ex)
    shared = rng.normal(size=n_ex)  # an example effect both runs see: the AUCs are correlated
    s = np.vstack([shared + rng.normal(size=n_ex) + (1.0 + g) * label for g in (0.0, gap)])
    df = pl.DataFrame({
        "run": np.repeat([0, 1], n_ex), "example": np.tile(np.arange(n_ex), 2),
        "label": np.tile(label, 2), "score": s.reshape(-1),
    })  # fmt: skip
    d, v = ref.paired(s[1].tolist(), s[0].tolist(), label.tolist())
    return df, label, abs(d) / np.sqrt(v)


@pytest.mark.parametrize(("seed", "gap"), [(0, 0.0), (1, 0.1), (1, 0.25), (2, 0.6), (3, -0.6)])
def test_best_set_of_two_runs_is_the_paired_delong_test(seed, gap):
    # With two runs the step-down keeps both while the two-sided DeLong p exceeds 1 − ci, and
    # then the trailing run's p_best is that p; else the leader alone stays and p_best is the
    # one-sided p (and the leader's is 1: nothing is ahead of it). The Gaussian draws give these within 4
    # binomial SEs of 2,000 draws; the Student-t correction puts the trailing run's between the
    # normal tail and the t tail on min(m, n) − 1 df.
    df, label, z = _two_runs(seed, gap)
    assert not 1.7 < z < 2.3  # the case is clear of the boundary (no Monte-Carlo coin flip)
    out = be.compare_auc(df)
    lead, trail = out.row(0, named=True), out.row(1, named=True)
    small = min(int(label.sum()), int((1 - label).sum())) - 1
    both = 2 * stats.norm.sf(z) > 0.05
    sides = 2 if both else 1
    lo, hi = sides * stats.norm.sf(z), sides * stats.t.sf(z, small)
    tol = 4 * np.sqrt(max(hi, 1 / 2000) * (1 - lo) / 2000)
    assert lo - tol <= trail["p_best"] <= hi + tol
    assert lead["could_be_best"]
    assert lead["p_best"] == 1.0
    assert trail["could_be_best"] == both
    ranks = [(lead["rank_ci_low"], lead["rank_ci_high"]), (trail["rank_ci_low"], trail["rank_ci_high"])]
    assert ranks == ([(1, 2), (1, 2)] if both else [(1, 1), (2, 2)])


@pytest.mark.parametrize(("seed", "gap"), [(1, 0.1), (1, 0.25), (2, 0.6)])
def test_best_set_of_a_board_too_large_for_the_covariance_is_bonferroni_against_the_leader(
    seed, gap, monkeypatch
):
    # over the influence budget each run meets the leader only (stop 37): the difference D over
    # the null-centred spread Σ_pos d10²/m² + Σ_neg d01²/n² of the components' differences,
    # its normal tail 2·Φ(−x) read one-sided as min(1, (e³/9)·2·Φ(−x), exp(−x²/2)), and
    # Bonferroni over the pairs: for two runs that p twice while both stay, else once
    from batcheval.inference import floors

    monkeypatch.setattr(floors, "INFLUENCE_FLOPS", 10)
    df, label, _ = _two_runs(seed, gap)
    scores = df.sort("run", "example")["score"].to_numpy().reshape(2, -1)
    a10, a01 = ref.components(scores[0].tolist(), label.tolist())
    b10, b01 = ref.components(scores[1].tolist(), label.tolist())
    x = abs(a10.mean() - b10.mean()) / np.sqrt(
        np.sum((a10 - b10) ** 2) / len(a10) ** 2 + np.sum((a01 - b01) ** 2) / len(a01) ** 2
    )
    p_one = min(1.0, np.e**3 / 9 * 2 * stats.norm.sf(x), np.exp(-x * x / 2))
    out = be.compare_auc(df)
    both = 2 * p_one > 0.05
    assert out["p_best"][1] == pytest.approx(min(1.0, (2 if both else 1) * p_one), rel=1e-9)
    assert out["could_be_best"].to_list() == [True, both]
    assert out["rank_ci_low"].null_count() == 2


def test_best_set_keeps_every_truly_best_run_at_its_level():
    """Four runs of the same true AUC on shared, correlated examples: the best set must hold all
    four in at least 95 % of boards (the winner's curse is what it guards against), within 4
    binomial standard errors of 300 boards."""
    rng = np.random.default_rng(2026)
    boards, n_ex, runs = 300, 120, 4
    lost = 0
    for _ in range(boards):
        label = rng.integers(0, 2, n_ex)
        shared = rng.normal(size=n_ex)
        s = shared[None, :] + rng.normal(size=(runs, n_ex)) + label[None, :]
        df = pl.DataFrame({
            "run": np.repeat(np.arange(runs), n_ex), "example": np.tile(np.arange(n_ex), runs),
            "label": np.tile(label, runs), "score": s.reshape(-1),
        })  # fmt: skip
        lost += not be.compare_auc(df, seed=None)["could_be_best"].all()
    assert lost / boards <= 0.05 + 4 * np.sqrt(0.05 * 0.95 / boards)


@settings(max_examples=15)
@given(st.integers(0, 10_000), st.sampled_from(["exp", "cube", "logistic"]))
def test_paired_test_is_invariant_under_monotone_transforms_of_the_scores(seed, f):
    # AUC, DeLong's components and so every column depend on the scores' order only
    _, _, df = scored(n_runs=4, n_ex=50, seed=seed, ties=seed % 2 == 0)
    g = {"exp": np.exp, "cube": lambda v: v**3 + v, "logistic": lambda v: 1 / (1 + np.exp(-v))}[f]
    a = be.compare_auc(df)
    b = be.compare_auc(df.with_columns(pl.col("score").map_batches(g)))
    assert a.select("run", "is_reference", "could_be_best", "rank_ci_low", "rank_ci_high").equals(
        b.select("run", "is_reference", "could_be_best", "rank_ci_low", "rank_ci_high")
    )
    for col in ("roc_auc", "roc_auc_se", "diff", "se_diff", "p_best"):
        np.testing.assert_allclose(a[col].to_numpy(), b[col].to_numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(
    ("labels", "positive"),
    [([False, True], 1), ([False, True], True), ([False, True], 0), ([0, 1], 0), (["no", "yes"], "no")],
)
def test_positive_names_a_class_in_any_label_dtype(labels, positive):
    # positive=1 of Boolean labels (1 == True) raised polars' "Series of type Boolean does not have
    # eq operator" (stop 43); the areas are scikit-learn's with that class positive
    rng = np.random.default_rng(9)
    n = 60
    y = rng.integers(0, 2, n)
    scores = [y + rng.normal(0, s, n) for s in (0.8, 1.5)]
    df = pl.concat(
        pl.DataFrame(
            {"run": r, "example": np.arange(n), "label": pl.Series([labels[v] for v in y]), "score": sc}
        )
        for r, sc in enumerate(scores)
    )
    out = be.compare_auc(df, positive=positive).sort("run")
    pos = labels.index(positive)
    want = [roc_auc_score(y == pos, sc) for sc in scores]
    np.testing.assert_allclose(out["roc_auc"].to_numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("reference", ["a", [0], {"model": 0}])
def test_reference_of_another_type_is_named(reference):
    _, _, df = scored(n_runs=3, n_ex=20, seed=4)
    match = "dict keys must be the run columns" if isinstance(reference, dict) else "is not in the frame"
    with pytest.raises(InvalidArgumentError, match=f"reference= .*{match}"):
        be.compare_auc(df, reference=reference)


@pytest.mark.parametrize("seed", [-1, "a", 1.5, True, 2**63])
def test_seed_must_be_a_non_negative_integer(seed):
    _, _, df = scored(n_runs=3, n_ex=20, seed=4)
    with pytest.raises(
        InvalidArgumentError, match=r"^seed must be None or an integer in \[0, 2\*\*63\), got "
    ):
        be.compare_auc(df, seed=seed)
    assert be.compare_auc(df, seed=np.int64(3)).equals(be.compare_auc(df, seed=3))


def test_reference_difference_has_zero_variance():
    # these scores left a rounding residue of 2.8e-17 in the reference's var + var − 2 cov
    df = pl.DataFrame({
        "run": ["r0"] * 6 + ["r1"] * 6, "example": list(range(6)) * 2, "label": [0, 0, 0, 1, 1, 1] * 2,
        "score": [0.64, 0.27, 0.04, 0.02, 0.81, 0.91, 0.61, 0.73, 0.54, 0.94, 0.82, 0.0],
    })  # fmt: skip
    for reference in ("r0", "r1"):
        row = be.compare_auc(df, reference=reference).filter("is_reference").row(0, named=True)
        assert (row["diff"], row["se_diff"], row["diff_ci_low"], row["diff_ci_high"]) == (0.0, 0.0, 0.0, 0.0)


def _numpy_paired(scores_a, scores_b, labels):
    """DeLong's variance of a difference as the variance of the components' differences, in numpy."""
    a10, a01 = ref.components(scores_a, labels)
    b10, b01 = ref.components(scores_b, labels)
    d10, d01 = a10 - b10, a01 - b01
    return a10.mean() - b10.mean(), d10.var(ddof=1) / len(d10) + d01.var(ddof=1) / len(d01)


@pytest.mark.parametrize("reference", ["a", "b", None])
def test_an_exact_copy_of_the_reference_has_zero_variance(reference):
    # var + var[ref] − 2 cov summed apart gave a copy of the reference se_diff 2.6e-9 and an interval
    # of ±5e-9 around its zero difference; the copy's components are the reference's, so se_diff is 0
    label = [0, 0, 0, 1, 1, 1]
    runs = {"a": [0.1, 0.3, 0.5, 0.4, 0.8, 0.9], "c": [0.2, 0.6, 0.1, 0.3, 0.5, 0.15]}
    runs["b"] = runs["a"]
    df = pl.DataFrame({
        "run": np.repeat(list(runs), 6), "example": list(range(6)) * 3, "label": label * 3,
        "score": np.concatenate(list(runs.values())),
    })  # fmt: skip
    out = be.compare_auc(df, reference=reference)
    chosen = out.filter("is_reference")["run"][0]
    assert chosen == (reference or "a")
    copy = out.filter(pl.col("run") == ("b" if chosen == "a" else "a")).row(0, named=True)
    assert (copy["diff"], copy["se_diff"], copy["z"], copy["p_value"]) == (0.0, 0.0, 0.0, 1.0)
    assert np.isnan(copy["df"]) and np.isnan(out.filter("is_reference")["df"].item())  # no t without spread
    # the interval is the runs' own intervals combined at correlation 1: the copy is not known to
    # be the same model beyond these examples, so it keeps the width their asymmetry leaves
    low, high = ref.mover_difference(runs["a"], runs["a"], label, stats.norm.ppf(0.975))
    assert (copy["diff_ci_low"], copy["diff_ci_high"]) == pytest.approx((low, high), rel=1e-9)
    assert copy["diff_ci_low"] < 0.0 < copy["diff_ci_high"]
    assert copy["p_value"] == 1.0
    assert copy["z"] == 0.0  # a difference of 0 over a variance of 0: not 0/0
    other = out.filter(pl.col("run") == "c").row(0, named=True)
    d, _ = _numpy_paired(runs["c"], runs[chosen], label)
    assert other["diff"] == pytest.approx(d, abs=1e-15)
    unbiased = ref.unbiased_paired(runs["c"], runs[chosen], label)
    assert other["se_diff"] == pytest.approx(np.sqrt(unbiased), rel=1e-12)


@pytest.mark.parametrize("ties", [False, True])
def test_variance_of_a_difference_is_that_of_the_components_differences(ties):
    # DeLong's variance of the difference, summed from the components' differences (the library's
    # df and the unbiased estimate are built on its two parts), to within rounding
    label, s, df = scored(n_runs=6, n_ex=80, seed=11, ties=ties)
    out = be.compare_auc(df, reference=2)
    m, n = int(label.sum()), int((1 - label).sum())
    for row in out.filter(~pl.col("is_reference")).iter_rows(named=True):
        d, v = _numpy_paired(s[row["run"]].tolist(), s[2].tolist(), label.tolist())
        a10, a01 = ref.components(s[row["run"]].tolist(), label.tolist())
        b10, b01 = ref.components(s[2].tolist(), label.tolist())
        parts = np.var(a10 - b10, ddof=1) / m, np.var(a01 - b01, ddof=1) / n
        assert sum(parts) == pytest.approx(v, rel=1e-12)
        assert row["diff"] == pytest.approx(d, abs=1e-15)
        assert row["df"] == pytest.approx(
            v * v / (parts[0] ** 2 / (m - 1) + parts[1] ** 2 / (n - 1)), rel=1e-12
        )
        unbiased = ref.unbiased_paired(s[row["run"]].tolist(), s[2].tolist(), label.tolist())
        assert row["se_diff"] == pytest.approx(np.sqrt(unbiased), rel=1e-12)
        assert v / 2 <= unbiased < v  # below DeLong's (its bias is never negative), above the floor


@pytest.mark.parametrize("dtype", [pl.Enum(["1", "0"]), pl.Enum(["0", "1"]), pl.Categorical, pl.String])
@pytest.mark.parametrize("positive", [None, "0"])
def test_positive_of_enum_labels_is_the_greater_value_as_in_auc(dtype, positive):
    # Enum(["1", "0"]) sorted "0" after "1" by its category order, so "0" was the positive class
    # and compare_auc reported 1 − AUC (0.111 for scikit-learn's 0.889), which be.auc does not
    rng = np.random.default_rng(12)
    n = 40
    y = rng.integers(0, 2, n)
    scores = [y + rng.normal(0, s, n) for s in (0.7, 1.4, 2.5)]
    df = pl.concat(
        pl.DataFrame({"run": r, "example": np.arange(n), "label": [str(v) for v in y], "score": sc})
        for r, sc in enumerate(scores)
    ).with_columns(pl.col("label").cast(dtype))
    out = be.compare_auc(df, positive=positive).sort("run")
    pos = "1" if positive is None else positive
    want = [roc_auc_score(y.astype(str) == pos, sc) for sc in scores]
    np.testing.assert_allclose(out["roc_auc"].to_numpy(), want, rtol=1e-12)
    if positive is None:
        np.testing.assert_allclose(be.auc(df, by="run").sort("run")["roc_auc"].to_numpy(), want, rtol=1e-12)
    assert out.filter("is_reference")["run"].item() == int(np.argmax(want))


@pytest.mark.parametrize("run", [None, [], ()])
@pytest.mark.parametrize("example_dtype", [pl.Int64, pl.String])
def test_no_run_column_is_refused_as_compare_refuses_it(run, example_dtype):
    # run=None or [] raised a bare ValueError "min() arg is an empty sequence" from the sorted
    # layout check, or with text examples "a comparison needs at least 2 runs, got 0"
    _, _, df = scored(n_runs=3, n_ex=20, seed=4)
    df = df.with_columns(pl.col("example").cast(example_dtype))
    with pytest.raises(InvalidArgumentError, match=r"^run= must name at least one column$"):
        be.compare_auc(df, run=run)


def test_too_few_of_a_class_is_named_in_lowercase():
    # the one message of the package that began in uppercase ("DeLong's variance needs ...")
    df = pl.DataFrame(
        {
            "run": [0] * 5 + [1] * 5,
            "example": list(range(5)) * 2,
            "label": [1, 0, 0, 0, 0] * 2,
            "score": [0.9, 0.1, 0.2, 0.3, 0.4, 0.8, 0.5, 0.1, 0.7, 0.2],
        }
    )
    message = "the DeLong variance needs at least 2 examples of each class, got 1 and 4"
    with pytest.raises(InvalidArgumentError, match=f"^{re.escape(message)}$"):
        be.compare_auc(df)


def test_runs_of_equal_auc_get_one_value_and_tie_in_key_order():
    # the mean of the components rounded by run: two runs of AUC 41/70 read 0.5857142857142857 and
    # 0.5857142857142856, so a tie at the top chose its leader, and tied runs their order, by
    # rounding; each AUC is now the exact fraction 2U / 2mn (Fraction counts below), as be.auc's
    from fractions import Fraction

    rng = np.random.default_rng(0)
    m, n, runs = 7, 10, 4
    lab = np.r_[np.ones(m, int), np.zeros(n, int)]
    tied = 0
    for _ in range(120):
        s = rng.integers(0, 4, (runs, m + n)).astype(float)
        df = pl.DataFrame(
            {
                "run": np.repeat(np.arange(runs), m + n),
                "example": np.tile(np.arange(m + n), runs),
                "label": np.tile(lab, runs),
                "score": s.ravel(),
            }
        )
        twice_u = [sum(2 * (a > b) + (a == b) for a in s[r, :m] for b in s[r, m:]) for r in range(runs)]
        exact = np.array([float(Fraction(int(u), 2 * m * n)) for u in twice_u])
        out = be.compare_auc(df)
        assert np.array_equal(out.sort("run")["roc_auc"].to_numpy(), exact)
        assert np.array_equal(be.auc(df, by="run").sort("run")["roc_auc"].to_numpy(), exact)
        # best first, tied runs in key order; the reference is the first of the top
        assert out["run"].to_list() == sorted(range(runs), key=lambda r: (-twice_u[r], r))
        assert out["is_reference"].arg_max() == 0
        tied += len(set(twice_u)) < runs
        # a run tied with the reference differs by 0 exactly: z 0 where its se is 0, else 0 too
        same = out.filter(pl.col("roc_auc") == out["roc_auc"][0])
        assert (same["diff"] == 0).all()
    assert tied >= 5  # the check saw ties (8 of the 120 boards)


def test_null_run_or_example_ids_are_named_by_their_role():
    # "key column 'example' has 2 null values", an InvalidArgumentError, for compare_auc's example=
    df = pl.DataFrame({"run": [0, 0, 1, 1], "example": [0, None, 0, None], "score": [0.1, 0.9, 0.2, 0.8],
                       "label": [0, 1, 0, 1]})  # fmt: skip
    with pytest.raises(be.NullValuesError, match=r"^example column 'example' has 2 null values$"):
        be.compare_auc(df)
    with pytest.raises(be.NullValuesError, match=r"^run column 'run' has 1 null value$"):
        be.compare_auc(df.with_columns(example=pl.Series([0, 1, 0, 1]), run=pl.Series([0, None, 1, 1])))


def test_nan_example_ids_are_refused_as_evaluate_refuses_them():
    """A NaN example id is one key to polars: a single NaN per run was compared as an example, and
    two per run read as one example scored twice. evaluate(example=) refuses NaN ids, and so does
    compare_auc now, with the same message."""
    ids = [0.0, 1.0, 2.0, float("nan"), 4.0, 5.0]
    df = pl.DataFrame({"run": [0] * 6 + [1] * 6, "example": ids * 2, "label": [0, 0, 0, 1, 1, 1] * 2,
                       "score": [0.1, 0.2, 0.3, 0.8, 0.9, 0.7, 0.2, 0.1, 0.5, 0.6, 0.9, 0.4]})  # fmt: skip
    message = r"^example column 'example' holds 2 NaN\(s\) \(first at row 3\); every row needs an example id"
    with pytest.raises(be.InvalidArgumentError, match=message):
        be.compare_auc(df)
    table = df.with_columns(prediction=(pl.col("score") > 0.5).cast(pl.Int64))
    with pytest.raises(be.InvalidArgumentError, match=message):
        be.evaluate(table, pool="run", example="example", ci=0.95, measures=["informedness"])
    assert be.compare_auc(df.with_columns(pl.col("example").fill_nan(3.0))).height == 2


def test_one_bad_score_or_fold_id_is_named_in_the_singular_and_by_role():
    # review: "1 null values", "1 NaN or infinite values", and compare's null fold "key column 'fold'"
    df = pl.DataFrame({"run": [0, 0, 1, 1], "example": [0, 1, 0, 1], "score": [0.1, float("nan"), 0.2, 0.8],
                       "label": [0, 1, 0, 1]})  # fmt: skip
    with pytest.raises(be.InvalidScoreError, match=r"^score column 'score' has 1 NaN or infinite value, at "):
        be.compare_auc(df)
    with pytest.raises(be.NullValuesError, match=r"^score column 'score' has 1 null value, at "):
        be.compare_auc(df.with_columns(score=pl.Series([0.1, None, 0.2, 0.8])))
    folds = pl.DataFrame({"run": [0, 0, 1, 1], "fold": [0, None, 0, 1], "label": [0, 1, 0, 1],
                          "prediction": [0, 1, 1, 1]})  # fmt: skip
    with pytest.raises(be.NullValuesError, match=r"^fold column 'fold' has 1 null value$"):
        be.compare(folds)


def _swap_reference(y, run, reference) -> float:
    """The paired swap test by enumeration, with scikit-learn's AUC of within-run ranks."""
    a, b = stats.rankdata(run), stats.rankdata(reference)
    observed = abs(roc_auc_score(y, a) - roc_auc_score(y, b))
    reaching = 0
    for signs in itertools.product([False, True], repeat=len(y)):
        s = np.array(signs)
        x, z = np.where(s, b, a), np.where(s, a, b)
        reaching += abs(roc_auc_score(y, x) - roc_auc_score(y, z)) >= observed - 1e-12
    return reaching / 2 ** len(y)


@pytest.mark.parametrize(
    ("y", "runs"),
    [
        ([0, 0, 0, 1, 1, 1], {"a": [0.1, 0.2, 0.3, 0.7, 0.8, 0.9], "c": [0.5] * 6}),
        (
            [0, 1, 0, 1, 0, 1, 1, 0],
            {"a": [0, 1, 0, 1, 0, 1, 1, 0], "c": [0.5] * 8, "inv": [1, 0, 1, 0, 1, 0, 0, 1]},
        ),
    ],
)
def test_a_difference_with_no_delong_spread_takes_the_exact_swap_test(y, runs):
    # a perfect run beside a constant one: se_diff 0, z -inf and p 0 on 3 + 3 examples, with
    # numpy's "invalid value encountered in subtract"; the exact swap test of their ranks now
    df = pl.DataFrame(
        [(r, i, y[i], float(s[i])) for r, s in runs.items() for i in range(len(y))],
        schema=["run", "example", "label", "score"],
        orient="row",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = be.compare_auc(df)
    leader = out.filter(pl.col("is_reference"))["run"].item()
    for row in out.filter(~pl.col("is_reference")).iter_rows(named=True):
        if row["se_diff"] == 0 and row["diff"] != 0:
            assert row["p_value"] == pytest.approx(
                _swap_reference(y, runs[row["run"]], runs[leader]), abs=1e-15
            )
            assert np.isnan(row["z"]) and np.isnan(row["df"])
            # no DeLong spread, but the runs' own intervals have width: MOVER gives one (it was NaN)
            low, high = ref.mover_difference(runs[row["run"]], runs[leader], y, stats.norm.ppf(0.975))
            assert (row["diff_ci_low"], row["diff_ci_high"]) == pytest.approx((low, high), rel=1e-9)
            assert row["diff_ci_low"] <= row["diff"] < row["diff_ci_high"]
        assert row["p_value"] > 0


def test_the_swap_test_beyond_sixteen_examples_is_a_seeded_monte_carlo():
    y = [0, 1] * 20
    df = pl.DataFrame({
        "run": ["a"] * 40 + ["c"] * 40, "example": list(range(40)) * 2, "label": y * 2,
        "score": [float(v) for v in y] + [0.5] * 40,
    })  # fmt: skip
    out = be.compare_auc(df, seed=3).filter(pl.col("run") == "c")
    big = 4000  # more examples: the same floor, not a coarser one (p rose with n for a while)
    lab = [0, 1] * (big // 2)
    many = pl.DataFrame({
        "run": ["a"] * big + ["c"] * big, "example": list(range(big)) * 2, "label": lab * 2,
        "score": [float(v) for v in lab] + [0.5] * big,
    })  # fmt: skip
    assert be.compare_auc(many, seed=3).filter(pl.col("run") == "c")["p_value"].item() == 1 / (1 + SWAP_DRAWS)
    # under random swaps a difference of 0.5 needs all 40 examples on one side: 2 of 2^40 patterns,
    # so no draw reaches it and the p-value is the Monte-Carlo floor, whatever the number of examples
    assert out["p_value"].item() == 1 / (1 + SWAP_DRAWS)
    assert be.compare_auc(df, seed=3).equals(be.compare_auc(df, seed=3))


def test_best_set_is_floored_by_the_swap_test():
    """A run with no DeLong spread against a perfect leader on 4 examples left the best set with
    p_best 0.0005, where its exact swap test gives 0.125 and no test of 4 examples can go below
    2^-4 one-sided; the leaderboard floors its paired runs so, and compare_auc now does."""
    df = pl.DataFrame({"run": ["a"] * 4 + ["b"] * 4, "example": [0, 1, 2, 3] * 2, "label": [0, 0, 1, 1] * 2,
                       "score": [0.1, 0.2, 0.7, 0.8] + [0.5] * 4})  # fmt: skip
    out = be.compare_auc(df).sort("run")
    assert out["p_value"][1] == 0.125
    assert out["p_best"].to_list() == [1.0, 2.0**-4]
    assert out["could_be_best"].to_list() == [True, True]
    assert out.select("rank_ci_low", "rank_ci_high").rows() == [(1, 2), (1, 2)]


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000))
def test_p_best_never_below_two_to_minus_the_examples_ranked_apart(seed):
    rng = np.random.default_rng(seed)
    n_runs, n_ex = int(rng.integers(2, 6)), int(rng.integers(4, 12))
    label = np.r_[np.zeros(2), np.ones(2), rng.integers(0, 2, n_ex - 4)].astype(np.int64)
    base = rng.normal(size=n_ex) + label
    s = np.round(base[None, :] + rng.normal(scale=rng.uniform(0, 1.5), size=(n_runs, n_ex)), 1)
    df = pl.DataFrame({"run": np.repeat(np.arange(n_runs), n_ex), "example": np.tile(np.arange(n_ex), n_runs),
                       "label": np.tile(label, n_runs), "score": s.reshape(-1)})  # fmt: skip
    out = be.compare_auc(df, seed=1).sort("run")
    ranks = stats.rankdata(s, axis=1)
    leader = int(np.argmax([roc_auc_score(label, row) for row in s]))
    d = (ranks != ranks[leader]).sum(axis=1)
    assert (out["p_best"].to_numpy() >= 2.0**-d).all()
    assert (out["could_be_best"].to_numpy() == (out["p_best"].to_numpy() > 0.05)).all()
    low, high = out["rank_ci_low"].to_numpy(), out["rank_ci_high"].to_numpy()
    assert (low <= high).all() and (low[out["could_be_best"].to_numpy()] == 1).all()


def test_separated_groups_narrow_as_they_grow():
    """The floored logit interval widened with the groups where the classes separate (10 + 10:
    [0.66, 1], 1,000 + 1,000: [2e-13, 1]); the score interval's cut makes the lower end rise, and
    300,000 + 300,000 examples warn nothing (numpy's "overflow encountered in exp" reached users)."""
    z, lows = stats.norm.ppf(0.975), []
    for n in (10, 100, 1_000, 300_000):
        df = pl.DataFrame(
            {"label": np.r_[np.zeros(n), np.ones(n)].astype(np.int64), "score": np.arange(2.0 * n)}
        )
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            row = be.auc(df, ci=0.95).row(0, named=True)
        low, high = ref.logit_interval(1.0, 0.0, n, n, z)
        assert (row["roc_auc_ci_low"], row["roc_auc_ci_high"]) == pytest.approx((low, high), abs=1e-12)
        assert row["roc_auc_ci_high"] == 1.0
        lows.append(row["roc_auc_ci_low"])
    assert lows == sorted(lows) and lows[0] > 0.8 and 1 - lows[-1] < 1e-4


def test_one_discordant_pair_in_a_large_group_is_near_one():
    """One positive below one negative in 1,000 + 1,000: the floor alone gave [8e-33, 1]."""
    n = 1_000
    score = np.arange(2.0 * n)
    score[[n - 1, n]] = score[[n, n - 1]]
    df = pl.DataFrame({"label": np.r_[np.zeros(n), np.ones(n)].astype(np.int64), "score": score})
    row = be.auc(df, ci=0.95).row(0, named=True)
    a, v = ref.auc_variance(score.tolist(), df["label"].to_list())
    assert row["roc_auc"] == pytest.approx(1 - 1 / n**2, abs=1e-15)
    low, high = ref.logit_interval(a, v, n, n, stats.norm.ppf(0.975))
    assert (row["roc_auc_ci_low"], row["roc_auc_ci_high"]) == pytest.approx((low, high), rel=1e-12)
    assert 0.99 < row["roc_auc_ci_low"] < row["roc_auc"] < row["roc_auc_ci_high"] <= 1.0


def _board_variances(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per board (boards × examples × 2 runs): AUC2 − AUC1, DeLong's two parts of its variance, and
    the unbiased estimate of the variance (the moment equations of
    :func:`tests.reference.delong.unbiased_paired` solved in closed form, without its floor at half
    of DeLong's), vectorised."""
    m, n = pos.shape[1], neg.shape[1]
    parts, diff = [0.0, 0.0], 0.0
    for run, sign in ((0, -1.0), (1, 1.0)):
        both = np.concatenate([pos[..., run], neg[..., run]], axis=1)
        ranks = stats.rankdata(both, axis=1)
        v10 = (ranks[:, :m] - stats.rankdata(pos[..., run], axis=1)) / n
        v01 = 1 - (ranks[:, m:] - stats.rankdata(neg[..., run], axis=1)) / m
        parts = [parts[0] + sign * v10, parts[1] + sign * v01]
        diff = diff + sign * v10.mean(axis=1)
    var = [p.var(axis=1, ddof=1) / p.shape[1] for p in parts]
    # the pairs' kernel differences: E[S10] = ξ10 + W/n, E[S01] = ξ01 + W/m, E[Q] = ξ10 + ξ01 + W − V
    p, q = pos[:, :, None, :], neg[:, None, :, :]
    psi = (p > q) + 0.5 * (p == q)
    square = ((psi[..., 1] - psi[..., 0]) ** 2).mean(axis=(1, 2)) - diff * diff
    s10, s01 = var[0] * m, var[1] * n
    w = (square - (1 - 1 / m) * s10 - (1 - 1 / n) * s01) / ((1 - 1 / m) * (1 - 1 / n))
    unbiased = var[0] + var[1] - w / (m * n)
    return diff, var[0], var[1], unbiased


def _paired_t_sizes(pos: np.ndarray, neg: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The two-sided p of each board of DeLong's z on the normal tail, on Student's t with
    Welch–Satterthwaite degrees of freedom, and of z over the unbiased variance on that t."""
    m, n = pos.shape[1], neg.shape[1]
    diff, part10, part01, unbiased = _board_variances(pos, neg)
    unbiased = np.maximum(unbiased, (part10 + part01) / 2)
    z = diff / np.sqrt(part10 + part01)
    df = (part10 + part01) ** 2 / (part10**2 / (m - 1) + part01**2 / (n - 1))
    t_unbiased = 2 * stats.t.sf(np.abs(diff) / np.sqrt(unbiased), df)
    return 2 * stats.norm.sf(np.abs(z)), 2 * stats.t.sf(np.abs(z), df), t_unbiased


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(4, 24), st.sampled_from([None, 1, 0]))
def test_se_diff_is_the_unbiased_variance_by_its_moment_equations(seed, n_ex, digits):
    """``se_diff`` (the kernel's Fenwick count of the pairs both runs order alike, the closed form
    of ``unbiased_variance``) against the m·n pairs solved as three moment equations, on small
    boards with few or many ties, the estimate floored at half of DeLong's where it falls below."""
    rng = np.random.default_rng(seed)
    label = np.r_[0, 0, 1, 1, rng.integers(0, 2, n_ex - 4)]
    s = rng.normal(size=(3, n_ex)) + label
    if digits is not None:
        s = np.round(s, digits)
    df = pl.DataFrame({"run": np.repeat(np.arange(3), n_ex), "example": np.tile(np.arange(n_ex), 3),
                       "label": np.tile(label, 3), "score": s.reshape(-1)})  # fmt: skip
    for row in be.compare_auc(df, reference=0).filter(~pl.col("is_reference")).iter_rows(named=True):
        want = ref.unbiased_paired(s[row["run"]].tolist(), s[0].tolist(), label.tolist())
        assert row["se_diff"] == pytest.approx(np.sqrt(want), rel=1e-9, abs=1e-12)


def _moment_estimate(run: list, reference: list, label: list) -> tuple[float, float]:
    """(the moment equations' variance of AUC(run) − AUC(reference) without the floor, DeLong's),
    in exact fractions from the m·n pairs (ψ is a multiple of ½), so that an exact 0 reads as 0."""
    from fractions import Fraction

    d = ref.kernel_matrix(run, label) - ref.kernel_matrix(reference, label)
    m, n = d.shape
    cells = [[Fraction(round(2 * x), 2) for x in row] for row in d]
    rows = [sum(r, Fraction(0)) / n for r in cells]
    cols = [sum((r[j] for r in cells), Fraction(0)) / m for j in range(n)]
    mean = sum(rows, Fraction(0)) / m
    s10 = sum((x - mean) ** 2 for x in rows) / (m - 1)
    s01 = sum((x - mean) ** 2 for x in cols) / (n - 1)
    q = sum(x * x for r in cells for x in r) / (m * n) - mean * mean
    w = (q - (1 - Fraction(1, m)) * s10 - (1 - Fraction(1, n)) * s01) / (
        (1 - Fraction(1, m)) * (1 - Fraction(1, n))
    )
    return s10 / m + s01 / n - w / (m * n), s10 / m + s01 / n


@pytest.mark.parametrize(
    ("label", "run", "reference", "estimate"),
    [
        # an estimate below 0: no standard error can take it
        ([0, 0, 1, 1], [2, 0, 1, 3], [3, 1, 0, 3], -0.109375),
        # an exact 0 that rounds to about 1e-18 in floats: se_diff was 1.9e-9, z 1.1e8, p 6e-62
        ([1] * 5 + [0] * 5, [2, 8, 4, 10, 6, 5, 7, 9, 1, 3], [2, 6, 1, 9, 7, 4, 8, 10, 3, 5], 0.0),
    ],
)
def test_se_diff_is_at_least_half_of_delongs(label, run, reference, estimate):
    """Where the moment equations (in exact fractions) put the difference's variance below half of
    DeLong's, se_diff is the square root of half of DeLong's (the true variance is at least half of
    DeLong's expectation), and the test runs on it."""
    got, delong = _moment_estimate(run, reference, label)
    assert float(got) == pytest.approx(estimate, abs=1e-15) and got < delong / 2
    n_ex = len(label)
    df = pl.DataFrame({"run": ["a"] * n_ex + ["b"] * n_ex, "example": list(range(n_ex)) * 2,
                       "label": label * 2, "score": [float(x) for x in run + reference]})  # fmt: skip
    row = be.compare_auc(df, reference="b").filter(pl.col("run") == "a").row(0, named=True)
    diff, var = ref.paired(run, reference, label)
    assert var == pytest.approx(float(delong), rel=1e-12)
    assert row["se_diff"] == pytest.approx(np.sqrt(var / 2), rel=1e-12)
    _, df_, p = ref.paired_t(run, reference, label)
    assert (row["z"], row["df"], row["p_value"]) == pytest.approx(
        (diff / np.sqrt(var / 2), df_, p), rel=1e-12
    )
    assert row["p_value"] > 0.01


def test_unbiased_variance_of_a_difference_is_unbiased_where_delongs_is_not():
    """40,000 boards of 6 + 9 examples scored on five ordered levels (ties) by two runs correlated
    0.5, true AUCs 0.8 and 0.85: the mean of the unbiased estimate equals the simulated variance of
    AUC2 − AUC1 within 4 standard errors of the two, and DeLong's mean exceeds it by more than that
    (by W/(mn), its pairs' variance counted twice). The library gives these estimates
    (test_paired_test_equals_definition)."""
    rng = np.random.default_rng(5)
    boards, m, n, rho = 40_000, 6, 9, 0.5
    cov = [[1.0, rho], [rho, 1.0]]
    shift = np.sqrt(2.0) * stats.norm.ppf([0.8, 0.85])
    cuts = np.array([-0.5, 0.25, 1.0, 1.75])
    neg = np.digitize(rng.multivariate_normal([0.0, 0.0], cov, size=(boards, n)), cuts) * 1.0
    pos = np.digitize(rng.multivariate_normal([0.0, 0.0], cov, size=(boards, m)) + shift, cuts) * 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        diff, part10, part01, unbiased = _board_variances(pos, neg)
    truth = diff.var(ddof=1)
    centred = (diff - diff.mean()) ** 2
    se = np.sqrt(centred.var(ddof=1) / boards + unbiased.var(ddof=1) / boards)
    assert abs(unbiased.mean() - truth) <= 4 * se, (unbiased.mean(), truth, se)
    assert (part10 + part01).mean() - truth > 4 * se


def _null_boards(model: str, m: int, n: int, auc: float, rho: float, boards: int) -> tuple[np.ndarray, ...]:
    """Boards of two equally good runs (true AUC ``auc``, correlated ``rho`` within each class) as
    benchmarks/calibration_auc_difference.py draws them (``wide``: the positives' sd 2; ``mixed``: run
    2's positives' sd 2, run 1's 1), and the p-values of :func:`_paired_t_sizes`, the first boards
    checked against ``be.compare_auc``."""
    rng = np.random.default_rng(2026)
    sd = {"wide": np.array([2.0, 2.0]), "mixed": np.array([1.0, 2.0])}.get(model, np.ones(2))
    shift = np.sqrt(1.0 + sd * sd) * stats.norm.ppf(auc)  # AUC Φ(shift/√(1 + sd²)) for each run
    cov = [[1.0, rho], [rho, 1.0]]
    neg = rng.multivariate_normal([0.0, 0.0], cov, size=(boards, n))
    pos = rng.multivariate_normal([0.0, 0.0], cov, size=(boards, m)) * sd + shift
    with np.errstate(divide="ignore", invalid="ignore"):  # boards with no spread: NaN, counted as kept
        normal, student, unbiased = _paired_t_sizes(pos, neg)
    label = np.r_[np.ones(m), np.zeros(n)].astype(np.int64)
    for b in range(5):
        s = np.concatenate([pos[b], neg[b]])
        df = pl.DataFrame({"run": np.repeat([1, 2], m + n), "example": np.tile(np.arange(m + n), 2),
                           "label": np.tile(label, 2), "score": s.T.reshape(-1)})  # fmt: skip
        row = be.compare_auc(df, reference=1).filter(pl.col("run") == 2).row(0, named=True)
        assert row["p_value"] == pytest.approx(unbiased[b], rel=1e-9)
    return normal, student, unbiased


def _within(p: np.ndarray, alpha: float) -> bool:
    """The rejection rate of ``p`` at ``alpha`` within 4 binomial standard errors of ``alpha``."""
    return abs((p < alpha).mean() - alpha) <= 4 * np.sqrt(alpha * (1 - alpha) / len(p))


def test_paired_test_keeps_its_size_where_the_normal_tail_did_not():
    """Two equally good runs (true AUC 0.6, correlation 0.3) on 10 positives spread twice as wide as
    40 negatives, beside the `wide` 10 + 40 points of docs/calibration_auc_difference.md's size
    table (AUC 0.7: 0.0740 on the normal tail): DeLong's z on the normal tail rejects 0.078 of these
    8,000 boards at 0.05; compare_auc's p_value (z over the unbiased variance on Student's t with
    Welch–Satterthwaite degrees of freedom, checked on the first boards) 0.0546, within 4 binomial
    standard errors of 0.05, and of 0.01 at 0.01 (0.0095)."""
    normal, _, unbiased = _null_boards("wide", 10, 40, 0.6, 0.3, 8000)
    assert _within(unbiased, 0.05) and _within(unbiased, 0.01)
    assert (normal < 0.05).mean() > 0.05 + 4 * np.sqrt(0.05 * 0.95 / 8000)  # the point tells them apart


def test_paired_test_keeps_its_size_where_the_runs_are_not_exchangeable():
    """Equal true AUCs (0.8) from runs whose scores differ in shape: run 2's 10 positives spread twice
    as wide as run 1's, beside 40 negatives, correlation 0.3 (the `mixed` 10 + 40 point of
    docs/calibration_auc_difference.md's size table: 0.0605 at 2,000 boards, 0.0520 at 20,000). A
    swap (permutation) test needs the runs exchangeable and rejects such nulls too often (0.0785 and
    0.0875 at 10 + 40, AUC 0.9, in the page's section on it); compare_auc's p_value stays within 4
    binomial standard errors of 0.05 and of 0.01 on 8,000 boards (0.0510 and 0.0098)."""
    _, _, unbiased = _null_boards("mixed", 10, 40, 0.8, 0.3, 8000)
    assert _within(unbiased, 0.05) and _within(unbiased, 0.01)


def test_paired_test_holds_its_size_where_delongs_variance_made_it_conservative():
    """15 + 15 binormal examples, true AUC 0.8, correlation 0.3 (between the 10 + 10 and 20 + 20 points
    of the size table, where the stop-67 test held 0.0265 and 0.0420 at AUC 0.8): DeLong's variance
    counts the pairs' own variance twice, and z over it on the same t rejects 0.0375 of 8,000 boards
    at 0.05, below 0.05 by more than 4 binomial standard errors; over the unbiased variance 0.0449,
    within them (at 0.01 both stay below: 0.0038 and 0.0044)."""
    _, student, unbiased = _null_boards("binormal", 15, 15, 0.8, 0.3, 8000)
    assert _within(unbiased, 0.05)
    assert (student < 0.05).mean() < 0.05 - 4 * np.sqrt(0.05 * 0.95 / 8000)
    assert (unbiased < 0.01).mean() <= 0.01
