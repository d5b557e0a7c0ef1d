"""The private-table counting kernel against plain numpy: ``np.bincount`` of cell ids built
row by row with numpy arithmetic, independent of the kernel's packing, lookups and blocks.

Covers both of ``count_private``'s branches (identity class codes with no lookup, and a
lookup with values outside the class set, which land in the extra last cell), narrow and
wide key dtypes, several keys, row counts that are not a multiple of the kernel's block,
and the serial and parallel versions (below and above ``SERIAL_BELOW``).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from batcheval.core import counting
from batcheval.core.table import ContingencyTable
from batcheval.kernels import count as _count
from batcheval.kernels.jit import SERIAL_BELOW, readonly
from tests.reference.counting import count_groups


def _reference(keys, offsets, cards, label, pred, vmin, lut, k):
    """``(counts over G*K*K cells, rows outside the class set)`` by numpy bincount."""
    g = np.zeros(len(label), np.int64)
    for arr, off, card in zip(keys, offsets, cards, strict=True):
        g = g * card + (arr.astype(np.int64) - off)
    a = lut[label.astype(np.int64) - vmin]
    b = lut[pred.astype(np.int64) - vmin]
    ok = (a >= 0) & (b >= 0)
    cells = int(np.prod(cards)) * k * k
    ids = g[ok] * k * k + a[ok] * k + b[ok]
    return np.bincount(ids, minlength=cells), int((~ok).sum())


def _kernel(keys, offsets, cards, label, pred, vmin, lut, k, threads):
    strides = np.zeros(4, np.int64)
    offs = np.zeros(4, np.int64)
    s = 1
    for j in range(len(keys) - 1, -1, -1):
        strides[j], offs[j] = s, offsets[j]
        s *= cards[j]
    # read-only inputs, as evaluate passes them (one compiled variant; tests/test_inputs.py checks)
    dummy = readonly(np.zeros(1, np.int64))
    args = [*map(readonly, keys), *[dummy] * (4 - len(keys))]
    cells = s * k * k
    low = np.zeros((threads, cells + 1), np.uint16)
    wraps = np.zeros((threads, cells + 2), np.uint32)
    lut = readonly(np.asarray(lut, np.int64))
    direct = counting.identity_lut(lut)
    label, pred = readonly(label), readonly(pred)
    bounds = np.ones(4, np.int64)
    bounds[: len(keys)] = cards
    _count.count_private(
        *args, offs, strides, len(keys), label, pred, vmin, lut, k, direct, bounds, low, wraps
    )
    flat = np.zeros(cells, np.int64)
    _count.sum_split_rows(low, wraps, bool(wraps[:, cells + 1].any()), True, flat)
    return flat, int(low[:, cells].sum()), direct


@pytest.mark.parametrize("n", [1, 4095, 4097, 3 * 4096 + 5, SERIAL_BELOW + 123])
@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize(
    ("key_dtypes", "class_dtype"),
    [((np.int32, np.int8), np.int64), ((np.int64,), np.int8), ((np.uint16, np.int8, np.int32), np.int32)],
)
def test_identity_codes_match_bincount(n, threads, key_dtypes, class_dtype):
    rng = np.random.default_rng(n + threads)
    keys, offsets, cards = [], [], []
    for dt in key_dtypes:
        lo = -3 if np.issubdtype(dt, np.signedinteger) else 2
        card = int(rng.integers(1, 40))
        keys.append((lo + rng.integers(0, card, n)).astype(dt))
        offsets.append(lo)
        cards.append(card)
    k = 3
    vmin = -1
    label = (vmin + rng.integers(0, k, n)).astype(class_dtype)
    pred = (vmin + rng.integers(0, k, n)).astype(class_dtype)
    lut = np.arange(k)
    want, want_bad = _reference(keys, offsets, cards, label, pred, vmin, lut, k)
    got, bad, direct = _kernel(keys, offsets, cards, label, pred, vmin, lut, k, threads)
    assert direct
    np.testing.assert_array_equal(got, want)
    assert bad == want_bad == 0


def _read_rows(bad_rows, n, threads):
    """Rows the kernel reads: each thread's slice up to the end of the 4,096-row block holding
    its first row outside the class codes (it stops there)."""
    keep = np.zeros(n, bool)
    step = (n + threads - 1) // threads
    for t in range(threads):
        lo, hi = min(n, t * step), min(n, t * step + step)
        first = np.flatnonzero(bad_rows[lo:hi])
        block = _count.COUNT_BLOCK
        end = hi if not len(first) else min(hi, lo + (first[0] // block + 1) * block)
        keep[lo:end] = True
    return keep


@pytest.mark.parametrize("n", [4095, 2 * 4096 + 1, SERIAL_BELOW + 7])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("outside", [False, True])
def test_lookup_codes_and_values_outside_classes_match_bincount(n, threads, outside):
    rng = np.random.default_rng(7 * n + threads)
    run = rng.integers(10, 60, n).astype(np.int32)
    fold = rng.integers(0, 5, n).astype(np.int8)
    vmin = 2
    # values 2..7; classes {3, 5, 6} in that order, the other values outside the class set
    lut = np.array([-1, 0, -1, 1, 2, -1])
    label = rng.integers(2, 8, n)
    pred = rng.integers(2, 8, n)
    if not outside:  # only class values, in a non-identity lookup
        label = np.array([3, 5, 6])[rng.integers(0, 3, n)]
        pred = np.array([3, 5, 6])[rng.integers(0, 3, n)]
    bad_rows = (lut[label - vmin] < 0) | (lut[pred - vmin] < 0)
    read = _read_rows(bad_rows, n, threads)
    want, want_bad = _reference(
        [run[read], fold[read]], [10, 0], [50, 5], label[read], pred[read], vmin, lut, 3
    )
    got, bad, direct = _kernel([run, fold], [10, 0], [50, 5], label, pred, vmin, lut, 3, threads)
    assert not direct
    np.testing.assert_array_equal(got, want)
    assert bad == want_bad
    assert (bad > 0) == outside
    if outside:  # each thread met a row outside in its first block and stopped after it
        assert read.sum() < n or n <= threads * _count.COUNT_BLOCK


def test_identity_lut():
    assert counting.identity_lut(np.arange(5))
    assert counting.identity_lut(np.arange(1))
    assert not counting.identity_lut(np.array([1, 0]))
    assert not counting.identity_lut(np.array([0, 1, -1]))


@pytest.mark.parametrize("n", [4095, SERIAL_BELOW + 9])
@pytest.mark.parametrize("threads", [1, 2])
def test_direct_codes_outside_the_range_land_in_the_last_cell(n, threads):
    # a class range guessed from a sample is checked by the kernel: values below vmin, above
    # vmin + K - 1 and at the int64 extremes (whose value - vmin wraps) are not counted, and
    # a thread stops after the block where it met the first
    rng = np.random.default_rng(11 * n + threads)
    run = rng.integers(0, 30, n).astype(np.int32)
    label = rng.integers(0, 2, n)
    pred = rng.integers(0, 2, n)
    top, bottom = np.iinfo(np.int64).max, np.iinfo(np.int64).min
    for arr, picks in ((label, [-1, 2, top, bottom]), (pred, [5, bottom, -7])):
        where = rng.choice(n, len(picks), replace=False)
        arr[where] = picks
    inside = [(arr >= 0) & (arr < 2) for arr in (label, pred)]
    ok = inside[0] & inside[1]
    read = _read_rows(~ok, n, threads)
    ok &= read
    want = np.bincount((run[ok].astype(np.int64) * 4 + label[ok] * 2 + pred[ok]), minlength=30 * 4)
    got, bad, direct = _kernel([run], [0], [30], label, pred, 0, np.arange(2), 2, threads)
    assert direct
    np.testing.assert_array_equal(got, want)
    assert bad == int((read & ~(inside[0] & inside[1])).sum()) > 0


def _frame_with_rare_classes(n: int, rare: list[int]) -> pl.DataFrame:
    """Binary rows with one row of each class in ``rare`` placed between the rows that
    evaluate's class-range sample reads."""
    rng = np.random.default_rng(n + len(rare))
    label = rng.integers(0, 2, n)
    pred = np.where(rng.random(n) < 0.7, label, rng.integers(0, 2, n))
    step = max(1, n // 4096)
    for i, v in enumerate(rare):
        row = step * (7 + i) + 1  # not a multiple of the sample's step
        label[row] = v
        pred[row + 2] = v
    df = pl.DataFrame({
        "run": rng.integers(-5, 40, n).astype(np.int32), "fold": rng.integers(0, 3, n).astype(np.int8),
        "label": label, "prediction": pred,
    })  # fmt: skip
    return df


@pytest.mark.parametrize(
    ("n", "rare"),
    [(5_000, [3]), (SERIAL_BELOW + 5, [-4]), (300_000, [2, 9]), (300_000, [])],
)
def test_counts_with_a_class_the_sample_misses(n, rare):
    # evaluate guesses the class range from a sample of rows; rows of a class outside it
    # (placed between the sampled rows) make it count again with the scanned range
    df = _frame_with_rare_classes(n, rare)
    table = ContingencyTable.from_frame(df, by=["run", "fold"], label="label", prediction="prediction")
    keys, classes, counts = count_groups(df, ["run", "fold"], "label", "prediction")
    assert table.classes.to_list() == classes == sorted({0, 1, *rare})
    assert table.keys.rows() == keys
    np.testing.assert_array_equal(table.counts, counts)


def force_radix(monkeypatch, part_bits: int, block_rows: int) -> None:
    """Make every table of a small test frame count through the radix partitions, in partitions
    of ``2**part_bits`` cells and blocks of ``block_rows`` rows."""
    monkeypatch.setattr(counting, "_RADIX_MIN_CELLS", 1)
    monkeypatch.setattr(counting, "_RADIX_PART_BITS", part_bits)
    monkeypatch.setattr(counting, "_RADIX_BLOCK_ROWS", block_rows)
    monkeypatch.setattr(counting, "_PROBE", 16)
    monkeypatch.setattr(counting, "_GROUPED_FRACTION", 1.1)


@pytest.mark.parametrize("rare", [[], [3], [-4], [2, 9]])
def test_radix_counts_with_a_class_the_sample_misses(monkeypatch, rare):
    # the radix partitions' id pass checks a guessed class range as count_private does (no scan of
    # the class columns first): rows outside it make evaluate count again with the scanned range
    force_radix(monkeypatch, part_bits=3, block_rows=1009)
    checked = []
    radix = counting._count_radix
    monkeypatch.setattr(
        counting, "_count_radix", lambda args, *rest: checked.append(args[-2]) or radix(args, *rest)
    )
    n = 40_000  # at least two rows a cell with ten classes: radix partitions for the scanned range too
    df = _frame_with_rare_classes(n, rare)
    table = ContingencyTable.from_frame(df, by=["run", "fold"], label="label", prediction="prediction")
    keys, classes, counts = count_groups(df, ["run", "fold"], "label", "prediction")
    assert checked == ([True, False] if rare else [True])
    assert table.classes.to_list() == classes == sorted({0, 1, *rare})
    assert table.keys.rows() == keys
    np.testing.assert_array_equal(table.counts, counts)


@pytest.mark.parametrize("cards", [[20_000, 5], [70_000], [3, 1, 7, 2], [1, 1, 70_000], [300, 300]], ids=str)
def test_unpack_ids_of_consecutive_sparse_and_shuffled_ids_are_numpys_division(cards):
    """The kernel carries from one id to the next where ids are consecutive and divides where
    they are not: the codes are numpy's ``(id // stride) % card`` either way, and for strides
    that are not a mixed radix of ``cards`` (no carrying)."""
    from batcheval.kernels.count import unpack_ids

    rng = np.random.default_rng(len(cards))
    cards = np.array(cards, dtype=np.int64)
    strides = np.ones(len(cards), dtype=np.int64)
    for i in range(len(cards) - 2, -1, -1):
        strides[i] = strides[i + 1] * cards[i + 1]
    size = int(np.prod(cards))
    dense = np.arange(size)
    for some in (
        np.concatenate([dense, dense[::-1], dense]),  # wraps past the top code, and runs back
        np.flatnonzero(rng.random(size) < 0.7),
        rng.integers(0, size, 70_000),
    ):
        ids = np.resize(some.astype(np.int64), max(len(some), 70_000))
        for s in (strides, strides * 2):
            out = np.empty((len(cards), len(ids)), dtype=np.int64)
            unpack_ids(ids, s, cards, out)
            expected = np.stack([(ids // st) % c for st, c in zip(s, cards, strict=True)])
            np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("k", [2, 3])
def test_group_totals_of_many_tables_are_numpys_sums(k):
    """The kernel's unrolled 2×2 path and its general loop against numpy's sums: rows per group,
    and per class the rows where it is the real or the predicted class."""
    rng = np.random.default_rng(k)
    counts = rng.integers(0, 10**9, (40_001, k, k)).astype(np.int64)
    counts[::7] = 0
    counts[5] = 2**40
    assert counts.size >= SERIAL_BELOW  # the kernel, not numpy's small-input path
    totals, by_class = _count.group_totals(counts)
    np.testing.assert_array_equal(totals, counts.sum(axis=(1, 2)))
    np.testing.assert_array_equal(by_class, counts.sum(axis=(0, 2)) + counts.sum(axis=(0, 1)))


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_sixteen_bit_counters_that_wrap(threads):
    # a thread's table keeps 16-bit counters and counts their wraps apart: cells with 65,535,
    # 65,536, 65,537 and 3 * 65,536 + 1 rows in one thread, next to cells of a few rows
    rng = np.random.default_rng(threads)
    sizes = {0: 65_535 * threads, 5: 65_536 * threads, 6: 65_537 * threads, 9: (3 * 65_536 + 1) * threads}
    cells = np.concatenate([np.full(v, c) for c, v in sizes.items()] + [rng.integers(0, 12, 5_000)])
    run, rest = cells // 4, cells % 4
    label, pred = rest // 2, rest % 2
    order = rng.permutation(len(cells))
    run, label, pred = run[order].astype(np.int32), label[order], pred[order]
    want = np.bincount(run.astype(np.int64) * 4 + label * 2 + pred, minlength=12)
    got, bad, direct = _kernel([run], [0], [3], label, pred, 0, np.arange(2), 2, threads)
    assert direct and bad == 0
    np.testing.assert_array_equal(got, want)
