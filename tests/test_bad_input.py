"""Issue #20's "Bad input" list through `evaluate`: a named error or a defined result, never a crash.

The leaderboard's side is in tests/test_selection.py (`test_bad_ci_is_named`,
`test_one_run_one_example_one_class`) and tests/test_clustered.py (nulls, varying clusters).
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
import warnings

import numpy as np
import polars as pl
import pytest
from scipy import stats

import batcheval as be
from batcheval.errors import InvalidArgumentError
from tests.cli_run import run_cli


def _frame() -> pl.DataFrame:
    return pl.DataFrame(
        {"run": [0, 0, 0, 1, 1, 1], "label": [0, 1, 1, 0, 1, 0], "prediction": [0, 1, 0, 1, 1, 0]}
    )


@pytest.mark.parametrize("ci", [0, 1, 1.5, -0.1, 95, float("nan"), True, "0.95", "abc"])
def test_evaluate_names_a_bad_ci_and_its_value(ci):
    shown = "nan" if isinstance(ci, float) and math.isnan(ci) else repr(ci)
    # a percentage gets the level it meant
    meant = "; for 95 % give ci=0.95" if ci == 95 else ""
    with pytest.raises(InvalidArgumentError) as err:
        be.evaluate(_frame(), by="run", ci=ci)
    assert str(err.value) == f"ci must be a confidence level strictly between 0 and 1, got {shown}{meant}"


@pytest.mark.parametrize("call", ["evaluate", "auc", "leaderboard"])
def test_a_ci_beyond_the_largest_float_is_named(call):
    """An integer beyond the largest float is a numbers.Real that float() refuses: a raw
    OverflowError from check_level before, in every function that takes ci=."""
    df = _frame().with_columns(score=pl.Series([0.1, 0.9, 0.4, 0.8, 0.7, 0.2]))
    with pytest.raises(InvalidArgumentError) as err:
        getattr(be, call)(df, ci=10**400)
    assert str(err.value) == (
        "ci must be a confidence level strictly between 0 and 1, got 100000000000000000...0000000000000000000"
    )


def _one_class() -> pl.DataFrame:
    # every example of every group real class 1 and predicted 1: the class set has one class
    return pl.DataFrame(
        {"run": ["a", "a", "b"], "example": [0, 1, 2], "label": [1, 1, 1], "prediction": [1, 1, 1]}
    )


@pytest.mark.parametrize("kwargs", [{}, {"example": "example"}])
def test_one_class_with_intervals_is_defined(kwargs):
    """Before: ZeroDivisionError in pseudo_count(1) from the chance-corrected intervals."""
    out = be.evaluate(_one_class(), by="run", ci=0.95, **kwargs)
    assert out["n"].to_list() == [2, 1]
    # nothing to compare classes with: the chance-corrected intervals are undefined
    assert out["informedness_ci_low"].is_nan().all() and out["informedness_ci_high"].is_nan().all()
    if not kwargs:
        assert out["kappa_cohen_ci_low"].is_nan().all()
        # accuracy 2 of 2: Brown, Cai & DasGupta's Poisson lower end for x = 2 ≤ x* = 2 (m ≤ 50),
        # ½ χ²_{4, 0.05} / m, and for 1 of 1 the same with x = 1
        want = [stats.chi2.ppf(0.05, 2 * x) / 2 / x for x in (2, 1)]
        np.testing.assert_allclose(out["accuracy_ci_low"].to_numpy(), want, rtol=1e-12)
        assert out["accuracy_ci_high"].to_list() == [1.0, 1.0]


def test_one_class_with_intervals_on_the_command_line(tmp_path):
    path = tmp_path / "one.parquet"
    _one_class().write_parquet(path)
    proc = run_cli("evaluate", str(path), "--by", "run", "--ci", "0.95",
                   "--measures", "accuracy,informedness", "-o", str(tmp_path / "out.csv"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    out = pl.read_csv(tmp_path / "out.csv")
    assert math.isclose(out["accuracy_ci_low"][0], stats.chi2.ppf(0.05, 4) / 4, rel_tol=1e-12)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda df: be.evaluate(df, by=1), "by= takes a column name or a list of names, got 1"),
        (lambda df: be.evaluate(df, by=["run", 2]), "by= takes column names, got 2 in by=['run', 2]"),
        (
            lambda df: be.sweep(df, by=1, score="prediction"),
            "by= takes a column name or a list of names, got 1",
        ),
        (lambda df: be.compare(df, run="run", fold=None), "fold= takes a column name, got None"),
        (lambda df: be.compare(df, run="run", fold="run", repeat=3), "repeat= takes a column name, got 3"),
        (
            lambda df: be.evaluate(y_true=1, y_pred=1),
            "y_true= takes a list, array or Series of labels, got 1",
        ),
        (
            lambda df: be.evaluate(y_true=[1, 0], y_pred=0.5),
            "y_pred= takes a list, array or Series of labels, got 0.5",
        ),
        # a string has a length, but its characters are not labels (sklearn refuses it too)
        (
            lambda df: be.evaluate(y_true="abc", y_pred="abd"),
            "y_true= takes a list, array or Series of labels, got 'abc'",
        ),
        (
            lambda df: be.evaluate(y_true=[0, 1], y_pred={0: 1, 1: 1}),
            "y_pred= takes a list, array or Series of labels, got {0: 1, 1: 1}",
        ),
    ],
)
def test_argument_of_a_wrong_type_is_named_with_its_value(call, message):
    with pytest.raises(InvalidArgumentError, match=re.escape(message)):
        call(_frame())


@pytest.mark.parametrize("source", ["y_true", "data"])
def test_labels_polars_cannot_read_strictly_get_batchevals_errors(source):
    # y_true=[0, 1.5] and the rest raised polars' bare TypeError (data= wrapped only some of them)
    def run(y_true):
        if source == "y_true":
            return be.evaluate(y_true=y_true, y_pred=[0, 1])
        return be.evaluate({"label": y_true, "prediction": [0, 1]})

    # integers with a float read as floats, as numpy reads them: a non-integer float is no label
    named = "y_true=" if source == "y_true" else "label column 'label'"
    with pytest.raises(
        be.InvalidLabelError,
        match=re.escape(named) + r" is float and holds 1 non-integer value \(first: 1\.5\)",
    ):
        run([0, 1.5])
    assert run([0, 1.0])["accuracy"].item() == 1.0  # whole floats are the integers they hold
    with pytest.raises(
        be.InvalidLabelError, match=re.escape(named) + r" \(Int128\) holds 18446744073709551616, "
    ):
        run([0, 2**64])
    with pytest.raises(
        InvalidArgumentError, match=re.escape(named) + r" cannot be read.*found value of type String: \"a\""
    ):
        run([0, "a"])
    with pytest.raises(
        InvalidArgumentError, match=re.escape(f"{named} is a set, whose order is not the rows'")
    ):
        run({0, 1})


def test_auc_of_a_path_or_a_dataset_says_it_needs_a_frame_in_memory(tmp_path):
    import pyarrow.dataset as ds

    path = tmp_path / "preds.parquet"
    _frame().with_columns(score=pl.col("prediction") * 0.5).write_parquet(path)
    with pytest.raises(
        InvalidArgumentError, match=re.escape(f"auc needs a frame in memory, got the path {str(path)!r}")
    ):
        be.auc(str(path))
    with pytest.raises(
        InvalidArgumentError, match=r"auc needs a frame in memory, got a pyarrow dataset .*pl\.read_parquet"
    ):
        be.auc(ds.dataset(path))
    with pytest.raises(InvalidArgumentError, match="needs a frame in memory, got the path"):
        be.leaderboard(path, run="run")


@pytest.mark.parametrize("flag", [np.True_, np.False_, 1, 0])
def test_per_class_takes_numpy_bools(flag):
    # np.True_ raised "can't multiply sequence by non-int of type 'numpy.bool'"
    df = pl.DataFrame({"run": [1, 1, 1, 1], "label": [0, 1, 2, 2], "prediction": [0, 1, 1, 2]})
    got = be.evaluate(df, by="run", measures=["recall"] if flag else ["accuracy"], per_class=flag)
    assert got.height == (3 if flag else 1)
    if flag:
        assert got["recall"].to_list() == [1.0, 1.0, 0.5]  # scikit-learn's recall_score(average=None)


@pytest.mark.parametrize("flag", [None, 2, "yes"])
def test_per_class_of_another_kind_is_named(flag):
    df = pl.DataFrame({"run": [1, 1], "label": [0, 1], "prediction": [0, 1]})
    message = f"per_class= takes True or False, got {flag!r}"
    with pytest.raises(InvalidArgumentError, match=re.escape(message)):
        be.evaluate(df, by="run", per_class=flag)


@pytest.mark.parametrize("flag", [None, 2, "no", "yes", 0.5])
def test_drop_nulls_progress_and_nonzero_of_another_kind_are_named(flag):
    # any truthy value was taken as True: drop_nulls="no" dropped the rows with nulls
    df = pl.DataFrame({"run": [1, 1], "label": [0, None], "prediction": [0, 1], "score": [0.2, 0.7]})
    calls = {
        "drop_nulls=": [
            lambda: be.evaluate(df, by="run", drop_nulls=flag),
            lambda: be.ContingencyTable.from_frame(df, by="run", drop_nulls=flag),
            lambda: be.sweep(df, by="run", score="score", drop_nulls=flag),
            lambda: be.auc(df, by="run", score="score", drop_nulls=flag),
            lambda: be.curves(df, by="run", score="score", drop_nulls=flag),
            lambda: be.leaderboard(df, run="run", drop_nulls=flag),
        ],
        "nonzero=": [lambda: be.ContingencyTable.from_frame(df.drop_nulls(), by="run").to_long(nonzero=flag)],
    }
    if flag is not None:  # progress=None is the default: a bar in a terminal only
        calls["progress="] = [
            lambda: be.evaluate(df, by="run", progress=flag),
            lambda: be.sweep(df, by="run", score="score", progress=flag),
        ]
    for name, funcs in calls.items():
        for call in funcs:
            with pytest.raises(
                InvalidArgumentError, match=re.escape(f"{name} takes True or False, got {flag!r}")
            ):
                call()


@pytest.mark.parametrize("flag", [None, 2, "no", "yes", 0.5])
def test_drop_nonfinite_and_auc_per_class_of_another_kind_are_named(flag):
    # read by truth beside a strict drop_nulls=: drop_nonfinite="no" dropped the NaN row (auc of 3
    # rows, a sweep n = 3 of 4) and per_class="no" gave per-class rows, None the averages
    df = pl.DataFrame({"run": [1, 1, 1, 1], "label": [0, 1, 0, 1], "score": [0.1, math.nan, 0.3, 0.8]})
    mc = pl.DataFrame(
        {"label": [0, 1, 2, 2, 0, 1], "p0": [0.8, 0.1, 0.1, 0.3, 0.3, 0.5],
         "p1": [0.1, 0.6, 0.2, 0.3, 0.5, 0.2], "p2": [0.1, 0.3, 0.7, 0.4, 0.2, 0.3]}
    )  # fmt: skip
    calls = {
        "drop_nonfinite=": [
            lambda: be.sweep(df, by="run", thresholds=[0.5], drop_nonfinite=flag),
            lambda: be.auc(df, by="run", drop_nonfinite=flag),
            lambda: be.auc(df, by="run", pool="run", drop_nonfinite=flag),
            lambda: be.curves(df, by="run", drop_nonfinite=flag),
            lambda: be.sweep(mc, score=["p0", "p1", "p2"], drop_nonfinite=flag),
        ],
        "per_class=": [
            lambda: be.auc(mc, score=["p0", "p1", "p2"], per_class=flag),
            lambda: be.auc(df, by="run", per_class=flag),
        ],
    }
    for name, funcs in calls.items():
        for call in funcs:
            with pytest.raises(InvalidArgumentError) as err:
                call()
            assert str(err.value) == f"{name} takes True or False, got {flag!r}"


@pytest.mark.parametrize("flag", [np.True_, 1, np.False_, 0])
def test_drop_nonfinite_and_auc_per_class_take_numpy_bools_and_zero_or_one(flag):
    # against numpy's counts at score >= 0.5 of the finite rows, and scikit-learn's per-class AUC
    from sklearn.metrics import roc_auc_score

    df = pl.DataFrame({"label": [0, 1, 0, 1], "score": [0.1, math.nan, 0.3, 0.8]})
    if flag:
        with pytest.warns(be.BatchevalWarning, match="dropped 1 row with a NaN or infinite score"):
            out = be.sweep(df, thresholds=[0.5], drop_nonfinite=flag, measures=[])
        assert out.select("n", "tp", "fp", "fn", "tn").rows() == [(3, 1, 0, 0, 2)]
    else:
        with pytest.raises(be.InvalidScoreError, match="has 1 NaN or infinite value"):
            be.sweep(df, thresholds=[0.5], drop_nonfinite=flag)
    y = np.array([0, 1, 2, 2, 0, 1])
    p = np.array([[0.8, 0.1, 0.1], [0.1, 0.6, 0.3], [0.1, 0.2, 0.7], [0.3, 0.3, 0.4], [0.3, 0.5, 0.2],
                  [0.5, 0.2, 0.3]])  # fmt: skip
    mc = pl.DataFrame({"label": y, "p0": p[:, 0], "p1": p[:, 1], "p2": p[:, 2]})
    out = be.auc(mc, score=["p0", "p1", "p2"], per_class=flag)
    if flag:
        expected = [roc_auc_score(y == k, p[:, k]) for k in range(3)]
        np.testing.assert_allclose(out["roc_auc"].to_numpy(), expected, rtol=1e-12)
    else:
        assert out["macro_roc_auc"][0] == pytest.approx(roc_auc_score(y, p, multi_class="ovr"), abs=1e-12)


@pytest.mark.parametrize("flag", [np.True_, 1])
def test_drop_nulls_and_nonzero_take_numpy_bools_and_one(flag):
    df = pl.DataFrame({"run": [1, 1, 1], "label": [0, None, 1], "prediction": [0, 1, 0]})
    with pytest.warns(be.BatchevalWarning, match="dropped 1 of 3 rows"):
        table = be.ContingencyTable.from_frame(df, by="run", drop_nulls=flag)
    assert table.to_long(nonzero=flag).rows() == [(1, 0, 0, 1), (1, 1, 0, 1)]


@pytest.mark.parametrize("key", [pl.Int64, pl.String])
@pytest.mark.parametrize(("argument", "column"), [("example", "label"), ("cluster", "prediction")])
def test_example_or_cluster_naming_a_class_column_is_refused(key: type, argument: str, column: str):
    # with an Int64 key example="label" clustered the rows by their class without a word; with a
    # String key the message named the wrong role ("as key and as label")
    frame = pl.DataFrame({"run": [1, 1, 2, 2], "label": [0, 1, 0, 1], "prediction": [0, 1, 1, 1]})
    frame = frame.with_columns(pl.col("run").cast(key))
    message = f"column '{column}' is named twice: as {argument} and as {column}"
    with pytest.raises(be.DuplicateColumnError, match=re.escape(message)):
        be.evaluate(frame, by="run", ci=0.95, **{argument: column})
    with pytest.raises(be.DuplicateColumnError, match=re.escape(message)):
        be.leaderboard(frame, **{argument: column})


@pytest.mark.parametrize(
    "kwargs",
    [{"example": ["ex", "ex"]}, {"example": "ex", "cluster": ["cl", "cl"]}, {"cluster": ["cl", "cl"]}],
)
def test_example_or_cluster_naming_a_column_twice_is_refused(kwargs: dict):
    # evaluate and leaderboard raised polars' DuplicateError ("projections contained duplicate output
    # name 'ex'", "multiple fields with name 'cl' found") for a column repeated in example= or cluster=
    frame = pl.DataFrame({"run": [0, 0, 1, 1] * 5, "ex": list(range(20)), "cl": [i // 2 for i in range(20)],
                          "label": [0, 1] * 10, "prediction": [0, 1, 1, 1] * 5})  # fmt: skip
    argument = "cluster" if "cluster" in kwargs else "example"
    column = kwargs[argument][0]
    message = f"column '{column}' is named twice in {argument}=['{column}', '{column}']"
    with pytest.raises(be.DuplicateColumnError, match=f"^{re.escape(message)}$"):
        be.evaluate(frame, by="run", ci=0.95, **kwargs)
    with pytest.raises(be.DuplicateColumnError, match=f"^{re.escape(message)}$"):
        be.leaderboard(frame, run="run", **kwargs)
    # one column in both example= and cluster= stays allowed
    assert be.leaderboard(frame, run="run", example="ex", cluster="ex").height == 2


@pytest.mark.parametrize(
    ("call", "shown"),
    [
        (lambda df: be.evaluate(df, by="run", label=["label"]), "label= takes a column name (a string), "
         "got a list (['label'])"),
        (lambda df: be.evaluate(df, by="run", label=None), "label= takes a column name (a string), got None"),
        (lambda df: be.leaderboard(df, run="run", prediction=["prediction"]), "prediction= takes a column "
         "name (a string), got a list (['prediction'])"),
        (lambda df: be.ContingencyTable.from_frame(df, by="run", prediction=np.array(["prediction"])),
         "prediction= takes a column name (a string), got an ndarray (array(['prediction'], dtype='<U10'))"),
        (lambda df: be.report(df, label=["label"]), "label= takes a column name (a string), got a list "
         "(['label'])"),
    ],
)  # fmt: skip
def test_a_label_or_prediction_that_is_no_name_is_named(call, shown):
    # a list or array as label= or prediction= raised a bare "unhashable type: 'list'" from check_roles
    with pytest.raises(InvalidArgumentError) as err:
        call(_frame())
    assert str(err.value) == shown


_ZERO_D = "takes a column name or a list of names, got array("


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda df: be.evaluate(df, by=np.array("run")), f"by= {_ZERO_D}'run', dtype='<U3')"),
        (lambda df: be.evaluate(df, by="run", pool=np.array("fold")), f"pool= {_ZERO_D}'fold', dtype='<U4')"),
        (lambda df: be.evaluate(df, by="run", example=np.array("ex")),
         f"example= {_ZERO_D}'ex', dtype='<U2')"),
        (lambda df: be.leaderboard(df, run=np.array("run")), f"run= {_ZERO_D}'run', dtype='<U3')"),
        (lambda df: be.leaderboard(df, cluster=np.array("ex")), f"cluster= {_ZERO_D}'ex', dtype='<U2')"),
        (lambda df: be.ContingencyTable.from_frame(df, by="run").pool(np.array("run")),
         f"pool= {_ZERO_D}'run', dtype='<U3')"),
        (lambda df: be.auc(df, score=np.array("score")), "score= takes a score column's name or a list of "
         "them (one per class, in class order), got array('score', dtype='<U5')"),
        (lambda df: be.evaluate(y_true=np.array(1), y_pred=np.array(1)),
         "y_true= takes a list, array or Series of labels, got array(1)"),
        (lambda df: be.report(y_true=[1], y_pred=np.array(1)),
         "y_pred= takes a list, array or Series of labels, got array(1)"),
        (lambda df: be.plot_confusion(y_true=np.array(1), y_pred=[1]),
         "y_true= takes a list, array or Series of labels, got array(1)"),
        (lambda df: be.evaluate(df, y_true=np.array(1), y_pred=np.array(1)),
         "give either data= or both y_true= and y_pred=, got data=a frame, y_true=array(1), y_pred=array(1)"),
    ],
)  # fmt: skip
def test_a_zero_dimensional_array_as_a_column_or_labels_is_named(call, message):
    # a 0-d array is iterable and has __len__ to isinstance and hasattr, but list() and len() raised
    # a raw TypeError (iteration over a 0-d array, len() of unsized object)
    df = _frame().with_columns(fold=pl.Series([0, 1, 0, 0, 1, 0]), ex=pl.Series([0, 1, 2, 0, 1, 2]),
                               score=pl.Series([0.1, 0.9, 0.4, 0.8, 0.7, 0.2]))  # fmt: skip
    with pytest.raises(InvalidArgumentError) as err:
        call(df)
    assert str(err.value) == message


@pytest.mark.parametrize("call", [be.report, be.plot_confusion])
@pytest.mark.parametrize("kind", [list, np.array])
def test_report_given_labels_positionally_points_to_y_true(call, kind):
    # report(y_true, y_pred), as scikit-learn's classification_report is called: "unhashable type"
    with pytest.raises(InvalidArgumentError) as err:
        call(kind([0, 1, 1]), kind([0, 1, 0]))
    shown = "a list ([0, 1, 0])" if kind is list else "an ndarray (array([0, 1, 0]))"
    assert str(err.value) == (
        f"label= takes a column name (a string), got {shown}; labels and predictions as lists or "
        "arrays are given by keyword: y_true=..., y_pred=..."
    )


@pytest.mark.parametrize("call", [be.evaluate, be.report, be.plot_confusion])
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"y_true": 1, "y_pred": 0}, "y_true= takes a list, array or Series of labels, got 1"),
        # a string beside a list was broadcast by polars (a raw ShapeError); two strings were read
        # silently as one example of class "ab"
        ({"y_true": ["a", "b"], "y_pred": "ab"}, "y_pred= takes a list, array or Series of labels, got 'ab'"),
        ({"y_true": "ab", "y_pred": "ab"}, "y_true= takes a list, array or Series of labels, got 'ab'"),
        ({"y_true": [0, 1], "y_pred": {0: 1}}, "y_pred= takes a list, array or Series of labels, got {0: 1}"),
        ({"y_true": [0, 1]}, "give either data= or both y_true= and y_pred=, got data=None, y_true=2 values, "
         "y_pred=None"),
    ],
)  # fmt: skip
def test_report_and_plot_confusion_check_y_true_and_y_pred_as_evaluate_does(call, kwargs, message):
    # report and plot_confusion skipped evaluate's check: a scalar raised a bare TypeError
    # ("object of type 'int' has no len()")
    with pytest.raises(InvalidArgumentError) as err:
        call(**kwargs)
    assert str(err.value) == message


def test_report_refuses_a_generator_and_labels_beside_a_table():
    table = be.ContingencyTable.from_frame(pl.DataFrame({"label": [0, 1], "prediction": [0, 1]}))
    with pytest.raises(
        InvalidArgumentError, match=r"^y_true= takes a list, array or Series of labels, got <gen"
    ):
        be.report(y_true=(v for v in [0, 1]), y_pred=[0, 1])
    # y_true= beside a table was ignored: the report was the table's
    with pytest.raises(InvalidArgumentError) as err:
        be.report(table, y_true=[1, 1], y_pred=[0, 0])
    assert str(err.value) == (
        "give either data= or both y_true= and y_pred=, got data=a frame, y_true=2 values, y_pred=2 values"
    )


_NOT_A_FRAME = (
    "data= takes a polars DataFrame or LazyFrame, a pyarrow Table, a pandas DataFrame or a dict of "
    "equal-length columns, got an ndarray of shape (6, 3); labels and predictions as lists or arrays "
    "are given by keyword: y_true=..., y_pred=... (evaluate, report, plot_confusion)"
)


@pytest.mark.parametrize(
    "call",
    [
        lambda a: be.leaderboard(a, run="run"),
        lambda a: be.sweep(a, by="run"),
        lambda a: be.auc(a, by="run"),
        lambda a: be.compare(a, measure="accuracy"),
        lambda a: be.rank_methods(a, method="run", dataset="label", measure="prediction"),
        be.report,
        lambda a: be.ContingencyTable.from_frame(a, by="run"),
    ],
)
def test_an_array_as_data_is_an_invalid_argument(call):
    # a bare TypeError ("data must be a polars DataFrame ..., got ndarray"), no BatchevalError
    with pytest.raises(InvalidArgumentError) as err:
        call(_frame().to_numpy())
    assert str(err.value) == _NOT_A_FRAME


@pytest.mark.parametrize(
    ("data", "by", "message"),
    [
        (["cat", "dog", "dog"], ["cat", "dog", "cat"], "evaluate(y_true, y_pred) takes keywords: "
         "evaluate(y_true=..., y_pred=...); got data=a list (['cat', 'dog', 'dog']) and by=a list "
         "(['cat', 'dog', 'cat'])"),
        ([0, 1, 1], [0, 1, 0], "evaluate(y_true, y_pred) takes keywords: evaluate(y_true=..., "
         "y_pred=...); got data=a list ([0, 1, 1]) and by=a list ([0, 1, 0])"),
        (["cat", "dog", "dog"], None, "data= takes a frame, a path or a list of paths, got a list (['cat', "
         "'dog', 'dog']); labels and predictions as lists or arrays are given by keyword: "
         "evaluate(y_true=..., y_pred=...)"),
        (pl.Series("label", [0, 1, 1]), None, "data= takes a frame, a path or a list of paths, got a polars "
         "Series of 3 values; labels and predictions as lists or arrays are given by keyword: "
         "evaluate(y_true=..., y_pred=...)"),
    ],
)  # fmt: skip
def test_evaluate_called_as_scikit_learn_points_to_y_true(data, by, message):
    # evaluate(["cat", ...], ["cat", ...]) said "column 'cat' is named twice: as key and as key", and
    # evaluate(["cat", ...]) read the labels as file paths ("cannot read 'cat': no such file")
    with pytest.raises(InvalidArgumentError) as err:
        be.evaluate(data, by)
    assert str(err.value) == message


def test_a_list_of_missing_files_is_still_read_as_paths(tmp_path):
    # the labels check leaves lists of paths alone: a missing file is still the source's error
    missing = str(tmp_path / "run1.parquet")
    with pytest.raises(be.errors.SourceError, match=re.escape(f"cannot read {missing!r}")):
        be.evaluate([missing, missing], by=["run", "fold"])


@pytest.mark.parametrize("call", [be.evaluate, be.report])
@pytest.mark.parametrize(
    ("y_true", "y_pred", "error", "message"),
    [
        ([0, 1, 1], [0, 1], InvalidArgumentError, "y_true= has 3 values but y_pred= has 2"),
        ([0, 1, 1], [0.2, 0.8, 0.4], be.InvalidLabelError, "y_pred= is float and holds 3 non-integer "
         "values (first: 0.2); class labels must be integers, booleans or strings; scores or "
         "probabilities take be.sweep or be.auc"),
        ([0.5, 1, 1], [0, 1, 1], be.InvalidLabelError, "y_true= is float and holds 1 non-integer "
         "value (first: 0.5); class labels must be integers, booleans or strings"),
    ],
)  # fmt: skip
def test_errors_of_the_short_form_name_y_true_and_y_pred(call, y_true, y_pred, error, message):
    # they named the dict the short form builds: "a dict of columns needs columns of one length, got
    # {'label': 3, 'prediction': 2}", "prediction column 'prediction' is float and holds ..."
    with pytest.raises(error) as err:
        call(y_true=y_true, y_pred=y_pred)
    assert str(err.value) == message


def test_a_null_in_the_short_form_names_y_true():
    with pytest.raises(be.NullValuesError) as err:
        be.evaluate(y_true=[0, None, 1], y_pred=[0, 1, 1])
    assert str(err.value) == "y_true= has 1 null value out of 3; pass drop_nulls=True to skip those rows"
    with pytest.raises(be.NullValuesError) as err:
        be.report(y_true=[0, 1, 1], y_pred=[0, 1, None])
    assert str(err.value) == (
        "y_pred= has 1 null value out of 3; a report counts every row: drop the rows with a null in "
        "y_true= or y_pred= first"
    )


def _board_frame() -> pl.DataFrame:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 40)
    runs = [np.where(rng.random(40) < acc, y, 1 - y) for acc in (0.8, 0.7)]
    return pl.concat(
        pl.DataFrame({"run": r, "example": np.arange(40), "label": y, "prediction": p})
        for r, p in enumerate(runs)
    )


@pytest.mark.parametrize("n_boot", [np.int16(200), np.uint8(200), np.int64(200)])
def test_n_boot_as_a_numpy_integer_is_that_integer(n_boot):
    """np.int16(200) passed the check and overflowed in the bootstrap's chunk sizes (OverflowError:
    16777216 out of bounds for int16), as did np.uint8 with a smoothed macro_f1."""
    df = _frame()
    for kw in ({"ci_method": "bootstrap", "measures": ["informedness"]}, {"measures": ["macro_f1"]}):
        want = be.evaluate(df, ci=0.95, seed=0, n_boot=200, **kw)
        assert be.evaluate(df, ci=0.95, seed=0, n_boot=n_boot, **kw).equals(want)
    board = _board_frame()
    for kw in ({"measure": "macro_f1"}, {"measure": "recall", "example": "example"}):
        want = be.leaderboard(board, seed=0, n_boot=200, **kw)
        assert be.leaderboard(board, seed=0, n_boot=n_boot, **kw).equals(want)


def test_an_n_boot_beyond_memory_is_named():
    """n_boot=10**11 passed the check, then numpy raised its own MemoryError (745 GiB for one
    array); the replicates' values alone are checked against the memory available."""
    df = _frame()
    with pytest.raises(be.MemoryBudgetError, match=r"^n_boot=10000000000000 \(a value per replicate\) needs"):
        be.evaluate(df, measures=["informedness"], ci=0.95, ci_method="bootstrap", n_boot=10**13)
    with pytest.raises(be.MemoryBudgetError, match=r"^n_boot=10000000000000 "):
        be.evaluate(df, measures=["macro_f1"], ci=0.95, n_boot=np.int64(10**13))
    with pytest.raises(be.MemoryBudgetError, match=r"^n_boot=10000000000000 "):
        be.leaderboard(_board_frame(), measure="recall", example="example", n_boot=10**13)


