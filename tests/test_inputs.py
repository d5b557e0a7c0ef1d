"""Every supported input shape and key/label type gives the naive counts."""

from __future__ import annotations

import datetime as dt
import re

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from sklearn.metrics import accuracy_score, confusion_matrix, roc_auc_score

import batcheval as be
from batcheval.core import counting
from batcheval.core.encode import encode_key
from batcheval.kernels import count as count_mod
from tests.helpers import sweep_frame
from tests.reference.counting import count_groups


def _check(df: pl.DataFrame, by: list[str], classes=None) -> be.ContingencyTable:
    table = be.ContingencyTable.from_frame(df, by=by, classes=classes)
    keys, cls, counts = count_groups(df, by, "label", "prediction", classes)
    assert table.classes.to_list() == cls
    if by:
        assert table.keys.rows() == keys
    np.testing.assert_array_equal(table.counts, counts)
    return table


@pytest.mark.parametrize(
    "make",
    [
        lambda df: df,
        lambda df: df.lazy(),
        lambda df: df.to_arrow(),
        lambda df: df.to_pandas(),
    ],
    ids=["polars", "lazy", "arrow", "pandas"],
)
def test_frame_types(make):
    df = sweep_frame(n_runs=4, n_folds=2, rows_per_group=10)
    a = be.evaluate(make(df), by=["run", "fold"])
    b = be.evaluate(df, by=["run", "fold"])
    assert a.equals(b)


def test_arrow_record_batch_and_pandas_types():
    df = sweep_frame(n_runs=2, n_folds=1, rows_per_group=10)
    batch = df.to_arrow().to_batches()[0]
    assert be.evaluate(batch, by="run").equals(be.evaluate(df, by="run"))
    assert isinstance(df.to_pandas(), pd.DataFrame)
    assert isinstance(df.to_arrow(), pa.Table)


def test_foreign_frames_convert_only_the_named_columns():
    pdf = pd.DataFrame(
        {
            "run": [1, 2, 1, 2],
            "label": [1, 0, 1, 1],
            "prediction": [1, 1, 0, 1],
            "score": [0.9, 0.6, 0.2, 0.7],
            "notes": [1, "n/a", 2.5, None],  # mixed types, which arrow cannot read as one column
        }
    )
    keys, _, counts = count_groups(pl.from_pandas(pdf.drop(columns="notes")), ["run"], "label", "prediction")
    out = be.evaluate(pdf, by="run", measures="accuracy")
    assert out["run"].to_list() == [k for (k,) in keys]
    assert out["n"].to_list() == counts.sum(axis=(1, 2)).tolist()
    assert out["tp"].to_list() == counts[:, 1, 1].tolist()
    assert be.leaderboard(pdf, run="run")["n"].sum() == 4
    assert be.auc(pdf, by="run")["n"].to_list() == [2, 2]
    table = pa.table(
        [
            pa.array([1, 2, 1, 2]),
            pa.array(["x"] * 4),
            pa.array([0] * 4),
            pa.array([1, 0, 1, 1]),
            pa.array([1, 1, 0, 1]),
        ],
        names=["run", "x", "x", "label", "prediction"],
    )
    assert be.evaluate(table, by="run", measures="accuracy")["tp"].to_list() == counts[:, 1, 1].tolist()
    unrelated = {"run": [1, 2, 1, 2], "label": [1, 0, 1, 1], "prediction": [1, 1, 0, 1], "x": [1, "a"]}
    assert be.evaluate(unrelated, by="run", measures="accuracy")["tp"].to_list() == counts[:, 1, 1].tolist()


def test_foreign_frames_check_the_named_columns():
    twice = pa.table(
        [pa.array([1, 2]), pa.array([1, 0]), pa.array([0, 1])], names=["label", "label", "prediction"]
    )
    with pytest.raises(be.DuplicateColumnError, match="label column 'label' appears 2 times in the frame"):
        be.evaluate(twice)
    with pytest.raises(be.DuplicateColumnError, match="label column 'label' appears 2 times in the frame"):
        be.evaluate(twice.to_pandas())
    with pytest.raises(be.ColumnNotFoundError, match=r"key column 'run' not found; the frame has columns \["):
        be.evaluate(twice.to_pandas(), by="run")
    mixed = pd.DataFrame({"label": [1, "0", 1], "prediction": [1, 1, 0]})
    with pytest.raises(be.InvalidArgumentError, match=r"label column 'label' cannot be read: .*'0'"):
        be.evaluate(mixed)


@pytest.mark.parametrize("dtype", [pl.Int8, pl.Int16, pl.Int32, pl.UInt8, pl.UInt16, pl.UInt32, pl.UInt64])
def test_integer_key_widths(dtype):
    df = sweep_frame(n_runs=5, n_folds=3, rows_per_group=8).with_columns(pl.col("run").cast(dtype))
    table = _check(df, ["run", "fold"])
    assert table.keys.schema["run"] == dtype


