"""The accumulator's own contract: construction, merging and the long frame, with its errors
(each message names the argument or column and shows the bad value)."""

from __future__ import annotations

import datetime as dt
import re

import numpy as np
import polars as pl
import pytest

import batcheval as be

CT = be.ContingencyTable


@pytest.mark.parametrize("name", ["count", "real", "predicted"])
def test_to_long_refuses_a_key_named_like_its_own_columns(name):
    # the key column was overwritten by the cell's count (or class) without a word
    df = pl.DataFrame({name: [10, 10, 20], "label": [0, 1, 1], "prediction": [0, 1, 0]})
    t = CT.from_frame(df, by=name)
    message = f"key column {name!r} has the name of an output column (the long frame)"
    with pytest.raises(be.DuplicateColumnError, match=re.escape(message)):
        t.to_long()
    assert t.keys[name].to_list() == [10, 20]  # the table itself is intact


def test_tables_of_no_classes_merge():
    # numpy's "cannot reshape array of size 0 into shape (0,0)": reshape(-1, k, k) with k = 0
    empty = pl.DataFrame({"run": [], "label": [], "prediction": []})
    for t in (CT.from_frame(empty, by="run"), CT.from_frame(empty.drop("run"))):
        assert t.n_classes == 0 and len(t) == 0
        for merged in (t + t, sum([t, t]), CT.merge(t, t, t)):
            assert len(merged) == 0 and merged.n_classes == 0 and merged.by == t.by
            assert merged.counts.shape == (0, 0, 0)
    keyed = CT(pl.DataFrame({"run": [2, 1]}), [], np.zeros((2, 0, 0), dtype=np.int64))
    merged = keyed + CT(pl.DataFrame({"run": [3]}), [], np.zeros((1, 0, 0), dtype=np.int64))
    assert merged.keys["run"].to_list() == [1, 2, 3] and merged.counts.shape == (3, 0, 0)
    unkeyed = CT(pl.DataFrame(), [], np.zeros((1, 0, 0), dtype=np.int64))
    assert (unkeyed + unkeyed).counts.shape == (1, 0, 0)


_KEY = pl.DataFrame({"run": [1]})
_TWO = [[[5, 1], [2, 4]]]


@pytest.mark.parametrize(
    ("classes", "counts", "message"),
    [
        (None, _TWO, "classes takes a list of class values, got None"),
        (2, _TWO, "classes takes a list of class values, got 2"),
        ({0: "neg", 1: "pos"}, _TWO, "classes takes a list of class values, got {0: 'neg', 1: 'pos'}"),
        ([0, 1], [[[1, 2], [3]]], "counts must be an array of shape (G, K, K), got [[[1, 2], [3]]]"),
    ],
)
def test_constructor_names_classes_or_counts_it_cannot_read(classes, counts, message):
    # a raw TypeError ('NoneType' object is not iterable) or numpy's ValueError about an
    # inhomogeneous shape
    with pytest.raises(be.InvalidArgumentError, match=re.escape(message)):
        CT(_KEY, classes, counts)


def test_constructor_reads_a_generator_of_classes_once():
    # the message of a generator of mixed classes showed "got []": the error read it a second time
    with pytest.raises(
        be.InvalidLabelError,
        match=re.escape("values of one kind (integers, booleans or strings), got [0, 'a']"),
    ):
        CT(_KEY, (c for c in [0, "a"]), _TWO)
    t = CT(_KEY, (c for c in ["b", "a"]), _TWO)  # sorted: both axes swap
    assert t.classes.to_list() == ["a", "b"] and t.counts.tolist() == [[[4, 2], [1, 5]]]


