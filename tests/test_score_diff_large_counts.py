"""The Miettinen–Nurminen score interval (``intervals.score_difference``) at counts from 10 to
10¹² with rare successes or failures, against the mpmath inversion of tests/reference/mn_mpmath.py
(restricted estimate from the cubic's roots, ends by root search in δ, 50-150 digits). Its ends are
within 1e-9 of the interval's width of the reference, or within two ulps of the end where a float
cannot say more (an end near ±1, whose spacing is 1.1e-16, of an interval 1e-8 wide)."""

from __future__ import annotations

import numpy as np
import pytest

import batcheval as be
from batcheval.inference.intervals import two_sided_z
from tests.reference.mn_mpmath import mn_interval

Z = two_sided_z(0.95)


def _grid() -> list[tuple[int, int, int, int]]:
    """Rare events at each size: 0, 1 or 3 successes (or failures) beside 0 or 1, a near-tie of
    rates near 1/2 and near 1, and unequal sizes."""
    cases = set()
    for m in (10, 1000, 10**6, 10**8, 10**9, 10**10, 10**12):
        cases |= {(1, m, 0, m), (0, m, 0, m), (3, m, 1, m), (m, m, m - 1, m), (m - 3, m, m, m),
                  (2, m, m - 5, m), (m // 2, m, m // 2 - 1, m), (1, m, 0, max(m // 7, 1)),
                  (5, 3 * m, 2, m)}  # fmt: skip
    return sorted(cases)


def _assert_close(got: tuple[float, float], want: tuple[float, float]) -> None:
    width = want[1] - want[0]
    for g, w in zip(got, want, strict=True):
        assert abs(g - w) <= max(1e-9 * width, 2.0 * np.spacing(abs(w))), (got, want)


def test_score_interval_at_counts_up_to_1e12_is_the_high_precision_inversion():
    cases = _grid()
    x1, m1, x0, m0 = (np.array(c, dtype=np.int64) for c in zip(*cases, strict=True))
    low, high = be.intervals.score_difference(x1, m1, x0, m0)
    for g, case in enumerate(cases):
        _assert_close((low[g], high[g]), mn_interval(*case, Z, dps=50))


@pytest.mark.parametrize(
    ("case", "want"),
    [
        # one true positive of 1e9 positives, no false positive of 1e9 negatives: (-5.10e-9, 6.87e-9) before
        ((1, 10**9, 0, 10**9), (-2.84e-9, 5.66e-9)),
        # three of 1e9 against all but three of 1e9: the lower end was -1.0 to the last digit shown
        ((3, 10**9, 10**9 - 3, 10**9), (-0.99999999725, -0.99999998691)),
    ],
)
def test_rare_event_intervals_of_the_report(case: tuple[int, int, int, int], want: tuple[float, float]):
    ref = mn_interval(*case, Z, dps=150)
    assert ref == pytest.approx(want, rel=1e-3)  # the report's rounded figures
    low, high = be.intervals.score_difference(*(np.array([v]) for v in case))
    _assert_close((low[0], high[0]), ref)


def test_binary_informedness_interval_of_a_table_of_2e9_examples():
    """``intervals(..., ["informedness"])`` reads tp/(tp + fn) − fp/(fp + tn) off the table."""
    table = np.array([[[10**9, 0], [10**9 - 1, 1]]])
    low, high = be.intervals.intervals(table, ["informedness"])["informedness"]
    _assert_close((low[0], high[0]), mn_interval(1, 10**9, 0, 10**9, Z, dps=150))
