"""Curve frames against scikit-learn's curves and the spec §6 formulas."""

from __future__ import annotations

import re
import warnings

import numpy as np
import polars as pl
import pytest
from sklearn import metrics

import batcheval as be
from tests.test_sweep import scored_frame


def _by_run(frame, chart, run):
    return frame.filter((pl.col("chart") == chart) & (pl.col("run") == run)).sort(
        "threshold", descending=True
    )


def test_roc_and_pr_points_equal_sklearn():
    df = scored_frame(n_runs=6, n_folds=1, rows=80, seed=21)
    out = be.curves(df, by="run", kind=["roc", "pr"])
    for run in range(6):
        part = df.filter(pl.col("run") == run)
        y, s = part["label"].to_numpy(), part["score"].to_numpy()
        fpr, tpr, thr = metrics.roc_curve(y, s, drop_intermediate=False)
        roc = _by_run(out, "roc", run)
        np.testing.assert_allclose(roc["x"], fpr[1:], atol=1e-15)  # sklearn prepends (0, 0) at +inf
        np.testing.assert_allclose(roc["y"], tpr[1:], atol=1e-15)
        np.testing.assert_array_equal(roc["threshold"], thr[1:])
        precision, recall, pthr = metrics.precision_recall_curve(y, s, drop_intermediate=False)
        pr = _by_run(out, "pr", run)
        order = np.argsort(-pthr)
        np.testing.assert_allclose(pr["x"], recall[:-1][order], atol=1e-15)
        np.testing.assert_allclose(pr["y"], precision[:-1][order], atol=1e-15)


def _exact_cells(df: pl.DataFrame) -> pl.DataFrame:
    """Plain numpy: each run's cells at every distinct score, predicted positive iff score >= it."""
    rows = []
    for run in sorted(df["run"].unique().to_list()):
        part = df.filter(pl.col("run") == run)
        y, score = part["label"].to_numpy(), part["score"].to_numpy()
        for thr in np.unique(score):
            p = score >= thr
            tp, fp = int(np.sum(p & (y == 1))), int(np.sum(p & (y == 0)))
            rows.append((run, float(thr), tp, fp, int(np.sum(y == 1)) - tp, int(np.sum(y == 0)) - fp))
    return pl.DataFrame(rows, schema=["run", "threshold", "tp", "fp", "fn", "tn"], orient="row")


@pytest.mark.parametrize("s", [0.0, 1.0, 2.5])
def test_bookmaker_charts_follow_the_spec(s):
    df = scored_frame(n_runs=3, n_folds=1, rows=50, seed=22)
    out = be.curves(df, by="run", kind=["boc", "bift", "lift", "bprd", "bird"], smoothing=s)
    cells = _exact_cells(df)
    tp, fp, fn, tn = (cells[c].to_numpy().astype(float) for c in ("tp", "fp", "fn", "tn"))
    recall, fallout, bias = tp / (tp + fn), fp / (fp + tn), (tp + fp) / (tp + fp + fn + tn)
    informedness = recall - fallout
    drift = (s + tp + fp) / (s + tp + fn)
    with np.errstate(divide="ignore", invalid="ignore"):
        bird_y = -np.log2(((s + tp) / (s + tp + fn)) / ((s + fp) / (s + fp + tn)))
    expected = {
        "boc": (fallout, informedness),
        "bift": (bias, informedness),
        "lift": (bias, recall),
        "bprd": (drift, informedness),
        "bird": (np.log2(drift), bird_y),
    }
    for chart, (x, y) in expected.items():
        got = out.filter(pl.col("chart") == chart).sort("run", "threshold")
        assert got["s"].unique().to_list() == [s]
        assert got.select("run", "threshold").rows() == cells.select("run", "threshold").rows()
        np.testing.assert_allclose(got["x"], x, atol=1e-12, err_msg=chart)
        np.testing.assert_allclose(got["y"], y, atol=1e-12, err_msg=chart)


