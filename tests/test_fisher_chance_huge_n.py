"""p_fisher, p_informedness and alpha_sbb of tables of 2^53 examples and more.

References in exact arithmetic: the hypergeometric pmf ``C(r, k)·C(n − r, p − k)/C(n, p)`` as
fractions over the (small) support, summed for Fisher's upper tail and for the two-sided mid-p of
docs/measures.md §3; from 2^62 examples, where the chance test is documented as the z test with the
exact permutation variance (kernels/chance.py, midp_cell), that z score from the integers in mpmath.
Before, the counts were turned into floats before their differences were formed: from 2^54
examples the cells of 1 were lost (p_fisher 1.3e-15 for an independent table whose p is 3/4, 1.0
for a tail of 1.1e-16), and from 2^62 the chance test's variance and deviation cancelled to 0
(p_informedness and alpha_sbb NaN).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from batcheval.measures.compute import compute


def _pmf(k: int, n: int, r: int, p: int) -> Fraction:
    return Fraction(math.comb(r, k) * math.comb(n - r, p - k), math.comb(n, p))


def _support(n: int, r: int, p: int) -> range:
    return range(max(0, p - (n - r)), min(r, p) + 1)


def _fisher(tp: int, fp: int, fn: int, tn: int) -> float:
    """P(X >= tp), X ~ Hypergeometric(n, tp + fn real positives, tp + fp draws)."""
    n, r, p = tp + fp + fn + tn, tp + fn, tp + fp
    return float(sum((_pmf(k, n, r, p) for k in _support(n, r, p) if k >= tp), Fraction(0)))


def _midp(tp: int, fp: int, fn: int, tn: int) -> float:
    """P(|X − mean| > |tp − mean|) + P(|X − mean| = |tp − mean|)/2, distances as n·k − r·p."""
    n, r, p = tp + fp + fn + tn, tp + fn, tp + fp
    seen = abs(n * tp - r * p)
    total = Fraction(0)
    for k in _support(n, r, p):
        d = abs(n * k - r * p)
        if d > seen:
            total += _pmf(k, n, r, p)
        elif d == seen:
            total += _pmf(k, n, r, p) / 2
    return float(total)


def _sbb(p: float) -> float:
    """docs/measures.md §3: 1/(1 + 1/L(p)), L(p) = −e·p·ln p below 1/e, else 1/2."""
    if p >= 1 / math.e:
        return 0.5
    if p == 0.0:
        return 0.0
    big_l = -math.e * p * math.log(p)
    return 1.0 / (1.0 + 1.0 / big_l)


def _run(tp: int, fp: int, fn: int, tn: int) -> dict[str, float]:
    counts = np.array([[[tn, fp], [fn, tp]]], dtype=np.int64)  # real × predicted, class 1 positive
    out = compute(counts, ["p_fisher", "p_informedness", "alpha_sbb"])
    return {name: float(v[0]) for name, v in out.items()}


# (tp, fp, fn, tn), each with a margin of a few examples, so that the support is small
B = 2**53
HUGE = [
    (B, B, 1, 1),  # independent (det 0): p_fisher 3/4 at any n, p_informedness 3/4
    (4 * B, 1, 1, 1),  # 2^55: a tail of 1.1e-16
    (2 * B, 2 * B, 1, 1),
    (2**61 - 2, 2**61 - 2, 1, 1),  # just below 2^62: the exact mid-p of the limbs
    (2**61 - 10, 2**60, 3, 4),
    (3, 2, 2**60 + 5, 2**61),
    (1, 1, B, B),
]


def _check(table: tuple[int, int, int, int], chance: float, rel: float) -> None:
    """p_fisher against the exact tail; p_informedness against ``chance`` and alpha_sbb against
    its calibration, within ``rel``."""
    got = _run(*table)
    fisher = _fisher(*table)
    assert got["p_fisher"] == pytest.approx(fisher, rel=1e-12, abs=1e-300), ("p_fisher", got, fisher)
    assert got["p_informedness"] == pytest.approx(chance, rel=rel, abs=1e-300), (
        "p_informedness",
        got,
        chance,
    )
    assert got["alpha_sbb"] == pytest.approx(_sbb(chance), rel=rel, abs=1e-300)


@pytest.mark.parametrize("table", HUGE)
def test_p_fisher_and_the_chance_test_of_huge_tables_are_exact(table):
    _check(table, _midp(*table), 1e-12)


# from 2^62 examples (n up to 2^63 − 1, the int64 range the tables are held to)
FROM_PAIR_LIMIT = [
    (2**61, 2**61, 1, 1),  # the report's: n = 2^62 + 2, NaN before
    (2**61 - 1, 2**61, 1, 1),
    (2**62, 2**62 - 10, 3, 5),
    (2**61 + 2**60, 2**60, 3, 5),
    (2**62 + 2**61, 2**61 - 20, 7, 6),
]


def _z_test(tp: int, fp: int, fn: int, tn: int) -> float:
    """erfc(|n·tp − r·p| / (n·sd) / √2), sd² = r(n − r)p(n − p)/(n²(n − 1)), from the integers."""
    n, r, p = tp + fp + fn + tn, tp + fn, tp + fp
    with mpmath.workdps(50):
        var = mpmath.mpf(r * (n - r) * p * (n - p)) / (n * n * (n - 1))
        z = abs(n * tp - r * p) / (n * mpmath.sqrt(var))
        return float(mpmath.erfc(z / mpmath.sqrt(2)))


@pytest.mark.parametrize("table", FROM_PAIR_LIMIT)
def test_from_2_62_examples_the_chance_test_is_the_documented_z_test_and_fisher_stays_exact(table):
    _check(table, _z_test(*table), 1e-9)
