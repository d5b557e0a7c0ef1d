"""Bad input gets a clear batcheval error naming the column and the problem."""

from __future__ import annotations

import functools
import re
import warnings

import numpy as np
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import batcheval as be
from tests.helpers import sweep_frame


def test_missing_column():
    with pytest.raises(be.ColumnNotFoundError, match=r"key column 'seed' not found"):
        be.evaluate(sweep_frame(), by=["run", "seed"])
    with pytest.raises(be.ColumnNotFoundError, match=r"prediction column 'pred' not found"):
        be.evaluate(sweep_frame(), prediction="pred")


def test_duplicate_column_names():
    with pytest.raises(be.DuplicateColumnError, match=r"column 'run' is named twice"):
        be.evaluate(sweep_frame(), by=["run", "run"])
    with pytest.raises(be.DuplicateColumnError, match=r"'label' is named twice"):
        be.evaluate(sweep_frame(), by=["label"])


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda df: be.auc(df, by="score"), "'score' is named twice: as key and as score"),
        (lambda df: be.curves(df, score="label"), "'label' is named twice: as label and as score"),
        (lambda df: be.sweep(df, by="label", thresholds=3), "'label' is named twice: as key and as label"),
        (lambda df: be.auc(df, by="s0", score=["s0", "s1"]), "'s0' is named twice: as key and as score"),
        (lambda df: be.curves(df, label="s1", score=["s0", "s1"]), "'s1' is named twice: as label and as sc"),
    ],
)
def test_duplicate_score_columns_name_both_roles(call, message):
    # the score paths said "as score and as score": their roles dict kept only a column's last role
    df = pl.DataFrame({"label": [0, 1, 0, 1], "score": [0.1, 0.9, 0.3, 0.6], "s0": [0.9, 0.1, 0.7, 0.4]})
    with pytest.raises(be.DuplicateColumnError, match=re.escape(message)):
        call(df.with_columns(s1=1 - pl.col("s0")))


def test_null_labels_report_the_count():
    df = sweep_frame().with_columns(
        pl.when(pl.int_range(pl.len()) % 100 == 0).then(None).otherwise(pl.col("label")).alias("label")
    )
    with pytest.raises(be.NullValuesError, match=r"label column 'label' has 30 null values out of 3000"):
        be.evaluate(df, by="run")
    with pytest.warns(be.BatchevalWarning, match=r"dropped 30 of 3000 rows"):
        out = be.evaluate(df, by="run", drop_nulls=True)
    assert out["n"].sum() == 2970


def test_values_outside_given_classes():
    df = pl.DataFrame({"y": [0, 1, 2], "yhat": [0, 1, 1]})
    with pytest.raises(
        be.InvalidLabelError, match=r"label column 'y' has 1 value\(s\) outside classes=\[0, 1\]: \[2\]"
    ):
        be.evaluate(df, label="y", prediction="yhat", classes=[0, 1])
    outside = r"column 'yhat' has 2 value\(s\) outside classes=\[0, 1, 2\]: \[3\]"
    with pytest.raises(be.InvalidLabelError, match=outside):
        be.evaluate(df.with_columns(pl.col("yhat") * 3), label="y", prediction="yhat", classes=[0, 1, 2])
    sdf = pl.DataFrame({"label": ["a", "b"], "prediction": ["a", "zz"]})
    with pytest.raises(be.InvalidLabelError, match=r"prediction column 'prediction' has 1 value outside"):
        be.evaluate(sdf, classes=["a", "b"])


def test_float_labels_with_fractions():
    df = pl.DataFrame({"label": [0.0, 1.0, 0.5], "prediction": [0.0, 1.0, 1.0]})
    with pytest.raises(
        be.InvalidLabelError,
        match=r"label column 'label' is float and holds 1 non-integer value \(first: 0.5\)",
    ):
        be.evaluate(df)
    nan = pl.DataFrame({"label": [0.0, 1.0], "prediction": [float("nan"), 1.0]})
    with pytest.raises(be.InvalidLabelError, match=r"prediction column 'prediction'"):
        be.evaluate(nan)


def test_whole_float_labels_beyond_int64_are_named_as_classes_beyond_it_are():
    # a strict cast to Int64 raised polars' own InvalidOperationError, naming no argument
    tail = "which does not fit in int64; class labels must fit in int64, or be strings"
    cases = [
        (
            lambda: be.ContingencyTable.from_frame(
                pl.DataFrame({"label": [1e19, 0.0], "prediction": [0.0, 0.0]})
            ),
            "label column 'label' (Float64) holds 1e+19",
        ),
        (
            lambda: be.evaluate(y_true=[2.0**63, 0.0], y_pred=[0.0, 0.0], measures=["accuracy"]),
            "y_true= (Float64) holds 9.223372036854776e+18",
        ),
        (
            lambda: be.ContingencyTable.from_long(
                pl.DataFrame({"real": [1e30], "predicted": [0.0], "count": [1]})
            ),
            "real column 'real' (Float64) holds 1e+30",
        ),
    ]
    for call, named in cases:
        with pytest.raises(be.InvalidLabelError, match=f"^{re.escape(f'{named}, {tail}')}$"):
            call()
    # -2**63 is the lowest int64, and is read as it
    low = be.evaluate(y_true=[-(2.0**63), 0.0], y_pred=[0.0, 0.0], measures=["accuracy"])
    assert low["accuracy"].to_list() == [0.5]


def test_mixed_label_kinds():
    df = pl.DataFrame({"label": [0, 1], "prediction": ["0", "1"]})
    with pytest.raises(be.InvalidLabelError, match=r"hold different kinds of values"):
        be.evaluate(df)


def test_unknown_and_inapplicable_measures():
    with pytest.raises(be.UnknownMeasureError, match=r"unknown measure 'informedess'"):
        be.evaluate(sweep_frame(), measures=["informedess"])
    with pytest.raises(
        be.UnknownMeasureError, match=r"'precision' is a binary measure and the table has 3 classes"
    ):
        be.evaluate(sweep_frame(n_classes=3), measures=["precision"])
    with pytest.raises(be.UnknownMeasureError, match=r"f_beta' needs a value for beta="):
        be.evaluate(sweep_frame(), measures=["f_beta"])


def test_positive_not_a_class():
    with pytest.raises(be.InvalidLabelError, match=r"positive=5 is not one of the classes \[0, 1\]"):
        be.evaluate(sweep_frame(), positive=5)