@pytest.mark.parametrize(
    ("call", "named"),
    [
        pytest.param(
            lambda f: be.evaluate(f, by=["run", "fold"], pool=["fold", "fold"]),
            "pool=['fold', 'fold']",
            id="evaluate-pool",
        ),
        pytest.param(lambda f: be.evaluate(f, by=["run", "run"]), "by=['run', 'run']", id="evaluate-by"),
        pytest.param(
            lambda f: be.leaderboard(f, run="run", pool=["fold", "fold"]),
            "pool=['fold', 'fold']",
            id="leaderboard-pool",
        ),
        pytest.param(
            lambda f: be.leaderboard(f, run=["run", "run"], pool="fold"),
            "run=['run', 'run']",
            id="leaderboard-run",
        ),
        pytest.param(
            lambda f: be.sweep(f.drop("prediction"), by="run", pool=["fold", "fold"]),
            "pool=['fold', 'fold']",
            id="sweep-pool",
        ),
        pytest.param(
            lambda f: be.auc(f.drop("prediction"), by=["run", "run"]), "by=['run', 'run']", id="auc-by"
        ),
        pytest.param(
            lambda f: be.ContingencyTable.from_frame(f, by=["fold", "fold"]),
            "by=['fold', 'fold']",
            id="table-by",
        ),
    ],
)
def test_a_key_argument_naming_a_column_twice_is_refused(call, named: str):
    # pool=['fold', 'fold'] pooled as pool='fold' does without a word, and by=['run', 'run'] said
    # "column 'run' is named twice: as key and as key", naming no argument
    rng = np.random.default_rng(1)
    frame = pl.DataFrame({"run": np.repeat([0, 1], 40), "fold": np.tile(np.repeat([0, 1], 20), 2),
                          "label": rng.integers(0, 2, 80), "prediction": rng.integers(0, 2, 80),
                          "score": rng.random(80)})  # fmt: skip
    column = named.split("'")[1]
    message = f"column '{column}' is named twice in {named}"
    with pytest.raises(be.DuplicateColumnError, match=f"^{re.escape(message)}$"):
        call(frame)


