"""The rows per group that counting found (``Counted.totals``) give a K > 2 table's ``n`` column
as its counts do: with groups and classes trimmed away, after pickling (which drops them), and
per class."""

from __future__ import annotations

import pickle

import numpy as np
import polars as pl
import pytest

from batcheval.core import encode
from batcheval.core.table import ContingencyTable
from batcheval.errors import ClassMismatchError, NullValuesError


@pytest.fixture
def frame(monkeypatch) -> pl.DataFrame:
    monkeypatch.setattr(encode, "KEY_GUESS_ROWS", 1)  # the padded key guess: empty groups trimmed
    rng = np.random.default_rng(4)
    n = 30_000
    label = rng.choice([0, 1, 3, 5], n)  # classes 2 and 4 trimmed from the value range
    return pl.DataFrame({
        "run": rng.integers(10, 900, n), "fold": rng.integers(0, 3, n), "label": label,
        "prediction": np.where(rng.random(n) < 0.6, label, rng.choice([0, 1, 3, 5], n)),
    })  # fmt: skip


def _expected_n(df: pl.DataFrame) -> list[tuple[int, int, int]]:
    return sorted(df.group_by("run", "fold").len().iter_rows())


def test_n_from_counting_is_numpys_rows_per_group(frame):
    table = ContingencyTable.from_frame(frame, by=["run", "fold"], label="label", prediction="prediction")
    assert table.classes.to_list() == [0, 1, 3, 5]
    assert table._totals is not None  # n comes from the count, not from summing the tables
    got = table.measures(["accuracy"]).select("run", "fold", "n")
    assert sorted(got.iter_rows()) == _expected_n(frame)
    again = pickle.loads(pickle.dumps(table)).measures(["accuracy"])
    assert again.equals(table.measures(["accuracy"]))


def test_per_class_n_is_the_groups_rows(frame):
    table = ContingencyTable.from_frame(frame, by=["run", "fold"], label="label", prediction="prediction")
    got = table.measures(["accuracy"], per_class=True).group_by("run", "fold").agg(pl.col("n").unique())
    rows = {(r, f): n for r, f, n in got.iter_rows()}
    assert all(rows[(r, f)] == [n] for r, f, n in _expected_n(frame))


def test_measures_of_a_named_class_among_three_are_that_class_against_the_rest():
    # positive= of a table of three classes was ignored (stop 43); evaluate takes it as the class
    # against the rest, and so does the table now (recall 7/10 of class b, by hand)
    import polars as pl

    import batcheval as be

    t = be.ContingencyTable(pl.DataFrame({"run": [1]}), ["a", "b", "c"], [[[5, 1, 0], [2, 7, 1], [0, 3, 4]]])
    got = t.measures(["recall", "informedness"], positive="b")
    assert got.select("tp", "fp", "fn", "tn").row(0) == (7, 4, 3, 9)
    assert got["recall"][0] == 0.7 and got["informedness"][0] == pytest.approx(7 / 10 - 4 / 13, rel=1e-15)
    assert got.equals(t.versus_rest("b").measures(["recall", "informedness"]))


def test_a_table_keeps_its_own_counts():
    # the table used to adopt the caller's array, so a later write changed n and every measure unchecked
    arr = np.array([[[5, 1], [2, 7]]], dtype=np.int64)
    table = ContingencyTable(pl.DataFrame({"run": [1]}), [0, 1], arr)
    arr[0, 0, 0] = -100
    assert table.counts.tolist() == [[[5, 1], [2, 7]]]
    assert table.measures(["accuracy"])["accuracy"][0] == (5 + 7) / 15
    mine = np.array([[[5, 1], [2, 7]]], dtype=np.int64)
    shared = ContingencyTable(pl.DataFrame({"run": [1]}), [0, 1], mine, copy=False)
    assert np.shares_memory(shared.counts, mine)