def test_merge_with_different_classes_leaves_both_untouched():
    a = be.ContingencyTable.from_frame(sweep_frame(n_classes=2), by="run")
    b = be.ContingencyTable.from_frame(sweep_frame(n_classes=3), by="run")
    a_before, b_before = a.counts.copy(), b.counts.copy()
    with pytest.raises(be.ClassMismatchError, match=r"different classes: \[0, 1\] \(Int64\) and \[0, 1, 2\]"):
        a + b
    np.testing.assert_array_equal(a.counts, a_before)
    np.testing.assert_array_equal(b.counts, b_before)


def test_merge_with_different_keys():
    a = be.ContingencyTable.from_frame(sweep_frame(), by="run")
    b = be.ContingencyTable.from_frame(sweep_frame(), by="fold")
    with pytest.raises(be.MergeError, match=r"keyed by \['run'\] and \['fold'\]"):
        a + b


def test_pool_over_a_non_key():
    # a pooled column may be named only in pool=, so it is looked up in the frame
    with pytest.raises(be.ColumnNotFoundError, match=r"column 'seed' not found; the frame has columns"):
        be.evaluate(sweep_frame(), by=["run", "fold"], pool="seed")


def test_counts_never_overflow_silently():
    big = np.iinfo(np.int64).max - 5
    keys = pl.DataFrame({"run": [1]})
    a = be.ContingencyTable(keys, [0, 1], np.array([[[big, 0], [0, 0]]]))
    b = be.ContingencyTable(keys, [0, 1], np.array([[[10, 0], [0, 0]]]))
    with pytest.raises(be.CountOverflowError, match="int64"):
        a + b
    assert a.counts[0, 0, 0] == big
    long = pl.DataFrame({"real": [0, 0], "predicted": [0, 0], "count": [big, 10]})
    with pytest.raises(be.CountOverflowError):
        be.ContingencyTable.from_long(long)


def test_a_merge_past_int64_raises_count_overflow_not_merge_error():
    # README and ClassMismatchError's docstring said `except MergeError` catches every merge that
    # cannot be done; one past int64 is a CountOverflowError (an OverflowError), as they now say
    keys = pl.DataFrame({"run": [1]})
    a = be.ContingencyTable(keys, [0, 1], np.array([[[2**62, 0], [0, 0]]]))
    b = be.ContingencyTable(keys, [0, 1], np.array([[[2**62, 0], [0, 1]]]))
    before = [(t.counts.copy(), t.keys.clone()) for t in (a, b)]
    for merge in (lambda: a + b, lambda: be.ContingencyTable.merge(b, a), lambda: sum([a, b])):
        with pytest.raises(be.CountOverflowError) as err:
            try:
                merge()
            except be.MergeError:  # the documented exception to catch: it must not be this
                pytest.fail("a merge past int64 was caught by `except MergeError`")
        assert str(err.value) == "merged counts exceed the int64 range"
        assert isinstance(err.value, OverflowError) and not isinstance(err.value, be.MergeError)
        for t, (counts, keys) in zip((a, b), before, strict=True):
            np.testing.assert_array_equal(t.counts, counts)
            assert t.keys.equals(keys)
    assert "raises :class:`CountOverflowError` instead" in " ".join(be.ClassMismatchError.__doc__.split())
    assert "not a :class:`MergeError`" in " ".join(be.CountOverflowError.__doc__.split())


