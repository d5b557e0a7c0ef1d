"""Multiclass scores: one-vs-rest AUCs and their averages against scikit-learn."""

from __future__ import annotations

import re

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
        assert row["macro_roc_auc"] == pytest.approx(
            metrics.roc_auc_score(y, s, multi_class="ovr"), abs=1e-12
        )
        assert row["prevalence_weighted_roc_auc"] == pytest.approx(
            metrics.roc_auc_score(y, s, multi_class="ovr", average="weighted"), abs=1e-12
        )
        bias = np.bincount(s.argmax(axis=1), minlength=3) / len(y)
        per_auc = [metrics.roc_auc_score(y == k, s[:, k]) for k in range(3)]
        assert row["bias_weighted_roc_auc"] == pytest.approx(float(bias @ per_auc), abs=1e-12)


def test_auc_averages_by_name_and_by_their_old_names():
    df = multiclass_scores(n_runs=3, seed=4)
    cols = ["s0", "s1", "s2"]
    full = be.auc(df, by="run", score=cols).sort("run")
    assert full.columns == ["run", "n", *be.AUC_AVERAGES]
    for run in range(3):
        part = df.filter(pl.col("run") == run)
        y, s = part["label"].to_numpy(), part.select(cols).to_numpy()
        onehot = np.eye(3)[y]
        row = full.row(run, named=True)
        assert row["macro_pr_auc"] == pytest.approx(
            metrics.average_precision_score(onehot, s, average="macro"), abs=1e-12
        )
        assert row["prevalence_weighted_pr_auc"] == pytest.approx(
            metrics.average_precision_score(onehot, s, average="weighted"), abs=1e-12
        )
    # an old name gives its column, named as asked, with the new name's values; asked twice
    # under two names, one column as first asked
    old = be.auc(
        df, by="run", score=cols, averages=["roc_auc_macro", "pr_auc_bias_weighted", "macro_roc_auc"]
    )
    assert old.columns == ["run", "n", "roc_auc_macro", "pr_auc_bias_weighted"]
    assert old.sort("run")["roc_auc_macro"].to_list() == full["macro_roc_auc"].to_list()
    assert old.sort("run")["pr_auc_bias_weighted"].to_list() == full["bias_weighted_pr_auc"].to_list()
    one = be.auc(df, by="run", score=cols, averages="bias_weighted_roc_auc")
    assert one.columns == ["run", "n", "bias_weighted_roc_auc"]
    assert set(be.AUC_AVERAGE_ALIASES.values()) == set(be.AUC_AVERAGES)


def test_auc_averages_pooled_keep_the_names_asked():
    df = multiclass_scores(n_runs=4, seed=5).with_columns((pl.col("run") % 2).alias("fold"))
    cols = ["s0", "s1", "s2"]
    pooled = be.auc(df, score=cols, pool="run", averages=["roc_auc_macro", "macro_pr_auc"])
    per_run = be.auc(df, by="run", score=cols)
    assert pooled["roc_auc_macro_mean"].item() == pytest.approx(per_run["macro_roc_auc"].mean(), abs=1e-15)
    assert pooled["macro_pr_auc_std"].item() == pytest.approx(per_run["macro_pr_auc"].std(), abs=1e-15)
    assert pooled["n_pooled"].item() == 4


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(score=["s0", "s1", "s2"], averages="macro_roc"), "unknown average 'macro_roc' (did you mean"),
        (dict(score=["s0", "s1", "s2"], averages=[]), "averages= names at least one average"),
        (dict(score=["s0", "s1", "s2"], averages=[3]), "averages= takes average names"),
        (dict(score=["s0", "s1", "s2"], averages="macro_roc_auc", per_class=True), "per_class=True"),
        (dict(score="s0", averages="macro_roc_auc"), "score='s0' is one binary score"),
    ],
)
def test_auc_averages_bad_input(kwargs, message):
    df = multiclass_scores(n_runs=1, seed=6)
    if kwargs["score"] == "s0":
        df = df.with_columns((pl.col("label") == 0).cast(pl.Int8).alias("label"))
    with pytest.raises(be.errors.BatchevalError, match=message.replace("(", r"\(")):
        be.auc(df, **kwargs)


@pytest.mark.parametrize("bad", [None, 3, b"score"])
@pytest.mark.parametrize("call", [be.sweep, be.auc, be.curves])
def test_a_score_that_is_no_column_name_is_named(call, bad):
    # score=None or score=3 was taken for a list of multiclass score columns: a raw TypeError
    # ("'NoneType' object is not iterable") from list(score)
    df = pl.DataFrame({"label": [0, 1, 0, 1], "score": [0.1, 0.7, 0.4, 0.8]})
    message = (
        f"score= takes a score column's name or a list of them (one per class, in class order), got {bad!r}"
    )
    with pytest.raises(be.InvalidArgumentError, match=re.escape(message)):
        call(df, score=bad)