@pytest.mark.parametrize("dtype", [pl.Enum(["yes", "no"]), pl.Categorical])
def test_constructor_reads_categorical_classes_as_strings_as_from_frame_does(dtype):
    # an Enum was kept and sorted in category order (yes, no): the positive class was "no" where
    # evaluate's is "yes", from_long(to_long()) read back another table, and merging with
    # from_frame's table of the same rows raised ClassMismatchError. The counts are
    # scikit-learn's confusion matrix, laid out in the Enum's order.
    from sklearn.metrics import confusion_matrix, recall_score

    y = ["yes"] * 10 + ["no"] * 10
    p = ["yes"] * 9 + ["no"] * 9 + ["yes"] * 2
    df = pl.DataFrame({"label": y, "prediction": p}).with_columns(pl.all().cast(dtype))
    t = CT(
        pl.DataFrame(),
        pl.Series(["yes", "no"], dtype=dtype),
        confusion_matrix(y, p, labels=["yes", "no"])[None],
    )
    assert t.classes.dtype == pl.String and t.classes.to_list() == ["no", "yes"]
    assert t.counts.tolist() == [confusion_matrix(y, p, labels=["no", "yes"]).tolist()]
    recall = t.measures(["recall"])["recall"][0]
    assert recall == be.evaluate(df, measures=["recall"])["recall"][0] == recall_score(y, p, pos_label="yes")
    assert CT.from_long(t.to_long()).equals(t)
    merged = CT.from_frame(df) + t
    assert merged.counts.tolist() == [(2 * confusion_matrix(y, p, labels=["no", "yes"])).tolist()]


@pytest.mark.parametrize(
    ("classes", "message"),
    [
        ([0.5, 1.5], "got Float64 values [0.5, 1.5]: 0.5 is no integer class"),
        ([0.0, float("nan")], "got Float64 values [0.0, nan]: nan is no integer class"),
        ([0.0, 1e30], "got Float64 values [0.0, 1e+30]: 1e+30 is no integer class"),
        ([0, 2**64], "got [0, 18446744073709551616]: 18446744073709551616 does not fit in int64"),
        ([dt.date(2020, 1, 1), dt.date(2020, 1, 2)], "got Date values [datetime.date(2020, 1, 1), "),
        ([[0], [1]], "got List(Int64) values [[0], [1]]"),
        ([b"a", b"b"], "got Binary values [b'a', b'b']"),
    ],
)
def test_constructor_refuses_classes_from_long_cannot_read_back(classes, message):
    # such tables were built and measured, but their to_long frame was refused by from_long
    with pytest.raises(be.InvalidLabelError, match=re.escape(message)):
        CT(_KEY, classes, _TWO)


def test_constructor_reads_whole_float_classes_as_integers_as_from_frame_does():
    t = CT(_KEY, [1.0, 0.0], _TWO)
    labels = {"label": [0.0] * 6 + [1.0] * 6, "prediction": [0.0] * 4 + [1.0] * 2 + [0.0] + [1.0] * 5}
    counted = CT.from_frame(pl.DataFrame(labels))
    assert t.classes.dtype == counted.classes.dtype == pl.Int64 and t.classes.to_list() == [0, 1]
    assert t.counts.tolist() == counted.counts.tolist() == [[[4, 2], [1, 5]]]
    assert CT.from_long(t.to_long(), by="run").equals(t)


def _long(count) -> pl.DataFrame:
    return pl.DataFrame({"run": [1, 1, 2], "real": [0, 1, 1], "predicted": [0, 1, 0], "count": count})


def test_from_long_reads_a_count_column_of_whole_floats_as_integers():
    got = CT.from_long(_long([3.0, 4.0, 5.0]), by="run")
    assert got.equals(CT.from_long(_long([3, 4, 5]), by="run"))
    assert got.counts.tolist() == [[[3, 0], [0, 4]], [[0, 0], [5, 0]]]


_NOT_WHOLE = "count column 'count' holds 1 value that is no whole number"


@pytest.mark.parametrize(
    ("count", "error", "message"),
    [
        # a plain TypeError (no BatchevalError) for a float or boolean count column
        ([3.0, 0.5, 1.0], be.InvalidArgumentError, f"{_NOT_WHOLE} (first: 0.5)"),
        ([3.0, float("nan"), 1.0], be.InvalidArgumentError, f"{_NOT_WHOLE} (first: nan)"),
        (
            [True, False, True],
            be.InvalidArgumentError,
            "count column 'count' must hold integers (numbers of examples), got Boolean values "
            "[True, False, True]",
        ),
        (["3", "4", "5"], be.InvalidArgumentError, "got String values ['3', '4', '5']"),
        # negative counts were an InvalidLabelError, as if a label were wrong
        ([3, -2, 1], be.InvalidArgumentError, "count column 'count' has negative values (min -2)"),
        ([3.0, -2.0, 1.0], be.InvalidArgumentError, "count column 'count' has negative values (min -2.0)"),
        (
            [3.0, 1e19, 1.0],
            be.CountOverflowError,
            "count column 'count' (Float64) has values beyond the int64 range (up to 1e+19)",
        ),
    ],
)
def test_from_long_refuses_counts_that_are_no_numbers_of_examples(count, error, message):
    with pytest.raises(error, match=re.escape(message)):
        CT.from_long(_long(count), by="run")


