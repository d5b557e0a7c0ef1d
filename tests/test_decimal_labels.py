"""Decimal (SQL NUMERIC) class columns are read as the integers they hold, at every entry point.

A parquet file written by duckdb or Spark often stores class codes as ``DECIMAL(p, 0)`` or with a
scale (``1.00``), and duckdb's ``SUM`` of an integer column is a ``DECIMAL(38, 0)``. The reference
is the same frame with the codes as Int64: every result must be equal, value for value. Values with
a fraction, or beyond int64, are refused (tests/test_bad_input.py).
"""

from __future__ import annotations

from decimal import Decimal

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import batcheval as be


def _as_decimal(frame: pl.DataFrame, columns: list[str], scale: int) -> pl.DataFrame:
    # through Python's Decimal, not a polars cast, so the check does not rest on the cast it replaces
    return frame.with_columns(
        pl.Series(c, [Decimal(int(v)).scaleb(0) + Decimal(0).scaleb(-scale) for v in frame[c]],
                  dtype=pl.Decimal(18, scale))
        for c in columns
    )  # fmt: skip


@pytest.fixture(scope="module")
def codes() -> pl.DataFrame:
    rng = np.random.default_rng(20261202)
    n_runs, n_ex = 4, 60
    label = rng.integers(0, 3, n_ex)
    right = rng.random((n_runs, n_ex)) < np.linspace(0.5, 0.9, n_runs)[:, None]
    pred = np.where(right, label, rng.integers(0, 3, (n_runs, n_ex)))
    return pl.DataFrame({
        "run": np.repeat(np.arange(n_runs), n_ex),
        "example": np.tile(np.arange(n_ex), n_runs),
        "label": np.tile(label, n_runs),
        "prediction": pred.reshape(-1),
        "score": rng.random(n_runs * n_ex) + np.tile(label == 2, n_runs),
    })  # fmt: skip


@pytest.mark.parametrize("scale", [0, 2])
@pytest.mark.parametrize("columns", [["label"], ["prediction"], ["label", "prediction"]])
def test_evaluate_reads_decimal_codes_as_integers(codes, columns, scale):
    dec = _as_decimal(codes, columns, scale)
    assert all(isinstance(dec.schema[c], pl.Decimal) for c in columns)
    for kwargs in ({}, {"per_class": True}, {"classes": [0, 1, 2, 3]}, {"ci": 0.95, "example": "example"}):
        want = be.evaluate(codes, by="run", **kwargs)
        assert_frame_equal(be.evaluate(dec, by="run", **kwargs), want)
    binary = codes.filter(pl.col("label") < 2, pl.col("prediction") < 2)
    want = be.evaluate(binary, by="run", positive=1)
    assert_frame_equal(be.evaluate(_as_decimal(binary, columns, scale), by="run", positive=1), want)
    assert want["tp"].sum() > 0


def test_a_table_and_its_long_frame_with_decimals_equal_the_integer_ones(codes):
    dec = _as_decimal(codes, ["label", "prediction"], 1)
    table = be.ContingencyTable.from_frame(codes, by="run")
    got = be.ContingencyTable.from_frame(dec, by="run")
    assert np.array_equal(got.counts, table.counts) and got.classes.to_list() == [0, 1, 2]
    assert got.counts.sum() == codes.height
    # duckdb's SUM of an integer count column is DECIMAL(38, 0); real and predicted as DECIMAL too
    long = table.to_long()
    summed = long.with_columns(
        pl.Series("count", [Decimal(int(v)) for v in long["count"]], dtype=pl.Decimal(38, 0))
    )
    summed = _as_decimal(summed, ["real", "predicted"], 0)
    back = be.ContingencyTable.from_long(summed, by="run")
    assert np.array_equal(back.counts, table.counts)
    message = (r"^count column 'count' \(Decimal\(precision=10, scale=1\)\) holds 1 value with a fraction "
               r"\(first: 2\.5\); counts are numbers of examples$")  # fmt: skip
    halves = pl.Series("count", [Decimal("2.5"), Decimal("1.0")], dtype=pl.Decimal(10, 1))
    with pytest.raises(be.InvalidArgumentError, match=message):
        be.ContingencyTable.from_long(long.head(2).with_columns(halves))
    huge = pl.Series("count", [Decimal(10**20)], dtype=pl.Decimal(38, 0))
    beyond = r"beyond the int64 range \(first: 100000000000000000000\)"
    with pytest.raises(be.CountOverflowError, match=beyond):
        be.ContingencyTable.from_long(long.head(1).with_columns(huge))


def test_the_leaderboard_reads_decimal_codes_as_integers(codes):
    dec = _as_decimal(codes, ["label", "prediction"], 0)
    for kwargs in ({}, {"example": "example"}):
        want = be.leaderboard(codes, **kwargs)
        assert_frame_equal(be.leaderboard(dec, **kwargs), want)