@pytest.mark.parametrize("empty", [[], ()])
@pytest.mark.parametrize("call", [be.sweep, be.auc, be.curves])
def test_a_score_list_of_no_column_is_named(call, empty):
    # score=[] went on as multiclass scores of no column: polars panicked on a frame of two chunks
    # (a PanicException, a BaseException that except Exception misses)
    part = pl.DataFrame({"label": [0, 1, 1], "score": [0.1, 0.9, 0.4]})
    message = f"score= names no column, got {empty!r}"
    for df in (part, pl.concat([part, part], rechunk=False)):
        with pytest.raises(be.InvalidArgumentError, match=re.escape(message)):
            call(df, score=empty)


@pytest.mark.parametrize("bad", [5, 0.5])
def test_averages_that_is_no_name_is_named(bad):
    # averages=5 raised a raw TypeError from list(averages)
    df = multiclass_scores(n_runs=1, seed=6)
    message = f"averages= takes an average name such as 'macro_roc_auc' or a list of them, got {bad!r}"
    with pytest.raises(be.InvalidArgumentError, match=re.escape(message)):
        be.auc(df, score=["s0", "s1", "s2"], averages=bad)


def test_list_column_equals_separate_columns_and_curves_per_class():
    df = multiclass_scores(n_runs=2, seed=2)
    listed = df.with_columns(pl.concat_list("s0", "s1", "s2").alias("scores"))
    assert be.auc(listed, by="run", score="scores").equals(be.auc(df, by="run", score=["s0", "s1", "s2"]))
    curves = be.curves(df, by="run", score=["s0", "s1", "s2"], kind="roc")
    assert curves.schema["class"] == df.schema["label"]
    assert sorted(curves["class"].unique().to_list()) == [0, 1, 2]


def test_score_count_must_match_the_classes():
    df = multiclass_scores(n_runs=1, seed=3)
    with pytest.raises(
        be.InvalidLabelError, match=r"2 score columns for 3 classes \[0, 1, 2\]; give one per class$"
    ):
        be.auc(df, score=["s0", "s1"])
    # more columns than classes: a class without rows, which classes= names (the message said
    # only "give one per class", which the user had done)
    two = df.filter(pl.col("label") != 2)
    with pytest.raises(
        be.InvalidLabelError, match=r"3 score columns for 2 classes \[0, 1\]; .* classes=, one per"
    ):
        be.auc(two, score=["s0", "s1", "s2"])
    assert be.auc(two, score=["s0", "s1", "s2"], classes=[0, 1, 2])["n"].to_list() == [two.height]
    # 30,000 classes: the first few, not a message of 30,000 values
    many = pl.DataFrame({"label": np.arange(30_000), "a": 0.5, "b": 0.5})
    shown = r"for 30000 classes \[0, 1, 2, 3, 4, 5, \.\.\.\]; give"
    with pytest.raises(be.InvalidLabelError, match=shown) as err:
        be.auc(many, score=["a", "b"])
    assert len(str(err.value)) < 100


def test_list_scores_in_every_container_and_with_bad_rows():
    # stop 43: a pl.Array column, or a list column of a pyarrow table or a pandas frame, was read as
    # one binary score; a null list raised a TypeError (also with drop_nulls=True); a NaN in one
    # class's column was named as column '_score' at a row of the internal long frame, and dropped
    # from that class only. The areas are scikit-learn's on the rows that are kept.
    import pandas as pd
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(6)
    n = 90
    y = rng.integers(0, 3, n)
    p = rng.dirichlet(np.ones(3), n) + np.eye(3)[y]
    p /= p.sum(axis=1, keepdims=True)
    expected = roc_auc_score(y, p, multi_class="ovr", average="macro")
    lists = pl.DataFrame({"label": y, "s": p.tolist()})
    for data in (lists, lists.with_columns(pl.col("s").cast(pl.Array(pl.Float64, 3))), lists.to_arrow(),
                 pd.DataFrame({"label": y, "s": list(p)})):  # fmt: skip
        assert be.auc(data, score="s")["macro_roc_auc"][0] == pytest.approx(expected, rel=1e-12)
    holed = lists.with_columns(s=pl.when(pl.int_range(n) == 4).then(None).otherwise("s"))
    with pytest.raises(
        be.NullValuesError,
        match=r"score column\(s\) \['s'\] hold 1 row\(s\) with a null value \(first at row 4\)",
    ):
        be.auc(holed, score="s")
    with pytest.warns(be.BatchevalWarning, match=f"dropped 1 of {n} rows with a null"):
        got = be.auc(holed, score="s", drop_nulls=True)
    keep = np.arange(n) != 4
    assert got["n"][0] == n - 1
    assert got["macro_roc_auc"][0] == pytest.approx(
        roc_auc_score(y[keep], p[keep], multi_class="ovr"), rel=1e-12
    )
    wide = pl.DataFrame({"label": y, "p0": p[:, 0], "p1": p[:, 1], "p2": p[:, 2]})
    wide = wide.with_columns(p1=pl.when(pl.int_range(n) == 7).then(float("nan")).otherwise("p1"))
    with pytest.raises(
        be.InvalidScoreError, match=r"\['p0', 'p1', 'p2'\] hold 1 row\(s\) with a NaN .* row 7"
    ):
        be.auc(wide, score=["p0", "p1", "p2"])
    got = be.auc(wide, score=["p0", "p1", "p2"], drop_nonfinite=True, per_class=True)
    assert got["n"].to_list() == [n - 1] * 3  # the row is left out of every class


