"""Threshold sweeps and exact AUCs against numpy, scikit-learn and brute force."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn import metrics

import batcheval as be
from tests.reference.naive import binary_reference

CELLS = ("tp", "fp", "fn", "tn")


def scored_frame(n_runs=12, n_folds=3, rows=60, seed=0, ties=True) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n = n_runs * n_folds * rows
    label = rng.integers(0, 2, n)
    noise = rng.normal(size=n)
    score = label * rng.uniform(0, 2) + noise
    if ties:
        score = np.round(score, 1)  # plenty of tied scores across labels
    return pl.DataFrame(
        {
            "run": np.repeat(np.arange(n_runs), n_folds * rows),
            "fold": np.tile(np.repeat(np.arange(n_folds), rows), n_runs),
            "label": label,
            "score": score,
        }
    )


def _groups(df, by):
    for key, part in df.sort(by).group_by(by, maintain_order=True):
        yield key, part["label"].to_numpy(), part["score"].to_numpy()


def _numpy_table(y, s, thr):
    pred = s >= thr
    return (
        int(np.sum(pred & (y == 1))),
        int(np.sum(pred & (y == 0))),
        int(np.sum(~pred & (y == 1))),
        int(np.sum(~pred & (y == 0))),
    )


@pytest.mark.parametrize("thresholds", [7, [-1.0, 0.0, 0.35, 1.2], "exact"])
def test_sweep_counts_equal_numpy_at_every_threshold(thresholds):
    df = scored_frame(seed=1)
    out = be.sweep(df, by=["run", "fold"], thresholds=thresholds, measures=["recall"])
    for key, y, s in _groups(df, ["run", "fold"]):
        rows = out.filter((pl.col("run") == key[0]) & (pl.col("fold") == key[1]))
        if thresholds == "exact":
            assert sorted(rows["threshold"].to_list()) == sorted(set(s.tolist()))
        for r in rows.iter_rows(named=True):
            assert (r["tp"], r["fp"], r["fn"], r["tn"]) == _numpy_table(y, s, r["threshold"])


@pytest.mark.parametrize("block_rows", [None, 5_000])
def test_radix_partitioned_histogram_counts_equal_numpy(monkeypatch, block_rows):
    """Many groups × thresholds of shuffled rows take the radix path: partitions of whole groups
    counted and written out at once, or (inputs too long for that, forced here by
    ``block_rows``) a histogram counted in row blocks; counts must equal numpy at every
    threshold either way."""
    import sys

    from batcheval.core import counting

    sweep_module = sys.modules["batcheval.scores.sweep"]
    used = []
    real = sweep_module.use_radix
    monkeypatch.setattr(sweep_module, "use_radix", lambda *a, **k: used.append(real(*a, **k)) or used[-1])
    partitioned = []
    real_parts = sweep_module._partitioned
    monkeypatch.setattr(sweep_module, "_partitioned", lambda *a: partitioned.append(1) or real_parts(*a))
    if block_rows:
        monkeypatch.setattr(counting, "_RADIX_BLOCK_ROWS", block_rows)
        monkeypatch.setattr(sweep_module, "_FUSED_ROWS", block_rows)
    rng = np.random.default_rng(4)
    n, groups = 30_000, 3_000
    df = pl.DataFrame({"run": rng.integers(0, groups, n), "label": rng.integers(0, 2, n),
                       "score": np.round(rng.normal(size=n), 2)})  # fmt: skip
    thresholds = np.linspace(-2.5, 2.5, 101)
    out = be.sweep(df, by="run", thresholds=thresholds.tolist(), measures=["recall"])
    assert used == [True]
    assert partitioned == ([] if block_rows else [1])
    y, s, run = df["label"].to_numpy(), df["score"].to_numpy(), df["run"].to_numpy()
    pred = s[:, None] >= thresholds[None, :]
    expected = {}
    for name, mask in (("tp", pred & (y[:, None] == 1)), ("fp", pred & (y[:, None] == 0)),
                       ("fn", ~pred & (y[:, None] == 1)), ("tn", ~pred & (y[:, None] == 0))):  # fmt: skip
        per = np.zeros((groups, len(thresholds)), dtype=np.int64)
        np.add.at(per, run, mask.astype(np.int64))
        expected[name] = per[np.unique(run)].ravel()
    for name, values in expected.items():
        np.testing.assert_array_equal(out[name].to_numpy(), values)


def test_evenly_spaced_thresholds_span_the_global_score_range():
    df = scored_frame(seed=2)
    out = be.sweep(df, by="run", thresholds=11)
    expected = np.linspace(df["score"].min(), df["score"].max(), 11)
    np.testing.assert_array_equal(out.filter(pl.col("run") == 0)["threshold"].to_numpy(), expected)
    ranged = be.sweep(df, by="run", thresholds=3, score_range=(0.0, 1.0))
    assert ranged.filter(pl.col("run") == 0)["threshold"].to_list() == [0.0, 0.5, 1.0]


def test_auc_equals_sklearn_per_group():
    df = scored_frame(n_runs=25, seed=3)
    out = be.auc(df, by=["run", "fold"]).sort("run", "fold")
    for row, (_, y, s) in zip(out.iter_rows(named=True), _groups(df, ["run", "fold"]), strict=True):
        assert row["roc_auc"] == pytest.approx(metrics.roc_auc_score(y, s), abs=1e-12)
        assert row["pr_auc"] == pytest.approx(metrics.average_precision_score(y, s), abs=1e-12)
        assert row["gini"] == pytest.approx(2 * row["roc_auc"] - 1, abs=1e-15)
        assert row["auboc"] == pytest.approx(row["gini"] / 2, abs=1e-15)
        assert row["roc_auch"] >= row["roc_auc"] - 1e-12


def _hull_area(y, s):
    """Upper convex hull of the ROC points by brute force over all point triples' signs."""
    fpr, tpr, _ = metrics.roc_curve(y, s, drop_intermediate=False)
    pts = sorted(set(zip(fpr.tolist(), tpr.tolist(), strict=True)) | {(0.0, 0.0), (1.0, 1.0)})
    hull = []
    for p in pts:
        while (
            len(hull) >= 2
            and (hull[-1][0] - hull[-2][0]) * (p[1] - hull[-2][1])
            - (hull[-1][1] - hull[-2][1]) * (p[0] - hull[-2][0])
            >= 0
        ):
            hull.pop()
        hull.append(p)
    return float(np.trapezoid([q[1] for q in hull], [q[0] for q in hull]))


def test_roc_convex_hull_area():
    df = scored_frame(n_runs=10, seed=4)
    out = be.auc(df, by=["run", "fold"]).sort("run", "fold")
    for row, (_, y, s) in zip(out.iter_rows(named=True), _groups(df, ["run", "fold"]), strict=True):
        assert row["roc_auch"] == pytest.approx(_hull_area(y, s), abs=1e-12)


@pytest.mark.parametrize("measure", ["informedness", "f1", "accuracy"])
def test_best_threshold_equals_brute_force(measure):
    df = scored_frame(n_runs=8, seed=5)
    out = be.auc(df, by=["run", "fold"], measure=measure).sort("run", "fold")
    for row, (_, y, s) in zip(out.iter_rows(named=True), _groups(df, ["run", "fold"]), strict=True):
        best_val, best_thr = -math.inf, None
        for thr in sorted(set(s.tolist()), reverse=True):  # highest threshold wins ties
            tp, fp, fn, tn = _numpy_table(y, s, thr)
            table = np.array([[[tn, fp], [fn, tp]]])
            v = binary_reference(table[0])[measure]  # plain-python formulas, not batcheval's
            if v > best_val:
                best_val, best_thr = v, thr
        assert row["best_threshold"] == best_thr
        assert row[f"best_{measure}"] == pytest.approx(best_val, abs=1e-15)


def _shaped_groups(rng) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """One group per path of the per-group sort: tiny (insertion sort), already
    sorted, smooth (buckets), heavy ties and a heavy tail (crowded buckets, per
    bucket quicksort), a range wider than float64 (one quicksort), plus a
    bucketed group with sparse ties."""
    n = 400
    y = rng.integers(0, 2, n)
    smooth = y * 0.7 + rng.normal(size=n)
    return {
        "tiny": (y[:20], np.round(smooth[:20], 1)),
        "sorted": (y[np.argsort(smooth)], np.sort(smooth)),
        "smooth": (y, smooth),
        "heavy ties": (y, rng.integers(0, 3, n) + 0.5 * y * rng.integers(0, 2, n)),
        "heavy tail": (y, np.where(rng.random(n) < 0.01, 1e6, 0.0) + smooth),
        "beyond float64": (y[:90], np.round(np.clip(smooth[:90], -1.7, 1.7), 1) * 1e308),
        "sparse ties": (y, np.round(smooth, 2)),
    }