def test_string_categorical_enum_bool_date_float_keys():
    rng = np.random.default_rng(0)
    n = 500
    df = pl.DataFrame(
        {
            "model": rng.choice(["svm", "knn", "tree", "mlp"], n),
            "cat": pl.Series(rng.choice(["b", "a", "c"], n)).cast(pl.Categorical),
            "enum": pl.Series(rng.choice(["lo", "hi"], n)).cast(pl.Enum(["lo", "hi"])),
            "flag": rng.uniform(size=n) < 0.5,
            "day": [dt.date(2026, 1, 1) + dt.timedelta(days=int(d)) for d in rng.integers(0, 3, n)],
            "threshold": rng.choice([0.25, 0.5, 0.75], n),
            "label": rng.integers(0, 2, n),
            "prediction": rng.integers(0, 2, n),
        }
    )
    for by in (
        ["model"],
        ["cat"],
        ["enum"],
        ["flag"],
        ["day"],
        ["threshold"],
        ["model", "threshold", "flag"],
    ):
        table = be.ContingencyTable.from_frame(df, by=by)
        expected = df.group_by(by).agg(pl.len()).sort(by)
        assert (
            table.keys.sort(by).select(by).cast({c: pl.String for c in by}).rows()
            == expected.select(by).cast({c: pl.String for c in by}).rows()
        )
        got = table.keys.hstack([pl.Series("n", table.counts.sum(axis=(1, 2)), dtype=pl.UInt32)]).sort(by)
        assert got["n"].to_list() == expected["len"].to_list()
        for c in by:
            assert table.keys.schema[c] == df.schema[c]


def test_counting_kernels_get_read_only_inputs_whatever_the_encoding_path():
    """numba compiles a kernel per argument type, and a writable array is another type
    than a read-only one: frames whose keys and classes are read as they are (read-only
    polars buffers) and frames that go through codes (writable arrays) must reach the
    counting kernels alike, or each cold start compiles both variants."""
    rng = np.random.default_rng(3)
    n = 300
    base = pl.DataFrame({
        "run": rng.integers(0, 4, n), "label": rng.integers(0, 2, n), "prediction": rng.integers(0, 2, n)
    })  # fmt: skip
    frames = [
        base,  # integer keys and classes read as they are
        base.with_columns(pl.col("run").cast(pl.String)),  # dictionary codes
        base.with_columns(pl.col("run").cast(pl.Float64)),  # hashed codes
        base.with_columns(pl.col("label", "prediction").cast(pl.String)),  # enum codes
        base.with_columns(pl.col("label", "prediction").cast(pl.Boolean)),
    ]
    for df in frames:
        _check(df, ["run"])
    key_and_class_args = [0, 1, 2, 3, 7, 8]
    signatures = count_mod.count_private.signatures
    assert signatures
    for sig in signatures:
        writable = [i for i in key_and_class_args if sig[i].mutable]
        assert not writable, f"count_private compiled for writable inputs {writable}: {sig}"


def test_small_frames_of_any_integer_dtype_reach_the_counting_kernel_as_int64(monkeypatch):
    """A small frame with an int32, int16 or uint8 key, or int8, int32 or boolean classes, must
    not compile the counting kernels again for its dtype (a second or more per dtype, issue
    #23): the encoding widens small integer columns, so the serial kernels see int64 only."""
    rng = np.random.default_rng(5)
    n = 300
    base = pl.DataFrame({
        "run": rng.integers(0, 4, n), "label": rng.integers(0, 2, n), "prediction": rng.integers(0, 2, n)
    })  # fmt: skip
    frames = [base.with_columns(pl.col("run").cast(dt)) for dt in (pl.Int32, pl.Int16, pl.UInt8, pl.Boolean)]
    frames += [base.with_columns(pl.col("label", "prediction").cast(dt)) for dt in (pl.Int8, pl.Int32)]
    frames.append(base.with_columns(pl.col("label", "prediction").cast(pl.Boolean)))
    seen: list[tuple[str, ...]] = []
    kernel = count_mod.count_private.serial  # small frames: counted by the serial version

    def spy(*args):
        # the first key array, the label and the prediction
        seen.append(tuple(str(args[i].dtype) for i in (0, 7, 8)))
        return kernel(*args)

    monkeypatch.setattr(count_mod.count_private, "serial", spy)
    for df in frames:
        _check(df, ["run"])
    assert len(seen) == len(frames)
    assert set(seen) == {("int64", "int64", "int64")}


def test_string_keys_come_out_sorted():
    df = pl.DataFrame({"model": ["z", "a", "m", "a"], "label": [0, 1, 1, 0], "prediction": [0, 1, 0, 0]})
    assert be.evaluate(df, by="model")["model"].to_list() == ["a", "m", "z"]