def test_a_nan_after_a_dropped_null_is_named_at_the_users_row():
    rows = [[0.5, 0.3, 0.2], [0.2, 0.7, 0.1], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4], [float("nan"), 0.5, 0.5]]
    df = pl.DataFrame({"label": [None, 0, 1, 2, 0], "s": rows})
    with pytest.raises(be.InvalidScoreError, match=r"first at row 4\)"):
        be.auc(df, score="s", drop_nulls=True)


def _sklearn_averages(y: np.ndarray, s: np.ndarray) -> dict[str, float]:
    """The six averages of be.auc, from scikit-learn's one-vs-rest areas and numpy weights."""
    k = s.shape[1]
    bias = np.bincount(s.argmax(axis=1), minlength=k) / len(y)
    prevalence = np.bincount(y, minlength=k) / len(y)
    out = {}
    for area, score_fn in (("roc_auc", metrics.roc_auc_score), ("pr_auc", metrics.average_precision_score)):
        per = np.array([score_fn(y == j, s[:, j]) for j in range(k)])
        out[f"macro_{area}"] = per.mean()
        out[f"prevalence_weighted_{area}"] = per @ prevalence
        out[f"bias_weighted_{area}"] = per @ bias
    return out


@pytest.mark.parametrize(
    "key",
    [
        "prevalence",
        "bias",
        "_top",
        "_k",
        "_w",
        "_n",
        "_score",
        "_is_class",
        "_score0",
        "gini",
        "best_informedness",
    ],
)
def test_averages_by_a_key_named_as_an_intermediate_column(key):
    # A key named as a column the averages are built from was overwritten by it: by="prevalence"
    # gave one row with an invented key, by="bias" used the key's values as weights, and the
    # others raised polars' DuplicateError or SchemaError. Each group is scikit-learn's.
    df = multiclass_scores(n_runs=3, seed=8).with_columns((pl.col("run") * 2 + 1).alias(key))
    cols = ["s0", "s1", "s2"]
    for score in (cols, "scores"):
        data = df.with_columns(pl.concat_list(cols).alias("scores"))
        got = be.auc(data, by=key, score=score).sort(key)
        assert got.columns == [key, "n", *be.AUC_AVERAGES]
        assert got[key].to_list() == [1, 3, 5]
        for row in got.iter_rows(named=True):
            part = df.filter(pl.col(key) == row[key])
            expected = _sklearn_averages(part["label"].to_numpy(), part.select(cols).to_numpy())
            for name, value in expected.items():
                assert row[name] == pytest.approx(value, abs=1e-12), (name, key)


def _split_bias(s: np.ndarray) -> np.ndarray:
    """Each class's share of the rows whose top score it has, a row tied among t classes counting
    1/t to each (numpy)."""
    top = s == s.max(axis=1, keepdims=True)
    return (top / top.sum(axis=1, keepdims=True)).mean(axis=0)


def test_a_row_whose_top_score_ties_is_split_among_the_tied_classes():
    # Before: the tied row went to the first score column, so swapping the names x and y (their
    # labels and score columns) moved bias_weighted_roc_auc from 0.5 to 0.1667. Its row 0 ties x
    # and y at 0.9, row 1's top is z, row 2's y: the shares are x 1/6, y 1/2, z 1/3.
    cols = ["s_x", "s_y", "s_z"]
    df = pl.DataFrame({"label": ["x", "y", "z"], "s_x": [0.9, 0.0, 0.8], "s_y": [0.9, 0.5, 0.9],
                       "s_z": [0.1, 0.9, 0.8]})  # fmt: skip
    ren = pl.DataFrame({"label": ["y", "x", "z"], "s_x": [0.9, 0.5, 0.9], "s_y": [0.9, 0.0, 0.8],
                        "s_z": [0.1, 0.9, 0.8]})  # fmt: skip
    y = df["label"].to_numpy()
    s = df.select(cols).to_numpy()
    areas = (("roc_auc", metrics.roc_auc_score), ("pr_auc", metrics.average_precision_score))
    per = {area: [fn(y == c, s[:, j]) for j, c in enumerate("xyz")] for area, fn in areas}
    assert per["roc_auc"] == [1.0, 0.0, 0.5]
    shares = np.array([1 / 6, 1 / 2, 1 / 3])
    assert _split_bias(s) == pytest.approx(shares, abs=1e-15)
    got = [be.auc(d, score=cols).row(0, named=True) for d in (df, ren)]
    for row in got:
        assert row["bias_weighted_roc_auc"] == pytest.approx(1 / 3, abs=1e-15)  # 1/6·1 + 1/2·0 + 1/3·0.5
        for area in ("roc_auc", "pr_auc"):
            assert row[f"bias_weighted_{area}"] == pytest.approx(float(shares @ per[area]), abs=1e-15)
    assert got[0] == got[1]