def test_a_key_column_of_nulls_only_merges_either_way():
    # n + a raised MergeError (polars stacks a Null column after a typed one, not before it)
    a = CT.from_frame(pl.DataFrame({"run": [1, 2], "label": [0, 1], "prediction": [0, 1]}), by="run")
    n = CT.from_frame(pl.DataFrame({"run": [None, None], "label": [0, 1], "prediction": [0, 1]}), by="run")
    assert n.keys.schema["run"] == pl.Null
    expected = (a + n).keys
    assert expected.schema["run"] == pl.Int64 and expected["run"].to_list() == [1, 2, None]
    for merged in (n + a, CT.merge(n, n, a), sum([n, a])):
        assert merged.keys.schema == expected.schema and merged.keys.equals(expected, null_equal=True)
    assert (n + a).equals(a + n) and (n + a).counts[2].tolist() == [[1, 0], [0, 1]]
    assert CT.merge(n, n, a).counts[2].tolist() == [[2, 0], [0, 2]]
    assert (n + n).keys.schema["run"] == pl.Null  # no other type to take
    strings = CT.from_frame(pl.DataFrame({"run": ["x"], "label": [0], "prediction": [1]}), by="run")
    with pytest.raises(be.MergeError, match="key columns have different types"):
        n + a + strings


def test_a_key_column_all_null_of_another_dtype_merges_as_one_of_the_null_dtype():
    # a String column of nulls only (a csv's empty column) was refused: "'run' is Int64 in one table
    # and String in another"; its rows hold no value a cast could merge or split
    a = CT.from_frame(pl.DataFrame({"run": [1, 2], "label": [0, 1], "prediction": [0, 1]}), by="run")
    n = CT.from_frame(pl.DataFrame({"run": [None, None], "label": [0, 1], "prediction": [0, 1]}), by="run")
    empty = pl.Series([None, None], dtype=pl.String)
    s = CT.from_frame(pl.DataFrame({"run": empty, "label": [0, 1], "prediction": [0, 1]}), by="run")
    assert s.keys.schema["run"] == pl.String
    expected = a + n
    for merged in (a + s, s + a, CT.merge(s, n, a), sum([s, a, n])):
        assert merged.keys.schema["run"] == pl.Int64
        assert merged.keys["run"].to_list() == [1, 2, None]
    assert (s + a).counts[2].tolist() == expected.counts[2].tolist() == [[1, 0], [0, 1]]
    assert CT.merge(s, n, a).counts[2].tolist() == [[2, 0], [0, 2]]
    assert (s + n).keys.schema["run"] == pl.String  # no value anywhere: the type it was given
    strings = CT.from_frame(pl.DataFrame({"run": ["x"], "label": [0], "prediction": [1]}), by="run")
    assert (s + strings).keys["run"].to_list() == ["x", None]
    with pytest.raises(be.MergeError, match="key columns have different types"):
        s + a + strings


def test_integer_keys_of_different_widths_merge_as_the_widest_and_other_types_are_named_in_one_line():
    # Int32 + Int64 keys raised polars' own MergeError text ("type Int32 is incompatible with expected
    # type Int64" and a context stack over lines), where the streamed engine widens them
    d1 = pl.DataFrame({"run": pl.Series([1, 2], dtype=pl.Int32), "label": [0, 1], "prediction": [0, 1]})
    d2 = pl.DataFrame({"run": [2, 3], "label": [1, 1], "prediction": [0, 1]})
    a, b = CT.from_frame(d1, by="run"), CT.from_frame(d2, by="run")
    expected = CT.from_frame(pl.concat([d1.with_columns(pl.col("run").cast(pl.Int64)), d2]), by="run")
    for merged in (a + b, b + a, CT.merge(a, b, a)):
        assert merged.keys.schema["run"] == pl.Int64
    assert (a + b).equals(expected) and (b + a).equals(expected)
    from sklearn.metrics import confusion_matrix

    both = pl.concat([d1.with_columns(pl.col("run").cast(pl.Int64)), d2])
    for run, counts in zip((a + b).keys["run"], (a + b).counts, strict=True):
        rows = both.filter(pl.col("run") == run)
        assert counts.tolist() == confusion_matrix(rows["label"], rows["prediction"], labels=[0, 1]).tolist()
    wide = d1.with_columns(pl.col("run").cast(pl.Int64))
    assert CT.merge(a, b, a).equals(CT.from_frame(pl.concat([wide, d2, wide]), by="run"))
    a_keys, a_counts = a.keys.clone(), a.counts.copy()
    for other, dtype in ((pl.String, "String"), (pl.UInt64, "UInt64")):
        c = CT.from_frame(d2.with_columns(pl.col("run").cast(other)), by="run")
        c_keys, c_counts = c.keys.clone(), c.counts.copy()
        message = (
            f"cannot merge tables whose key columns have different types: 'run' is Int32 in one table and "
            f"{dtype} in another; cast it to one type in every table"
        )
        with pytest.raises(be.MergeError, match=f"^{re.escape(message)}$"):
            a + c
        # a failed merge leaves both sides as they were
        assert a.keys.equals(a_keys) and a.keys.schema == a_keys.schema and np.array_equal(a.counts, a_counts)
        assert c.keys.equals(c_keys) and c.keys.schema == c_keys.schema and np.array_equal(c.counts, c_counts)