def test_null_keys_form_their_own_group():
    df = pl.DataFrame(
        {
            "run": [1, None, 1, None, 2],
            "name": ["a", "b", None, None, "a"],
            "label": [0, 1, 1, 0, 1],
            "prediction": [0, 1, 0, 0, 1],
        }
    )
    _check(df, ["run"])
    _check(df, ["name"])
    _check(df, ["run", "name"])


def test_categorical_and_enum_keys_with_nulls_form_a_null_group_last():
    df = pl.DataFrame(
        {
            "name": ["b", "a", None, "b", None, "a", "b"],
            "label": [0, 1, 1, 0, 1, 1, 0],
            "prediction": [0, 1, 0, 1, 1, 0, 0],
        }
    )
    _check(df.with_columns(pl.col("name").cast(pl.Categorical)), ["name"])
    enum = df.with_columns(pl.col("name").cast(pl.Enum(["b", "a"])))
    table = be.ContingencyTable.from_frame(enum, by=["name"])
    assert table.keys["name"].to_list() == ["b", "a", None]  # the enum's order, then the nulls
    assert table.keys.schema["name"] == pl.Enum(["b", "a"])
    _, _, counts = count_groups(df, ["name"], "label", "prediction")  # (a, b, None)
    np.testing.assert_array_equal(table.counts, counts[[1, 0, 2]])
    only_nulls = df.with_columns(pl.lit(None, pl.Categorical).alias("name"))
    _check(only_nulls, ["name"])


def test_pandas_categorical_key_with_nan_in_every_entry_point():
    pdf = pd.DataFrame(
        {
            "run": pd.Categorical(["a", np.nan, "a", np.nan, "b", "b"]),
            "label": [1, 0, 1, 0, 1, 0],
            "prediction": [1, 0, 0, 0, 1, 1],
            "score": [0.9, 0.1, 0.4, 0.2, 0.8, 0.3],
        }
    )
    out = be.evaluate(pdf, by="run", measures="accuracy")
    assert out["run"].to_list() == ["a", "b", None]
    assert out["n"].to_list() == [2, 2, 2]
    assert out["accuracy"].to_list() == [0.5, 0.5, 1.0]
    assert be.auc(pdf, by="run")["run"].to_list() == ["a", "b", None]
    assert be.sweep(pdf, by="run", thresholds=[0.5])["tp"].to_list() == [1, 1, 0]
    assert be.leaderboard(pdf, run="run")["n"].sum() == 6


@pytest.mark.parametrize("arrow", [False, True])
def test_pandas_period_and_interval_keys_are_read_as_their_text(arrow):
    periods = pd.Series(pd.period_range("2020-01", periods=3, freq="M").repeat(2))
    periods[5] = pd.NaT
    pdf = pd.DataFrame(
        {
            "month": periods,
            "bin": pd.Series(pd.interval_range(0, 3).repeat(2)),
            "label": [1, 0, 1, 0, 1, 0],
            "prediction": [1, 0, 0, 0, 1, 1],
        }
    )
    data = pa.Table.from_pandas(pdf) if arrow else pdf
    out = be.evaluate(data, by="month", measures="accuracy")
    assert out["month"].cast(pl.String).to_list() == ["2020-01", "2020-02", "2020-03", None]
    assert out["accuracy"].to_list() == [1.0, 0.5, 1.0, 0.0]
    bins = be.evaluate(data, by="bin", measures="accuracy")["bin"]
    assert bins.cast(pl.String).to_list() == ["(0, 1]", "(1, 2]", "(2, 3]"]


def test_cut_intervals_and_categorical_periods_keep_pandas_order():
    # their text alone sorts "(10, 30]" before "(5, 10]"; a categorical of Periods kept in arrow
    # read back as the periods' ordinals (600 for 2020-01), and pd.cut's as "unhashable type: 'dict'"
    bins = pd.cut([1, 7, 20, 3, 12, 4], [0, 5, 10, 30])
    periods = pd.Categorical(pd.period_range("2020-01", periods=3, freq="M").repeat(2))
    for key, expected in (
        (bins, ["(0, 5]", "(5, 10]", "(10, 30]"]),
        (periods, ["2020-01", "2020-02", "2020-03"]),
    ):
        pdf = pd.DataFrame({"k": key, "label": [0, 1, 0, 1, 0, 1], "prediction": [0, 1, 1, 1, 0, 0]})
        out = be.evaluate(pdf, by="k", measures="accuracy")
        assert out["k"].cast(pl.String).to_list() == expected
        # pandas' own group-by gives the same groups and accuracies
        ref = pdf.assign(hit=pdf.label == pdf.prediction).groupby("k", observed=True)["hit"].mean()
        assert out["accuracy"].to_list() == ref.to_list()
        with pytest.raises(
            be.InvalidArgumentError, match=r"key column 'k' holds pandas values .* cannot turn back"
        ):
            be.evaluate(pa.Table.from_pandas(pdf), by="k")


