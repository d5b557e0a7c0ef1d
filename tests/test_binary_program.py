"""The binary measures' traced program (kernels/binary.py): the same bits whatever is asked for,
the same bits as the one-table formula ``measure_value``, and the spec's values (tests/reference)."""

from __future__ import annotations

import math
from fractions import Fraction

import numba
import numpy as np
import pytest

from batcheval.kernels import binary

from .reference.naive import binary_reference


def _tables() -> np.ndarray:
    """Rows ``[tp, fp, fn, tn]``: random tables of many sizes, empty ones, one or two cells
    filled (zero margins), and counts past the exact determinant's limit."""
    rng = np.random.default_rng(11)
    rows = []
    for n in (0, 1, 2, 5, 40, 1000, 10**6):
        for concentration in (0.2, 1.0, 10.0):
            rows.extend(rng.multinomial(n, rng.dirichlet(np.full(4, concentration)), size=6))
    for n in (1, 9, 3_000_000_007):
        for i in range(4):
            rows.append(np.eye(4, dtype=np.int64)[i] * n)
            rows.append((np.eye(4, dtype=np.int64)[i] + np.eye(4, dtype=np.int64)[3 - i]) * n)
    rows.append(np.array([2_000_000_000, 1_500_000_000, 1_000_000_000, 2_500_000_000]))
    rows.extend(_HUGE)
    return np.array(rows, dtype=np.int64)


# [tp, fp, fn, tn] past the int64-exact determinant's limit, the determinant small against a·d
_HUGE = [
    [3_000_000_007, 2_999_999_999, 3_000_000_001, 3_000_000_000],
    [1_000_000_000, 999_999_999, 1_000_000_001, 1_000_000_000],  # tp·tn − fp·fn = 1
    [1_000_000_000, 1_000_000_001, 999_999_999, 1_000_000_000],  # −1
    [2_000_000_000, 1_999_999_999, 1_999_999_999, 2_000_000_000],
]


def _measure(table: np.ndarray, names: list[str], beta: float) -> np.ndarray:
    slots = np.full(len(binary.NAMES), -1, dtype=np.int64)
    for row, name in enumerate(names):
        slots[binary.NAMES.index(name)] = row
    out = np.full((len(names), table.shape[0]), -7.0)
    binary.binary_measures(*(np.ascontiguousarray(table[:, i]) for i in range(4)), beta, slots, out)
    return out


def _same_bits(x: np.ndarray, y: np.ndarray) -> bool:
    return bool(np.all((x.view(np.int64) == y.view(np.int64)) | (np.isnan(x) & np.isnan(y))))


@numba.njit
def _by_measure_value(table, b2, out):
    for m in range(out.shape[0]):
        for g in range(table.shape[0]):
            t = table[g]
            out[m, g] = binary.measure_value(m, t[0], t[1], t[2], t[3], b2)


@pytest.mark.parametrize("beta", [0.0, 1.0, 2.5])
def test_each_measure_alone_has_the_bits_of_all_together(beta):
    """The program keeps only the operations a measure needs and reuses registers: asking for
    one measure, or for all in another order, must give the same bits."""
    table = _tables()
    names = list(binary.NAMES)
    together = _measure(table, names, beta)
    for k, name in enumerate(names):
        assert _same_bits(_measure(table, [name], beta)[0], together[k]), name
    order = np.random.default_rng(3).permutation(len(names))
    shuffled = _measure(table, [names[i] for i in order], beta)
    assert _same_bits(shuffled, together[order])


@pytest.mark.parametrize("beta", [0.5, 1.0])
def test_measure_value_has_the_bits_of_the_program(beta):
    """Two implementations of every formula (the column program, the one-table function the
    bootstrap kernels call), written apart: the same operations in the same order."""
    table = _tables()
    expected = np.empty((len(binary.NAMES), table.shape[0]))
    _by_measure_value(table, beta * beta, expected)
    assert _same_bits(_measure(table, list(binary.NAMES), beta), expected)