def _shaped_frame() -> tuple[dict, pl.DataFrame]:
    groups = _shaped_groups(np.random.default_rng(8))
    df = pl.concat(
        pl.DataFrame({"shape": name, "label": y, "score": s}) for name, (y, s) in groups.items()
    ).sample(fraction=1.0, shuffle=True, seed=1)  # rows of all groups interleaved
    return groups, df


def test_exact_sweep_on_every_sort_path_equals_numpy():
    groups, df = _shaped_frame()
    out = be.sweep(df, by="shape", thresholds="exact", measures=["recall"])
    for name, (y, s) in groups.items():
        rows = out.filter(pl.col("shape") == name).sort("threshold")
        assert rows["threshold"].to_list() == sorted(set(s.tolist())), name
        for r in rows.iter_rows(named=True):
            assert (r["tp"], r["fp"], r["fn"], r["tn"]) == _numpy_table(y, s, r["threshold"]), name


def test_auc_summaries_on_every_sort_path_equal_sklearn_and_brute_force():
    groups, df = _shaped_frame()
    wide = groups["beyond float64"][1]
    assert math.isinf(float(wide.max()) - float(wide.min()))  # the bucket scale overflows
    out = {row["shape"]: row for row in be.auc(df, by="shape").iter_rows(named=True)}
    # the references' own differences of those scores overflow too, harmlessly
    with np.errstate(over="ignore", invalid="ignore"):
        for name, (y, s) in groups.items():
            row = out[name]
            assert row["roc_auc"] == pytest.approx(metrics.roc_auc_score(y, s), abs=1e-12), name
            assert row["pr_auc"] == pytest.approx(metrics.average_precision_score(y, s), abs=1e-12), name
            assert row["roc_auch"] == pytest.approx(_hull_area(y, s), abs=1e-12), name
            fpr, tpr, thr = metrics.roc_curve(y, s, drop_intermediate=False)
            youden = tpr - fpr
            assert row["best_threshold"] == thr[np.argmax(youden)], name  # first = highest threshold
            assert row["best_informedness"] == pytest.approx(youden.max(), abs=1e-15), name


def test_single_point_auc_identity():
    df = scored_frame(seed=6)
    out = be.sweep(df, by="run", thresholds=[0.5], measures=["auc_single", "informedness"])
    np.testing.assert_allclose(out["auc_single"], (1 + out["informedness"]) / 2, rtol=1e-15)


def test_one_class_groups_give_nan_without_error():
    df = pl.DataFrame({"run": [1, 1, 2, 2], "label": [1, 1, 0, 1], "score": [0.2, 0.4, 0.1, 0.9]})
    out = be.auc(df, by="run", classes=[0, 1]).sort("run")
    assert math.isnan(out["roc_auc"][0]) and math.isnan(out["pr_auc"][0])
    assert out["roc_auc"][1] == 1.0


@given(st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False).filter(lambda c: c == round(c, 2)))
def test_shifting_scores_and_thresholds_changes_nothing(shift):
    df = scored_frame(n_runs=3, n_folds=2, rows=30, seed=7)
    thr = [-0.5, 0.0, 0.4, 1.5]
    a = be.sweep(df, by=["run", "fold"], thresholds=thr, measures=["informedness"])
    shifted = df.with_columns((pl.col("score") + shift).alias("score"))
    b = be.sweep(shifted, by=["run", "fold"], thresholds=[t + shift for t in thr], measures=["informedness"])
    assert a.drop("threshold").equals(b.drop("threshold"))
    assert (
        be.auc(df, by="run").drop("best_threshold").equals(be.auc(shifted, by="run").drop("best_threshold"))
    )


def test_pooled_sweep_equals_sweeping_the_concatenated_folds():
    df = scored_frame(seed=8)
    pooled = be.sweep(df, by=["run", "fold"], thresholds=9, pool="fold", measures=["recall"])
    direct = be.sweep(df, by="run", thresholds=9, measures=["recall"])
    assert pooled.select(direct.columns).equals(direct)
    assert "recall_mean" in pooled.columns and "recall_std" in pooled.columns


def test_nonfinite_scores_are_an_error_or_dropped():
    df = pl.DataFrame({"label": [0, 1, 1], "score": [0.1, float("nan"), float("inf")]})
    with pytest.raises(be.InvalidScoreError, match=r"score column 'score' has 2 NaN or infinite values"):
        be.sweep(df)
    with pytest.raises(be.InvalidScoreError, match=r"drop_nonfinite=True"):
        be.auc(df)
    out = be.sweep(df, thresholds=[0.0], drop_nonfinite=True)
    assert out["n"].to_list() == [1]


@pytest.mark.parametrize("call", [be.sweep, be.auc])
def test_nonfinite_score_error_names_the_rows(call):
    scores = np.linspace(0, 1, 12)
    bad = [2, 5, 7, 11]
    scores[bad] = [np.nan, np.inf, -np.inf, np.nan]
    df = pl.DataFrame({"label": np.arange(12) % 2, "score": scores})
    expected = np.flatnonzero(~np.isfinite(df["score"].to_numpy()))[:3]
    shown = ", ".join(f"{r}: {scores[r]}" for r in expected)
    with pytest.raises(be.InvalidScoreError, match=rf"4 NaN or infinite values \(first rows {shown}\)"):
        call(df)
    one = df.with_columns(score=np.where(np.arange(12) == 9, np.nan, np.linspace(0, 1, 12)))
    with pytest.raises(be.InvalidScoreError, match=r"1 NaN or infinite value \(row 9: nan\)"):
        call(one)


def test_nonfinite_score_error_names_the_rows_by_the_positions_given_the_nulls_dropped_counted():
    # a streamed batch's rows are named by their positions in the file, which prepare_scores is
    # given; the nulls it drops itself must not shift them
    from batcheval.scores.prepare import prepare_scores

    scores = [0.1, None, 0.3, np.inf, 0.5, 0.6]
    labels = [0, 1, None, 1, 0, 1]
    df = pl.DataFrame({"label": labels, "score": scores})
    (row,) = np.flatnonzero(np.isinf(np.array(scores, dtype=float)))
    message = (
        f"score column 'score' has 1 NaN or infinite value (row {100 + row}: inf); pass drop_nonfinite=True"
    )
    with pytest.warns(be.BatchevalWarning, match="dropped 2 of 6 rows"):
        with pytest.raises(be.InvalidScoreError, match=f"^{re.escape(message)}"):
            prepare_scores(df, None, "label", "score", 1, None, False, True, positions=lambda at: at + 100)
    # without positions, the rows are counted after the nulls dropped, as before
    message = f"(row {row - 2}: inf, counted after dropping 2 null rows)"
    with pytest.warns(be.BatchevalWarning, match="dropped 2 of 6 rows"):
        with pytest.raises(be.InvalidScoreError, match=re.escape(message)):
            prepare_scores(df, None, "label", "score", 1, None, False, True)


def test_auc_counts_nonfinite_scores_while_grouping():
    df = scored_frame(n_runs=6, seed=9).with_row_index("i")
    bad = df.with_columns(
        pl.when(pl.col("i") % 37 == 0).then(float("nan"))
        .when(pl.col("i") % 41 == 0).then(float("-inf"))
        .otherwise(pl.col("score")).alias("score")
    )  # fmt: skip
    n_bad = int(bad["score"].is_nan().sum() + bad["score"].is_infinite().sum())
    message = rf"score column 'score' has {n_bad} NaN or infinite values"
    with pytest.raises(be.InvalidScoreError, match=message):
        be.auc(bad, by=["run", "fold"])
    dropped = be.auc(bad, by=["run", "fold"], drop_nonfinite=True).sort("run", "fold")
    kept = bad.filter(pl.col("score").is_finite())
    assert dropped.equals(be.auc(kept, by=["run", "fold"]).sort("run", "fold"))
    assert dropped["n"].sum() == df.height - n_bad