def test_tied_top_scores_split_on_many_groups_and_no_relabelling_moves_them():
    # scores of a few levels tie often; each group against scikit-learn's areas and numpy's
    # split shares, and the same with the classes' names permuted
    rng = np.random.default_rng(21)
    n, k = 600, 4
    y = rng.integers(0, k, n)
    s = rng.integers(0, 4, (n, k)).astype(float)
    s[np.arange(n), y] += rng.integers(0, 2, n)
    cols = [f"s{j}" for j in range(k)]
    df = pl.DataFrame({"run": np.arange(n) % 5, "label": y, **{c: s[:, j] for j, c in enumerate(cols)}})
    got = be.auc(df, by="run", score=cols).sort("run")
    perm = np.array([2, 0, 3, 1])  # class j is named perm[j]; its scores move to column perm[j]
    moved = pl.DataFrame(
        {"run": np.arange(n) % 5, "label": perm[y], **{cols[perm[j]]: s[:, j] for j in range(k)}}
    )
    moved = moved.select("run", "label", *cols)
    renamed = be.auc(moved, by="run", score=cols).sort("run")
    for run in range(5):
        at = np.arange(n) % 5 == run
        row = got.row(run, named=True)
        bias = _split_bias(s[at])
        for area, fn in (("roc_auc", metrics.roc_auc_score), ("pr_auc", metrics.average_precision_score)):
            per = np.array([fn(y[at] == j, s[at, j]) for j in range(k)])
            assert row[f"bias_weighted_{area}"] == pytest.approx(float(bias @ per), abs=1e-12)
            assert renamed.row(run, named=True)[f"bias_weighted_{area}"] == pytest.approx(
                row[f"bias_weighted_{area}"], abs=1e-12
            )


@pytest.mark.parametrize("key", ["n", "macro_roc_auc"])
def test_averages_by_a_key_named_as_an_output_column(key):
    df = multiclass_scores(n_runs=2, seed=8).with_columns(pl.col("run").alias(key))
    with pytest.raises(be.DuplicateColumnError, match=f"key column '{key}' has the name of an output column"):
        be.auc(df, by=key, score=["s0", "s1", "s2"])


@pytest.mark.parametrize("container", ["polars", "pandas"])
def test_score_columns_of_different_numeric_dtypes(container):
    # Int64 next to Float64 (or Float32 next to Float64) raised polars' SchemaError: the classes'
    # scores are stacked into one column. The areas are scikit-learn's on the same numbers.
    df = multiclass_scores(n_runs=1, seed=9).with_columns(
        (pl.col("s0") * 1000).round().cast(pl.Int64), pl.col("s1").cast(pl.Float32)
    )
    y, s = df["label"].to_numpy(), df.select("s0", "s1", "s2").to_numpy().astype(np.float64)
    data = df.to_pandas() if container == "pandas" else df
    got = be.auc(data, score=["s0", "s1", "s2"]).row(0, named=True)
    for name, value in _sklearn_averages(y, s).items():
        assert got[name] == pytest.approx(value, abs=1e-12)
    curves = be.curves(data, score=["s0", "s1", "s2"], kind="roc")
    for k in range(3):
        fpr, tpr, _ = metrics.roc_curve(y == k, s[:, k], drop_intermediate=False)
        part = curves.filter(pl.col("class") == k)
        np.testing.assert_allclose(part["x"].to_numpy(), fpr[1:], atol=1e-12)
        np.testing.assert_allclose(part["y"].to_numpy(), tpr[1:], atol=1e-12)


@pytest.mark.parametrize(
    ("column", "score", "message"),
    [
        (pl.col("s0").cast(pl.String), ["s0", "s1", "s2"], "score column 's0' has dtype String"),
        (pl.concat_list(pl.col("s0", "s1", "s2").cast(pl.String)).alias("L"), "L", "'L' has lists of String"),
        ((pl.col("s0") * 10).cast(pl.Int64) + 2**60, ["s0", "s1", "s2"], "score column 's0' holds integers"),
    ],
)
def test_score_columns_that_are_not_numbers_are_named(column, score, message):
    # a String column raised polars' SchemaError and a List(String) one named the internal '_score'
    df = multiclass_scores(n_runs=1, seed=9).with_columns(column)
    with pytest.raises(be.InvalidScoreError, match=re.escape(message)):
        be.auc(df, score=score)