@pytest.mark.parametrize("role", ["label", "prediction"])
def test_a_decimal_class_column_with_a_fraction_or_beyond_int64_is_refused_naming_the_value(role: str):
    # a SQL DECIMAL column of class codes (duckdb, Spark's parquet) is read as the integers it holds
    # (tests/test_decimal_labels.py); a cast to Int64 would have read 1.50 as class 1 without a word
    from decimal import Decimal

    codes = pl.DataFrame({"run": [1] * 4, "label": [0, 1, 1, 0], "prediction": [0, 1, 0, 0]})
    halves = pl.Series(role, [Decimal(v) for v in ("0.00", "1.50", "1.00", "0.25")], dtype=pl.Decimal(10, 2))
    message = (f"{role} column '{role}' (Decimal(precision=10, scale=2)) holds 2 values with a fraction "
               "(first: 1.50); class labels must be whole numbers, booleans or strings")  # fmt: skip
    with pytest.raises(be.InvalidLabelError, match=f"^{re.escape(message)}$"):
        be.evaluate(codes.with_columns(halves), by="run")
    huge = pl.Series(role, [Decimal(10**20), Decimal(1), Decimal(1), Decimal(0)], dtype=pl.Decimal(38, 0))
    message = (f"{role} column '{role}' (Decimal(precision=38, scale=0)) holds 100000000000000000000, which "
               "does not fit in int64; class labels must fit in int64, or be strings")  # fmt: skip
    with pytest.raises(be.InvalidLabelError, match=f"^{re.escape(message)}$"):
        be.evaluate(codes.with_columns(huge), by="run")
    # the float column of the same values is refused as before
    with pytest.raises(be.InvalidLabelError, match="non-integer value"):
        be.evaluate(codes.with_columns(halves.cast(pl.Float64)), by="run")