def test_unknown_chart():
    with pytest.raises(ValueError, match=r"unknown chart 'rocc'"):
        be.curves(scored_frame(n_runs=1), kind="rocc")


def test_pooled_curve_over_exact_thresholds_sweeps_the_pooled_rows_together():
    # with pool= and the default thresholds="exact", each "pooled" row held one fold's counts and
    # the ROC curve went back and forth (stop 43); it is now the curve of the run's rows of every
    # fold together, scikit-learn's roc_curve of them
    from sklearn.metrics import roc_curve

    rng = np.random.default_rng(8)
    df = pl.DataFrame({"run": np.repeat([0, 1], 60), "fold": np.tile(np.repeat([0, 1, 2], 20), 2),
                       "label": rng.integers(0, 2, 120), "score": rng.random(120).round(2)})  # fmt: skip
    out = be.curves(df, by=["run", "fold"], pool="fold", kind="roc")
    assert out.columns[0] == "run" and "fold" not in out.columns
    for run in (0, 1):
        rows = df.filter(pl.col("run") == run)
        fpr, tpr, thr = roc_curve(rows["label"], rows["score"], drop_intermediate=False)
        got = out.filter(pl.col("run") == run).sort("threshold", descending=True)
        np.testing.assert_allclose(got["threshold"].to_numpy(), thr[1:])
        np.testing.assert_allclose(got["x"].to_numpy(), fpr[1:], rtol=1e-12)
        np.testing.assert_allclose(got["y"].to_numpy(), tpr[1:], rtol=1e-12)
    with pytest.raises(be.InvalidArgumentError, match=r"pool='fold' sums the tables .* thresholds='exact'"):
        be.sweep(df, by=["run", "fold"], pool="fold", thresholds="exact")


def test_a_missing_pool_column_is_named_and_multiclass_curves_pool():
    # pool="flod" with the default thresholds="exact" was ignored; multiclass curves pooled over a
    # column not in by= lost it (a "key column not found" error with a grid)
    rng = np.random.default_rng(9)
    n = 120
    y, s = rng.integers(0, 3, n), rng.random((n, 3)).round(2)
    df = pl.DataFrame({"run": np.repeat([0, 1], n // 2), "fold": np.tile([0, 1, 2], n // 3), "label": y,
                       "p0": s[:, 0], "p1": s[:, 1], "p2": s[:, 2]})  # fmt: skip
    binary = df.with_columns((pl.col("label") == 2).alias("label"), pl.col("p2").alias("score"))
    for data, score in ((binary, "score"), (df, ["p0", "p1", "p2"])):
        with pytest.raises(be.ColumnNotFoundError, match=r"pool column 'flod' not found"):
            be.curves(data, by=["run", "fold"], score=score, pool="flod")
    for data, score in ((binary, "score"), (df, ["p0", "p1", "p2"])):
        # a misspelt pooled column that is in by= too was ignored: rows came back
        with pytest.raises(be.ColumnNotFoundError, match=r"key column 'flod' not found"):
            be.curves(data, by=["run", "flod"], score=score, pool="flod")
        with pytest.raises(be.ColumnNotFoundError, match=r"key column 'flod' not found"):
            be.auc(data, by=["run", "flod"], score=score, pool="flod")
    grid = [0.25, 0.5, 0.75]
    for by in (["run", "fold"], "run"):
        out = be.curves(df, by=by, score=["p0", "p1", "p2"], pool="fold", thresholds=grid, kind="roc")
        assert out.columns[:2] == ["run", "class"]
        for (run, k), part in out.group_by("run", "class"):
            m = df["run"].to_numpy() == run
            pos, score_k = y[m] == k, s[m, k]
            for t, x, rec in part.select("threshold", "x", "y").rows():
                assert x == pytest.approx((score_k[~pos] >= t).mean())
                assert rec == pytest.approx((score_k[pos] >= t).mean())


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(kind="roc2"), "unknown chart 'roc2'"),
        (dict(kind=[]), "kind= names at least one chart"),
        (dict(kind=["roc", ["pr"]]), "unknown chart ['pr']"),
        # came back twice: every point of it a duplicate row
        (dict(kind=["roc", "pr", "roc"]), "kind= names 'roc' more than once: ['roc', 'pr', 'roc']"),
        (dict(smoothing=-1), "smoothing= takes a finite count >= 0, got -1"),
        (dict(smoothing="1"), "smoothing= takes a finite count >= 0, got '1'"),
        (dict(smoothing=float("nan")), "smoothing= takes a finite count >= 0, got nan"),
        # beyond the largest float: a raw OverflowError from float() before
        (
            dict(smoothing=10**400),
            "smoothing= takes a finite count >= 0, got 100000000000000000...0000000000000000000",
        ),
        (dict(thresholds="exactly"), "takes a count, a list of numbers or 'exact', got 'exactly'"),
    ],
)
def test_bad_curve_arguments_are_named(kwargs, message):
    # ValueError, TypeError or polars' "cannot concat empty list" before; smoothing=nan was taken
    # and gave NaN at every bprd and bird point
    with pytest.raises(be.InvalidArgumentError, match=re.escape(message)):
        be.curves(scored_frame(n_runs=1), **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(pool="label"), "column 'label' is named twice: as key and as label"),
        (dict(by="label", pool="label"), "column 'label' is named twice: as key and as label"),
        (dict(by="run", pool="score"), "column 'score' is named twice: as key and as score"),
        (dict(score=["p0", "p1"], pool="p1"), "column 'p1' is named twice: as key and as score"),
    ],
)
def test_pooling_over_the_label_or_a_score_is_refused_with_exact_thresholds_too(kwargs, message):
    # curves(df, pool="label") with the default exact thresholds gave the curve of all rows, where
    # a grid (and sweep, auc) refuse the label named as a pooled key
    df = scored_frame(n_runs=2).with_columns(p0=-pl.col("score"), p1=pl.col("score"))
    for thresholds in ("exact", 3):
        with pytest.raises(be.DuplicateColumnError, match=re.escape(message)):
            be.curves(df, thresholds=thresholds, **kwargs)