def test_no_rows_give_no_row_as_a_binary_auc_does():
    # no rows (an empty frame, or every row dropped as NaN) raised "cannot concat empty list" or
    # "3 score columns for 0 classes"; then gave one row of n = 0 and NaN averages, as a binary auc
    # of no rows did, where per_class=True gave none; without keys no rows give no group (docs/cli.md)
    df = multiclass_scores(n_runs=1, seed=9)
    cols = ["s0", "s1", "s2"]
    binary = be.auc(df.head(0).select("label", pl.col("s0").alias("score")))
    assert binary.height == 0 and "roc_auc" in binary.columns
    nan_rows = df.with_columns(pl.lit(float("nan")).alias("s1"))
    lists = df.with_columns(pl.concat_list(cols).alias("scores")).head(0)
    full = be.auc(df, score=cols)
    for got in (
        be.auc(df.head(0), score=cols),
        be.auc(lists, score="scores"),
        be.auc(nan_rows, score=cols, drop_nonfinite=True),
    ):
        assert got.columns == ["n", *be.AUC_AVERAGES]
        assert got.height == 0 and got.schema == full.schema
    assert be.auc(df.head(0), by="run", score=cols).height == 0
    assert be.auc(df.head(0), score=cols, per_class=True).height == 0
    assert be.auc(df.head(0), score=cols, classes=[0, 1, 2], per_class=True).height == 0
    points = ["chart", "threshold", "x", "y", "s", "prevalence", "exact"]
    assert be.curves(df.head(0), score=cols).columns == ["class", *points]


def test_undefined_averages_are_nan_not_null():
    # every class undefined (one class present) gave a null macro average beside NaN weighted ones
    df = multiclass_scores(n_runs=1, seed=9).filter(pl.col("label") == 0)
    got = be.auc(df, score=["s0", "s1", "s2"], classes=[0, 1, 2])
    assert got.null_count().sum_horizontal().item() == 0
    assert all(np.isnan(got[c][0]) for c in be.AUC_AVERAGES)


@pytest.mark.parametrize("drop_nulls", [False, True])
@pytest.mark.parametrize("bad", [float("nan"), 0.5])
def test_labels_that_are_no_class_are_refused_as_in_the_binary_path(bad, drop_nulls):
    # a NaN or fractional float label became a class of its own (a row "class NaN"), also under
    # drop_nulls=True, where the binary path refuses it
    df = pl.DataFrame({"label": [0.0, 1.0, 2.0, bad, 0.0], "s": [[0.8, 0.1, 0.1]] * 5})
    message = rf"label column 'label' is float and holds 1 non-integer value \(first: {bad}\); class labels"
    with pytest.raises(be.InvalidLabelError, match=message):
        be.auc(df, score="s", per_class=True, drop_nulls=drop_nulls)
    with pytest.raises(be.InvalidLabelError, match=message):
        be.auc(df.with_columns(pl.col("s").list.first()), score="s", drop_nulls=drop_nulls)


def test_a_class_named_twice_in_classes_is_one_class_as_in_evaluate():
    # classes=[0, 1, 1, 2] expected 4 scores per row, and with 4 stacked two score columns into class 1
    df = multiclass_scores(n_runs=1, seed=8).with_columns(pl.concat_list("s0", "s1", "s2").alias("s"))
    got = be.auc(df, score="s", classes=[0, 1, 1, 2], per_class=True).sort("class")
    y, s = df["label"].to_numpy(), df.select("s0", "s1", "s2").to_numpy()
    assert got["class"].to_list() == [0, 1, 2]
    for k in range(3):
        assert got["roc_auc"][k] == pytest.approx(metrics.roc_auc_score(y == k, s[:, k]), abs=1e-12)
    assert be.evaluate(df.with_columns(prediction=pl.col("label")), classes=[0, 1, 1, 2], per_class=True,
                       measures=["recall"])["class"].to_list() == [0, 1, 2]  # fmt: skip
    four = df.with_columns(pl.col("s").list.concat(pl.lit([0.5])))
    with pytest.raises(be.InvalidLabelError, match=r"holds lists of length \[4\]; expected 3"):
        be.auc(four, score="s", classes=[0, 1, 1, 2])


def test_a_key_named_class_is_a_column_clash():
    # an InvalidLabelError before, though no label is wrong: the one-vs-rest frame adds 'class'
    df = multiclass_scores(n_runs=2, seed=3).rename({"run": "class"})
    message = "a key column is named 'class', which the one-vs-rest frame adds; rename it"
    with pytest.raises(be.DuplicateColumnError, match=re.escape(message)):
        be.auc(df, by="class", score=["s0", "s1", "s2"])


@pytest.mark.parametrize("pool", [None, "fold"])
@pytest.mark.parametrize(
    ("form", "kwargs", "message"),
    [
        ("multi", dict(positive=1), "positive=1 names the positive class of one binary score"),
        ("multi", dict(positive=99), "positive=99 names the positive class of one binary score"),
        ("multi", dict(positive="x", per_class=True), "positive='x' names the positive class"),
        ("multi", dict(measure="f1"), "measure='f1' picks the best threshold of one binary score"),
        ("multi", dict(beta=2.0), "beta=2.0 is the β of measure='f_beta' at the best threshold of one"),
        ("binary", dict(per_class=True), "per_class=True returns one row per class of multiclass scores"),
    ],
)
def test_auc_refuses_an_argument_the_form_of_its_scores_ignored(form, kwargs, message, pool):
    # each was ignored: positive=99 gave the macro averages, measure="f1" no best_f1 column and
    # per_class=True on a binary score no class rows; sweep and curves refuse positive= likewise
    df = multiclass_scores(n_runs=2, seed=10).with_columns((pl.col("run") % 2).alias("fold"))
    score = ["s0", "s1", "s2"] if form == "multi" else "s0"
    if form == "binary":
        df = df.with_columns((pl.col("label") == 0).cast(pl.Int8).alias("label"))
    with pytest.raises(be.InvalidArgumentError, match=re.escape(message)):
        be.auc(df, score=score, pool=pool, **kwargs)


