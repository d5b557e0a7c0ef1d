"""The private-table counting kernel against plain numpy: ``np.bincount`` of cell ids built
row by row with numpy arithmetic, independent of the kernel's packing, lookups and blocks.

Covers both of ``count_private``'s branches (identity class codes with no lookup, and a
lookup with values outside the class set, which land in the extra last cell), narrow and
wide key dtypes, several keys, row counts that are not a multiple of the kernel's block,
and the serial and parallel versions (below and above ``SERIAL_BELOW``).
"""

from __future__ import annotations

import numpy as np
import pytest

from batcheval.core import counting
from batcheval.core.encode import readonly
from batcheval.kernels import count as _count
from batcheval.kernels.jit import SERIAL_BELOW


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
    bufs = np.zeros((threads, cells + 1), np.uint32)
    lut = readonly(np.asarray(lut, np.int64))
    direct = counting.identity_lut(lut)
    label, pred = readonly(label), readonly(pred)
    _count.count_private(*args, offs, strides, len(keys), label, pred, vmin, lut, k, direct, bufs)
    flat = np.zeros(cells, np.int64)
    _count.sum_rows(bufs, flat)
    return flat, int(bufs[:, cells].sum()), direct


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


@pytest.mark.parametrize("n", [4095, 2 * 4096 + 1, SERIAL_BELOW + 7])
@pytest.mark.parametrize("threads", [1, 2])
def test_lookup_codes_and_values_outside_classes_match_bincount(n, threads):
    rng = np.random.default_rng(7 * n + threads)
    run = rng.integers(10, 60, n).astype(np.int32)
    fold = rng.integers(0, 5, n).astype(np.int8)
    vmin = 2
    # values 2..7; classes {3, 5, 6} in that order, the other values are outside the class set
    lut = np.array([-1, 0, -1, 1, 2, -1])
    label = rng.integers(2, 8, n)
    pred = rng.integers(2, 8, n)
    want, want_bad = _reference([run, fold], [10, 0], [50, 5], label, pred, vmin, lut, 3)
    got, bad, direct = _kernel([run, fold], [10, 0], [50, 5], label, pred, vmin, lut, 3, threads)
    assert not direct
    np.testing.assert_array_equal(got, want)
    assert bad == want_bad > 0


def test_identity_lut():
    assert counting.identity_lut(np.arange(5))
    assert counting.identity_lut(np.arange(1))
    assert not counting.identity_lut(np.array([1, 0]))
    assert not counting.identity_lut(np.array([0, 1, -1]))
