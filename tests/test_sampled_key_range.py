"""Integer keys whose range comes from a sample of rows and is checked while counting.

``count_frame`` takes an integer key's range from evenly spaced rows (``encode.guess_key_range``)
instead of a scan; the counting kernels send a row whose key code falls outside that range to
their extra cell, and ``count_encoded`` then scans the keys and counts again. Every table here is
checked against ``tests/reference/counting.count_groups`` (polars ``group_by`` of the rows),
for keys the sample covers, keys one outlying row puts outside it (above, below, far away, in
either key, at a row the sample skips), sorted keys, key spaces the guess would make hashed,
the radix partitions, class codes by lookup, and the kernel's check itself against numpy.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from batcheval.core import counting, encode
from batcheval.core.table import ContingencyTable
from batcheval.kernels import count as _count
from batcheval.kernels.jit import readonly
from tests.reference.counting import count_groups
from tests.test_count_kernel import force_radix

N = 60_000
STEP = N // encode.CLASS_SAMPLE  # the sample's stride: rows at multiples of it are read


@pytest.fixture(autouse=True)
def _guess_small_frames(monkeypatch):
    # the tests' frames are below the row count from which evaluate guesses key ranges
    monkeypatch.setattr(encode, "KEY_GUESS_ROWS", 1)


@pytest.fixture
def recounts(monkeypatch):
    """How often the scanned key ranges were made (a guess given up)."""
    calls: list[int] = []
    exact = counting.exact_keys
    monkeypatch.setattr(counting, "exact_keys", lambda cols: calls.append(len(cols)) or exact(cols))
    return calls


def _frame(seed: int, runs: int = 3000, sort: bool = False, k: int = 2) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    run = rng.integers(0, runs, N)
    fold = rng.integers(0, 5, N)
    if sort:
        order = np.lexsort((fold, run))
        run, fold = run[order], fold[order]
    label = rng.integers(0, k, N)
    pred = np.where(rng.random(N) < 0.7, label, rng.integers(0, k, N))
    return pl.DataFrame({
        "run": run.astype(np.int32), "fold": fold.astype(np.int8), "label": label, "prediction": pred
    })  # fmt: skip


def _put(df: pl.DataFrame, column: str, value: int, row: int = 7 * STEP + 3) -> pl.DataFrame:
    """``df`` with ``value`` in ``column`` at a row the sample does not read."""
    assert row % STEP and row != N - 1
    values = df.get_column(column).cast(pl.Int64).to_numpy().copy()
    values[row] = value
    return df.with_columns(pl.Series(column, values))


def _check(df: pl.DataFrame, by=("run", "fold"), classes=None) -> None:
    table = ContingencyTable.from_frame(
        df, by=list(by), label="label", prediction="prediction", classes=classes
    )
    keys, found, counts = count_groups(df, list(by), "label", "prediction")
    assert table.keys.rows() == keys
    assert table.classes.to_list() == found
    np.testing.assert_array_equal(table.counts, counts)


def test_a_shuffled_dense_key_counts_once_with_the_padded_guess(recounts):
    df = _frame(1, runs=40_000)
    run = df.get_column("run").to_numpy()
    lo, hi = encode.sample_range([run])
    assert (lo, hi) != (run.min(), run.max())  # the sample misses an end; the padding covers it
    glo, ghi = encode.guess_key_range(run)
    assert glo <= run.min() and run.max() <= ghi
    _check(df)
    assert recounts == []


def test_sorted_keys_give_the_exact_range(recounts):
    df = _frame(2, sort=True)
    run = df.get_column("run").to_numpy()
    assert encode.sample_range([run]) == (run.min(), run.max())
    _check(df)
    assert recounts == []


@pytest.mark.parametrize(
    ("column", "value"),
    [("run", 3000 + 5_000), ("run", -50), ("run", 10**12), ("fold", 100), ("fold", -1)],
    ids=["above", "below", "far", "second-key-above", "second-key-below"],
)
def test_one_key_outside_the_guess_is_counted_after_a_scan(recounts, column, value):
    _check(_put(_frame(3), column, value))
    assert recounts == [2]


def test_one_key_outside_the_guess_in_the_last_rows(recounts):
    _check(_put(_frame(4), "run", 4000, row=N - 2))
    assert recounts == [2]


def test_a_class_and_a_key_outside_their_guesses(recounts):
    df = _put(_put(_frame(5), "label", 7), "run", 9000, row=11 * STEP + 1)
    _check(df)
    assert recounts == [2]


def test_a_guess_too_wide_for_a_dense_space_is_scanned_before_counting(recounts):
    # 230k runs x 5 folds: past the dense key space's 2**20 groups, so a hashed one, whose ids
    # are packed unchecked (the run range alone stays below 4 x the rows: guessed)
    rng = np.random.default_rng(6)
    df = _frame(6).with_columns(pl.Series("run", rng.integers(0, 230_000, N)))
    _check(df)
    assert recounts == [2]


def test_class_codes_by_lookup_give_up_the_guess(recounts):
    # classes named: the lookup path, which reads key codes unchecked, counts with scanned keys
    df = _frame(7, k=4).with_columns(pl.col("label", "prediction") * 2)
    _check(df, classes=[0, 2, 4, 6])
    assert recounts == [2]


def test_three_keys_one_of_them_a_string():
    df = _frame(8).with_columns(pl.format("s{}", pl.col("run") % 7).alias("seed"))
    _check(_put(df, "fold", 9), by=("run", "seed", "fold"))


@pytest.mark.parametrize(
    ("shift", "outlier"),
    [
        (0, None),
        (0, 250),
        (0, -5),
        (-(10**12), None),
        (-(10**12), -(10**12) - 40),
        (-(10**12), -(10**12) + 260),
    ],
    ids=["inside", "above", "below", "negative-int64-inside", "negative-int64-below", "negative-int64-above"],
)
def test_radix_partitions_check_the_keys(monkeypatch, recounts, shift, outlier):
    """cell_ids sends a key code outside the guessed range at either end (a code below it wraps
    to a large unsigned one) to the trash, and the keys are scanned and counted again."""
    force_radix(monkeypatch, part_bits=6, block_rows=10_007)
    used = []
    radix = counting._count_radix
    monkeypatch.setattr(counting, "_count_radix", lambda *a: used.append(1) or radix(*a))
    df = _frame(9, runs=200).with_columns(pl.col("run").cast(pl.Int64) + shift)
    if outlier is not None:
        df = _put(df, "run", outlier)
    _check(df)
    assert used == ([1] if outlier is None else [1, 1])
    assert recounts == ([] if outlier is None else [2])


@pytest.mark.parametrize("radix", [False, True], ids=["private", "radix"])
@pytest.mark.parametrize(
    ("column", "value"), [("label", 7), ("prediction", -2)], ids=["label-above", "prediction-below"]
)
def test_a_class_outside_its_guess_alone_is_exact_without_scanning_the_keys(
    monkeypatch, recounts, radix, column, value
):
    """Only the class columns missed: their scan and one checked count with the guessed keys give
    numpy's counts, and the key columns are not scanned."""
    if radix:
        force_radix(monkeypatch, part_bits=6, block_rows=10_007)
    scans = []
    exact = encode.column_ranges
    monkeypatch.setattr(encode, "column_ranges", lambda cols: scans.append(len(cols)) or exact(cols))
    _check(_put(_frame(12, runs=200 if radix else 3000, k=3), column, value))
    assert recounts == []
    assert scans == [2]  # the label and prediction columns, once