@pytest.mark.parametrize(
    ("ci", "meant"), [(90, "0.9"), (95, "0.95"), (99, "0.99"), (99.9, "0.999"), (50, "0.5")]
)
def test_a_ci_given_as_a_percentage_names_the_level_it_meant(ci, meant):
    # ci=95 said only "strictly between 0 and 1, got 95"; 1.5 or 100 are no percentage of a level
    message = (
        f"ci must be a confidence level strictly between 0 and 1, got {ci!r}; for {ci:g} % give ci={meant}"
    )
    with pytest.raises(InvalidArgumentError, match=f"^{re.escape(message)}$"):
        be.evaluate(_frame(), by="run", ci=ci)
    assert be.evaluate(_frame(), by="run", ci=float(meant)).height == 2  # the level it names is taken


def test_the_cli_names_the_level_a_percentage_meant(tmp_path):
    path = tmp_path / "p.csv"
    _frame().write_csv(path)
    proc = run_cli("evaluate", str(path), "--by", "run", "--ci", "95")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "batcheval: error: --ci must be a confidence level strictly between 0 and 1, got 95.0; "
        "for 95 % give --ci 0.95"
    )
    for no_percentage in ("1.5", "100"):
        proc = run_cli("evaluate", str(path), "--by", "run", "--ci", no_percentage)
        assert proc.returncode == 2 and "give" not in proc.stderr