def test_score_sweep_needs_two_classes_or_a_positive():
    df = pl.DataFrame({"label": ["a", "b", "c"], "score": [0.1, 0.2, 0.3]})
    with pytest.raises(be.InvalidLabelError, match=r"needs two classes"):
        be.sweep(df)
    out = be.auc(df, positive="c")
    assert out["roc_auc"][0] == 1.0


@pytest.mark.parametrize("classes", [(0, 2), (3, 7), (-1, 1), (0, 100), (62, 63), (0, 63)])
def test_integer_labels_anywhere_in_their_range_score_the_greater_class(classes):
    rng = np.random.default_rng(10)
    y = rng.integers(0, 2, 300)
    s = np.round(y * 0.5 + rng.normal(size=300), 2)
    df = pl.DataFrame({"label": np.where(y == 1, classes[1], classes[0]), "score": s})
    row = be.auc(df).row(0, named=True)
    assert (row["positives"], row["negatives"]) == (int(y.sum()), int(300 - y.sum()))
    assert row["roc_auc"] == pytest.approx(metrics.roc_auc_score(y, s), abs=1e-12)
    absent = classes[0] + 1 if classes[0] + 1 != classes[1] else classes[1] + 1
    listed = rf"is not one of the classes \[{classes[0]}, {classes[1]}\]"
    with pytest.raises(be.InvalidLabelError, match=listed):
        be.auc(df, positive=absent)