@pytest.mark.parametrize("scale", [0, 3])
def test_sweep_and_auc_read_decimal_labels_as_integers(codes, scale):
    binary = codes.with_columns((pl.col("label") == 2).cast(pl.Int64).alias("label"))
    dec = _as_decimal(binary, ["label"], scale)
    assert_frame_equal(be.sweep(dec, by="run", thresholds=11), be.sweep(binary, by="run", thresholds=11))
    assert_frame_equal(be.auc(dec, by="run"), be.auc(binary, by="run"))
    # three classes, one named positive
    two = be.sweep(_as_decimal(codes, ["label"], scale), by="run", thresholds=5, positive=2)
    assert_frame_equal(two, be.sweep(codes, by="run", thresholds=5, positive=2))
    assert_frame_equal(two, be.sweep(binary, by="run", thresholds=5))


def test_streamed_parts_with_decimal_labels_equal_the_frame_in_memory(codes, tmp_path):
    binary = codes.with_columns((pl.col("label") == 2).cast(pl.Int64).alias("label"))
    paths = []
    for i, part in enumerate(binary.partition_by("run", maintain_order=True)):
        paths.append(tmp_path / f"part{i}.parquet")
        _as_decimal(part, ["label", "prediction"], 2).write_parquet(paths[-1])
    assert_frame_equal(be.evaluate(paths, by="run"), be.evaluate(binary, by="run"))
    assert_frame_equal(be.evaluate(pl.scan_parquet(paths), by="run"), be.evaluate(binary, by="run"))
    swept = be.sweep([str(p) for p in paths], by="run", thresholds=11)
    assert_frame_equal(swept, be.sweep(binary, by="run", thresholds=11))
    # a part of Decimals beside a part of integers is one kind of class, as in memory
    binary.filter(pl.col("run") == 0).write_parquet(paths[0])
    assert_frame_equal(be.evaluate(paths, by="run"), be.evaluate(binary, by="run"))


def test_classes_and_positive_given_as_decimals_name_the_integer_classes(codes):
    # classes=[Decimal(0), ...] were refused as no integers, beside a Decimal label column itself
    dec = _as_decimal(codes, ["label", "prediction"], 0)
    named = [Decimal(v) for v in (0, 1, 2, 3)]
    for frame in (codes, dec):
        got = be.evaluate(frame, by="run", classes=named, measures=["accuracy", "macro_recall"])
        assert_frame_equal(
            got, be.evaluate(codes, by="run", classes=[0, 1, 2, 3], measures=["accuracy", "macro_recall"])
        )
    binary = codes.filter(pl.col("label") < 2, pl.col("prediction") < 2)
    got = be.evaluate(
        _as_decimal(binary, ["label"], 2), by="run", positive=Decimal("1.00"), measures=["recall"]
    )
    assert_frame_equal(got, be.evaluate(binary, by="run", positive=1, measures=["recall"]))
    with pytest.raises(
        be.InvalidLabelError, match=r"^classes= holds Decimal\('0\.5'\) \(Decimal\), but label column"
    ):
        be.evaluate(dec, by="run", classes=[Decimal("0.5"), Decimal(1)])


def test_decimal_abstain_values_table_classes_and_cli_class_names(codes, tmp_path):
    # review: abstain=Decimal(-1), ContingencyTable(keys, [Decimal(0), ...]) and, on a file of
    # DECIMAL(5, 2) labels (printed 1.00), --positive 1.00 and --classes 0.0,1.0 were refused
    from tests.cli_run import run_cli

    abstaining = codes.with_columns(
        pl.when(pl.col("example") % 7 == 0).then(-1).otherwise(pl.col("prediction")).alias("prediction")
    )
    want = be.evaluate(abstaining, by="run", abstain=-1)
    for frame in (abstaining, _as_decimal(abstaining, ["label", "prediction"], 0)):
        assert_frame_equal(be.evaluate(frame, by="run", abstain=Decimal(-1)), want)
    keys = pl.DataFrame({"run": [1]})
    table = be.ContingencyTable(keys, [Decimal(0), Decimal("1.0")], [[[2, 0], [1, 3]]])
    assert table.equals(be.ContingencyTable(keys, [0, 1], [[[2, 0], [1, 3]]]))
    binary = codes.filter(pl.col("label") < 2, pl.col("prediction") < 2)
    path = tmp_path / "cents.parquet"
    _as_decimal(binary, ["label", "prediction"], 2).write_parquet(path)
    ints = tmp_path / "ints.parquet"
    binary.write_parquet(ints)
    # the values as the Decimal file prints them, and as the integer file's
    pairs = [(["--positive", "1.00"], ["--positive", "1"]), (["--positive", "0"], ["--positive", "0"]),
             (["--classes", "0.0,1.0"], ["--classes", "0,1"])]  # fmt: skip
    for flags, same in pairs:
        got = run_cli("evaluate", str(path), "--by", "run", "--measures", "recall,accuracy", *flags)
        want = run_cli("evaluate", str(ints), "--by", "run", "--measures", "recall,accuracy", *same)
        assert got.returncode == want.returncode == 0, got.stderr
        assert got.stdout == want.stdout