@pytest.mark.parametrize("call", ["evaluate", "leaderboard"])
def test_a_contingency_table_given_as_data_points_to_its_own_measures(call):
    # "data= takes a polars DataFrame ..., got a ContingencyTable of 2 values (...); labels and
    # predictions as lists or arrays are given by keyword: y_true=..., y_pred=..."
    table = be.ContingencyTable.from_frame(_frame(), by="run")
    with pytest.raises(InvalidArgumentError) as err:
        getattr(be, call)(table)
    verb = "counts the rows of a frame" if call == "evaluate" else "ranks runs from their rows"
    assert str(err.value).startswith(
        f"{call} {verb}, got {table!r}; a table is measured by table.measures([...])"
    )
    # what the message names gives evaluate's measures of the same rows
    assert table.measures(["informedness"]).equals(be.evaluate(_frame(), by="run", measures=["informedness"]))


def test_interval_options_without_ci_are_checked_and_named():
    # ci_method="boot" was accepted without a word, and ci_method="bootstrap" with n_boot= gave no
    # interval and no warning: ci= is what asks for intervals
    frame = pl.DataFrame({"run": [1, 1, 2, 2], "label": [0, 1, 1, 0], "prediction": [0, 1, 0, 0]})
    with pytest.raises(be.InvalidArgumentError, match=r"^unknown ci_method 'boot'; use one of "):
        be.evaluate(frame, by="run", ci_method="boot")
    with pytest.raises(be.InvalidArgumentError, match=r"^n_boot must be an integer of at least 2, got 1$"):
        be.evaluate(frame, by="run", n_boot=1)
    message = ("ci_method='bootstrap', n_boot=50 set how intervals are made, and without ci= none is; "
               "pass ci=0.95 for 95 % intervals")  # fmt: skip
    with pytest.warns(be.BatchevalWarning, match=f"^{re.escape(message)}$"):
        out = be.evaluate(frame, by="run", ci_method="bootstrap", n_boot=50, measures=["recall"])
    assert out.columns == be.evaluate(frame, by="run", measures=["recall"]).columns
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the defaults, named, say nothing
        be.evaluate(frame, by="run", ci_method="wilson_delta", n_boot=1000, seed=None)