def test_adding_or_merging_what_is_no_table_is_refused_by_its_type_and_changes_nothing():
    # `a + frame` went to polars' __radd__ ("failed to determine supertype of i64 and object"),
    # merge(5) and merge(None) raised builtins' "object is not iterable", and merge(frame) was
    # refused as "got Series", its first column
    df = pl.DataFrame({"run": [1, 2], "label": [0, 1], "prediction": [0, 0]})
    a = CT.from_frame(df, by="run")
    other = CT.from_frame(df.with_columns(pl.col("run").cast(pl.String)), by="run", classes=[0, 1, 2])
    adds = "+ adds tables (build one from a frame with ContingencyTable.from_frame)"
    refused = {
        "cannot add a DataFrame of shape (2, 3) to a ContingencyTable; ": lambda: a + df,
        "cannot add a polars Series of 2 values to a ContingencyTable; ": lambda: a + df["label"],
        "cannot add an int (5) to a ContingencyTable; ": lambda: a + 5,
        "cannot add a ContingencyTable to an int (5); ": lambda: 5 + a,
        "cannot add None to a ContingencyTable; ": lambda: a + None,
    }
    for message, add in refused.items():
        with pytest.raises(be.InvalidArgumentError, match=re.escape(message + adds)):
            add()
    for value, shown in ((5, "an int (5)"), (None, "None"), (df, "a DataFrame of shape (2, 3)")):
        message = f"merge takes ContingencyTables, or one list of them, got {shown}"
        with pytest.raises(be.InvalidArgumentError, match=re.escape(message)):
            CT.merge(value)
    with pytest.raises(be.ClassMismatchError):
        a + other
    with pytest.raises(be.MergeError, match="key columns have different types"):
        a + CT.from_frame(df.with_columns(pl.col("run").cast(pl.String)), by="run")
    # neither side changed, and sum() still starts from 0: the rows counted twice, by sklearn
    from sklearn.metrics import confusion_matrix

    assert a.equals(CT.from_frame(df, by="run")) and df.equals(pl.DataFrame(df.to_dict()))
    assert other.counts.sum() == 2 and other.classes.to_list() == [0, 1, 2]
    twice = sum([a, a])
    for run, counts in zip(twice.keys["run"], twice.counts, strict=True):
        rows = df.filter(pl.col("run") == run)
        assert (
            counts.tolist()
            == (2 * confusion_matrix(rows["label"], rows["prediction"], labels=[0, 1])).tolist()
        )


def test_from_frame_of_a_lazy_frame_that_cannot_be_read_raises_source_error_as_evaluate_does(tmp_path):
    # from_frame raised the reader's own FileNotFoundError or polars' ComputeError
    (tmp_path / "corrupt.parquet").write_bytes(b"not parquet")  # shorter than a header and footer
    missing = tmp_path / "no_such.parquet"
    cases = [
        (
            pl.scan_parquet(missing),
            f"lazy frame: FileNotFoundError: No such file or directory (os error 2): {missing}",
        ),
        (
            pl.scan_parquet(tmp_path / "corrupt.parquet"),
            "lazy frame: ComputeError: parquet: File out of specification: A Parquet file must contain a "
            "header and footer with at least 12 bytes",
        ),
        (  # a plan that fails when it is collected, not when its schema is read
            pl.LazyFrame({"label": ["a"], "prediction": [1]}).with_columns(pl.col("label").cast(pl.Int64)),
            "lazy frame: InvalidOperationError: conversion from `str` to `i64` failed in column 'label' for "
            '1 out of 1 values: ["a"]',
        ),
    ]
    for lazy, message in cases:
        for call in (be.ContingencyTable.from_frame, be.evaluate):
            with pytest.raises(be.errors.SourceError, match=f"^{re.escape(message)}$"):
                call(lazy)