def test_sweep_default_is_lean_and_all_gives_every_measure():
    """The default holds the cells and the chart and best-point measures; "all" every binary one."""
    df = scored_frame(n_runs=3, seed=31)
    lean = be.sweep(df, by="run", thresholds=[0.2, 0.5, 0.8])
    every = be.sweep(df, by="run", thresholds=[0.2, 0.5, 0.8], measures="all")
    assert lean.columns == ["run", "threshold", "n", "tp", "fp", "fn", "tn", *be.scores.sweep.SWEEP_MEASURES]
    evaluated = be.evaluate(df.with_columns(prediction=pl.lit(0)), by="run")
    assert every.columns[7:] == evaluated.columns[6:]  # after keys, n and the cells: the same measures
    tp, fp, fn, tn = (lean[c].to_numpy().astype(float) for c in ("tp", "fp", "fn", "tn"))
    np.testing.assert_allclose(lean["recall"], tp / (tp + fn), rtol=1e-15)
    np.testing.assert_allclose(lean["fallout"], fp / (fp + tn), rtol=1e-15)
    np.testing.assert_allclose(lean["informedness"], tp / (tp + fn) - fp / (fp + tn), rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(lean["f1"], 2 * tp / (2 * tp + fp + fn), rtol=1e-15)
    assert lean.select(every.columns[:7]).equals(every.select(every.columns[:7]))


@pytest.mark.parametrize("scale", [1, 1_000_000_000])
def test_fused_sweep_measures_have_the_bits_of_the_measure_program(scale):
    """sweep_columns measures its tables as it writes their cells; every value equals, bit for bit,
    what binary_measures gives the same cells, and the naive reference to rounding. Groups with one
    class, no rows, one row; counts past the int64-exact determinant's limit when scaled."""
    from batcheval.kernels import binary as kb
    from batcheval.kernels import sweep as ks

    rng = np.random.default_rng(7)
    n_groups, t = 40, 9
    hist = rng.integers(0, 4, (n_groups, t + 1, 2)) * scale
    hist[1] = 0  # no rows: NaN everywhere
    hist[2, :, 0] = 0  # positives only
    hist[3, :, 1] = 0  # negatives only
    hist[4] = 0
    hist[4, 5, 1] = scale  # one row
    groups = np.arange(n_groups, dtype=np.int64)
    thr = np.linspace(-1.0, 1.0, t)
    rows = n_groups * t
    names = list(ks.FUSED)
    slots = np.arange(len(names), dtype=np.int64)[::-1].copy()  # rows in reverse order
    n, tp, fp, fn, tn = (np.empty(rows, np.int64) for _ in range(5))
    threshold = np.empty(rows)
    out = np.empty((len(names), rows))
    wide = True if scale > 1 else None  # as scores.sweep passes it: None below EXACT_LIMIT rows
    ks.sweep_columns(hist, groups, thr, slots, tp, fp, fn, tn, n, threshold, out, wide)
    # a row passes threshold j iff its bin is above j: suffix sums over bins j+1..T
    above = np.cumsum(hist[:, ::-1], axis=1)[:, ::-1][:, 1:]  # [G, T, 2]
    totals = hist.sum(axis=1)  # [G, 2]
    want = {"tp": above[..., 1], "fp": above[..., 0]}
    want |= {"fn": totals[:, 1:2] - want["tp"], "tn": totals[:, 0:1] - want["fp"]}
    want["n"] = np.repeat(totals.sum(axis=1), t)
    for name, got in zip(("n", "tp", "fp", "fn", "tn"), (n, tp, fp, fn, tn), strict=True):
        np.testing.assert_array_equal(got, want[name].reshape(-1), err_msg=name)
    np.testing.assert_array_equal(threshold, np.tile(thr, n_groups))
    program_slots = np.full(len(kb.NAMES), -1)
    for k, name in enumerate(names):
        program_slots[kb.NAMES.index(name)] = k
    program = np.empty((len(names), rows))
    kb.binary_measures(tp, fp, fn, tn, 1.0, program_slots, program)
    refs = [
        binary_reference(np.array([[tn[i], fp[i]], [fn[i], tp[i]]], float), exact_tests=False)
        for i in range(rows)
    ]
    for k, name in enumerate(names):
        np.testing.assert_array_equal(out[slots[k]].view(np.int64), program[k].view(np.int64), err_msg=name)
        ref = [r[name] for r in refs]
        np.testing.assert_allclose(out[slots[k]], ref, rtol=1e-12, atol=1e-15, err_msg=name)
    assert np.isnan(out[:, t : 2 * t]).all()
    assert (scale > 1) == (n.max() >= kb.EXACT_LIMIT)  # the scaled case takes the float determinant


@pytest.mark.parametrize("fused_rows", [None, 0])
def test_default_sweep_of_radix_partitions_has_the_bits_of_the_measure_program(monkeypatch, fused_rows):
    """A default sweep measures its tables as it writes them, on either radix path (partitions of
    whole groups, or the blocked histogram when ``fused_rows`` forbids those); every value equals,
    bit for bit, what the general measure program gives the same cells (a list with a measure
    the fused kernel lacks takes that program), over groups missing from the key range and a
    group whose every score is NaN."""
    import sys

    from batcheval.scores.sweep import SWEEP_MEASURES

    sweep_module = sys.modules["batcheval.scores.sweep"]
    if fused_rows is not None:
        monkeypatch.setattr(sweep_module, "_FUSED_ROWS", fused_rows)
    paths = []
    for name in ("_partitioned", "_histogram"):
        real = getattr(sweep_module, name)
        spy = lambda *a, name=name, real=real: paths.append(name) or real(*a)  # noqa: E731
        monkeypatch.setattr(sweep_module, name, spy)
    rng = np.random.default_rng(9)
    n, groups = 40_000, 4_000
    run = rng.integers(0, groups, n)
    run = run[run % 7 != 3]  # gaps in the key range: groups with no rows
    y = rng.integers(0, 2, len(run))
    s = np.round(y * 0.5 + rng.normal(size=len(run)), 2)
    s[run == 11] = np.nan
    df = pl.DataFrame({"run": run, "label": y, "score": s})
    with pytest.warns(be.BatchevalWarning, match="dropped"):
        lean = be.sweep(df, by="run", drop_nonfinite=True)
    with pytest.warns(be.BatchevalWarning, match="dropped"):
        program = be.sweep(df, by="run", drop_nonfinite=True, measures=[*SWEEP_MEASURES, "kappa"])
    assert paths == ["_histogram" if fused_rows == 0 else "_partitioned"] * 2
    assert set(lean["run"].to_list()) == set(np.unique(run[run != 11]).tolist())
    cells = ["run", "threshold", "n", "tp", "fp", "fn", "tn"]
    assert lean.columns == [*cells, *SWEEP_MEASURES]
    assert lean.select(cells).equals(program.select(cells))
    for name in SWEEP_MEASURES:
        bits = lean[name].to_numpy().view(np.int64)
        np.testing.assert_array_equal(bits, program[name].to_numpy().view(np.int64), err_msg=name)


@pytest.mark.parametrize(
    "scores",
    [[-1e308, 1e308, 0.0, 5.0], [0.0, 5e-324, 0.0, 1e-323], [-1.7e308, 1.7e308, -1.0, 1.0]],
)
def test_grids_of_extreme_score_ranges_count_every_row(scores):
    # a range wider than the largest float made linspace's grid NaN and inf, and a grid of
    # subnormal steps an infinite inverse step: rows fell in no bin (n = 3 of 4) or the wrong one,
    # and the kernel read past the thresholds (stop 43). Each cell is counted here by numpy.
    s = np.array(scores)
    y = np.array([0, 1, 0, 1])
    out = be.sweep(pl.DataFrame({"label": y, "score": s}), thresholds=5, measures=[])
    assert np.isfinite(out["threshold"].to_numpy()).all() and (out["n"] == 4).all()
    for t, _, tp, fp, fn, tn in out.rows():
        assert (tp, fp) == (((s >= t) & (y == 1)).sum(), ((s >= t) & (y == 0)).sum())
        assert (fn, tn) == (((s < t) & (y == 1)).sum(), ((s < t) & (y == 0)).sum())


@pytest.mark.parametrize(
    "call",
    [
        lambda d: be.auc(d, classes=[0, 1], positive=1),
        lambda d: be.sweep(d, classes=[0, 1], positive=1, thresholds=[0.3]),
        lambda d: be.curves(d, classes=[0, 1]),
        lambda d: be.auc(
            d.with_columns(p1=pl.col("score"), p0=1 - pl.col("score")), score=["p0", "p1"], classes=[0, 1]
        ),
    ],
)
def test_labels_outside_classes_are_named_not_counted_as_negatives(call):
    # a label of class 2 with classes=[0, 1] was counted with the negatives (auc: n = 4, three
    # negatives), where evaluate names it (stop 43)
    d = pl.DataFrame({"label": [0, 1, 2, 0], "score": [0.1, 0.9, 0.5, 0.2]})
    with pytest.raises(
        be.InvalidLabelError, match=r"label column 'label' has values outside classes=\[0, 1\]: \[2\]"
    ):
        call(d)
    call(d.filter(pl.col("label") < 2))  # within the classes: fine


def test_integer_scores_that_merge_as_float64_are_named():
    # Int64 scores above 2^53 were cast to float64, where 2^53 and 2^53 + 1 are one value: the AUC
    # of [0, 1, 0, 1] over four consecutive such scores read 0.625, scikit-learn's 0.75 (stop 43)
    from sklearn.metrics import roc_auc_score

    big = pl.Series([2**53, 2**53 + 1, 2**53 + 2, 2**53 + 3], dtype=pl.Int64)
    d = pl.DataFrame({"run": [0] * 4, "example": range(4), "label": [0, 1, 0, 1], "score": big})
    two = pl.concat([d, d.with_columns(run=pl.lit(1, pl.Int64))])
    for call in (be.auc, lambda f: be.sweep(f, thresholds="exact"), lambda f: be.compare_auc(two)):
        with pytest.raises(be.InvalidScoreError, match=r"score column 'score' holds integers beyond 2\^53"):
            call(d)
    ranked = d.with_columns(pl.col("score").rank())
    assert be.auc(ranked)["roc_auc"][0] == roc_auc_score(d["label"], d["score"])
    far = pl.DataFrame({"label": [0, 1, 0, 1], "score": pl.Series([2**60, 2**61, 0, 5], dtype=pl.Int64)})
    assert be.auc(far)["roc_auc"][0] == roc_auc_score(far["label"], far["score"])  # distinct as float64: fine


def test_review_edges_of_the_score_fixes():
    # stop 43's review: a numpy array of thresholds with pool= (compared with "exact" element by
    # element), one threshold over a range wider than the largest float (it took the top), and a
    # coarse grid over Int64 scores beyond 2^53 (refused, though no threshold separates them)
    df = pl.DataFrame({"fold": [0, 0, 1, 1], "label": [0, 1, 1, 0], "score": [0.1, 0.7, 0.6, 0.3]})
    grid = np.array([0.2, 0.5, 0.8])
    assert be.sweep(df, by="fold", pool="fold", thresholds=grid).equals(
        be.sweep(df, by="fold", pool="fold", thresholds=list(grid))
    )
    assert be.curves(df, by="fold", pool="fold", thresholds=grid).height == 3
    wide = pl.DataFrame({"label": [0, 1, 1, 0], "score": [-1.7e308, 0.0, 1.7e308, 1.0]})
    one = be.sweep(wide, thresholds=1, measures=[])
    assert one.select("threshold", "tp", "fp", "fn", "tn").row(0) == (-1.7e308, 2, 2, 0, 0)
    big = pl.DataFrame(
        {"label": [0, 1] * 500, "score": pl.Series(2**60 + np.arange(1000) * 100, dtype=pl.Int64)}
    )
    out = be.sweep(big, thresholds=5, measures=[])
    # compared as the integers compare (the float64 cast of the scores, nearest, counted a score
    # rounded up onto a threshold as at or above it: fp 375 for 374)
    for t, _, tp, fp, _, _ in out.rows():
        assert (tp, fp) == _cells_at(big["score"].to_list(), big["label"].to_list(), t)


def test_pooled_auc_of_one_group_has_nan_spreads():
    # one pooled group gave null standard deviations, where evaluate and sweep give NaN
    df = pl.DataFrame({"fold": [0] * 4, "label": [0, 1, 0, 1], "score": [0.1, 0.7, 0.6, 0.3]})
    out = be.auc(df, pool="fold")
    assert out["n_pooled"].to_list() == [1]
    assert out["roc_auc_mean"][0] == metrics.roc_auc_score(df["label"], df["score"])
    for c in ("roc_auc_std", "roc_auch_std", "pr_auc_std"):
        assert out[c].null_count() == 0 and np.isnan(out[c][0]), c
    assert np.isnan(be.sweep(df, pool="fold", thresholds=[0.5], measures=["recall"])["recall_std"][0])


@pytest.mark.parametrize("key", ["pr_auc_model", "roc_auc_run", "roc_auch_x"])
def test_pooled_auc_keeps_a_key_named_like_an_area(key):
    # a key whose name began with roc_auc, roc_auch or pr_auc was averaged as an area: a string key
    # raised polars' InvalidOperationError ("mean" of str), a numeric one gained <key>_mean, <key>_std
    df = pl.DataFrame({key: ["a"] * 6 + ["b"] * 6, "fold": [0, 0, 0, 1, 1, 1] * 2,
                       "label": [0, 1, 1, 0, 0, 1] * 2,
                       "score": [0.1, 0.4, 0.3, 0.5, 0.8, 0.9, 0.3, 0.2, 0.7, 0.6, 0.1, 0.4]})  # fmt: skip
    for data in (df, df.with_columns(pl.col(key).replace_strict({"a": 1, "b": 2}))):
        out = be.auc(data, by=[key, "fold"], pool="fold").sort(key)
        assert f"{key}_mean" not in out.columns and out["n_pooled"].to_list() == [2, 2]
        for model, row in zip(data[key].unique(maintain_order=True), out.iter_rows(named=True), strict=True):
            part = data.filter(pl.col(key) == model)
            y, s = part["label"].to_numpy(), part["score"].to_numpy()
            folds = part["fold"].to_numpy()
            assert row["roc_auc"] == pytest.approx(metrics.roc_auc_score(y, s), abs=1e-12)
            for area, fn in (("roc_auc", metrics.roc_auc_score), ("pr_auc", metrics.average_precision_score)):
                per = [fn(y[folds == f], s[folds == f]) for f in (0, 1)]
                assert row[f"{area}_mean"] == pytest.approx(np.mean(per), abs=1e-12), area
                assert row[f"{area}_std"] == pytest.approx(np.std(per, ddof=1), abs=1e-12), area


def test_multiclass_scores_sweep_each_class_against_the_rest(tmp_path):
    # score=[...] raised a raw TypeError (unhashable list), and `batcheval sweep --score a,b,c`,
    # which the help offers, an internal error. Each class's counts are numpy's, on its column.
    from tests.cli_run import run_cli

    rng = np.random.default_rng(12)
    n = 240
    y = rng.integers(0, 3, n)
    s = rng.uniform(size=(n, 3)).round(2)
    df = pl.DataFrame({"fold": np.arange(n) % 2, "label": y, "p0": s[:, 0], "p1": s[:, 1], "p2": s[:, 2]})
    grid = [0.2, 0.5, 0.8]
    out = be.sweep(df, by="fold", score=["p0", "p1", "p2"], thresholds=grid, measures=["recall", "precision"])
    assert out.columns[:3] == ["fold", "class", "threshold"]
    assert out.height == 2 * 3 * len(grid)
    for row in out.iter_rows(named=True):
        m, k, t = df["fold"].to_numpy() == row["fold"], row["class"], row["threshold"]
        pos, pred = y[m] == k, s[m, k] >= t
        assert (row["tp"], row["fp"], row["fn"], row["tn"]) == (
            (pos & pred).sum(), (~pos & pred).sum(), (pos & ~pred).sum(), (~pos & ~pred).sum()
        )  # fmt: skip
        assert row["recall"] == pytest.approx(metrics.recall_score(pos, pred))
        assert row["precision"] == pytest.approx(metrics.precision_score(pos, pred))
    lists = df.with_columns(pl.concat_list("p0", "p1", "p2").alias("scores"))
    exact = be.sweep(lists, score="scores", thresholds="exact", measures=["recall", "fallout"])
    for k in range(3):
        fpr, tpr, _ = metrics.roc_curve(y == k, s[:, k], drop_intermediate=False)
        part = exact.filter(pl.col("class") == k)
        np.testing.assert_allclose(part["fallout"].to_numpy(), fpr[1:])
        np.testing.assert_allclose(part["recall"].to_numpy(), tpr[1:])
    pooled = be.sweep(df, score=["p0", "p1", "p2"], thresholds=grid, pool="fold", measures=["recall"])
    assert pooled.select("class", "threshold", "tp", "fn").equals(
        be.sweep(df, score=["p0", "p1", "p2"], thresholds=grid, measures=["recall"]).select(
            "class", "threshold", "tp", "fn"
        )
    )
    with pytest.raises(be.InvalidArgumentError, match=r"positive=1 names the positive class of one binary"):
        be.sweep(df, score=["p0", "p1", "p2"], positive=1)
    path = tmp_path / "mc.parquet"
    df.write_parquet(path)
    done = run_cli("sweep", str(path), "--score", "p0,p1,p2", "--thresholds", "0.2,0.5,0.8", "-o",
                   str(tmp_path / "out.csv"))  # fmt: skip
    assert done.returncode == 0, done.stderr
    cli = pl.read_csv(tmp_path / "out.csv")
    direct = be.sweep(df, score=["p0", "p1", "p2"], thresholds=grid)
    cells = ["class", "threshold", "tp", "fp", "fn", "tn"]
    assert cli.select(cells).equals(direct.select(cells))


def test_auc_measure_takes_aliases_and_names_bad_ones():
    # measure="youden_j" or "tpr" raised an unknown-measure error without a did-you-mean, and
    # measure=["f1"] a raw TypeError. The best point is numpy's: the highest threshold of the best.
    rng = np.random.default_rng(13)
    y, s = rng.integers(0, 2, 80), rng.random(80).round(2)
    df = pl.DataFrame({"label": y, "score": s})
    thr = np.unique(s)[::-1]
    pred = s[None, :] >= thr[:, None]
    tpr = (pred & (y == 1)).sum(axis=1) / (y == 1).sum()
    fpr = (pred & (y == 0)).sum(axis=1) / (y == 0).sum()
    tnr = 1 - fpr
    for asked, values in (("youden_j", tpr - fpr), ("tpr", tpr), ("specificity", tnr)):
        got = be.auc(df, measure=asked)
        assert got.columns[-2:] == ["best_threshold", f"best_{asked}"]
        best = np.flatnonzero(np.isclose(values, values.max(), rtol=0, atol=1e-12))
        assert got.row(0)[-2:] == pytest.approx((thr[best].max(), values.max()), abs=1e-12)
    with pytest.raises(be.UnknownMeasureError, match=r"unknown measure 'f1x' \(did you mean 'f1'\?\)"):
        be.auc(df, measure="f1x")
    with pytest.raises(be.InvalidArgumentError, match=r"measure= takes one measure name .* got \['f1'\]"):
        be.auc(df, measure=["f1"])


def _best_f_beta(y, s, beta):
    """scikit-learn's F-beta at every distinct score; the highest threshold of the best."""
    thr = np.unique(s)[::-1]
    values = np.array([metrics.fbeta_score(y, s >= t, beta=beta, zero_division=0.0) for t in thr])
    best = np.flatnonzero(np.isclose(values, values.max(), rtol=0, atol=1e-12))
    return thr[best].max(), values.max()


def test_auc_measure_f_beta_takes_beta_as_sweep_does(tmp_path):
    # be.auc(measure="f_beta") said "measure 'f_beta' needs a value for beta=", and auc took no
    # beta=: following the advice ended in "auc() got an unexpected keyword argument 'beta'"
    from tests.cli_run import run_cli

    rng = np.random.default_rng(16)
    y, s = rng.integers(0, 2, 120), rng.random(120).round(2)
    fold = np.repeat([0, 1], 60)
    df = pl.DataFrame({"fold": fold, "label": y, "score": s})
    out = be.auc(df, measure="f_beta", beta=2)
    assert out.columns[-2:] == ["best_threshold", "best_f_beta"]
    assert out.row(0)[-2:] == pytest.approx(_best_f_beta(y, s, 2), abs=1e-12)
    per_fold = be.auc(df, by="fold", measure="f_beta", beta=0.5)
    for k in (0, 1):
        got = per_fold.filter(pl.col("fold") == k).select("best_threshold", "best_f_beta").row(0)
        assert got == pytest.approx(_best_f_beta(y[fold == k], s[fold == k], 0.5), abs=1e-12)
    pooled = be.auc(df, by="fold", pool="fold", measure="f_beta", beta=2)
    assert pooled.select("best_threshold", "best_f_beta").row(0) == pytest.approx(out.row(0)[-2:])
    # multiclass, per class: each class against the rest
    k3 = rng.integers(0, 3, 120)
    p = rng.dirichlet([1, 1, 1], 120).round(2)
    mc = pl.DataFrame({"label": k3, "p0": p[:, 0], "p1": p[:, 1], "p2": p[:, 2]})
    per_class = be.auc(mc, score=["p0", "p1", "p2"], per_class=True, measure="f_beta", beta=2)
    for k in range(3):
        got = per_class.filter(pl.col("class") == k).select("best_threshold", "best_f_beta").row(0)
        assert got == pytest.approx(_best_f_beta(k3 == k, p[:, k], 2), abs=1e-12)
    path = tmp_path / "scores.parquet"
    df.write_parquet(path)
    proc = run_cli("auc", str(path), "--measure", "f_beta", "--beta", "2", "-o", str(tmp_path / "auc.csv"))
    assert proc.returncode == 0, proc.stderr
    assert pl.read_csv(tmp_path / "auc.csv")["best_f_beta"][0] == pytest.approx(out["best_f_beta"][0])
    with pytest.raises(be.UnknownMeasureError, match=re.escape("measure 'f_beta' needs a value for beta=")):
        be.auc(df, measure="f_beta")
    with pytest.raises(be.UnknownMeasureError, match=re.escape("measure 'f_beta' needs a value for beta=")):
        be.auc(mc, score=["p0", "p1", "p2"], measure="f_beta")  # averaged: refused as an unknown name is
    with pytest.raises(be.InvalidArgumentError, match=re.escape("beta must be a finite number >= 0, got -1")):
        be.auc(df, beta=-1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(thresholds=0), "thresholds= as a count must be at least 1, got 0"),
        (dict(thresholds="exactly"), "takes a count, a list of numbers or 'exact', got 'exactly'"),
        (dict(thresholds=5.0), "thresholds= takes a count, a list of numbers or 'exact', got 5.0"),
        (dict(thresholds=True), "got True"),
        (dict(thresholds=[]), "thresholds= as a list takes finite numbers, got []"),
        (dict(thresholds=[0.5, math.nan]), "thresholds= as a list takes finite numbers, got [0.5, nan]"),
        (dict(thresholds=["a"]), "thresholds= as a list takes numbers, got ['a']"),
        # numbers in text and bools were read as numbers: "0.35" as 0.35, True as 1.0
        (dict(thresholds=["0.35"]), "thresholds= as a list takes numbers, got ['0.35']"),
        (dict(thresholds=[True]), "thresholds= as a list takes numbers, got [True]"),
        (dict(thresholds=[0.2, b"0.5"]), "thresholds= as a list takes numbers, got [0.2, b'0.5']"),
        (dict(thresholds=np.array([True, False])), "takes numbers, got array([ True, False])"),
        (dict(thresholds=np.array(["0.5"])), "takes numbers, got array(['0.5'], dtype='<U3')"),
        (dict(thresholds=3, score_range=(1, 0)), "score_range= must be finite with low <= high, got (1, 0)"),
        (dict(thresholds=3, score_range=5), "score_range= takes (low, high), got 5"),
        # a range with a given grid or exact thresholds was ignored, even one with low > high
        (dict(thresholds=[0.5], score_range=(5, 1)), "with thresholds=[0.5] it has no effect"),
        (dict(thresholds="exact", score_range=(0, 1)), "score_range= sets the span of a count of thresholds"),
        # integers beyond the largest float raised a raw OverflowError
        (dict(thresholds=[0.5, 10**400]), f"takes finite numbers, got [0.5, 1{'0' * 17}...{'0' * 19}]"),
        (dict(thresholds=3, score_range=(0, 10**400)), f"low <= high, got (0, 1{'0' * 17}...{'0' * 19})"),
        (dict(thresholds=3, score_range=(-(10**400), 0)), f"low <= high, got (-1{'0' * 16}...{'0' * 19}, 0)"),
    ],
)
def test_bad_sweep_thresholds_are_named(kwargs, message, tmp_path):
    # a ValueError or TypeError before; a streamed source raised it for a batch, after reading
    df = scored_frame(n_runs=1)
    path = tmp_path / "scores.parquet"
    df.write_parquet(path)
    for data in (df, str(path)):
        with pytest.raises(be.InvalidArgumentError, match=re.escape(message)):
            be.sweep(data, **kwargs)
    if "score_range" not in kwargs:  # curves read a grid as a sweep does
        with pytest.raises(be.InvalidArgumentError, match=re.escape(message)):
            be.curves(df, **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        # bytes iterated as their byte values (b"x" swept at 120.0, a memoryview at 1.0), a dict as its
        # keys, and a datetime was read as its days since 1970
        (dict(thresholds=b"x"), "thresholds= takes a count, a list of numbers or 'exact', got b'x'"),
        (dict(thresholds=bytearray(b"2")), "or 'exact', got bytearray(b'2')"),
        (dict(thresholds={0.3: "a", 0.7: "b"}), "or 'exact', got {0.3: 'a', 0.7: 'b'}"),
        (
            dict(thresholds=[np.datetime64("2020-01-01")]),
            "thresholds= as a list takes numbers, got [np.datetime64('2020-01-01')]",
        ),
        (dict(thresholds=3, score_range=b"\x00\x01"), "score_range= takes (low, high), got b'\\x00\\x01'"),
        (dict(thresholds=3, score_range={0: 1, 1: 2}), "score_range= takes (low, high), got {0: 1, 1: 2}"),
        (dict(thresholds=3, score_range={0, 1}), "score_range= takes (low, high), got {0, 1}"),
        (dict(thresholds=3, score_range="01"), "score_range= takes (low, high), got '01'"),
        (dict(thresholds=3, score_range=(False, True)), "score_range= takes (low, high), got (False, True)"),
    ],
)
def test_bytes_mappings_and_datetimes_are_no_thresholds_or_score_range(kwargs, message):
    df = scored_frame(n_runs=1)
    with pytest.raises(be.InvalidArgumentError, match=re.escape(message)):
        be.sweep(df, **kwargs)
    if "score_range" not in kwargs:
        with pytest.raises(be.InvalidArgumentError, match=re.escape(message)):
            be.curves(df, **kwargs)
    with pytest.raises(be.InvalidArgumentError, match=re.escape("got <memory at")):
        be.sweep(df, thresholds=memoryview(b"\x01"))