def test_a_group_total_beyond_int64_is_refused_not_wrapped():
    # every cell fits int64 but their sum does not: n used to wrap to 0 and accuracy came out 0.5
    quarter = 2**61
    keys = pl.DataFrame({"run": ["b"]})
    fits = be.ContingencyTable(keys, [0, 1], np.array([[[quarter, quarter], [quarter, quarter - 1]]]))
    assert fits.measures(measures=["accuracy"])["n"][0] == np.iinfo(np.int64).max
    with pytest.raises(be.CountOverflowError, match=r"group 0 \(\{'run': 'b'\}\) holds 9223372036854775808"):
        be.ContingencyTable(keys, [0, 1], np.full((1, 2, 2), quarter))
    half = be.ContingencyTable(keys, [0, 1], np.full((1, 2, 2), quarter // 2 + 1))
    with pytest.raises(be.CountOverflowError, match="int64"):
        half + half
    assert half.counts.sum() == 4 * (quarter // 2 + 1)


def test_long_frames_with_two_integer_widths_or_two_kinds_of_class():
    long = pl.DataFrame(
        {"real": [0, 1, 300], "predicted": [0, 1, 300], "count": [3, 4, 5]},
        schema={"real": pl.Int16, "predicted": pl.Int64, "count": pl.Int64},
    )
    table = be.ContingencyTable.from_long(long)
    assert table.classes.to_list() == [0, 1, 300]
    np.testing.assert_array_equal(table.counts[0], np.diag([3, 4, 5]))
    huge = long.with_columns(pl.Series("predicted", [0, 1, 2**63], dtype=pl.UInt64))
    with pytest.raises(be.InvalidLabelError, match=r"'predicted' column has classes beyond the int64 range"):
        be.ContingencyTable.from_long(huge)
    mixed = pl.DataFrame({"real": ["a", "b"], "predicted": [0, 1], "count": [1, 2]})
    message = r"real column 'real' is String but predicted column 'predicted' is Int64"
    with pytest.raises(be.InvalidLabelError, match=message):
        be.ContingencyTable.from_long(mixed)


def test_single_class_without_classes_argument_still_counts():
    df = pl.DataFrame({"label": [1, 1], "prediction": [1, 1]})
    table = be.ContingencyTable.from_frame(df)
    assert table.classes.to_list() == [1]
    out = be.evaluate(df, classes=[0, 1], measures=["recall", "informedness"]).row(0, named=True)
    assert out["recall"] == 1.0 and out["informedness"] == 0.0


def test_errors_share_one_base_class():
    for err in (
        be.ColumnNotFoundError,
        be.NullValuesError,
        be.InvalidLabelError,
        be.ClassMismatchError,
        be.DuplicateColumnError,
        be.CountOverflowError,
        be.UnknownMeasureError,
        be.MergeError,
    ):
        assert issubclass(err, be.BatchevalError)


@pytest.mark.parametrize(
    ("classes", "message"),
    [
        ([0, 1], "label column 'label' has 4 value(s) outside classes=[0, 1]: [2]"),
        ([0, 2], "prediction column 'prediction' has 1 value(s) outside classes=[0, 2]: [1]"),
    ],
)
def test_paired_board_names_values_outside_given_classes(classes, message):
    """The one-pass paired board checks every row against ``classes=``: a value
    beyond them (2 with [0, 1]) and one between them (1 with [0, 2]) are both named."""
    df = pl.DataFrame({
        "run": np.repeat([0, 1], 4), "example_id": np.tile(np.arange(4), 2),
        "label": [0, 2, 0, 2] * 2, "prediction": [0, 2, 2, 0, 0, 1, 2, 2],
    })  # fmt: skip
    with pytest.raises(be.InvalidLabelError, match=re.escape(message)):
        be.leaderboard(df, example="example_id", classes=classes)
    # the same rows within the classes give a board
    assert be.leaderboard(df, example="example_id", classes=[0, 1, 2]).height == 2


@pytest.mark.parametrize(
    ("frame", "classes", "message"),
    [
        # wide-range integer classes are coded by binary search: the message showed the code 3
        (
            {"label": [0, 10**9, 5], "prediction": [0, 1, 7]},
            [0, 1, 10**9],
            "label column 'label' has 1 value(s) outside classes=[0, 1, 1000000000]: [5]",
        ),
        (
            {"label": [0, 10**9, 1], "prediction": [0, -(10**9), 7]},
            [0, 1, 10**9],
            "prediction column 'prediction' has 2 value(s) outside classes=[0, 1, 1000000000]: "
            "[-1000000000, 7]",
        ),
        # booleans are counted as bytes: the message showed 0 for False
        ({"label": [True, False], "prediction": [True, True]}, [True], "outside classes=[True]: [False]"),
    ],
)
def test_values_outside_classes_are_shown_as_the_column_holds_them(frame, classes, message):
    with pytest.raises(be.InvalidLabelError, match=re.escape(message)):
        be.evaluate(pl.DataFrame(frame), classes=classes)
    with pytest.raises(be.InvalidLabelError, match=re.escape(message)):
        be.ContingencyTable.from_frame(pl.DataFrame(frame), classes=classes)


def test_mean_weights_engine_and_on_error_are_checked_before_reading():
    # an unknown mean_weights= used to give unweighted means; engine= and on_error= raised plain ValueErrors
    # (on_error= not at all for a frame in memory)
    df = pl.DataFrame(
        {"fold": [0] * 2 + [1] * 8, "label": [1, 0] + [1, 0] * 4, "prediction": [1, 0] + [0, 0] * 4}
    )
    weighted = be.evaluate(df, pool="fold", measures=["accuracy"], mean_weights="n")["accuracy_mean"][0]
    assert weighted == pytest.approx((2 * 1.0 + 8 * 0.5) / 10)
    for call in (be.evaluate, functools.partial(be.sweep, score="prediction")):
        with pytest.raises(be.InvalidArgumentError, match="mean_weights must be 'n' or None, got 'size'"):
            call(df, pool="fold", mean_weights="size")
        with pytest.raises(be.InvalidArgumentError, match=r"mean_weights='n'.*needs pool="):
            call(df, mean_weights="n")
        with pytest.raises(be.InvalidArgumentError, match="engine must be 'local' or 'dask', got 'spark'"):
            call(df, engine="spark")
        with pytest.raises(be.InvalidArgumentError, match="on_error must be 'raise' or 'skip', got 'ignore'"):
            call(df, on_error="ignore")
    with pytest.raises(be.InvalidArgumentError, match="abstain= and align= work on a frame in memory"):
        be.evaluate(df, abstain=-1, engine="dask")


@pytest.mark.parametrize(
    ("key", "call"),
    [
        ("n", lambda d, k: be.evaluate(d, by=["run", k])),
        ("tp", lambda d, k: be.evaluate(d, by=["run", k])),
        ("class", lambda d, k: be.evaluate(d, by=["run", k], per_class=True)),
        ("accuracy", lambda d, k: be.evaluate(d, by=["run", k], measures=["accuracy"])),
        ("youden_j", lambda d, k: be.evaluate(d, by=["run", k], measures=["youden_j"])),
        (
            "accuracy_mean",
            lambda d, k: be.evaluate(d, by=["run", k, "fold"], pool="fold", measures=["accuracy"]),
        ),
        ("n_pooled", lambda d, k: be.evaluate(d, by=["run", k, "fold"], pool="fold")),
        (
            "informedness_ci_low",
            lambda d, k: be.evaluate(d, by=["run", k], measures=["informedness"], ci=0.9),
        ),
        ("retained", lambda d, k: be.evaluate(d, by=["run", k], abstain=-1)),
        ("mapping", lambda d, k: be.evaluate(d, by=["run", k], align="hungarian")),
        ("predicted", lambda d, k: be.evaluate(d, by=["run", k], align="hungarian", pool=k)),
        ("rank", lambda d, k: be.leaderboard(d, run=["run", k])),
        ("p_best", lambda d, k: be.leaderboard(d, run=["run", k])),
    ],
)
def test_a_key_named_like_an_output_column_is_named(key, call):
    # these gave a raw polars DuplicateError, and a key called "mapping" was silently overwritten
    df = pl.DataFrame(
        {
            "run": [1] * 8,
            "fold": [0, 1] * 4,
            key: [0] * 8,
            "label": [0, 1] * 4,
            "prediction": [0, 1, 1, 1] * 2,
        }
    )
    with pytest.raises(
        be.DuplicateColumnError, match=rf"key column '{key}' has the name of an output column"
    ):
        call(df, key)


@pytest.mark.parametrize(
    ("key", "call"),
    [
        ("n", lambda d, k: be.auc(d, by=k)),
        ("positives", lambda d, k: be.auc(d, by=k)),
        ("roc_auc", lambda d, k: be.auc(d, by=k)),
        ("best_threshold", lambda d, k: be.auc(d, by=k)),
        ("best_f1", lambda d, k: be.auc(d, by=k, measure="f1")),
        ("roc_auc_se", lambda d, k: be.auc(d, by=k, ci=0.95)),
        ("roc_auc_mean", lambda d, k: be.auc(d, by=[k, "fold"], pool="fold")),
        ("chart", lambda d, k: be.curves(d, by=k)),
        ("x", lambda d, k: be.curves(d, by=k)),
        ("s", lambda d, k: be.curves(d, by=k, kind="bird")),
        ("tp", lambda d, k: be.curves(d, by=k)),
        ("tp", lambda d, k: be.sweep(d, by=k)),
        ("n", lambda d, k: be.sweep(d, by=k, thresholds="exact")),
        ("f1", lambda d, k: be.sweep(d, by=k)),
    ],
)
def test_a_key_named_like_a_score_output_column_is_named(key, call):
    # these gave a raw polars DuplicateError
    df = pl.DataFrame({"fold": [0, 1] * 4, key: [0] * 8, "label": [0, 1] * 4,
                       "score": [0.1, 0.7, 0.4, 0.3, 0.2, 0.9, 0.5, 0.6]})  # fmt: skip
    with pytest.raises(
        be.DuplicateColumnError, match=rf"key column '{key}' has the name of an output column"
    ):
        call(df, key)


def test_a_pooled_key_may_share_an_intermediate_name_of_align():
    df = pl.DataFrame({"run": [1] * 4, "_g": [0, 0, 1, 1], "_row": [0, 1, 0, 1],
                       "label": [0, 1, 0, 1], "prediction": [5, 6, 5, 6]})  # fmt: skip
    for key in ("_g", "_row"):
        out = be.evaluate(df, by=["run", key], align="hungarian", pool=key, measures=["accuracy"])
        assert out["accuracy"].to_list() == [1.0]
        pairs = df.select(key, "prediction").unique().sort(key, "prediction")
        assert sorted((m[key], m["predicted"]) for m in out["mapping"][0]) == pairs.rows()


@pytest.mark.parametrize(
    ("classes", "error", "message"),
    [
        ("01", be.InvalidArgumentError, "classes= takes a list of class values, got the string '01'"),
        (5, be.InvalidArgumentError, "classes= takes a list of class values, got 5"),
        # a mapping iterated as its keys: {0: 1} was reported as classes=[0], and class names were dropped
        ({0: 1}, be.InvalidArgumentError, r"classes= takes a list of class values, got a mapping \{0: 1\}"),
        (
            [0, 1, "x"],
            be.InvalidLabelError,
            r"classes= holds 'x' \(str\), but label column 'label' holds integer",
        ),
        (
            [0.5, 1],
            be.InvalidLabelError,
            r"classes= holds 0.5 \(float\), but label column 'label' holds integer",
        ),
        ([None, 1], be.InvalidLabelError, r"classes= holds None \(NoneType\)"),
    ],
)
def test_classes_of_another_kind_than_the_labels_are_named(classes, error, message):
    # raw TypeError/ValueError before; [0.5, 1] silently meant classes 0 and 1, and "01" the characters
    df = pl.DataFrame({"run": [1, 1], "label": [0, 1], "prediction": [0, 1], "score": [0.2, 0.8]})
    for call in (
        functools.partial(be.evaluate, df, by="run"),
        functools.partial(be.evaluate, df, by="run", align="hungarian"),
        functools.partial(be.leaderboard, df),
        functools.partial(be.sweep, df),
    ):
        with pytest.raises(error, match=message):
            call(classes=classes)
    assert be.evaluate(df, classes=(0, 1, 2.0), measures=["accuracy"])["accuracy"][0] == 1.0


def test_classes_with_no_label_left_in_a_batch_are_not_misread():
    # a batch whose labels were all dropped as nulls read its classes as strings
    df = pl.DataFrame({"label": [0, 1, None, None], "score": [0.1, 0.4, 0.35, 0.8]})
    with pytest.warns(be.BatchevalWarning):
        got = be.sweep(df.lazy(), thresholds=[0.3], drop_nulls=True, batch_rows=2, classes=[0, 1])
    assert got.select("tp", "fp", "fn", "tn").rows() == [(1, 0, 0, 1)]
    # no rows, no group (docs/cli.md); the classes= check does not refuse them
    assert be.auc(pl.DataFrame({"label": [0], "score": [0.1]}).clear(), classes=[0, 1])["n"].to_list() == []


def test_a_column_in_two_roles_of_compare_or_rank_methods_names_both():
    # "named twice: as measure and as measure" named one role twice
    ranks = pl.DataFrame({"method": ["a", "b"] * 4, "dataset": [0, 0, 1, 1, 2, 2, 3, 3], "score": [0.1] * 8})
    with pytest.raises(
        be.DuplicateColumnError, match="column 'dataset' is named twice: as dataset and as measure"
    ):
        be.rank_methods(ranks, measure="dataset")
    folds = pl.DataFrame({"run": ["a", "b"] * 4, "fold": [0, 0, 1, 1, 2, 2, 3, 3], "acc": [0.1] * 8})
    with pytest.raises(be.DuplicateColumnError, match="column 'fold' is named twice: as fold and as measure"):
        be.compare(folds, measure="fold")


def test_a_threshold_count_beyond_memory_is_refused_before_reading():
    # numpy's MemoryError (an internal error in the CLI) came from allocating the grid
    df = pl.DataFrame({"label": [0, 1], "score": [0.1, 0.9]})
    with pytest.raises(
        be.MemoryBudgetError, match=r"a grid of 10,000,000,000,000 thresholds needs .*; use fewer"
    ):
        be.sweep(df, thresholds=10**13)


def test_inputs_the_stops_new_checks_must_still_take():
    # a review of this stop's fixes found these refused: float labels with classes=, a pooled key
    # named like a measure or a curve column, a key named like a non-measure column with _ci_low,
    # and real numbers that are not floats (Decimal, Fraction, a 0-d array)
    import decimal
    import fractions

    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(0)
    n = 60
    m = pl.DataFrame({"run": np.repeat([1, 2], n // 2), "label": np.tile([0.0, 1.0, 2.0], n // 3),
                      "s0": rng.random(n), "s1": rng.random(n), "s2": rng.random(n)})  # fmt: skip
    got = be.auc(m, by="run", score=["s0", "s1", "s2"], classes=[0, 1, 2], averages="macro_roc_auc")
    one = m.filter(pl.col("run") == 1)
    expected = np.mean(
        [roc_auc_score(one["label"].to_numpy() == c, one[f"s{c}"].to_numpy()) for c in range(3)]
    )
    assert got.sort("run")["macro_roc_auc"][0] == pytest.approx(expected)
    assert be.curves(
        m, by="run", score=["s0", "s1", "s2"], classes=np.array([0.0, 1.0, 2.0]), thresholds=5
    ).height
    with pytest.raises(be.UnknownMeasureError, match="did you mean 'f1'"):
        be.auc(m, by="run", score=["s0", "s1", "s2"], measure="f1x")
    e = pl.DataFrame({"run": np.repeat([1, 2], n // 2), "fold": np.tile([1, 2, 3], n // 3),
                      "label": rng.integers(0, 2, n), "prediction": rng.integers(0, 2, n),
                      "score": rng.random(n)})  # fmt: skip
    pooled = be.evaluate(e.rename({"fold": "recall"}), by="run", pool="recall", measures=["recall"])
    assert (
        pooled.sort("run")["recall"].to_list()
        == be.evaluate(e, by="run", measures=["recall"]).sort("run")["recall"].to_list()
    )
    assert (
        be.sweep(
            e.rename({"fold": "recall"}), by="run", pool="recall", thresholds=3, measures=["recall"]
        ).height
        == 6
    )
    assert be.curves(e.rename({"fold": "s"}), by="run", pool="s", thresholds=3).height
    assert be.evaluate(e.with_columns(n_ci_low=pl.lit("x")), by=["run", "n_ci_low"], ci=0.95).height == 2
    cv = pl.DataFrame({"run": np.repeat([0, 1, 2], 5), "fold": np.tile(range(5), 3), "acc": rng.random(15)})
    plain = be.compare(cv, measure="acc", test="bayes", rope=0.01)
    for rope in (decimal.Decimal("0.01"), np.array(0.01), fractions.Fraction(1, 100)):
        assert be.compare(cv, measure="acc", test="bayes", rope=rope).equals(plain)
    assert be.adjust([decimal.Decimal("0.01"), decimal.Decimal("0.04")]).tolist() == [0.02, 0.04]
    with pytest.raises(be.InvalidArgumentError, match="rope= must be a number, got True"):
        be.compare(cv, measure="acc", test="bayes", rope=True)


def test_boolean_labels_take_classes_zero_and_one_and_dask_an_empty_list_is_named():
    # classes=[0, 1] passed the check for boolean labels and then raised polars' TypeError in the score
    # paths; engine="dask" given [] said it got "a builtins.list"
    b = pl.DataFrame({"label": [True, False, True, False], "prediction": [True, False, False, False],
                      "score": [0.9, 0.2, 0.6, 0.4]})  # fmt: skip
    assert be.auc(b, classes=[0, 1]).equals(be.auc(b, classes=[False, True]))
    assert be.sweep(b, classes=[0, 1], thresholds=3).equals(be.sweep(b, classes=[False, True], thresholds=3))
    assert be.evaluate(b, classes=[0, 1]).equals(be.evaluate(b, classes=[False, True]))
    with pytest.raises(be.InvalidArgumentError, match="engine='dask' got an empty list of paths"):
        be.evaluate([], engine="dask")


def test_a_pooled_key_named_like_a_count_column_is_named():
    # a pooled key stands beside the counts of the unpooled tables: after the review's fix that let
    # a pooled key be named like a measure, one named n or tp gave polars' raw DuplicateError
    rng = np.random.default_rng(3)
    df = pl.DataFrame({"run": np.repeat([1, 2], 30), "fold": np.tile([0, 1, 2], 20),
                       "label": rng.integers(0, 2, 60), "prediction": rng.integers(0, 2, 60),
                       "score": rng.random(60)})  # fmt: skip
    for key in ("n", "tp", "threshold"):
        renamed = df.rename({"fold": key})
        with pytest.raises(be.DuplicateColumnError, match=f"key column '{key}' has the name of an output"):
            be.sweep(renamed, by="run", pool=key, thresholds=3)
        if key != "threshold":
            with pytest.raises(
                be.DuplicateColumnError, match=f"key column '{key}' has the name of an output"
            ):
                be.evaluate(renamed, by="run", pool=key)
    with pytest.raises(be.DuplicateColumnError, match="key column 'threshold' has the name of an output"):
        be.sweep(df.rename({"fold": "threshold"}), by=["run", "threshold"], thresholds=3)


def test_empty_classes_name_the_values_outside_them():
    # classes=[] divided by the K² cells of no class (ZeroDivisionError) while counting
    df = pl.DataFrame({"run": [1], "label": [0], "prediction": [0]})
    message = re.escape("label column 'label' has 1 value(s) outside classes=[]: [0]")
    with pytest.raises(be.InvalidLabelError, match=message):
        be.ContingencyTable.from_frame(df, by="run", classes=[])
    with pytest.raises(be.InvalidLabelError, match=message):
        be.evaluate(df, by="run", classes=[])


def test_class_mismatch_is_a_merge_error():
    df = pl.DataFrame({"run": [1], "label": [0], "prediction": [1]})
    a = be.ContingencyTable.from_frame(df, by="run")
    b = be.ContingencyTable.from_frame(df, by="run", classes=[0, 1, 2])
    with pytest.raises(be.MergeError, match=r"different classes"):
        a + b
    assert issubclass(be.ClassMismatchError, ValueError)


def _long() -> pl.DataFrame:
    return pl.DataFrame({"run": [1, 1, 2], "real": [0, 1, 1], "predicted": [0, 1, 0], "count": [3, 4, 5]})


def test_from_long_checks_classes_as_from_frame_does():
    long = _long()
    # a class named twice was two classes: its cells counted twice (n 29 instead of 12)
    twice = be.ContingencyTable.from_long(long, by="run", classes=[1, 0, 1])
    expected = np.zeros((2, 2, 2), dtype=np.int64)
    np.add.at(expected, (long["run"].to_numpy() - 1, long["real"].to_numpy(), long["predicted"].to_numpy()),
              long["count"].to_numpy())  # fmt: skip
    assert twice.classes.to_list() == [0, 1]
    np.testing.assert_array_equal(twice.counts, expected)
    whole = be.ContingencyTable.from_long(
        long.with_columns(pl.col("real", "predicted").cast(pl.Float64)), by="run"
    )
    np.testing.assert_array_equal(whole.counts, expected)
    with pytest.raises(
        be.InvalidLabelError, match=r"classes= holds '0' \(str\), but label column 'real' holds integer"
    ):
        be.ContingencyTable.from_long(long, by="run", classes=["0", "1"])
    with pytest.raises(be.InvalidLabelError, match=r"classes= holds None \(NoneType\)"):
        be.ContingencyTable.from_long(long, by="run", classes=[0, 1, None])
    half = long.with_columns(pl.col("real", "predicted") * 0.5)
    with pytest.raises(
        be.InvalidLabelError, match=r"real column 'real' is float and holds 2 non-integer values"
    ):
        be.ContingencyTable.from_long(half, by="run")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"by": "real"}, "column 'real' is named twice: as key and as real"),
        ({"by": "run", "predicted": "real"}, "column 'real' is named twice: as real and as predicted"),
        ({"by": "run", "count": "real"}, "column 'real' is named twice: as real and as count"),
        ({"by": ["run", "run"]}, "column 'run' is named twice in by=['run', 'run']"),
    ],
)
def test_from_long_refuses_one_column_in_two_roles(kwargs, message):
    with pytest.raises(be.DuplicateColumnError, match=re.escape(message)):
        be.ContingencyTable.from_long(_long(), **kwargs)


_KEY = pl.DataFrame({"run": [1]})
_TWO = [[[2, 1], [1, 4]]]


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        ((_KEY, [0, 0], _TWO), be.InvalidLabelError, "classes must be distinct, got [0, 0] (repeated: [0])"),
        ((_KEY, [0, None], _TWO), be.InvalidLabelError, "classes must not hold nulls, got [0, None]"),
        ((_KEY, [0, "a"], _TWO), be.InvalidLabelError, "classes must be values of one kind"),
        ((pl.DataFrame({"run": [1, 1]}), [0, 1], np.ones((2, 2, 2), int)), be.InvalidArgumentError,
         "keys must be distinct rows, one per group; {'run': 1} is repeated"),
        (({"run": [1]}, [0, 1], _TWO), be.InvalidArgumentError, "keys must be a polars DataFrame, got dict"),
        ((_KEY, [0, 1], np.array(_TWO, dtype=float)), be.InvalidArgumentError,
         "counts must be integers, got dtype float64"),
        # these three did not show the bad value
        ((pl.DataFrame(), [0, 1], np.ones((3, 2, 2), int)), be.InvalidArgumentError,
         "a table without keys holds exactly one group, got 3 groups"),
        ((pl.DataFrame({"run": [1, 2]}), [0, 1], [[[2, 1], [1, 4]], [[0, -5], [1, 4]]]),
         be.InvalidArgumentError, "counts must be non-negative, got -5 (group 1)"),
        ((pl.DataFrame({"run": [1, 2]}), [0, 1], np.array([[[1, 0], [0, 0]], [[0, 2**63], [0, 0]]], "u8")),
         be.CountOverflowError, f"counts exceed the int64 range: {2**63} (group 1)"),
        # nested lists whose Python ints pass int64 became float64 (2**63) or object (2**64) arrays,
        # refused as "counts must be integers" as though the count were not whole
        ((_KEY, [0, 1], [[[2**63, 0], [0, 0]]]), be.CountOverflowError,
         f"counts exceed the int64 range: {2**63} (group 0)"),
        ((_KEY, [0, 1], [[[2**64, 0], [0, 0]]]), be.CountOverflowError,
         f"counts exceed the int64 range: {2**64} (group 0)"),
        ((pl.DataFrame({"run": [1, 2]}), [0, 1], [[[1, 0], [0, 0]], [[2**63, -1], [0, 0]]]),
         be.InvalidArgumentError, "counts must be non-negative, got -1 (group 1)"),
        ((_KEY, [0, 1], [[[2**63, 0.5], [0, 0]]]), be.InvalidArgumentError,
         "counts must be integers, got dtype float64"),
    ],
)  # fmt: skip
def test_table_constructor_refuses_invalid_tables(args, error, message):
    with pytest.raises(error, match=re.escape(message)):
        be.ContingencyTable(*args)