@pytest.mark.parametrize("s", [0.0, 1.0])
def test_a_one_class_group_has_bookmaker_information_zero_as_its_informedness(s):
    # positives only: s_fpr = (s + 0)/(s + 0) = 1, so bird's y ran from 1.32 to 0 bits (worse than
    # chance) where evaluate, boc and bift give informedness 0
    df = pl.DataFrame(
        {
            "run": ["pos"] * 4 + ["neg"] * 4 + ["both"] * 4,
            "label": [1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0, 1],
            "score": [0.1, 0.2, 0.3, 0.4, 0.1, 0.5, 0.3, 0.8, 0.1, 0.6, 0.3, 0.8],
        }
    )
    out = be.curves(df, by="run", kind=["bird", "boc"], smoothing=s)
    for run in ("pos", "neg"):
        part = out.filter(pl.col("run") == run)
        bird, boc = part.filter(pl.col("chart") == "bird"), part.filter(pl.col("chart") == "boc")
        assert bird["y"].to_list() == [0.0] * 4 == boc["y"].to_list()
        rows = df.filter(pl.col("run") == run)
        predicted = np.array([(rows["score"] >= t).sum() for t in bird["threshold"]], dtype=float)
        with np.errstate(divide="ignore"):  # s = 0 and no positives: an infinite drift, as before
            drift = (s + predicted) / (s + float(rows["label"].sum()))
            np.testing.assert_allclose(bird["x"], np.log2(drift))  # x unchanged
        for t in bird["threshold"]:  # evaluate's informedness at each threshold
            pred = rows.with_columns(prediction=(pl.col("score") >= t).cast(pl.Int64))
            assert be.evaluate(pred, measures="informedness")["informedness"][0] == 0.0
    both = out.filter((pl.col("run") == "both") & (pl.col("chart") == "bird")).sort("threshold")
    cells = _exact_cells(df.filter(pl.col("run") == "both"))
    tp, fp, fn, tn = (cells[c].to_numpy().astype(float) for c in ("tp", "fp", "fn", "tn"))
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = -np.log2(((s + tp) / (s + tp + fn)) / ((s + fp) / (s + fp + tn)))
    np.testing.assert_allclose(both["y"], expected)