def test_n_of_groups_whose_sum_passes_int64_is_exact():
    # each group's total fits int64, their sum did not: n and the repr showed -2
    b = 2**61
    counts = np.array([[[b, b], [b, b - 1]]] * 2)
    t = ContingencyTable(pl.DataFrame({"run": [1, 2]}), [0, 1], counts)
    expected = sum(int(v) for v in counts.reshape(-1))
    assert t.n == expected == 2**64 - 2
    assert f"{expected} examples" in repr(t)


def test_merging_classes_that_differ_only_in_dtype_widens_integers_or_says_to_cast():
    # the message said "build both with the same classes=", which both already had
    df = pl.DataFrame({"run": [1, 2], "label": [0, 1], "prediction": [1, 1]})
    wide = ContingencyTable.from_frame(df, by="run")
    narrow = ContingencyTable.from_frame(
        df.with_columns(pl.col("label", "prediction").cast(pl.Int32)), by="run"
    )
    # integers of two widths are one kind, as merge widens keys and the streamed engine class sets:
    # one table a file, an Int32 file beside an Int64 one, was refused (stop 62's review)
    merged = ContingencyTable.merge(wide, narrow)
    assert merged.classes.dtype == pl.Int64 and merged.classes.to_list() == [0, 1]
    np.testing.assert_array_equal(merged.counts, 2 * wide.counts)
    assert (narrow + wide).equals(merged) and narrow.classes.dtype == pl.Int32  # operands untouched
    unsigned = ContingencyTable.from_frame(
        df.with_columns(pl.col("label", "prediction").cast(pl.UInt64)), by="run"
    )
    message = r"classes \[0, 1\] are of different dtypes, Int64 and UInt64; cast the label and prediction"
    with pytest.raises(ClassMismatchError, match=message):
        ContingencyTable.merge(wide, unsigned)


def test_from_long_reads_lazy_and_pandas_frames_and_names_a_null_class():
    long = pl.DataFrame({"run": [7, 7, 8], "real": [0, 1, 1], "predicted": [0, 1, 0], "count": [3, 4, 2]})
    expected = np.array([[[3, 0], [0, 4]], [[0, 0], [2, 0]]])  # run 7's and run 8's cells, written out
    for frame in (long, long.lazy(), long.to_pandas()):  # an AttributeError for the last two
        np.testing.assert_array_equal(ContingencyTable.from_long(frame, by="run").counts, expected)
    with_null = long.with_columns(predicted=pl.Series([0, None, 0]))  # was "outside classes=[0, 1]"
    with pytest.raises(NullValuesError, match=r"^predicted column 'predicted' has 1 null values"):
        ContingencyTable.from_long(with_null, by="run")


def test_a_table_of_no_groups_merges_as_nothing():
    # a shard of no rows came back from to_long with classes [] and then could not be added
    df = pl.DataFrame({"run": [1, 2], "label": [0, 1], "prediction": [1, 1]})
    full = ContingencyTable.from_frame(df, by="run")
    empty = ContingencyTable.from_long(ContingencyTable.from_frame(df.head(0), by="run").to_long(), by="run")
    assert len(empty) == 0
    for merged in (ContingencyTable.merge(full, empty), ContingencyTable.merge(empty, full)):
        np.testing.assert_array_equal(merged.counts, [[[0, 1], [0, 0]], [[0, 0], [0, 1]]])
        assert merged.classes.to_list() == [0, 1]


def test_the_long_frame_of_a_table_of_no_classes_reads_back():
    # to_long of a table built with classes=[] wrote Null-dtype class columns, which from_long refused
    # ("real column 'real' has dtype Null")
    empty = ContingencyTable(pl.DataFrame({"r": [1]}), [], np.zeros((1, 0, 0), np.int64))
    long = empty.to_long()
    assert long.height == 0 and long.schema["real"] == pl.Null
    back = ContingencyTable.from_long(long, by="r")
    assert len(back) == 0 and back.classes.to_list() == [] and back.counts.shape == (0, 0, 0)
    # a table that had rows adds to it as to a table of no rows (a table of no groups adds nothing)
    counted = ContingencyTable.from_frame(pl.DataFrame({"r": [1], "label": [0], "prediction": [0]}), by="r")
    assert (back + counted).equals(counted)
