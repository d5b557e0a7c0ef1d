"""``count_private`` with 8-bit counters (``core/counting._count_private`` takes them for tables
past L2 whose groups hold few rows a thread): numpy's bincount where cells wrap 256 and 65,536
times over, and rows outside the class set found however many there are (an 8-bit count of
them wraps to 0 at 256)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from batcheval.core import counting
from batcheval.core.table import ContingencyTable
from batcheval.kernels import count as _count
from batcheval.kernels.jit import readonly
from tests.reference.counting import count_groups


def _count_bytes(key, label, pred, n_groups, k, threads, lut=None):
    """count_private into uint8 tables with uint32 wrap counts, summed into int64."""
    lut = readonly(np.arange(k, dtype=np.int64) if lut is None else lut)
    direct = counting.identity_lut(lut)
    cells = n_groups * k * k
    low = np.zeros((threads, cells + 1), np.uint8)
    wraps = np.zeros((threads, cells + 2), np.uint32)
    dummy = readonly(np.zeros(1, np.int64))
    offsets = np.zeros(4, np.int64)
    strides = np.array([1, 0, 0, 0], np.int64)
    cards = np.array([n_groups, 1, 1, 1], np.int64)
    _count.count_private(
        readonly(key), dummy, dummy, dummy, offsets, strides, 1, readonly(label), readonly(pred), 0, lut, k,
        direct, cards, low, wraps,
    )  # fmt: skip
    flat = np.zeros(cells, np.int64)
    _count.sum_split_rows(low, wraps, bool(wraps[:, cells + 1].any()), True, flat)
    return flat, int(low[:, cells].sum()) + 256 * int(wraps[:, cells].sum())


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("n", [1000, 70_000, 300_000])
def test_byte_counters_wrap_into_exact_counts(threads, n):
    """Three groups of K = 2, one cell taking most rows: counts past 255 and 65,535 per cell."""
    rng = np.random.default_rng(n)
    key = rng.choice(3, n, p=[0.9, 0.08, 0.02]).astype(np.int64)
    label = (rng.random(n) < 0.05).astype(np.int64)
    pred = (rng.random(n) < 0.05).astype(np.int64)
    flat, bad = _count_bytes(key, label, pred, 3, 2, threads)
    assert bad == 0
    np.testing.assert_array_equal(flat, np.bincount(key * 4 + label * 2 + pred, minlength=12))
    assert flat.max() > (65_536 if n == 300_000 else 255)


@pytest.mark.parametrize("outside", [1, 256, 512, 4096])
def test_byte_counters_find_every_count_of_rows_outside_the_classes(outside):
    """A multiple of 256 rows outside the class set in one block leaves the 8-bit trash count at 0;
    its wrap count still says so."""
    n = 4096
    key = np.zeros(n, np.int64)
    label = np.zeros(n, np.int64)
    pred = np.zeros(n, np.int64)
    label[:outside] = 5  # the lookup sends 5 outside the class set
    lut = np.array([0, 1, -1, -1, -1, -1], np.int64)
    _flat, bad = _count_bytes(key, label, pred, 1, 2, 1, lut=lut)
    assert bad == outside


def test_evaluate_takes_byte_counters_past_l2_and_counts_exactly(monkeypatch):
    """K = 10 over 8,000 groups of 30 rows (800k cells): 8-bit tables, numpy's counts."""
    used = []
    kernel = _count.count_private
    for version in ("serial", "parallel"):  # by the rows: this frame's 240,000 take the parallel one
        run = getattr(kernel, version)
        monkeypatch.setattr(kernel, version, lambda *a, run=run: used.append(a[-2].dtype) or run(*a))
    rng = np.random.default_rng(5)
    n = 240_000
    df = pl.DataFrame({
        "run": rng.integers(0, 8000, n), "label": rng.integers(0, 10, n), "prediction": rng.integers(0, 10, n)
    })  # fmt: skip
    monkeypatch.setattr(counting, "use_radix", lambda *a, **k: False)
    table = ContingencyTable.from_frame(df, by=["run"], label="label", prediction="prediction")
    keys, found, counts = count_groups(df, ["run"], "label", "prediction")
    assert used and all(d == np.uint8 for d in used)
    assert table.keys.rows() == keys
    assert table.classes.to_list() == found
    np.testing.assert_array_equal(table.counts, counts)
