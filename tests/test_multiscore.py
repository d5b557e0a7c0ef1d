"""Multiclass scores: one-vs-rest AUCs and their averages against scikit-learn."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from sklearn import metrics

import batcheval as be


def multiclass_scores(n_runs=4, rows=300, k=3, seed=0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n = n_runs * rows
    y = rng.choice(k, n, p=np.linspace(1, 2, k) / np.linspace(1, 2, k).sum())
    s = rng.uniform(size=(n, k))
    s[np.arange(n), y] += rng.uniform(0, 0.8)
    s = s / s.sum(axis=1, keepdims=True)  # probabilities, as sklearn's multiclass AUC expects
    return pl.DataFrame({"run": np.repeat(np.arange(n_runs), rows), "label": y,
                         **{f"s{j}": s[:, j] for j in range(k)}})  # fmt: skip


def test_per_class_and_averaged_auc_equal_sklearn():
    df = multiclass_scores(seed=1)
    cols = ["s0", "s1", "s2"]
    per = be.auc(df, by="run", score=cols, per_class=True)
    avg = be.auc(df, by="run", score=cols).sort("run")
    for run in range(4):
        part = df.filter(pl.col("run") == run)
        y, s = part["label"].to_numpy(), part.select(cols).to_numpy()
        rows = per.filter(pl.col("run") == run).sort("class")
        for k in range(3):
            assert rows["roc_auc"][k] == pytest.approx(metrics.roc_auc_score(y == k, s[:, k]), abs=1e-12)
            assert rows["pr_auc"][k] == pytest.approx(
                metrics.average_precision_score(y == k, s[:, k]), abs=1e-12
            )
        row = avg.row(run, named=True)
        assert row["roc_auc_macro"] == pytest.approx(
            metrics.roc_auc_score(y, s, multi_class="ovr"), abs=1e-12
        )
        assert row["roc_auc_prevalence_weighted"] == pytest.approx(
            metrics.roc_auc_score(y, s, multi_class="ovr", average="weighted"), abs=1e-12
        )
        bias = np.bincount(s.argmax(axis=1), minlength=3) / len(y)
        per_auc = [metrics.roc_auc_score(y == k, s[:, k]) for k in range(3)]
        assert row["roc_auc_bias_weighted"] == pytest.approx(float(bias @ per_auc), abs=1e-12)


def test_list_column_equals_separate_columns_and_curves_per_class():
    df = multiclass_scores(n_runs=2, seed=2)
    listed = df.with_columns(pl.concat_list("s0", "s1", "s2").alias("scores"))
    assert be.auc(listed, by="run", score="scores").equals(be.auc(df, by="run", score=["s0", "s1", "s2"]))
    curves = be.curves(df, by="run", score=["s0", "s1", "s2"], kind="roc")
    assert curves.schema["class"] == df.schema["label"]
    assert sorted(curves["class"].unique().to_list()) == [0, 1, 2]


def test_score_count_must_match_the_classes():
    df = multiclass_scores(n_runs=1, seed=3)
    with pytest.raises(be.InvalidLabelError, match=r"2 score columns for 3 classes"):
        be.auc(df, score=["s0", "s1"])