def test_a_table_of_no_classes_has_rows_of_no_examples():
    # measures() raised polars' ShapeError: a binary schema of no rows beside the group's key
    t = be.ContingencyTable(pl.DataFrame({"run": [1, 2]}), [], np.zeros((2, 0, 0), int))
    out = t.measures(["recall", "accuracy"])
    assert out["run"].to_list() == [1, 2] and out["n"].to_list() == [0, 0]
    assert np.isnan(out["recall"].to_numpy()).all() and np.isnan(out["accuracy"].to_numpy()).all()
    assert t.measures(["recall"], per_class=True).height == 0


@pytest.mark.parametrize(
    ("classes", "counts", "kwargs"),
    [([0, 1], [[[3, 1], [2, 4]]], {"per_class": True}), ([1], [[[3]]], {"measures": ["accuracy"]})],
)
def test_positive_must_be_a_class_even_where_it_is_not_used(classes, counts, kwargs):
    t = be.ContingencyTable(_KEY, classes, counts)
    with pytest.raises(
        be.InvalidLabelError, match=re.escape(f"positive=7 is not one of the classes {classes}")
    ):
        t.measures(positive=7, **{"measures": ["recall"], **kwargs})


def test_pool_over_none_is_refused():
    t = be.ContingencyTable.from_frame(pl.DataFrame({"run": [1], "label": [0], "prediction": [1]}), by="run")
    with pytest.raises(
        be.InvalidArgumentError, match=r"pool takes the key column\(s\) to sum over, got None"
    ):
        t.pool(None)


