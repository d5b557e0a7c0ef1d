"""Kernel edges of issue 21: counts beyond int64 products, exact signs, Fisher precision.

Every expectation comes from exact arithmetic in ``tests/reference/exact.py``
(Python integers, fractions, 40-digit decimals), scikit-learn or scipy.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import batcheval as be
from batcheval.kernels import multiclass as _multiclass
from tests.reference.exact import multiclass_exact

MULTI = ("informedness", "markedness", "correlation", "mcc", "kappa_cohen")


def _kernel(counts: np.ndarray, names=MULTI) -> dict[str, np.ndarray]:
    """The multiclass kernel itself, for any K (``compute`` sends K = 2 to the binary one)."""
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    slots = np.full(len(_multiclass.NAMES), -1, np.int64)
    for i, name in enumerate(names):
        slots[_multiclass.NAMES.index(name)] = i
    out = np.full((len(names), counts.shape[0]), np.nan)
    _multiclass.multiclass_measures(counts, slots, out)
    return dict(zip(names, out, strict=True))


def _rel(got: float, want: Fraction | float) -> float:
    want = Fraction(want)
    return float(abs(Fraction(got) - want) / abs(want)) if want != 0 else abs(got)


# --- item 1: products of counts beyond int64 -------------------------------------------------

# a 3-class table of 11.5e9 examples; scaled down, the same shares stay near the limit
_BIG = [
    [3_000_000_000, 500_000_000, 300_000_000],
    [400_000_000, 2_900_000_000, 600_000_000],
    [200_000_000, 300_000_000, 3_300_000_000],
]


@pytest.mark.parametrize(
    "scale",
    [
        Fraction(1, 4),  # 2.875e9 examples: int64 still holds n² (below the limit)
        Fraction(27, 100),  # 3.105e9: just past floor(sqrt(2^63)) ≈ 3.037e9
        Fraction(1),  # 1.15e10, the size
        Fraction(1000),  # 1.15e13
        Fraction(700_000),  # 8.05e15: cells near 2^53
    ],
)
def test_multiclass_beyond_int64_matches_fractions(scale: Fraction) -> None:
    table = [[int(v * scale) + i + 2 * j for j, v in enumerate(row)] for i, row in enumerate(_BIG)]
    want = multiclass_exact(table)
    got = _kernel(np.array([table]))
    for name in MULTI:
        assert _rel(got[name][0], want[name]) < 1e-14, (name, got[name][0], float(want[name]))


def test_multiclass_near_cancellation_beyond_int64() -> None:
    """Large tables whose informedness nearly cancels: the exact determinants decide it."""
    n3 = 4_000_000_000
    # independent margins (informedness exactly 0), then one example moved onto the diagonal
    indep = [[n3, n3, 2 * n3], [n3, n3, 2 * n3], [2 * n3, 2 * n3, 4 * n3]]
    nudged = [row[:] for row in indep]
    nudged[0][1] -= 1
    nudged[0][0] += 1
    for table in (indep, nudged):
        want = multiclass_exact(table)
        got = _kernel(np.array([table]))
        for name in ("informedness", "markedness", "mcc", "kappa_cohen"):
            if want[name] == 0:
                assert got[name][0] == 0.0, (name, got[name][0])
            else:
                assert _rel(got[name][0], want[name]) < 1e-12, (name, got[name][0], float(want[name]))


def test_multiclass_from_long_public_path() -> None:
    """The issue's route: ``ContingencyTable.from_long`` of a pooled 1.15e10-example table."""
    rows = [(i, j, v) for i, row in enumerate(_BIG) for j, v in enumerate(row)]
    frame = pl.DataFrame(rows, schema=["real", "predicted", "count"], orient="row")
    got = be.ContingencyTable.from_long(frame).measures(list(MULTI))
    want = multiclass_exact(_BIG)
    assert abs(float(want["informedness"]) - 0.6999316473000684) < 1e-15
    for name in MULTI:
        assert _rel(got[name][0], want[name]) < 1e-14, (name, got[name][0], float(want[name]))


# --- item 2: exact signs decide multiclass correlation ---------------------------------------


def _check_table(table: list[list[int]], got: dict[str, float]) -> None:
    want = multiclass_exact(table)
    if sum(map(sum, table)) == 0:  # an empty group: NaN for every measure
        assert all(math.isnan(v) for v in got.values()), (table, got)
        return
    for name in ("informedness", "markedness"):
        if want[name] == 0:
            assert got[name] == 0.0, (table, name, got[name])
        else:
            assert got[name] == pytest.approx(float(want[name]), rel=1e-13), (table, name)
    corr = want["correlation"]
    if math.isnan(corr):
        assert math.isnan(got["correlation"]), (table, got["correlation"])
    else:
        assert got["correlation"] == pytest.approx(corr, rel=1e-13, abs=0), (table, got["correlation"])


@settings(max_examples=2000, deadline=None)
@given(
    st.integers(2, 4).flatmap(
        lambda k: st.lists(st.lists(st.integers(0, 3), min_size=k, max_size=k), min_size=k, max_size=k)
    )
)
@example([[2, 2, 0], [2, 0, 0], [2, 0, 2]])
def test_multiclass_correlation_signs_exact(table: list[list[int]]) -> None:
    got = {k: v[0] for k, v in _kernel(np.array([table])).items()}
    _check_table(table, got)


def test_multiclass_correlation_random_small_tables() -> None:
    """20,000 random 3×3 tables with cells 0..3 in one kernel call, against fractions."""
    rng = np.random.default_rng(21)
    counts = rng.integers(0, 4, (20_000, 3, 3))
    got = _kernel(counts)
    bad = []
    for g, table in enumerate(counts.tolist()):
        try:
            _check_table(table, {k: v[g] for k, v in got.items()})
        except AssertionError:
            bad.append(table)
    assert not bad, (len(bad), bad[:3])