def test_bytes_are_no_measure_names_or_chart_kinds():
    # measures=b"x" was refused as the name 120, kind=b"x" as the chart 120
    df = scored_frame(n_runs=1)
    message = "measures= takes a measure name or a list of names, got b'x'"
    with pytest.raises(be.UnknownMeasureError, match=re.escape(message)):
        be.sweep(df, measures=b"x")
    with pytest.raises(be.UnknownMeasureError, match=re.escape(message)):
        be.evaluate(y_true=[0, 1], y_pred=[0, 1], measures=b"x")
    with pytest.raises(be.InvalidArgumentError, match=re.escape("unknown chart b'x'; choose one of")):
        be.curves(df, kind=b"x")


def test_numpy_numbers_in_a_threshold_list_are_taken_and_text_refused_for_every_class():
    # the refusal of text and bools leaves numpy's numbers alone: cells as numpy counts them
    df = scored_frame(n_runs=1, seed=3)
    given = [np.float32(0.5), np.int64(0), np.float64(-0.25), np.array(1.5)]
    out = be.sweep(df, thresholds=given, measures=[])
    y, s = df["label"].to_numpy() == 1, df["score"].to_numpy()
    assert out["threshold"].to_list() == [-0.25, 0.0, 0.5, 1.5]
    for t, tp, fp in zip(out["threshold"], out["tp"], out["fp"], strict=True):
        assert (tp, fp) == (np.sum(y & (s >= t)), np.sum(~y & (s >= t)))
    swept = be.sweep(df, thresholds=np.array([0.5, 0.0]), measures=[])
    assert swept.equals(be.sweep(df, thresholds=[0.0, 0.5], measures=[]))
    # multiclass scores (one column per class) refuse them alike
    rng = np.random.default_rng(4)
    three = pl.DataFrame({"label": rng.integers(0, 3, 30), **{f"p{k}": rng.random(30) for k in range(3)}})
    message = "thresholds= as a list takes numbers, got [0.5, True]"
    with pytest.raises(be.InvalidArgumentError, match=re.escape(message)):
        be.sweep(three, score=["p0", "p1", "p2"], thresholds=[0.5, True])
    with pytest.raises(be.InvalidArgumentError, match=re.escape(message)):
        be.curves(three, score=["p0", "p1", "p2"], thresholds=[0.5, True])