def test_an_example_or_cluster_column_that_is_a_group_key_is_refused():
    # each group held one example id: one cluster, and every interval NaN without a word
    frame = pl.DataFrame({"run": [1, 1, 2, 2] * 2, "fold": [0] * 4 + [1] * 4, "ex": [0, 1, 0, 1] * 2,
                          "label": [0, 1, 1, 0] * 2, "prediction": [0, 1, 0, 0] * 2})  # fmt: skip
    for kwargs, what in (({"example": "run"}, "example='run'"), ({"example": ["run"]}, "example=['run']"),
                         ({"example": "ex", "cluster": "run"}, "cluster='run'")):  # fmt: skip
        with pytest.raises(be.InvalidArgumentError, match=(
            rf"^{re.escape(what)} names only keys of by='run', so each group holds one "
            rf"(example|cluster); name the column that identifies the \1s within a group$"
        )):  # fmt: skip
            be.evaluate(frame, by="run", ci=0.95, **kwargs)
    # the message shows by= as given, and the pool (review: it showed the result's keys alone)
    message = ("example='run' names only keys of by=['run', 'fold'] pooled over pool='fold', so each group "
               "holds one example; name the column that identifies the examples within a group")  # fmt: skip
    with pytest.raises(be.InvalidArgumentError, match=f"^{re.escape(message)}$"):
        be.evaluate(frame, by=["run", "fold"], pool="fold", ci=0.95, example="run")
    # a pooled key is no group key: each run's two folds are two clusters
    pooled = be.evaluate(frame, by=["run", "fold"], pool="fold", ci=0.95, example="fold", measures=["f1"])
    assert pooled["n"].to_list() == [4, 4] and pooled["f1_ci_low"].is_nan().sum() == 0
    # with an id within the run, the run is part of the example's name
    named = be.evaluate(frame, by="run", ci=0.95, example=["run", "ex"], measures=["recall"])
    alone = be.evaluate(frame, by="run", ci=0.95, example="ex", measures=["recall"])
    assert named["recall_ci_low"].to_list() == alone["recall_ci_low"].to_list()