_C = np.array([[[5, 1], [2, 7]], [[3, 0], [1, 4]]])


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: be.measures.compute(_C, ["recall"], positive=2), be.InvalidArgumentError,
         "positive must be class index 0 or 1, got 2"),
        (lambda: be.measures.compute(_C[0], ["recall"]), be.InvalidArgumentError,
         "counts must have shape (G, K, K), got (2, 2)"),
        (lambda: be.measures.compute(_C - 4, ["accuracy"]), be.InvalidArgumentError,
         "counts must be non-negative, got -4 (group 1)"),
        (lambda: be.measures.compute(_C + np.array([0, 0.5])[:, None, None], ["accuracy"]),
         be.InvalidArgumentError, "counts must hold whole numbers, got 3.5 (group 1)"),
        (lambda: be.measures.compute(np.where(_C == 7, np.nan, _C), ["accuracy"]), be.InvalidArgumentError,
         "counts must hold whole numbers, got nan (group 0)"),
        (lambda: be.measures.compute(np.array([[["a", "b"], ["c", "d"]]]), ["accuracy"]),
         be.InvalidArgumentError, "counts must be integers, got dtype <U1"),
        (lambda: be.measures.compute(_C.astype(np.uint64) << np.uint64(61), ["accuracy"]),
         be.CountOverflowError, f"counts exceed the int64 range: {7 << 61} (group 0)"),
        (lambda: be.measures.compute_cells([1, 2], [1], [1], [1]), be.InvalidArgumentError,
         "cell columns must be 1-D of one length, got shapes [(2,), (1,), (1,), (1,)]"),
        (lambda: be.measures.compute_cells([1, 2], [1, -1], [1, 1], [1, 1]), be.InvalidArgumentError,
         "fp must be non-negative, got -1 (group 1)"),
        (lambda: be.measures.compute_cells([1, 2.25], [1, 1], [1, 1], [1, 1]), be.InvalidArgumentError,
         "tp must hold whole numbers, got 2.25 (group 1)"),
        (lambda: be.measures.binary_cells(_C[:, :1]), be.InvalidArgumentError,
         "binary measures need counts of shape (G, 2, 2), got (2, 1, 2)"),
        (lambda: be.measures.binary_cells(_C, 2), be.InvalidArgumentError,
         "positive must be class index 0 or 1, got 2"),
        (lambda: be.measures.binary_cells(-_C), be.InvalidArgumentError,
         "counts must be non-negative, got -7 (group 0)"),
        (lambda: be.intervals.intervals(_C[0], ["accuracy"]), be.InvalidArgumentError,
         "counts must have shape (G, K, K), got (2, 2)"),
        (lambda: be.intervals.intervals(_C - 4, ["accuracy"]), be.InvalidArgumentError,
         "counts must be non-negative, got -4 (group 1)"),
    ],
)  # fmt: skip
def test_measures_and_intervals_of_counts_refuse_bad_counts(call, error, message):
    # raw ValueErrors before (no BatchevalError), and negative or fractional counts were
    # computed on: -counts gave accuracy 0.8, counts + 0.5 were cut to whole numbers
    with pytest.raises(error, match=re.escape(message)):
        call()


