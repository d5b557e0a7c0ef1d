"""batcheval against scikit-learn, group by group."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from sklearn import metrics

import batcheval as be
from tests.helpers import sweep_frame


def _groups(df: pl.DataFrame, by: list[str]):
    for key, part in df.sort(by).group_by(by, maintain_order=True):
        yield key, part["label"].to_numpy(), part["prediction"].to_numpy()


def test_binary_measures_equal_sklearn_per_group():
    df = sweep_frame(n_runs=30, n_folds=4, rows_per_group=40, seed=1)
    out = be.evaluate(df, by=["run", "fold"]).sort("run", "fold")
    rows = out.to_dicts()
    for row, (key, y, p) in zip(rows, _groups(df, ["run", "fold"]), strict=True):
        assert (row["run"], row["fold"]) == key
        assert row["recall"] == pytest.approx(metrics.recall_score(y, p), abs=1e-15)
        assert row["precision"] == pytest.approx(
            metrics.precision_score(y, p, zero_division=np.nan), nan_ok=True
        )
        assert row["f1"] == pytest.approx(metrics.f1_score(y, p), rel=1e-14)
        assert row["accuracy"] == pytest.approx(metrics.accuracy_score(y, p), rel=1e-15)
        assert row["correlation"] == pytest.approx(metrics.matthews_corrcoef(y, p), rel=1e-12, abs=1e-15)
        assert row["kappa_cohen"] == pytest.approx(metrics.cohen_kappa_score(y, p), rel=1e-12, abs=1e-15)
        assert row["informedness"] == pytest.approx(
            metrics.balanced_accuracy_score(y, p, adjusted=True), rel=1e-12, abs=1e-15
        )
        assert row["jaccard"] == pytest.approx(metrics.jaccard_score(y, p), rel=1e-14)


@pytest.mark.parametrize("n_classes", [3, 10])
def test_multiclass_measures_equal_sklearn_per_group(n_classes):
    df = sweep_frame(n_runs=20, n_folds=2, rows_per_group=60, n_classes=n_classes, seed=n_classes)
    out = be.evaluate(df, by=["run", "fold"]).sort("run", "fold")
    labels = list(range(n_classes))
    for row, (_, y, p) in zip(out.to_dicts(), _groups(df, ["run", "fold"]), strict=True):
        assert row["mcc"] == pytest.approx(metrics.matthews_corrcoef(y, p), rel=1e-12, abs=1e-15)
        assert row["kappa_cohen"] == pytest.approx(metrics.cohen_kappa_score(y, p), rel=1e-12, abs=1e-15)
        assert row["accuracy"] == pytest.approx(metrics.accuracy_score(y, p), rel=1e-15)
        for avg in ("macro", "weighted"):
            for name, fn in (
                ("recall", metrics.recall_score),
                ("precision", metrics.precision_score),
                ("f1", metrics.f1_score),
            ):
                expected = fn(y, p, labels=labels, average=avg, zero_division=np.nan)
                assert row[f"{avg}_{name}"] == pytest.approx(expected, rel=1e-12), (avg, name)
        mi_bits = metrics.mutual_info_score(y, p) / np.log(2)
        assert row["mutual_information"] == pytest.approx(mi_bits, rel=1e-10, abs=1e-14)


def test_per_class_recall_and_precision_equal_sklearn_average_none():
    df = sweep_frame(n_runs=5, n_folds=1, rows_per_group=80, n_classes=4, seed=3)
    out = be.evaluate(df, by="run", per_class=True, measures=["recall", "precision", "f1"])
    for run, y, p in ((k[0], y, p) for k, y, p in _groups(df, ["run"])):
        rows = out.filter(pl.col("run") == run).sort("class")
        np.testing.assert_allclose(
            rows["recall"],
            metrics.recall_score(y, p, average=None, labels=range(4), zero_division=np.nan),
            rtol=1e-14,
        )
        np.testing.assert_allclose(
            rows["precision"],
            metrics.precision_score(y, p, average=None, labels=range(4), zero_division=np.nan),
            rtol=1e-14,
        )
        np.testing.assert_allclose(
            rows["f1"],
            metrics.f1_score(y, p, average=None, labels=range(4), zero_division=np.nan),
            rtol=1e-14,
        )


def test_confusion_matrices_equal_sklearn():
    df = sweep_frame(n_runs=10, n_folds=3, rows_per_group=30, n_classes=3, seed=5)
    table = be.ContingencyTable.from_frame(df, by=["run", "fold"])
    for g, (_, y, p) in enumerate(_groups(df, ["run", "fold"])):
        np.testing.assert_array_equal(table.counts[g], metrics.confusion_matrix(y, p, labels=[0, 1, 2]))


def test_a_table_of_classes_given_out_of_order_is_sorted():
    # sklearn's positive-first layout, labels=[1, 0]: code 1 (class 0) was taken as the positive
    # class, recall 0.8 instead of 0.667
    y = np.array([1, 1, 1, 0, 0, 0, 0, 0])
    p = np.array([1, 1, 0, 1, 0, 0, 0, 0])
    cm = metrics.confusion_matrix(y, p, labels=[1, 0])
    t = be.ContingencyTable(pl.DataFrame({"run": [1]}), [1, 0], cm[None])
    assert t.classes.to_list() == [0, 1]
    np.testing.assert_array_equal(t.counts[0], metrics.confusion_matrix(y, p, labels=[0, 1]))
    row = t.measures(["recall", "precision"]).row(0, named=True)
    assert row["recall"] == pytest.approx(metrics.recall_score(y, p), rel=1e-15)
    assert row["precision"] == pytest.approx(metrics.precision_score(y, p), rel=1e-15)
    assert row["tp"] == 2 and row["fn"] == 1