@pytest.mark.parametrize("classes", [(100, 101), (62, 64)])
def test_integer_labels_of_64_and_more_in_many_rows_are_counted(classes):
    # 65,536+ rows take the one-pass range scan, whose bitmask of the labels present holds 0..63:
    # labels {100, 101} were shifted past it, so every row counted negative (tp 0, recall NaN), and
    # {62, 64} raised "has classes [62]". Each cell is counted here by numpy, the area by scikit-learn.
    rng = np.random.default_rng(14)
    n = 70_000
    y = rng.choice(classes, n)
    s = rng.random(n).round(3)
    df = pl.DataFrame({"label": y, "score": s})
    pos = y == classes[1]
    out = be.sweep(df, thresholds=[0.25, 0.5], measures=["recall"])
    for t, _, tp, fp, fn, tn, recall in out.rows():
        assert (tp, fp, fn, tn) == (
            (pos & (s >= t)).sum(), (~pos & (s >= t)).sum(), (pos & (s < t)).sum(), (~pos & (s < t)).sum()
        )  # fmt: skip
        assert recall == pytest.approx(metrics.recall_score(pos, s >= t))
    roc = be.curves(df, kind="roc", thresholds=[0.5]).select("x", "y").row(0)
    assert roc == pytest.approx(
        ((~pos & (s >= 0.5)).sum() / (~pos).sum(), (pos & (s >= 0.5)).sum() / pos.sum())
    )
    exact = be.sweep(df, thresholds="exact", measures=["recall", "fallout"])
    fpr, tpr, _ = metrics.roc_curve(pos, s, drop_intermediate=False)
    np.testing.assert_allclose(exact["fallout"].to_numpy(), fpr[1:])
    np.testing.assert_allclose(exact["recall"].to_numpy(), tpr[1:])
    assert be.auc(df)["roc_auc"][0] == pytest.approx(metrics.roc_auc_score(pos, s), abs=1e-12)
    assert (
        be.sweep(df, thresholds=[0.5], positive=classes[1], measures=[])["tp"][0] == (pos & (s >= 0.5)).sum()
    )