def test_polars_extension_key_is_refused_naming_the_column():
    df = pl.from_pandas(pd.DataFrame({"month": pd.period_range("2020-01", periods=2, freq="M"),
                                      "label": [0, 1], "prediction": [0, 1]}))  # fmt: skip
    with pytest.raises(be.InvalidArgumentError, match="key column 'month' has the extension dtype"):
        be.evaluate(df, by="month")


@pytest.mark.parametrize("n", [12, 70_000])
@pytest.mark.parametrize("dtype", [pl.Float64, pl.Float32])
def test_float_keys_group_signed_zeros_and_every_nan_together(n, dtype):
    rng = np.random.default_rng(3)
    # two NaNs of other bit patterns than np.nan's
    odd_nans = np.array([0x7FF8000000000001, 0xFFF8000000000000], np.uint64).view(np.float64)
    pool = np.array([0.0, -0.0, 0.5, np.nan, *odd_nans])
    v = rng.choice(pool, n).astype(np.float32 if dtype == pl.Float32 else np.float64)
    label, prediction = rng.integers(0, 2, n), rng.integers(0, 2, n)
    df = pl.DataFrame({"thr": v, "label": label, "prediction": prediction})
    out = be.evaluate(df, by="thr", measures="accuracy")
    group = np.where(np.isnan(v), 2, np.where(v == 0, 0, 1))  # 0.0 < 0.5 < NaN
    assert out["thr"].dtype == dtype
    np.testing.assert_array_equal(out["thr"].to_numpy(), np.array([0.0, 0.5, np.nan], np.float64))
    assert not np.signbit(out["thr"].to_numpy()[0])
    np.testing.assert_array_equal(out["n"].to_numpy(), np.bincount(group, minlength=3))
    tp = np.bincount(group, weights=(label == 1) & (prediction == 1), minlength=3)
    np.testing.assert_array_equal(out["tp"].to_numpy(), tp)


@pytest.mark.parametrize(
    "key",
    [
        pl.Series([[1], [1], [2], [2]]),
        pl.Series([[1], [1], [2], [2]], dtype=pl.Array(pl.Int64, 1)),
        pl.Series([{"a": 1}, {"a": 1}, {"a": 2}, {"a": 2}]),
        pl.Series([object()] * 4, dtype=pl.Object),
    ],
    ids=["list", "array", "struct", "object"],
)
def test_nested_and_object_keys_are_refused_naming_the_column_and_dtype(key):
    df = pl.DataFrame(
        {"run": key, "label": [1, 0, 1, 0], "prediction": [1, 0, 0, 0], "score": [0.9, 0.1, 0.4, 0.3]}
    )
    expected = rf"key column 'run' has dtype {re.escape(str(key.dtype))}, which cannot be a key"
    with pytest.raises(be.InvalidArgumentError, match=expected):
        be.evaluate(df, by="run", measures="accuracy")
    with pytest.raises(be.InvalidArgumentError, match=expected):
        be.auc(df, by="run")


@pytest.mark.parametrize("dtype", [pl.Int128, pl.UInt128])
@pytest.mark.parametrize("big", [False, True], ids=["fits-int64", "beyond-int64"])
def test_128_bit_integer_keys(dtype, big):
    top = 2**100 if big else 7
    df = pl.DataFrame(
        {
            "run": pl.Series([top, 3, None, top, 3, 5], dtype=dtype),
            "label": [1, 0, 1, 1, 0, 1],
            "prediction": [1, 1, 0, 1, 0, 0],
            "score": [0.9, 0.8, 0.1, 0.7, 0.2, 0.4],
        }
    )
    table = _check(df, ["run"])
    assert table.keys.schema["run"] == dtype
    assert table.keys["run"].to_list() == [3, 5, top, None]
    assert be.auc(df, by="run")["run"].to_list() == [3, 5, top, None]