def test_auc_takes_each_argument_of_its_form_and_the_cli_its_defaults(tmp_path):
    from tests.cli_run import run_cli

    df = multiclass_scores(n_runs=1, seed=11)
    y, s = df["label"].to_numpy(), df.select("s0", "s1", "s2").to_numpy()
    per = be.auc(df, score=["s0", "s1", "s2"], per_class=True, measure="f1").sort("class")
    for k in range(3):
        assert per["roc_auc"][k] == pytest.approx(metrics.roc_auc_score(y == k, s[:, k]), abs=1e-12)
    assert "best_f1" in per.columns
    binary = df.with_columns((pl.col("label") == 0).cast(pl.Int8).alias("label"))
    got = be.auc(binary, score="s0", positive=0)["roc_auc"][0]
    assert got == pytest.approx(metrics.roc_auc_score(y != 0, df["s0"].to_numpy()), abs=1e-12)
    path = tmp_path / "mc.parquet"
    df.write_parquet(path)
    done = run_cli("auc", str(path), "--score", "s0,s1,s2", "-o", str(tmp_path / "a.csv"))
    assert done.returncode == 0, done.stderr
    macro = pl.read_csv(tmp_path / "a.csv")["macro_roc_auc"][0]
    assert macro == pytest.approx(metrics.roc_auc_score(y, s, multi_class="ovr"), abs=1e-12)
    refused = run_cli("auc", str(path), "--score", "s0,s1,s2", "--positive", "1")
    message = (
        "--positive 1 names the positive class of one binary score; multiclass scores (--score s0,s1,s2)"
    )
    assert refused.returncode == 2 and message in refused.stderr


def test_auc_refuses_beta_only_where_the_averages_ignore_it(tmp_path):
    # beta= went unused by the averages of multiclass scores, as positive= and measure= did; it still
    # sets f_beta's β at the best threshold of each class (per_class=True) and of a binary score
    from sklearn.metrics import fbeta_score

    from tests.cli_run import run_cli

    df = multiclass_scores(n_runs=1, seed=13)
    y, s = df["label"].to_numpy(), df.select("s0", "s1", "s2").to_numpy()
    message = (
        "beta=2.0 is the β of measure='f_beta' at the best threshold of one binary score; the averages "
        "of multiclass scores (score=['s0', 's1', 's2']) have no best threshold"
    )
    with pytest.raises(be.InvalidArgumentError, match=re.escape(message)):
        be.auc(df, score=["s0", "s1", "s2"], beta=2.0)
    per = be.auc(df, score=["s0", "s1", "s2"], per_class=True, measure="f_beta", beta=2.0).sort("class")
    for k in range(3):
        at = per["best_threshold"][k]
        expected = fbeta_score(y == k, s[:, k] >= at, beta=2.0)
        assert per["best_f_beta"][k] == pytest.approx(expected, abs=1e-12)
    binary = be.auc(df.with_columns((pl.col("label") == 1).alias("label")), score="s1", measure="f_beta",
                    beta=2.0)  # fmt: skip
    assert binary["best_f_beta"][0] == pytest.approx(per["best_f_beta"][1], abs=1e-12)
    path = tmp_path / "mc.parquet"
    df.write_parquet(path)
    refused = run_cli("auc", str(path), "--score", "s0,s1,s2", "--beta", "2")
    assert refused.returncode == 2
    assert "--beta 2.0 is the β of --measure 'f_beta' at the best threshold of one binary" in refused.stderr


_COLS = ["s0", "s1", "s2"]