@pytest.mark.parametrize(
    "column",
    [
        pl.Series("k", [[1], [2]]),
        pl.Series("k", [[1], [2]], dtype=pl.Array(pl.Int64, 1)),
        pl.Series("k", [{"a": 1}, {"a": 2}]),
    ],
)
def test_the_constructor_refuses_a_nested_key_column_as_merges_and_from_long_do(column):
    # the table was built, and only its first merge or from_long refused the key
    message = (
        f"key column 'k' has dtype {column.dtype}, which cannot be a key; keys must be integer, float, "
        "decimal, string, categorical, boolean or temporal columns"
    )
    with pytest.raises(be.InvalidArgumentError, match=f"^{re.escape(message)}$"):
        be.ContingencyTable(pl.DataFrame(column), [0, 1], np.ones((2, 2, 2), dtype=np.int64))
    with pytest.raises(be.InvalidArgumentError, match=f"^{re.escape(message)}$"):
        be.ContingencyTable.from_frame(
            pl.DataFrame({"k": column, "label": [0, 1], "prediction": [0, 1]}), by="k"
        )


def test_a_table_pickled_with_unsorted_classes_loads_sorted():
    # 0.1's constructor kept classes as given, and __setstate__ took its state as it stood: such a
    # table loaded with classes [1, 0], recall 0.6 (sklearn 0.8), and refused to merge with its twin
    import pickle

    from sklearn.metrics import confusion_matrix, recall_score

    y = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
    p = [1, 1, 1, 1, 0, 1, 1, 0, 0, 0]
    old = CT.__new__(CT)  # the state such a table pickles, set as 0.1's constructor left it
    old._keys, old._classes, old._totals = pl.DataFrame(), pl.Series("class", [1, 0]), None
    old._counts = np.array([[[4, 1], [2, 3]]])
    loaded = pickle.loads(pickle.dumps(old))
    assert loaded.classes.to_list() == [0, 1]
    assert loaded.counts.tolist() == [confusion_matrix(y, p, labels=[0, 1]).tolist()]
    assert loaded.measures(["recall"])["recall"][0] == pytest.approx(recall_score(y, p))
    assert (loaded + CT(pl.DataFrame(), [1, 0], [[[4, 1], [2, 3]]])).counts.tolist() == [
        (2 * confusion_matrix(y, p, labels=[0, 1])).tolist()
    ]


def test_the_read_only_counts_cannot_be_made_writable():
    # the view's flag could be set back, and writing to it changed the table (1 + 2 + 3 + 4 became
    # 108 examples): the counts were writable beneath it, or a view of a writable array (a count, a merge)
    import pickle

    given = np.array([[[1, 2], [3, 4]]])
    df = pl.DataFrame({"run": [1, 1, 2], "label": [1, 0, 1], "prediction": [1, 1, 0]})
    counted = CT.from_frame(df, by="run")
    tables = [CT(pl.DataFrame(), [0, 1], given), CT(pl.DataFrame(), [1, 0], given), counted]
    tables += [counted + counted, counted.pool("run"), pickle.loads(pickle.dumps(counted, protocol=5))]
    for t in tables:
        before = t.counts.tolist()
        view = t.counts
        with pytest.raises(ValueError, match="cannot set WRITEABLE flag to True of this array"):
            view.flags.writeable = True
        with pytest.raises(ValueError, match="assignment destination is read-only"):
            view[0, 0, 0] = 99
        assert t.counts.tolist() == before
    assert given.flags.writeable  # copy=True freezes its own copy, not the caller's array