def test_128_bit_integer_keys_in_sweep_and_compare():
    rng = np.random.default_rng(4)
    n = 240
    df = pl.DataFrame(
        {
            "run": np.repeat(np.arange(2), n // 2),
            "fold": np.tile(np.arange(4), n // 4),
            "label": rng.integers(0, 2, n),
            "score": rng.random(n),
        }
    ).with_columns(prediction=(pl.col("score") > 0.5).cast(pl.Int64))
    wide = df.with_columns(pl.col("run", "fold").cast(pl.Int128))
    swept = be.sweep(wide, by="run", thresholds=[0.5])
    assert swept["run"].dtype == pl.Int128
    positive = (df["label"] == 1).to_numpy() & (df["score"] >= 0.5).to_numpy()
    runs = df["run"].to_numpy()
    assert swept["tp"].to_list() == [int(positive[runs == r].sum()) for r in (0, 1)]
    compared = be.compare(wide, run="run", fold="fold", measure="accuracy")
    assert compared.drop("run").equals(be.compare(df, run="run", fold="fold", measure="accuracy").drop("run"))


def test_128_bit_integer_labels_that_fit_int64_count_as_int64():
    df = pl.DataFrame({"label": [2, 0, 1, 2, 0], "prediction": [2, 1, 1, 0, 0]})
    wide = df.cast(pl.Int128)
    _, _, counts = count_groups(df, [], "label", "prediction")
    np.testing.assert_array_equal(be.ContingencyTable.from_frame(wide).counts, counts)
    scored = pl.DataFrame({"label": pl.Series([1, 0, 1, 0], dtype=pl.Int128), "score": [0.9, 0.3, 0.2, 0.4]})
    assert be.auc(scored)["roc_auc"].item() == roc_auc_score([1, 0, 1, 0], [0.9, 0.3, 0.2, 0.4])


def test_class_values_beyond_int64_are_refused_naming_the_column():
    big = pl.DataFrame(
        {
            "label": pl.Series([0, 1], dtype=pl.UInt64),
            "prediction": pl.Series([2**64 - 1, 0], dtype=pl.UInt64),
        }
    )
    with pytest.raises(
        be.InvalidLabelError, match=r"prediction column 'prediction' \(UInt64\) holds 18446744073709551615, "
    ):
        be.evaluate(big)
    wide = pl.DataFrame({"label": pl.Series([0, -(2**70)], dtype=pl.Int128), "prediction": [0, 1]})
    with pytest.raises(be.InvalidLabelError, match=rf"label column 'label' \(Int128\) holds {-(2**70)}, "):
        be.evaluate(wide)


@pytest.mark.parametrize("dtype", [pl.UInt8, pl.Int8, pl.Int16, pl.UInt16])
@pytest.mark.parametrize("classes", [[-1, 0, 1], [0, 1, 300], [0, 1, -40_000, 70_000]])
def test_classes_beyond_narrow_integer_labels_widen_the_classes_to_int64(dtype, classes):
    # polars' InvalidOperationError from casting classes= to the labels' dtype; from_long
    # already widened such classes to Int64, and from_frame now does too
    label, prediction = [0, 1, 1, 0, 1], [0, 1, 0, 0, 1]
    df = pl.DataFrame({"label": label, "prediction": prediction}).cast(dtype)
    table = be.ContingencyTable.from_frame(df, classes=classes)
    values = sorted(classes)
    info = np.iinfo(pl.Series([], dtype=dtype).to_numpy().dtype)
    widened = not info.min <= values[0] <= values[-1] <= info.max
    assert table.classes.dtype == (pl.Int64 if widened else dtype) and table.classes.to_list() == values
    np.testing.assert_array_equal(table.counts[0], confusion_matrix(label, prediction, labels=values))
    got = be.evaluate(df, classes=classes, measures=["accuracy"])["accuracy"].item()
    assert got == accuracy_score(label, prediction)


def test_classes_beyond_int64_are_refused_naming_the_value():
    # a raw TypeError from building the class series
    df = pl.DataFrame({"label": [0, 1], "prediction": [1, 1]})
    long = pl.DataFrame({"real": [0, 1], "predicted": [1, 1], "count": [2, 3]})
    for big, build in (
        (2**64, lambda c: be.ContingencyTable.from_frame(df, classes=c)),
        (2**64, lambda c: be.ContingencyTable.from_long(long, classes=c)),
        (-(2**64), lambda c: be.evaluate(df, classes=c)),
        (1e30, lambda c: be.evaluate(df, classes=c)),
    ):
        with pytest.raises(
            be.InvalidLabelError, match=re.escape(f"classes= holds {big!r}, which does not fit in int64")
        ):
            build([0, 1, big])


def test_wide_and_sparse_integer_keys_use_the_hashed_space():
    rng = np.random.default_rng(1)
    n = 2000
    df = pl.DataFrame(
        {
            "a": rng.integers(0, 10**12, 40)[rng.integers(0, 40, n)],
            "b": rng.integers(-(10**15), 10**15, 30)[rng.integers(0, 30, n)],
            "c": rng.integers(0, 7, n),
            "label": rng.integers(0, 3, n),
            "prediction": rng.integers(0, 3, n),
        }
    )
    _check(df, ["a"])
    _check(df, ["a", "b", "c"])


def test_more_than_four_key_columns():
    rng = np.random.default_rng(2)
    n = 3000
    cols = {f"k{i}": rng.integers(0, 3 + i, n) for i in range(6)}
    df = pl.DataFrame({**cols, "label": rng.integers(0, 2, n), "prediction": rng.integers(0, 2, n)})
    _check(df, list(cols))


def test_five_key_columns_count_in_a_space_as_dense_as_four(monkeypatch):
    # four columns packed into one code per distinct combination (about every row) beside a fifth
    # of 100 values made a space of rows × 100 groups: 2M rows used 8.7 GB and 17 s (4 keys: 0.9 GB)
    monkeypatch.setattr(counting, "_DENSE_MIN", 1 << 12)
    rng = np.random.default_rng(7)
    n = 3000
    cols = {f"k{i}": rng.integers(0, 100, n) for i in range(5)}
    df = pl.DataFrame({**cols, "label": rng.integers(0, 2, n), "prediction": rng.integers(0, 2, n)})
    space = counting.key_space([encode_key(df[c], n) for c in cols], n, 2)
    assert space.size <= max(counting._DENSE_FACTOR * n, counting._DENSE_MIN)
    _check(df, list(cols))


def test_sparse_combinations_of_dense_columns_hash(monkeypatch):
    monkeypatch.setattr(counting, "_DENSE_MIN", 16)
    monkeypatch.setattr(counting, "_DENSE_FACTOR", 0)
    df = sweep_frame(n_runs=30, n_folds=4, rows_per_group=5, n_classes=3)
    _check(df, ["run", "fold"])


@pytest.mark.parametrize("strategy", ["private", "private-blocks", "partitioned", "radix", "radix-blocks"])
def test_counting_strategies_agree(monkeypatch, strategy):
    if strategy == "radix-blocks":  # and rows in blocks of 101
        monkeypatch.setattr(counting, "_RADIX_BLOCK_ROWS", 101)
    if strategy.startswith("radix"):  # tiny partitions of 8 cells, probe windows of 16 rows
        monkeypatch.setattr(counting, "_RADIX_MIN_CELLS", 1)
        monkeypatch.setattr(counting, "_RADIX_PART_BITS", 3)
        monkeypatch.setattr(counting, "_PROBE", 16)
        monkeypatch.setattr(counting, "_GROUPED_FRACTION", 1.1)
    if strategy == "private-blocks":  # flush the uint32 thread tables every 7 rows per thread
        monkeypatch.setattr(counting, "PRIVATE_ROWS_PER_THREAD", 7)
    if strategy == "partitioned":
        monkeypatch.setattr(counting, "PRIVATE_CELLS", 0)
        monkeypatch.setattr(counting, "n_threads", lambda: 2)
    df = sweep_frame(n_runs=40, n_folds=5, rows_per_group=13, n_classes=3, seed=9)
    _check(df, ["run", "fold"])
    _check(df.sample(fraction=1.0, shuffle=True, seed=1), ["run", "fold"])


def test_no_keys_is_one_group():
    df = sweep_frame(n_runs=3)
    out = be.evaluate(df)
    assert out.height == 1 and out["n"][0] == df.height


@pytest.mark.parametrize("kind", ["bool", "str", "float", "cat", "int32", "uint8"])
def test_label_types(kind):
    df = sweep_frame(n_runs=3, n_folds=2, rows_per_group=20)
    conv = {
        "bool": lambda c: pl.col(c).cast(pl.Boolean),
        "str": lambda c: pl.when(pl.col(c) == 1).then(pl.lit("pos")).otherwise(pl.lit("neg")),
        "float": lambda c: pl.col(c).cast(pl.Float64),
        "cat": lambda c: (
            pl.when(pl.col(c) == 1).then(pl.lit("pos")).otherwise(pl.lit("neg")).cast(pl.Categorical)
        ),
        "int32": lambda c: pl.col(c).cast(pl.Int32),
        "uint8": lambda c: pl.col(c).cast(pl.UInt8),
    }[kind]
    typed = df.with_columns(conv("label").alias("label"), conv("prediction").alias("prediction"))
    a = be.evaluate(typed, by=["run", "fold"], measures=["informedness", "f1"])
    b = be.evaluate(df, by=["run", "fold"], measures=["informedness", "f1"])
    assert a.drop("run", "fold").equals(b.drop("run", "fold"))


def test_classes_are_the_union_over_the_whole_input_not_per_group():
    df = pl.DataFrame({"run": [1, 1, 2, 2], "label": [0, 1, 2, 2], "prediction": [0, 1, 1, 2]})
    table = be.ContingencyTable.from_frame(df, by="run")
    assert table.classes.to_list() == [0, 1, 2]
    assert table.counts.shape == (2, 3, 3)


def test_classes_argument_adds_absent_classes_and_fixes_order():
    df = pl.DataFrame({"label": ["b", "b"], "prediction": ["b", "c"]})
    table = be.ContingencyTable.from_frame(df, classes=["c", "a", "b"])
    assert table.classes.to_list() == ["a", "b", "c"]
    assert table.counts[0].tolist() == [[0, 0, 0], [0, 1, 1], [0, 0, 0]]


def test_gapped_integer_classes_are_trimmed():
    df = pl.DataFrame({"label": [0, 10, 40], "prediction": [10, 10, 0]})
    assert be.ContingencyTable.from_frame(df).classes.to_list() == [0, 10, 40]
    wide = pl.DataFrame({"label": [0, 10**9, 5], "prediction": [5, 10**9, 0]})
    assert be.ContingencyTable.from_frame(wide).classes.to_list() == [0, 5, 10**9]
    medium = pl.DataFrame({"label": [0, 1000, 5], "prediction": [5, 1000, 0]})
    t = be.ContingencyTable.from_frame(medium)
    assert t.classes.to_list() == [0, 5, 1000]
    assert t.counts[0].tolist() == [[0, 1, 0], [1, 0, 0], [0, 0, 1]]


@pytest.mark.parametrize(
    ("label_dtype", "prediction_dtype"),
    [
        (pl.Int32, pl.Int64),
        (pl.Float64, pl.Int32),
        (pl.Int32, pl.Float64),
        (pl.Int32, pl.UInt32),
        (pl.Int32, pl.UInt64),
        (pl.UInt64, pl.Int32),
    ],
)
def test_wide_integer_classes_in_label_and_prediction_columns_of_different_widths(
    label_dtype, prediction_dtype
):
    # classes spanning more than 2**24 values are found by a concat of both columns' values,
    # which raised polars' SchemaError when the two columns had different dtypes
    label, prediction = [0, 20_000_000, 0, 7], [0, 20_000_000, 1, 7]
    df = pl.DataFrame(
        {
            "label": pl.Series(label).cast(label_dtype),
            "prediction": pl.Series(prediction).cast(prediction_dtype),
        }
    )
    values = sorted(set(label) | set(prediction))
    table = be.ContingencyTable.from_frame(df)
    assert table.classes.dtype == pl.Int64 and table.classes.to_list() == values
    np.testing.assert_array_equal(table.counts[0], confusion_matrix(label, prediction, labels=values))
    got = be.evaluate(df, measures=["accuracy"])["accuracy"].item()
    assert got == accuracy_score(label, prediction)


def test_positive_class():
    df = pl.DataFrame({"label": ["spam", "ham", "spam"], "prediction": ["spam", "spam", "ham"]})
    default = be.evaluate(df, measures=["recall"]).row(0, named=True)
    assert (default["tp"], default["fp"], default["fn"], default["tn"]) == (1, 1, 1, 0)
    ham = be.evaluate(df, positive="ham", measures=["recall"]).row(0, named=True)
    assert (ham["tp"], ham["fp"], ham["fn"], ham["tn"]) == (0, 1, 1, 1)
    assert ham["recall"] == 0.0


def test_empty_frame_returns_empty_result_with_schema():
    empty = sweep_frame().clear()
    out = be.evaluate(empty, by=["run", "fold"])
    assert out.height == 0
    assert out.columns[:7] == ["run", "fold", "n", "tp", "fp", "fn", "tn"]
    assert "informedness" in out.columns and out.schema["informedness"] == pl.Float64
    multi = be.evaluate(empty, by="run", classes=[0, 1, 2])
    assert multi.height == 0 and "mcc" in multi.columns


def test_chunked_frames():
    df = pl.concat([sweep_frame(seed=1), sweep_frame(seed=2)], rechunk=False)
    assert df.n_chunks() > 1
    _check(df, ["run", "fold"])


def test_radix_path_reports_values_outside_classes(monkeypatch):
    monkeypatch.setattr(counting, "_RADIX_MIN_CELLS", 1)
    monkeypatch.setattr(counting, "_RADIX_BLOCK_ROWS", 257)
    monkeypatch.setattr(counting, "_PROBE", 16)
    monkeypatch.setattr(counting, "_GROUPED_FRACTION", 1.1)
    df = sweep_frame(n_runs=40, n_folds=5, rows_per_group=13, n_classes=3, seed=9).sample(
        fraction=1.0, seed=2
    )
    with pytest.raises(be.InvalidLabelError, match=r"outside classes=\[0, 1\]"):
        be.ContingencyTable.from_frame(df, by=["run", "fold"], classes=[0, 1])


def test_probe_tells_grouped_from_shuffled_rows():
    df = sweep_frame(n_runs=50, n_folds=5, rows_per_group=40, seed=4)
    space = counting.key_space([encode_key(df[c], df.height) for c in ("run", "fold")], df.height, 2)
    keys = counting.kernel_keys(space.columns)
    starts = np.array([0, 3000, 6000], dtype=np.int64)
    assert count_mod.run_fraction(*keys, starts, 500) > 0.9
    shuffled = df.sample(fraction=1.0, shuffle=True, seed=3)
    space = counting.key_space([encode_key(shuffled[c], df.height) for c in ("run", "fold")], df.height, 2)
    assert count_mod.run_fraction(*counting.kernel_keys(space.columns), starts, 500) < 0.1


def test_key_space_hashed_twice(monkeypatch):
    """Columns re-encoded in a first round and again in a second still decode to their keys."""
    monkeypatch.setattr(counting, "_PACK_LIMIT", 2000 * 2000 + 1)  # 10 columns need two rounds
    rng = np.random.default_rng(5)
    n = 2000
    cols = {f"k{i}": rng.integers(0, 10**12, 100)[rng.integers(0, 100, n)] for i in range(10)}
    df = pl.DataFrame({**cols, "label": rng.integers(0, 2, n), "prediction": rng.integers(0, 2, n)})
    _check(df, list(cols))


def test_key_arguments_given_as_generators_read_as_the_list():
    # pool=, by=, example= and cluster= were read again after their first reading had spent a
    # generator: evaluate and sweep returned unpooled rows that looked pooled, auc and curves lost
    # by=, and example= ended in a raw KeyError. Each value here is counted by scikit-learn.
    rng = np.random.default_rng(3)
    n = 240
    df = pl.DataFrame({
        "run": np.repeat([1, 2], n // 2), "fold": np.tile(np.repeat([0, 1], n // 4), 2),
        "ex": np.tile(np.arange(n // 2), 2), "label": rng.integers(0, 2, n),
        "prediction": rng.integers(0, 2, n), "score": rng.random(n),
    })  # fmt: skip

    def gen(*names):
        return (c for c in names)

    out = be.evaluate(df, by=["run", "fold"], pool=gen("fold"), measures=["accuracy"])
    assert out.columns[:2] == ["run", "n"] and out["n_pooled"].to_list() == [2, 2]
    for run, row in zip((1, 2), out.iter_rows(named=True), strict=True):
        rows = df.filter(pl.col("run") == run)
        folds = [rows.filter(pl.col("fold") == f) for f in (0, 1)]
        assert row["accuracy"] == pytest.approx(accuracy_score(rows["label"], rows["prediction"]))
        each = [accuracy_score(f["label"], f["prediction"]) for f in folds]
        assert row["accuracy_mean"] == pytest.approx(np.mean(each))
        assert row["accuracy_std"] == pytest.approx(np.std(each, ddof=1))
    for keyword in ("example", "cluster"):
        listed = be.evaluate(df, by="run", measures=["accuracy"], ci=0.95, **{keyword: ["ex"]})
        spent = be.evaluate(df, by="run", measures=["accuracy"], ci=0.95, **{keyword: gen("ex")})
        assert spent.equals(listed)
    pooled = be.evaluate(df, by=["run", "fold"], pool=iter(["fold"]), example=gen("ex"), ci=0.95)
    assert pooled.equals(be.evaluate(df, by=["run", "fold"], pool=["fold"], example=["ex"], ci=0.95))

    areas = be.auc(df, by=gen("run"))
    assert areas["run"].to_list() == [1, 2]
    for run, area in zip((1, 2), areas["roc_auc"], strict=True):
        rows = df.filter(pl.col("run") == run)
        assert area == pytest.approx(roc_auc_score(rows["label"], rows["score"]))
    assert be.auc(df, by=["run", "fold"], pool=iter(["fold"])).equals(
        be.auc(df, by=["run", "fold"], pool=["fold"])
    )
    assert be.auc(df, by=["run", "fold"], pool=iter(["fold"]))["n_pooled"].to_list() == [2, 2]
    swept = be.sweep(df, by=["run", "fold"], pool=gen("fold"), thresholds=[0.5], measures=[])
    for run, (tp, fp, fn, tn) in zip((1, 2), swept.select("tp", "fp", "fn", "tn").rows(), strict=True):
        rows = df.filter(pl.col("run") == run)
        assert confusion_matrix(rows["label"], rows["score"] >= 0.5).ravel().tolist() == [tn, fp, fn, tp]
    assert be.sweep(df, by=gen("run"), thresholds=3).equals(be.sweep(df, by=["run"], thresholds=3))
    for kw in ({"by": "run"}, {"by": ["run", "fold"], "pool": "fold"}):
        listed = be.curves(df, **kw)
        assert "run" in listed.columns and "fold" not in listed.columns
        spent = {k: iter([v] if isinstance(v, str) else v) for k, v in kw.items()}
        assert be.curves(df, **spent).equals(listed)