@pytest.mark.parametrize("dtype", [pl.Int128, pl.UInt128, pl.Decimal(38, 0), pl.Decimal(38, 20)])
def test_wide_integer_and_decimal_scores_that_merge_as_float64_are_named(dtype):
    # Int128 and Decimal scores beyond 2^53 (or decimals with a fraction finer than float64's) were
    # merged as float64 without a word: an AUC of 0.5 for scikit-learn's 0.75, one exact threshold
    # of four, where the same scores in Int64 are refused. Ranked, they give scikit-learn's area.
    from decimal import Decimal

    from sklearn.metrics import roc_auc_score

    if dtype == pl.Decimal(38, 20):
        values = [Decimal(1) + Decimal(i) / 10**20 for i in range(4)]
        message = r"holds Decimal\(precision=38, scale=20\) decimals \(from 1\.0+ to 1\.0+3\) that are equal"
    else:
        values = [2**60 + i for i in range(4)]
        message = rf"holds integers beyond 2\^53 \(from {2**60} to {2**60 + 3}\) that are equal as float64"
    y = [0, 1, 0, 1]
    d = pl.DataFrame({"label": y, "score": pl.Series(values, dtype=dtype)})
    many = d.with_columns(p0=pl.col("score"), p1=pl.lit(0.5))
    calls = (be.auc, lambda f: be.sweep(f, thresholds="exact"), be.curves,
             lambda f: be.auc(many, score=["p0", "p1"]))  # fmt: skip
    for call in calls:
        with pytest.raises(be.InvalidScoreError, match=message):
            call(d)
    ranked = d.with_columns(pl.col("score").rank())
    assert be.auc(ranked)["roc_auc"][0] == roc_auc_score(y, list(range(4))) == 0.75
    small = pl.DataFrame({"label": y, "score": pl.Series([1, 7, 4, 8], dtype=dtype)})  # exact as float64
    assert be.auc(small)["roc_auc"][0] == roc_auc_score(y, [1, 7, 4, 8])


def test_thresholds_as_a_generator_sweep_as_the_list(tmp_path):
    # a generator of thresholds was consumed by the check, and the grid then read nothing:
    # "thresholds= as a list takes finite numbers, got []". Each cell is counted here by numpy.
    df = scored_frame(n_runs=2, seed=15)
    grid = [-0.5, 0.0, 0.5, 1.0]
    s, y = df["score"].to_numpy(), df["label"].to_numpy()
    path = tmp_path / "scores.parquet"
    df.write_parquet(path)
    for data in (df, str(path)):
        out = be.sweep(data, thresholds=(t for t in grid), measures=[])
        assert out["threshold"].to_list() == grid
        for t, n, tp, fp, fn, tn in out.rows():
            above = s >= t
            assert (n, tp, fp) == (len(s), (above & (y == 1)).sum(), (above & (y == 0)).sum())
            assert (fn, tn) == ((~above & (y == 1)).sum(), (~above & (y == 0)).sum())
    assert be.curves(df, by="run", thresholds=iter(grid)).equals(be.curves(df, by="run", thresholds=grid))
    assert be.sweep(df, by="fold", pool="fold", thresholds=iter(grid)).equals(
        be.sweep(df, by="fold", pool="fold", thresholds=grid)
    )
    many = df.with_columns(p0=-pl.col("score"), p1=pl.col("score"))
    assert be.sweep(many, score=["p0", "p1"], thresholds=iter(grid)).equals(
        be.sweep(many, score=["p0", "p1"], thresholds=grid)
    )
    with pytest.raises(be.InvalidArgumentError, match=re.escape("as a list takes finite numbers, got []")):
        be.sweep(df, thresholds=iter([]))


@pytest.mark.parametrize("count", [3, 7, 8, 12])
def test_grids_over_subnormal_scores_are_sorted_and_count_every_row(count):
    # over scores 0 .. 4.4e-323 (nine subnormal steps) np.linspace's rounded step overshot the top:
    # a grid of 7 ended ..., 4.9e-323, 4.4e-323, and the bisection over that unsorted grid counted
    # tp 0 at 4.4e-323, where one positive scores it. Each cell is counted here by numpy.
    s = np.arange(10) * 5e-324
    y = np.array([0, 1] * 5)
    df = pl.DataFrame({"label": y, "score": s})
    for out in (
        be.sweep(df, thresholds=count, measures=[]),
        be.sweep(df, thresholds=count, score_range=(0.0, s.max()), measures=[]),
    ):
        thr = out["threshold"].to_numpy()
        # each threshold once: the span holds ten floats, and linspace repeats some of them
        assert len(thr) <= min(count, 10) and (np.diff(thr) > 0).all()
        assert thr[0] == 0.0 and thr[-1] == s.max()
        for t, n, tp, fp, fn, tn in out.rows():
            above = s >= t
            assert (n, tp, fp) == (10, (above & (y == 1)).sum(), (above & (y == 0)).sum())
            assert (fn, tn) == ((~above & (y == 1)).sum(), (~above & (y == 0)).sum())


_UP = float(np.nextafter(1.0, 2.0))


@pytest.mark.parametrize(
    ("scores", "kwargs"),
    [
        ([0.5, 0.5, 0.5, 0.5], {"thresholds": 3}),  # a constant baseline
        ([0.2, 0.9, 0.4, 0.6], {"thresholds": 4, "score_range": (0.5, 0.5)}),
        ([1.0, _UP, 1.0, _UP], {"thresholds": 5}),  # a span of one ulp
        ([1.0, _UP, 1.0, 3.0], {"thresholds": 6, "score_range": (1.0, _UP)}),
    ],
)
def test_a_count_of_thresholds_over_a_narrow_span_gives_each_threshold_once(tmp_path, scores, kwargs):
    # np.linspace repeats a threshold where the span holds fewer floats than thresholds= asks
    # (T = 3 over scores all 0.5 gave 0.5 three times), and every merge keyed on (keys, threshold)
    # summed the repeats: two files gave n = 12 tp = 6 of 4 rows, pool= n_pooled 6 of 2 folds.
    # Each distinct threshold of the linspace grid comes once, counted here by numpy.
    s, y = np.array(scores), np.array([0, 1, 0, 1])
    df = pl.DataFrame({"fold": [0, 0, 1, 1], "label": y, "score": s})
    paths = []
    for i, piece in enumerate((df.head(2), df.tail(2))):
        paths.append(str(tmp_path / f"part-{i}.parquet"))
        piece.write_parquet(paths[-1])
    bad = tmp_path / "bad.parquet"
    pl.DataFrame({"fold": [0], "label": [1], "score": ["high"]}).write_parquet(bad)
    lo, hi = kwargs.get("score_range", (s.min(), s.max()))
    grid = sorted(set(np.linspace(lo, hi, kwargs["thresholds"]).tolist()))
    expected = [
        (t, 4, int(((s >= t) & (y == 1)).sum()), int(((s >= t) & (y == 0)).sum()),
         int(((s < t) & (y == 1)).sum()), int(((s < t) & (y == 0)).sum()))
        for t in grid
    ]  # fmt: skip
    memory = be.sweep(df, measures=[], **kwargs)
    assert memory.rows() == expected
    assert be.sweep(paths, measures=[], **kwargs).equals(memory)
    assert be.sweep(str(tmp_path / "part-*.parquet"), measures=[], batch_rows=1, **kwargs).equals(memory)
    with pytest.warns(be.BatchevalWarning, match="skipped 1 of 3 parts"):
        skipped = be.sweep([*paths, str(bad)], measures=[], on_error="skip", batch_rows=1, **kwargs)
    assert skipped.equals(memory)
    pooled = be.sweep(df, by="fold", pool="fold", measures=["recall"], **kwargs)
    assert pooled.select("threshold", "n", *CELLS).rows() == expected
    assert pooled["n_pooled"].to_list() == [2] * len(grid)
    recall = [tp / 2 for _, _, tp, *_ in expected]
    assert pooled["recall"].to_list() == recall
    assert be.sweep(paths, by="fold", pool="fold", measures=["recall"], batch_rows=1, **kwargs).equals(pooled)
    if "score_range" not in kwargs:  # curves take no score_range=
        roc = be.curves(df, by="fold", pool="fold", thresholds=kwargs["thresholds"], kind="roc")
        points = [(t, fp / 2, tp / 2) for t, _, tp, fp, *_ in expected]
        assert roc.select("threshold", "x", "y").rows() == points