def test_tables_keyed_by_the_same_columns_in_another_order_merge():
    # a + b refused: "cannot merge tables keyed by ['run', 'fold'] and ['fold', 'run']"
    from sklearn.metrics import confusion_matrix

    df = pl.DataFrame(
        {"run": [1, 1, 1, 2], "fold": [0, 1, 1, 0], "label": [1, 0, 1, 1], "prediction": [1, 1, 1, 0]}
    )
    a = CT.from_frame(df, by=["run", "fold"])
    b = CT.from_frame(df, by=["fold", "run"])
    empty = CT.from_frame(df.clear(), by=["run", "fold"], classes=[0, 1])
    for merged in (a + b, CT.merge(empty, b, a), sum([a, b])):
        assert merged.by == ["run", "fold"]  # the first table's order
        assert merged.keys.rows() == [(1, 0), (1, 1), (2, 0)]
        for (run, fold), counts in zip(merged.keys.rows(), merged.counts, strict=True):
            part = df.filter((pl.col("run") == run) & (pl.col("fold") == fold))
            cm = confusion_matrix(part["label"].to_list(), part["prediction"].to_list(), labels=[0, 1])
            assert counts.tolist() == (2 * cm).tolist()
    assert (b + a).by == ["fold", "run"]
    other = CT.from_frame(df.rename({"fold": "seed"}), by=["seed", "run"])
    with pytest.raises(
        be.MergeError, match=re.escape("cannot merge tables keyed by ['run', 'fold'] and ['seed', 'run']")
    ):
        a + other
    three = CT.from_frame(df.with_columns(pl.col("label") + 1), by=["fold", "run"])
    with pytest.raises(
        be.ClassMismatchError, match=re.escape("cannot merge tables with different classes: [0, 1]")
    ):
        a + three
    assert (a.by, b.by, three.by) == (["run", "fold"], ["fold", "run"], ["fold", "run"])  # left as they were
    assert a.equals(CT.from_frame(df, by=["run", "fold"])) and b.equals(CT.from_frame(df, by=["fold", "run"]))


@pytest.mark.parametrize("classes", [{"neg", "pos"}, frozenset({0, 1})])
def test_the_constructor_refuses_classes_in_a_set_which_has_no_order(classes):
    # the counts' axes follow the classes' order, and a set of strings iterates in an order that
    # changes with the hash seed: recall 0.833 in one process and 0.875 in another
    with pytest.raises(be.InvalidArgumentError, match=r"^classes takes the class values in the order of"):
        CT(pl.DataFrame(), classes, [[[50, 10], [5, 35]]])
    # from_frame sorts the classes it counts, so a set there names the same table as a list
    df = pl.DataFrame({"label": [0, 1, 1], "prediction": [1, 1, 0]})
    assert CT.from_frame(df, classes={0, 1}).equals(CT.from_frame(df, classes=[0, 1]))


def test_uint64_classes_beyond_int64_are_refused_by_every_constructor():
    # from_frame refused them; a UInt64 Series of classes and from_long's UInt64 columns took them
    big = pl.Series([0, 2**63 + 1], dtype=pl.UInt64)
    message = f"classes must be integers within int64, booleans or strings, got [0, {2**63 + 1}]: "
    with pytest.raises(be.InvalidLabelError, match=re.escape(message)):
        CT(pl.DataFrame(), big, [[[1, 0], [1, 0]]])
    with pytest.raises(be.InvalidLabelError, match=re.escape(message)):
        CT.from_long(pl.DataFrame({"real": big, "predicted": big, "count": [1, 1]}))
    with pytest.raises(be.InvalidLabelError, match="does not fit in int64"):
        CT.from_frame(pl.DataFrame({"label": big, "prediction": big}))
    small = pl.Series([0, 2**63 - 1], dtype=pl.UInt64)  # the largest that fits: kept as UInt64
    assert CT(pl.DataFrame(), small, [[[1, 0], [1, 0]]]).classes.to_list() == [0, 2**63 - 1]


def test_one_class_of_booleans_keeps_both_classes():
    """As from_frame's docstring says: booleans always have classes [False, True] (recall NaN for a
    file of negatives alone, as scikit-learn's recall_score with zero_division=nan), integers the
    classes they hold (one class, positive by spec rule 5: recall 1)."""
    from sklearn.metrics import recall_score

    for labels, classes, recall in (([False, False], [False, True], None), ([0, 0], [0], 1.0)):
        df = pl.DataFrame({"label": labels, "prediction": labels})
        assert be.ContingencyTable.from_frame(df).classes.to_list() == classes
        got = be.evaluate(df, measures=["recall"])["recall"][0]
        if recall is None:
            expected = recall_score(labels, labels, zero_division=np.nan)
            assert np.isnan(got) and np.isnan(expected)
        else:
            assert got == recall