@pytest.mark.parametrize(
    "call",
    [
        lambda df, it: be.auc(
            df, score=_COLS, pool="fold", averages=it(["macro_roc_auc", "bias_weighted_pr_auc"])
        ),
        lambda df, it: be.auc(df, by="run", score=it(_COLS)),
        lambda df, it: be.auc(df, score=it(_COLS), per_class=True, pool="fold"),
        lambda df, it: be.sweep(df, score=it(_COLS), thresholds=[0.2, 0.4, 0.6], pool="fold"),
        lambda df, it: be.curves(df, score=it(_COLS), pool="fold"),
    ],
    ids=["auc-averages-pool", "auc-score", "auc-per-class-pool", "sweep", "curves"],
)
def test_score_and_averages_given_as_iterators_give_what_their_lists_give(call):
    # each was read twice: the second reading found the iterator spent ("0 score columns for 3
    # classes", "averages= names at least one average, got an empty list")
    df = multiclass_scores(n_runs=4, seed=12).with_columns((pl.col("run") % 2).alias("fold"))
    listed = call(df, list)
    assert call(df, iter).equals(listed)
    assert call(df, lambda names: (n for n in names)).equals(listed)
    if "macro_roc_auc" in listed.columns:  # the lists' result is scikit-learn's
        part = df.filter(pl.col("run") == listed["run"][0]) if "run" in listed.columns else df
        y, s = part["label"].to_numpy(), part.select(_COLS).to_numpy()
        assert listed["macro_roc_auc"][0] == pytest.approx(
            metrics.roc_auc_score(y, s, multi_class="ovr"), abs=1e-12
        )


@pytest.mark.parametrize("dtype", [pl.Float64, pl.Float32])
def test_whole_valued_float_labels_key_classes_as_evaluate_does(dtype):
    # the class column was Float64 where evaluate's is Int64, so joining a run's per-class AUCs to
    # its per-class table raised SchemaError
    ints = multiclass_scores(n_runs=2, seed=13)
    df = ints.with_columns(pl.col("label").cast(dtype))
    top = df.with_columns(prediction=pl.concat_list(_COLS).list.arg_max())
    ev = be.evaluate(top, by="run", per_class=True, measures=["recall"])
    per = be.auc(df, by="run", score=_COLS, per_class=True)
    assert per.schema["class"] == ev.schema["class"] == pl.Int64
    joined = ev.join(per, on=["run", "class"]).sort("run", "class")
    assert joined.height == 6
    for run, k, area in joined.select("run", "class", "roc_auc").rows():
        part = ints.filter(pl.col("run") == run)
        expected = metrics.roc_auc_score(part["label"].to_numpy() == k, part[f"s{k}"].to_numpy())
        assert area == pytest.approx(expected, abs=1e-12)
    assert per.equals(be.auc(ints, by="run", score=_COLS, per_class=True))
    grid = [0.3, 0.6]
    assert be.sweep(df, score=_COLS, thresholds=grid).equals(be.sweep(ints, score=_COLS, thresholds=grid))
    assert be.curves(df, score=_COLS).equals(be.curves(ints, score=_COLS))
    assert be.auc(df, score=_COLS, classes=[0.0, 1.0, 2.0]).equals(be.auc(ints, score=_COLS))


@pytest.mark.parametrize("call", [be.auc, be.sweep, be.curves])
@pytest.mark.parametrize(
    ("lists", "classes", "message"),
    [
        ([[0.1, 0.2, 0.7], [0.3, 0.7], [0.2, 0.2, 0.6]], None, "lengths [2, 3] (1 row of 2, 2 rows of 3)"),
        (
            [[0.1, 0.2, 0.7], [0.3, 0.7, 0, 0], [0.2, 0.2, 0.6]],
            None,
            "lengths [3, 4] (2 rows of 3, 1 row of 4)",
        ),
        (
            [[0.1, 0.2, 0.7], [0.3, 0.7], None, [0.2, 0.2, 0.6]],
            [0, 1, 2],
            "lengths [2, 3] (1 row of 2, 2 rows of 3)",
        ),
    ],
)
def test_score_lists_of_different_lengths_are_a_score_error(call, lists, classes, message):
    # an InvalidLabelError ("expected 3, one score per class", or for a longest list of 4 "label column
    # 'label' has 3 classes"), though the labels are sound: except InvalidScoreError missed it
    labels = [0, 1, 2, 2][: len(lists)]
    df = pl.DataFrame({"label": labels, "s": lists}, schema_overrides={"s": pl.List(pl.Float64)})
    expected = f"score column 's' holds lists of {message}; every row holds one score per class"
    with pytest.raises(be.InvalidScoreError, match=re.escape(expected)):
        call(df, score="s", classes=classes, drop_nulls=True)