def test_one_measure_name_is_one_measure_in_the_array_functions():
    # be.measures.compute(counts, "informedness") iterated the string: "unknown measure 'i'"
    counts = np.array([[[40, 10], [20, 30]], [[5, 5], [1, 9]]])
    assert be.measures.compute(counts, "informedness").keys() == {"informedness"}
    # (tp·tn − fp·fn)/(P·N): 30·40 − 10·20 over 50·50, and 9·5 − 5·1 over 10·10
    informedness = be.measures.compute(counts, "informedness")["informedness"]
    assert informedness.tolist() == [1000 / 2500, 40 / 100]
    cells = [counts[:, 1, 1], counts[:, 0, 1], counts[:, 1, 0], counts[:, 0, 0]]
    assert be.measures.compute_cells(*cells, "f1")["f1"].tolist() == [60 / 90, 18 / 24]
    low, high = be.intervals.intervals(counts, "kappa_cohen")["kappa_cohen"]
    want = be.intervals.intervals(counts, ["kappa_cohen"])["kappa_cohen"]
    assert low.tolist() == want[0].tolist() and high.tolist() == want[1].tolist()


@pytest.mark.parametrize("fmt", ["parquet", "ipc", "ipc_stream"])
def test_a_binary_file_named_csv_is_named_not_read_as_text(tmp_path, fmt):
    # its bytes became the column names: "key column 'run' not found; the frame has columns ['PAR1\x15..."
    path = tmp_path / "scores.csv"
    frame = pl.DataFrame({"run": [1, 1], "label": [0, 1], "prediction": [0, 1]})
    getattr(frame, f"write_{fmt}")(path)
    what = {"parquet": "a parquet file", "ipc": "an Arrow IPC file", "ipc_stream": "an Arrow IPC stream"}[fmt]
    suffix = {"parquet": ".parquet", "ipc": ".arrow", "ipc_stream": None}[fmt]
    fix = f"name it with {suffix}" if suffix else "write it as parquet or as an Arrow IPC file"
    message = f"cannot read {str(path)!r} as csv: it is {what}; {fix}"
    for source in (path, [path], str(tmp_path)):
        with pytest.raises(
            be.SourceError, match=f"^(file {re.escape(repr(str(path)))}: )?{re.escape(message)}$"
        ):
            be.evaluate(source, by="run")
    proc = subprocess.run([sys.executable, "-m", "batcheval", "evaluate", str(path), "--by", "run"],
                          check=False, capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 2 and proc.stderr.strip() == f"batcheval: error: {message}"
    if suffix:
        renamed = path.rename(tmp_path / f"scores{suffix}")
        assert be.evaluate(renamed, by="run")["n"].to_list() == [2]
    # a csv whose first column is named like the magic is a csv: a binary file ends as it begins
    text = tmp_path / "flags.csv"
    text.write_text("PAR1_flag,ARROW1,run,label,prediction\n1,2,1,0,0\n1,2,1,1,1\n")
    assert be.evaluate(text, by="run", measures=["accuracy"])["accuracy"].to_list() == [1.0]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_float_counts_of_any_width_raise_no_numpy_warning(dtype):
    # float16 counts leaked numpy's "overflow encountered in cast" (2**63 compared as float16)
    counts = np.array([[[3, 1], [0, 2]]], dtype=dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = be.measures.compute(counts, ["informedness"])["informedness"]
    assert got.tolist() == [2 / 2 - 1 / 4]  # tpr 2/2, fpr 1/4


_TABLES = np.array([[[5, 1], [2, 7]], [[3, 3], [3, 3]]])


@pytest.mark.parametrize(
    "call",
    [
        lambda positive: be.measures.compute(_TABLES, ["recall"], positive=positive),
        lambda positive: be.intervals.intervals(_TABLES, ["recall"], positive=positive),
        lambda positive: be.intervals.standard_errors(_TABLES, ["recall"], positive=positive),
    ],
)
@pytest.mark.parametrize("positive", [True, False, 1.0, np.True_, "1", 2])
def test_count_functions_refuse_a_positive_that_is_no_class_index(call, positive):
    # True and 1.0 passed `positive in (0, 1)`; numpy read True as a mask: intervals and standard
    # errors of shape (2, 2, 2, 2) and no meaning, compute a numba TypingError or an IndexError
    with pytest.raises(be.InvalidArgumentError, match=r"^positive must be class index 0 or 1, got "):
        call(positive)


def test_count_functions_take_numpy_integer_indices_and_one_measure_name():
    tp, fn = _TABLES[:, 0, 0], _TABLES[:, 0, 1]  # class 0 as the positive one
    recall = tp / (tp + fn)
    assert be.measures.compute(_TABLES, ["recall"], positive=np.int64(0))["recall"] == pytest.approx(recall)
    se = be.intervals.standard_errors(_TABLES, "recall", positive=np.int32(0))["recall"]
    assert se == pytest.approx(np.sqrt(recall * (1 - recall) / (tp + fn)))


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        (_TABLES + 0.9, "counts must hold whole numbers, got 5.9 (group 0)"),
        (-_TABLES, "counts must be non-negative, got "),
        (_TABLES[0], "counts must have shape (G, K, K), got (2, 2)"),
    ],
)
def test_chance_interval_and_standard_errors_check_their_counts_as_intervals_does(counts, message):
    # fractions were truncated without a word, negative counts gave NaN with numpy's warning, and
    # one table an IndexError or an einsum ValueError
    for call in (
        lambda: be.intervals.chance_interval(counts, "informedness"),
        lambda: be.intervals.standard_errors(counts, ["informedness"]),
        lambda: be.intervals.intervals(counts, ["informedness"]),
    ):
        with pytest.raises(be.InvalidArgumentError, match=f"^{re.escape(message)}"):
            call()