@pytest.mark.parametrize("thresholds", [11, [0.5], "exact"])
def test_a_frame_on_the_dask_engine_is_refused_before_a_cluster_starts(monkeypatch, thresholds):
    # the sweep started a LocalCluster first (3 s), whose spawned processes re-ran the caller's
    # script, and was refused by the first scan; evaluate refuses such a frame before any cluster
    from batcheval.core import distributed

    def no_cluster(client, work):
        raise AssertionError("a cluster was started for a frame in memory")

    monkeypatch.setattr(distributed, "with_client", no_cluster)
    df = pl.DataFrame({"label": [0, 0, 1, 1], "score": [0.1, 0.4, 0.35, 0.8]})
    message = "engine='dask' reads paths, a glob or a dask.dataframe.DataFrame, got a polars.DataFrame; "
    with pytest.raises(be.InvalidArgumentError, match=re.escape(message)):
        be.sweep(df, engine="dask", thresholds=thresholds)
    with pytest.raises(be.InvalidArgumentError, match=re.escape(message)):
        be.evaluate(df.with_columns(prediction=pl.col("label")), engine="dask")


def _cells_at(values: list[int], labels: list[int], t: float) -> tuple[int, int]:
    """(tp, fp) at the float threshold ``t``, compared as Python integers: exactly."""
    at = [v >= int(t) for v in values]
    return (
        sum(a for a, y in zip(at, labels, strict=True) if y),
        sum(a for a, y in zip(at, labels, strict=True) if not y),
    )


@pytest.mark.parametrize("dtype", [pl.Int64, pl.UInt64, pl.Int128, pl.Decimal(38, 0)])
def test_integer_scores_beyond_2_53_are_swept_as_the_integers_compare(dtype, tmp_path):
    # read as the nearest float, 2**62 + 600 became 2**62 + 1024 and counted at or above that
    # threshold; rounded down, score >= t holds for the float as for the integer at every float t
    base = 2**62
    values = [base + o for o in (0, 300, 600, 1024, 1500, 2048, 2600, 3072, 5000, 9000)]
    labels = [0, 1] * 5
    frame = pl.DataFrame({"run": [0] * 10, "label": labels, "score": pl.Series(values, dtype=dtype)})
    grid = sorted({float(v) for v in values})  # the floats nearest the scores: several above theirs
    for thresholds in (grid, 7):
        out = be.sweep(frame, by="run", thresholds=thresholds, measures=["informedness"])
        for t, tp, fp in out.select("threshold", "tp", "fp").rows():
            assert (tp, fp) == _cells_at(values, labels, t), t
        path = tmp_path / f"scores{thresholds if isinstance(thresholds, int) else ''}.parquet"
        frame.write_parquet(path)
        assert be.sweep([path], by="run", thresholds=thresholds, measures=["informedness"]).equals(out)
    # the nearest float of 2**62 + 600 is a threshold, and that score lies below it
    t = float(base + 600)
    assert int(t) > base + 600
    row = be.sweep(frame, thresholds=[t], measures=[]).row(0, named=True)
    # at or above 2**62 + 1024: positives at 1024, 2048, 3072, 9000; negatives at 1500, 2600, 5000
    assert (row["tp"], row["fp"]) == _cells_at(values, labels, t) == (4, 3)


def test_scores_rounded_down_at_the_edges_of_their_types_and_per_class(tmp_path):
    # review of the rounding: multiclass scores went through their own float cast, Int128/UInt128
    # scores whose float is beyond the type were not corrected, and an all-null streamed part raised
    # a TypeError (None < 2**53) where the frame in memory gives NullValuesError
    t = float(2**62 + 1024)
    df = pl.DataFrame({"label": [0, 1, 2, 1], "s0": [2**62 + 600, 0, 0, 0],
                       "s1": [0, 2**62 + 1024, 0, 2**62 + 600], "s2": [0, 0, 2**62 + 2048, 0]})  # fmt: skip
    out = be.sweep(df, score=["s0", "s1", "s2"], thresholds=[t], measures=[]).sort("class")
    for k, (tp, fn) in enumerate(out.select("tp", "fn").rows()):
        scores, labels = df[f"s{k}"].to_list(), [int(y == k) for y in df["label"]]
        assert (tp, fn) == (_cells_at(scores, labels, t)[0], sum(labels) - _cells_at(scores, labels, t)[0])
    assert out["tp"].to_list() == [0, 1, 1]
    edges = [(pl.Int128, 2**127 - 1, 2.0**127), (pl.UInt128, 2**128 - 1, 2.0**128),
             (pl.UInt64, 2**64 - 1, 2.0**64), (pl.Int64, -(2**62) - 600, -(2.0**62))]  # fmt: skip
    for dtype, top, at in edges:
        frame = pl.DataFrame({"label": [1, 0], "score": pl.Series([top, 0], dtype=dtype)})
        assert be.sweep(frame, thresholds=[at], measures=[]).select("tp", "fn").row(0) == (0, 1), dtype
    path = tmp_path / "nulls.parquet"
    pl.DataFrame(
        {"run": [0, 0], "label": [1, 0], "score": pl.Series([None, None], dtype=pl.Int64)}
    ).write_parquet(path)
    with pytest.raises(be.NullValuesError, match="pass drop_nulls=True"):
        be.sweep([path], by="run", thresholds=3)
    # a Decimal probability keeps the nearest float: 0.1 is at or above the threshold 0.1, as a float's
    from decimal import Decimal

    decimals = pl.Series([Decimal("0.1"), Decimal("0.3"), Decimal("1")], dtype=pl.Decimal(10, 1))
    probs = pl.DataFrame({"label": [1, 0, 1], "score": decimals})
    cells = ("threshold", "tp", "fp")
    got = be.sweep(probs, thresholds=[0.1, 0.3], measures=[]).select(cells).rows()
    floats = probs.with_columns(pl.col("score").cast(pl.Float64))
    assert got == be.sweep(floats, thresholds=[0.1, 0.3], measures=[]).select(cells).rows()
    assert got == [(0.1, 2, 1), (0.3, 1, 1)]


@pytest.mark.parametrize("multiclass", [False, True])
def test_pooled_auc_reports_each_drop_once(multiclass):
    """auc(pool=) reads the rows twice (pooled, then per pooled group) and warned of each dropped
    row twice, where sweep and curves with pool= warn once, as auc without it does."""
    df = pl.DataFrame({"run": [1, 1, 1, 2, 2, 2], "fold": [0, 1, 0, 1, 0, 1], "label": [0, 1, 1, 0, 1, 0],
                       "score": [0.1, float("nan"), 0.9, 0.3, None, 0.7]})  # fmt: skip
    score = "score"
    if multiclass:
        df, score = df.with_columns((1 - pl.col("score")).alias("s0")), ["s0", "score"]
    kw = {"score": score, "drop_nonfinite": True, "drop_nulls": True}
    with warnings.catch_warnings(record=True) as plain:
        warnings.simplefilter("always")
        be.auc(df, by=["run", "fold"], **kw)
    with warnings.catch_warnings(record=True) as pooled:
        warnings.simplefilter("always")
        be.auc(df, by=["run", "fold"], pool="fold", **kw)
    assert len(plain) == 2
    assert [str(w.message) for w in pooled] == [str(w.message) for w in plain]


def test_scores_at_float_max_sweep_without_a_numpy_warning():
    # the grid's span and float spacing at ±float max overflowed: correct counts, but numpy's
    # "overflow encountered in spacing" reached the user
    top = float(np.finfo(np.float64).max)
    df = pl.DataFrame({"label": [0, 1, 0, 1], "score": [-top, top, 0.0, 1.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = be.sweep(df, thresholds=3, measures=["recall", "fallout"])
    assert got["threshold"].to_list() == [-top, 0.0, top]
    for t, recall, fallout in got.select("threshold", "recall", "fallout").rows():
        pred = (df["score"] >= t).to_numpy()
        assert recall == metrics.recall_score(df["label"], pred)
        assert fallout == 1 - metrics.recall_score(df["label"], pred, pos_label=0)