def test_a_class_and_a_key_outside_both_scanned_when_the_count_with_scanned_classes_misses(recounts):
    """The class is found outside its guess first; the count against the guessed keys then meets the
    key outside its range, so the keys are scanned too."""
    df = _put(_put(_frame(13, k=3), "prediction", 5), "run", -30, row=23 * STEP + 2)
    _check(df)
    assert recounts == [2]


@pytest.mark.parametrize("threads", [1, 2])
def test_the_kernel_sends_key_codes_outside_cards_to_the_last_cell(threads):
    """count_private with bounds narrower than the keys: numpy's count of the rows inside, and the
    rows outside (a block of rows holds every one of them, so no thread stops early) in the last
    cell."""
    rng = np.random.default_rng(10)
    n = 3000
    k0 = rng.integers(0, 6, n)
    k1 = rng.integers(0, 4, n)
    label = rng.integers(0, 2, n)
    pred = rng.integers(0, 2, n)
    cards = np.array([5, 3, 1, 1], np.int64)  # code 5 of key 0 and 3 of key 1 fall outside
    inside = (k0 < 5) & (k1 < 3)
    ids = (k0 * 3 + k1) * 4 + label * 2 + pred
    cells = 5 * 3 * 4
    expected = np.bincount(ids[inside], minlength=cells)
    dummy = readonly(np.zeros(1, np.int64))
    offsets = np.zeros(4, np.int64)
    strides = np.array([3, 1, 0, 0], np.int64)
    low = np.zeros((threads, cells + 1), np.uint16)
    wraps = np.zeros((threads, cells + 2), np.uint32)
    lut = readonly(np.arange(2, dtype=np.int64))
    _count.count_private.serial(
        readonly(k0), readonly(k1), dummy, dummy, offsets, strides, 2, readonly(label), readonly(pred), 0,
        lut, 2, True, cards, low, wraps,
    )  # fmt: skip
    flat = np.zeros(cells, np.int64)
    _count.sum_split_rows(low, wraps, False, True, flat)
    np.testing.assert_array_equal(flat, expected)
    assert int(low[:, cells].sum()) == int((~inside).sum()) > 0