def _three_runs() -> pl.DataFrame:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 40)
    return pl.concat(
        pl.DataFrame(
            {
                "run": [r] * 40,
                "example": np.arange(40),
                "dataset": ["d"] * 40,
                "passage": np.arange(40) // 4,
                "label": y,
                "prediction": np.where(rng.random(40) < 0.8, y, 1 - y),
            }
        )
        for r in range(3)
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"cluster": "run"}, "cluster='run' names only keys of run='run', so each run holds one cluster"),
        ({"example": "run"}, "example='run' names only keys of run='run', so each run holds one example"),
        ({"example": ["run", "example"]}, "example=['run', 'example'] includes every run key ['run'], so no"),
    ],
)
def test_leaderboard_refuses_examples_or_clusters_named_by_the_run_keys(kwargs, message):
    # every interval, p-value and test was NaN and every run in the best set, without a word
    with pytest.raises(InvalidArgumentError, match=f"^{re.escape(message)}"):
        be.leaderboard(_three_runs(), run="run", **kwargs)


def test_an_example_id_holding_part_of_the_run_keys_pairs_the_runs_that_share_it():
    # run=["model", "seed"], example=["seed", "id"]: the models of one seed share their examples
    # (refused for a while as "includes the run key ['seed']")
    rng = np.random.default_rng(0)
    rows = []
    for seed in (1, 2):
        for i in range(60):
            y = int(rng.integers(0, 2))
            for model, acc in (("A", 0.9), ("B", 0.7)):
                rows.append({"model": model, "seed": seed, "id": i, "label": y,
                             "prediction": y if rng.random() < acc else 1 - y})  # fmt: skip
    df = pl.DataFrame(rows)
    board = be.leaderboard(df, run=["model", "seed"], example=["seed", "id"], measure="accuracy")
    leader = board.row(0, named=True)
    same_seed = board.filter((pl.col("seed") == leader["seed"]) & (pl.col("model") != leader["model"]))
    # the exact McNemar test of the two models' correctness on that seed's 60 examples
    a = df.filter((pl.col("model") == leader["model"]) & (pl.col("seed") == leader["seed"])).sort("id")
    b = df.filter((pl.col("model") != leader["model"]) & (pl.col("seed") == leader["seed"])).sort("id")
    right_a = (a["label"] == a["prediction"]).to_numpy()
    right_b = (b["label"] == b["prediction"]).to_numpy()
    wins, losses = int((right_a & ~right_b).sum()), int((~right_a & right_b).sum())
    exact = stats.binomtest(wins, wins + losses).pvalue
    assert same_seed["p_mcnemar"].item() == pytest.approx(exact, rel=1e-12)


def test_a_cluster_column_constant_within_groups_is_named_in_a_warning():
    df = _three_runs()
    message = "cluster='dataset' puts each group's rows in one cluster"
    with pytest.warns(be.BatchevalWarning, match=re.escape(message)):
        board = be.leaderboard(df, run="run", example="example", cluster="dataset")
    assert board["p_vs_leader"].drop_nulls().is_nan().all()
    with pytest.warns(be.BatchevalWarning, match=re.escape(message)):
        out = be.evaluate(df, by="run", cluster="dataset", ci=0.95)
    assert out["informedness_ci_low"].is_nan().all()
    with warnings.catch_warnings():  # ten passages a run: no warning, defined intervals
        warnings.simplefilter("error")
        out = be.evaluate(df, by="run", cluster="passage", ci=0.95)
        be.leaderboard(df, run="run", example="example", cluster="passage")
    assert not out["informedness_ci_low"].is_nan().any()


def test_a_multiclass_auc_names_the_class_its_dropped_rows_held():
    # "label column 'label' has 2 classes [1, 2] but the score lists hold 3" of a column of three
    # classes: the only row of class 0 was dropped for its NaN score
    df = pl.DataFrame({"label": [0, 1, 2, 1], "p": [[0.1, np.nan, 0.7], [0.5, 0.4, 0.1], [0.2, 0.3, 0.5],
                                                    [0.1, 0.8, 0.1]]})  # fmt: skip
    message = (
        "label column 'label' has 2 classes [1, 2] (the 1 row dropped by drop_nonfinite=True held every "
        "example of class [0]) but the score lists hold 3; name the classes with classes="
    )
    with pytest.warns(be.BatchevalWarning, match="dropped 1 of 4 rows"):
        with pytest.raises(be.InvalidLabelError, match=f"^{re.escape(message)}$"):
            be.auc(df, score="p", drop_nonfinite=True)
    # a dropped row whose label is no class (NaN) names nothing, and is not checked as a label
    scores = [[0.1, 0.2, 0.7], [0.5, 0.4, 0.1], [0.1, 0.8, 0.1], [0.1, np.nan, 0.2]]
    nan_label = pl.DataFrame({"label": [0.0, 1.0, 1.0, np.nan], "p": scores})
    plain = (
        "label column 'label' has 2 classes [0, 1] but the score lists hold 3; name the classes with classes="
    )
    with pytest.warns(be.BatchevalWarning, match="dropped 1 of 4 rows"):
        with pytest.raises(be.InvalidLabelError, match=f"^{re.escape(plain)}$"):
            be.auc(nan_label, score="p", drop_nonfinite=True)