def test_measures_of_counts_take_floats_holding_whole_numbers():
    accuracy = np.trace(_C, axis1=1, axis2=2) / _C.sum(axis=(1, 2))  # plain numpy
    out = be.measures.compute(_C.astype(float), ["accuracy"])["accuracy"]
    assert out.tolist() == accuracy.tolist()
    recall = _C[:, 1, 1] / _C[:, 1].sum(axis=1)
    assert (
        be.measures.compute_cells(*(c.astype(float) for c in be.measures.binary_cells(_C)), ["recall"])[
            "recall"
        ].tolist()
        == recall.tolist()
    )


def test_measures_of_counts_take_whole_numbers_held_as_python_objects():
    """Counts as Python ints, Fractions or Decimals in an object array gave the right answer before
    the counts were checked, and were then refused ("must be integers, got dtype object")."""
    from decimal import Decimal
    from fractions import Fraction

    accuracy = np.trace(_C, axis1=1, axis2=2) / _C.sum(axis=(1, 2))  # plain numpy
    held = _C.astype(object)
    held[0, 0, 0] = Fraction(int(_C[0, 0, 0]) * 2, 2)
    held[0, 1, 1] = Decimal(int(_C[0, 1, 1]))
    assert be.measures.compute(held, ["accuracy"])["accuracy"].tolist() == accuracy.tolist()
    for bad, shown in [(Fraction(1, 2), "Fraction(1, 2)"), ("a", "'a'")]:
        held[0, 0, 1] = bad
        with pytest.raises(be.InvalidArgumentError) as caught:
            be.measures.compute(held, ["accuracy"])
        assert str(caught.value) == f"counts must hold whole numbers, got {shown} (group 0)"