def test_the_program_gives_the_spec_values():
    table = _tables()
    small = table[table.sum(axis=1) < 10**7]
    got = _measure(small, list(binary.NAMES), 2.0)
    for g, (tp, fp, fn, tn) in enumerate(small):
        reference = binary_reference(np.array([[tn, fp], [fn, tp]]), beta=2.0)
        for k, name in enumerate(binary.NAMES):
            want = reference[name]
            if math.isnan(want):
                assert math.isnan(got[k, g]), (name, tp, fp, fn, tn)
            else:
                assert got[k, g] == pytest.approx(want, rel=1e-9, abs=1e-12), (name, tp, fp, fn, tn)


def test_the_determinant_past_the_int64_limit_is_exact():
    """Tables of 3e9 examples and more: tp·tn overflows int64, and the float a·d − b·c lost the
    determinant (1 came out 0, the first table's correlation was off by 2.4e-8)."""
    names = ["dtp", "informedness", "markedness", "kappa_cohen", "correlation"]
    got = _measure(np.array(_HUGE, dtype=np.int64), names, 1.0)
    for g, (tp, fp, fn, tn) in enumerate(_HUGE):
        det, n = tp * tn - fp * fn, tp + fp + fn + tn
        rp, rn, pp, pn = tp + fn, fp + tn, tp + fp, fn + tn
        corr = math.copysign(math.sqrt(Fraction(det * det, rp * rn * pp * pn)), det)
        want = [Fraction(det, n * n), Fraction(det, rp * rn), Fraction(det, pp * pn),
                Fraction(2 * det, rp * pn + pp * rn), corr]  # fmt: skip
        for k, name in enumerate(names):
            assert got[k, g] == pytest.approx(float(want[k]), rel=4e-16, abs=0.0), (name, g)


# [tp, fp, fn, tn] whose products tp·tn and fp·fn pass 2^63 (int64 wraps): determinants 1, −1 and
# a large one; _HUGE's products still fit in int64
_PAST_INT64 = [
    [4_000_000_001, 4_000_000_000, 4_000_000_002, 4_000_000_001],
    [4_000_000_000, 4_000_000_001, 4_000_000_001, 4_000_000_002],
    [5_000_000_000, 1, 3, 5_000_000_000],
]


@pytest.mark.parametrize("copies", [1, 2000])
def test_the_determinant_past_int64_products_is_exact(copies):
    """Both the program (few tables) and the distinct tables' pass (many copies of few tables) take
    the limbs when tp·tn passes 2^63 (int64 wraps the determinant 1 to a large negative). Both run
    first in a version compiled without the limbs (``wide=None``), which counts such tables, and
    then again with them: a test that the second run happens."""
    from batcheval.measures import compute

    table = np.array(_PAST_INT64 * copies, dtype=np.int64)
    tp, fp, fn, tn = (table[:, i] for i in range(4))
    counts = np.stack([np.stack([tn, fp], axis=1), np.stack([fn, tp], axis=1)], axis=1)
    names = ["informedness", "markedness", "dtp", "p_fisher"]  # p_fisher: the distinct pass
    got = compute(counts, names)
    direct = _measure(table[: len(_PAST_INT64)], ["informedness", "markedness", "dtp"], 1.0)
    for g, (a, b, c, d) in enumerate(_PAST_INT64):
        det, n = a * d - b * c, a + b + c + d
        want = [Fraction(det, (a + c) * (b + d)), Fraction(det, (a + b) * (c + d)), Fraction(det, n * n)]
        for k, name in enumerate(names[:3]):
            expected = pytest.approx(float(want[k]), rel=4e-16, abs=0.0)
            assert got[name][g] == expected, (name, g)
            assert got[name][g + len(_PAST_INT64) * (copies - 1)] == expected, (name, g)
            assert direct[k, g] == expected, (name, g)