def test_auc_of_multiclass_scores_takes_an_alias_of_its_default_measure():
    """``youden_j`` is informedness: the averages of multiclass scores take it as their default."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 90)
    scores = rng.random((90, 3)) + np.eye(3)[y]
    df = pl.DataFrame({"label": y, **{f"p{k}": scores[:, k] for k in range(3)}})
    cols = ["p0", "p1", "p2"]
    assert be.auc(df, score=cols, measure="youden_j").equals(be.auc(df, score=cols))


@pytest.mark.parametrize("key", ["roc_auc_macro", "macro_pr_auc", "pr_auc_model"])
def test_pooled_averages_keep_a_key_named_like_an_average(key):
    # a key named as an average not asked for (or beginning with roc_auc/pr_auc) was averaged as an
    # area: a string key raised polars' InvalidOperationError ("mean" of str)
    df = multiclass_scores(n_runs=4, seed=14).with_columns(
        (pl.col("run") % 2).alias("fold"),
        pl.when(pl.col("run") < 2).then(pl.lit("a")).otherwise(pl.lit("b")).alias(key),
    )
    out = be.auc(df, by=[key, "fold"], score=_COLS, pool="fold", averages="macro_roc_auc").sort(key)
    assert out.columns == [key, "n", "macro_roc_auc", "n_pooled", "macro_roc_auc_mean", "macro_roc_auc_std"]
    for model, row in zip("ab", out.iter_rows(named=True), strict=True):
        part = df.filter(pl.col(key) == model)
        per = [
            metrics.roc_auc_score(p["label"].to_numpy(), p.select(_COLS).to_numpy(), multi_class="ovr")
            for p in (part.filter(pl.col("fold") == f) for f in (0, 1))
        ]
        assert row[key] == model and row["n_pooled"] == 2
        assert row["macro_roc_auc_mean"] == pytest.approx(np.mean(per), abs=1e-12)
        assert row["macro_roc_auc_std"] == pytest.approx(np.std(per, ddof=1), abs=1e-12)


@pytest.mark.parametrize(("dtype", "extra"), [(pl.Int8, 200), (pl.Enum(["0", "1", "2"]), "3")])
def test_a_class_the_label_dtype_cannot_hold_is_keyed_as_evaluate_keys_it(dtype, extra):
    # classes= naming a class the labels' dtype cannot hold (200 beside Int8 labels, "3" beside an Enum
    # of "0"-"2") raised polars' InvalidOperationError in auc and sweep, where evaluate takes it
    # (a class column of Int64, or String): the extra class is NaN and left out of the averages
    ints = multiclass_scores(n_runs=1, seed=15).with_columns(s3=pl.lit(0.0))
    df = ints.with_columns(pl.col("label").cast(pl.String).cast(dtype))
    classes = [*df["label"].unique().sort().to_list(), extra]
    cols = [*_COLS, "s3"]
    y, s = ints["label"].to_numpy(), ints.select(cols).to_numpy()
    top = df.with_columns(prediction=pl.concat_list(_COLS).list.arg_max().cast(pl.String).cast(dtype))
    ev = be.evaluate(top, classes=classes, per_class=True, measures=["recall"])
    per = be.auc(df, score=cols, classes=classes, per_class=True).sort("class")
    assert per.schema["class"] == ev.schema["class"] == (pl.Int64 if dtype == pl.Int8 else pl.String)
    assert per["class"].to_list() == ev["class"].to_list() == classes
    for j in range(3):
        assert per["roc_auc"][j] == pytest.approx(metrics.roc_auc_score(y == j, s[:, j]), abs=1e-12)
        assert per["pr_auc"][j] == pytest.approx(metrics.average_precision_score(y == j, s[:, j]), abs=1e-12)
    assert np.isnan(per["roc_auc"][3]) and np.isnan(per["pr_auc"][3])
    got = be.auc(df, score=cols, classes=classes).row(0, named=True)
    for name, value in _sklearn_averages(y, s[:, :3]).items():
        assert got[name] == pytest.approx(value, abs=1e-12), name
    swept = be.sweep(df, score=cols, classes=classes, thresholds=[0.3, 0.6], measures=[])
    assert swept.schema["class"] == per.schema["class"] and swept.height == 8
    for row in swept.iter_rows(named=True):
        j = classes.index(row["class"])
        pos, pred = y == j, s[:, j] >= row["threshold"]
        assert (row["tp"], row["fp"], row["fn"], row["tn"]) == (
            (pos & pred).sum(), (~pos & pred).sum(), (pos & ~pred).sum(), (~pos & ~pred).sum()
        )  # fmt: skip


def test_a_dict_whose_2d_array_is_the_score_column_scores_each_class():
    # a 2-D float numpy array read as one number a row: be.auc and be.sweep refused it with
    # "score column 's' has dtype Array(Float64, shape=(3,)); scores must be numeric", though a
    # polars frame of the same dict is scored one class per entry of each row
    df = multiclass_scores(n_runs=1, seed=16)
    y, s = df["label"].to_numpy(), df.select(_COLS).to_numpy()
    data = {"label": y, "s": s}
    got = be.auc(data, score="s")
    for name, value in _sklearn_averages(y, s).items():
        assert got[name][0] == pytest.approx(value, abs=1e-12), name
    assert got.equals(be.auc(pl.DataFrame(data), score="s"))
    per = be.auc(data, score="s", per_class=True).sort("class")
    for k in range(3):
        assert per["roc_auc"][k] == pytest.approx(metrics.roc_auc_score(y == k, s[:, k]), abs=1e-12)
    swept = be.sweep(data, score="s", thresholds=[0.3, 0.6], measures=[])
    assert swept.height == 6
    for row in swept.iter_rows(named=True):
        pos, pred = y == row["class"], s[:, row["class"]] >= row["threshold"]
        assert (row["tp"], row["fp"], row["fn"], row["tn"]) == (
            (pos & pred).sum(), (~pos & pred).sum(), (pos & ~pred).sum(), (~pos & ~pred).sum()
        )  # fmt: skip