def test_internal_tests_of_a_measure_without_one_name_the_measures_that_have_it():
    # raw ValueErrors before; both functions are in their modules' __all__
    from batcheval.inference import comparisons, paired_se

    counts = np.array([[[80, 20], [20, 80]], [[70, 30], [30, 70]]])
    with pytest.raises(
        be.UnknownMeasureError,
        match=re.escape(
            "measure 'recall' has no unpaired score test; it is for ['informedness', 'markedness']"
        ),
    ):
        comparisons.equal_difference_p(counts, "recall", np.array([1, 0]))
    message = (
        "measure 'markedness' has no sign-flip test for 2 classes; it is for ['informedness', 'accuracy',"
    )
    with pytest.raises(be.UnknownMeasureError, match=re.escape(message)):
        paired_se.sign_flip_p(np.zeros((1, 2, 2, 2), dtype=np.int64), "markedness")
    with pytest.raises(
        be.UnknownMeasureError,
        match=re.escape(
            "measure 'recall' has no sign-flip test for 3 classes; it is for ['informedness', 'accuracy']"
        ),
    ):
        paired_se.sign_flip_p(np.zeros((1, 3, 3, 3), dtype=np.int64), "recall")


@settings(max_examples=200, deadline=None)
@given(
    shape=st.tuples(st.integers(1, 4), st.integers(1, 4)),
    scale=st.sampled_from([1, 2**40, 2**58, 2**61, 2**62]),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_whole_array_overflow_check_finds_the_first_group_python_sums_find(shape, scale, seed):
    # the constructor's check went cell column by cell column (a Python call per cell: minutes at
    # K = 3,000); the whole-array one must name the same first group, with the same exact total
    from batcheval.measures.compute import overflowing_table

    g, k = shape
    rng = np.random.default_rng(seed)
    counts = (rng.random((g, k, k)) * scale).astype(np.int64)
    totals = [sum(int(v) for v in table.ravel()) for table in counts]
    over = [i for i, t in enumerate(totals) if t > 2**63 - 1]
    assert overflowing_table(counts) == ((over[0], totals[over[0]]) if over else None)
    keys = pl.DataFrame({"run": range(g)})
    if over:
        message = rf"^group {over[0]} \({{'run': {over[0]}}}\) holds {totals[over[0]]} examples, beyond"
        with pytest.raises(be.CountOverflowError, match=message):
            be.ContingencyTable(keys, list(range(k)), counts)
    else:
        assert be.ContingencyTable(keys, list(range(k)), counts).counts.sum(axis=(1, 2)).tolist() == totals


def test_a_table_whose_total_passes_int64_is_named_not_measured():
    """Cells within int64 whose total is not: n wrapped negative in the kernels, and informedness
    of [[2^62, 1], [1, 2^62]] came out -4.7e-38 (truly 1 - 2^-61, about 1.0)."""
    half = 2**62
    table = np.array([[[5, 1], [1, 5]], [[half, 1], [1, half]]])
    message = r"counts of group 1 add up to 9223372036854775810 examples, beyond the int64 range"
    with pytest.raises(be.CountOverflowError, match=message):
        be.measures.compute(table, ["informedness"])
    with pytest.raises(be.CountOverflowError, match=message):
        be.intervals.intervals(table, ["informedness"])
    cells = [np.array([5, half]), np.array([1, 1]), np.array([1, 1]), np.array([5, half])]
    with pytest.raises(be.CountOverflowError, match="tp, fp, fn and tn of group 1"):
        be.measures.compute_cells(*cells, ["informedness"])
    # one below the limit is measured, and exactly (the determinant in limbs)
    near = np.array([[[2**61, 1], [1, 2**61]]])
    assert be.measures.compute(near, ["informedness"])["informedness"][0] == pytest.approx(1.0, abs=1e-15)


def _one_value_cases():
    df = pl.DataFrame({"run": [1, 1, 2, 2], "label": [0, 1, 0, 1], "prediction": [0, 1, 1, 1],
                       "score": [0.1, 0.9, 0.6, 0.4]})  # fmt: skip
    paired = df.with_columns(pl.int_range(4).alias("example"), pl.lit(0).alias("run"))
    paired = pl.concat([paired, paired.with_columns(pl.lit(1).alias("run"))])
    table = be.ContingencyTable.from_frame(df, by="run")
    return [
        ("auc", lambda v: be.auc(df, positive=v)),
        ("sweep", lambda v: be.sweep(df, positive=v)),
        ("curves", lambda v: be.curves(df, positive=v)),
        ("compare_auc", lambda v: be.compare_auc(paired, positive=v)),
        ("evaluate", lambda v: be.evaluate(df, positive=v)),
        ("leaderboard", lambda v: be.leaderboard(df, positive=v)),
        ("table.measures", lambda v: table.measures(positive=v)),
        ("table.versus_rest", table.versus_rest),
    ]


@pytest.mark.parametrize("case", range(8))
@pytest.mark.parametrize(
    "value",
    [np.array([1]), pl.Series([1]), [1], (1,), pa.array([1]), pl.lit(1)],
    ids=["array", "series", "list", "tuple", "arrow", "expr"],
)
def test_positive_takes_one_value(case, value):
    """positive=np.array([1]) met numpy's "inhomogeneous shape" error, a Series polars' "truth value
    of a Series is ambiguous" (a pyarrow array or a polars expression went further still); a 0-d
    array is its element."""
    _, call = _one_value_cases()[case]
    with pytest.raises(be.InvalidArgumentError, match=r"^positive= takes one value, such as 1 or 'yes'"):
        call(value)
    got, expected = call(np.array(1)), call(1)
    if isinstance(expected, be.ContingencyTable):
        np.testing.assert_array_equal(got.counts, expected.counts)
    else:
        assert got.equals(expected)


def test_other_arguments_take_one_value():
    df = pl.DataFrame({"run": [1, 1, 2, 2], "label": [0, 1, 0, 1], "score": [0.1, 0.9, 0.6, 0.4]})
    # the example is mean_weights' own value: "such as 1 or 'yes'" sent users after a wrong one
    with pytest.raises(
        be.InvalidArgumentError, match=r"^mean_weights= takes one value, such as 'n', got a Series: \['n'\]"
    ):
        be.sweep(df, by="run", pool="run", mean_weights=pl.Series(["n"]))
    # a 0-d array is its element in the next message too, not the array's repr
    with pytest.raises(be.InvalidArgumentError, match=r"^mean_weights must be 'n' or None, got 'size'$"):
        be.sweep(df, by="run", pool="run", mean_weights=np.array("size"))
    # a LazyFrame's columns are shown without polars' PerformanceWarning for resolving its schema
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(
            be.InvalidArgumentError, match=r"^positive= takes one value.*a LazyFrame: \['label'\]"
        ):
            be.auc(df, positive=df.lazy().select("label"))
    with pytest.raises(be.InvalidArgumentError, match=r"^classes takes a list of class values, got array"):
        be.ContingencyTable(pl.DataFrame(), np.array(0), np.ones((1, 1, 1), int))
    mc = pl.DataFrame({
        "label": [0, 1, 2, 2, 0, 1], "p0": [0.8, 0.1, 0.1, 0.3, 0.3, 0.5],
        "p1": [0.1, 0.6, 0.2, 0.3, 0.5, 0.2], "p2": [0.1, 0.3, 0.7, 0.4, 0.2, 0.3],
    })  # fmt: skip
    one = be.auc(mc, score=["p0", "p1", "p2"], averages=np.array("macro_roc_auc"))
    assert one.equals(be.auc(mc, score=["p0", "p1", "p2"], averages="macro_roc_auc"))


def test_quiet_mutes_only_its_own_thread():
    """auc(pool=) muted its second read's drop warnings with warnings.catch_warnings, which swaps
    the process's filters: a warning another thread issued meanwhile was lost. quiet() mutes the
    thread that asked only (one recorder here, in the main thread: it records every thread's)."""
    import threading

    from batcheval.errors import quiet, warn

    inside, done = threading.Event(), threading.Event()

    def hold_quiet():
        with quiet("dropped "):
            inside.set()
            done.wait(10)
            warn("dropped 1 row in the quiet thread")
        warn("dropped 3 rows after the quiet block")

    worker = threading.Thread(target=hold_quiet)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        worker.start()
        assert inside.wait(10)
        warn("dropped 2 rows in the main thread")  # while the other thread is quiet
        done.set()
        worker.join(10)
    assert [str(w.message) for w in seen] == [
        "dropped 2 rows in the main thread",
        "dropped 3 rows after the quiet block",
    ]