def test_exact_curves_collect_a_lazyframe():
    """curves' exact default refused a LazyFrame as a streamed source, where auc of the same frame
    collected it and ran."""
    df = pl.DataFrame({"g": [0, 0, 0, 0, 1, 1, 1], "label": [0, 1, 0, 1, 1, 0, 1],
                       "score": [0.1, 0.9, 0.4, 0.6, 0.3, 0.2, 0.8]})  # fmt: skip
    assert be.curves(df.lazy(), by="g").equals(be.curves(df, by="g"))
    assert be.sweep(df.lazy(), by="g", thresholds="exact").equals(be.sweep(df, by="g", thresholds="exact"))
    assert be.auc(df.lazy(), by="g").equals(be.auc(df, by="g"))
    # only the named columns are collected: a column that fails to compute is never read, as in auc
    broken = df.lazy().with_columns(pl.lit([1]).list.get(5).alias("unused"))
    assert be.sweep(broken, by="g", thresholds="exact").equals(be.sweep(df, by="g", thresholds="exact"))
    assert be.auc(broken, by="g").equals(be.auc(df, by="g"))


def test_exact_sweep_of_a_lazyframe_says_which_streaming_options_it_leaves_unused():
    """The exact sweep collects a LazyFrame, so a batch_rows= meant to bound memory did not and
    nothing said so; the counts are still the collected frame's."""
    df = pl.DataFrame({"g": [0, 0, 0, 1, 1], "label": [0, 1, 1, 1, 0], "score": [0.2, 0.7, 0.4, 0.9, 0.3]})
    expected = be.sweep(df, by="g", thresholds="exact")
    said = (
        r"^thresholds='exact' collects the LazyFrame's named columns \(it needs every score of a group "
        r"at once\), so batch_rows=2 does not apply; give thresholds=int or a list to stream it in parts$"
    )
    with pytest.warns(be.BatchevalWarning, match=said) as caught:
        out = be.sweep(df.lazy(), by="g", thresholds="exact", batch_rows=2)
    assert len(caught) == 1 and out.equals(expected)
    with pytest.warns(be.BatchevalWarning, match=r"so on_error='skip', progress=True do not apply"):
        be.sweep(df.lazy(), by="g", thresholds="exact", on_error="skip", progress=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the defaults, progress=False, and a grid say nothing
        assert be.sweep(df.lazy(), by="g", thresholds="exact", progress=False).equals(expected)
        be.sweep(df.lazy(), by="g", thresholds=3, batch_rows=2)


def test_multiclass_sweep_of_a_lazyframe_says_so_too_and_checks_on_error():
    df = pl.DataFrame({"label": [0, 1, 2, 1], "s0": [0.6, 0.2, 0.1, 0.3], "s1": [0.3, 0.5, 0.2, 0.4],
                       "s2": [0.1, 0.3, 0.7, 0.3]})  # fmt: skip
    expected = be.sweep(df, score=["s0", "s1", "s2"], thresholds=3)
    with pytest.warns(be.BatchevalWarning, match=r"collected at once, so batch_rows=1 does not apply$"):
        out = be.sweep(df.lazy(), score=["s0", "s1", "s2"], thresholds=3, batch_rows=1)
    assert out.equals(expected) and set(out["class"]) == {0, 1, 2}
    # before, multiclass scores never read on_error= (nor batch_rows=): any value passed
    with pytest.raises(be.InvalidArgumentError, match="on_error"):
        be.sweep(df, score=["s0", "s1", "s2"], on_error="ignore")
