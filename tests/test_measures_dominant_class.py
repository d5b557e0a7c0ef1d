"""The evenness, χ²_KB/KM/KBM and Fleiss's kappa keep their digits when one class holds almost all of n.

The references are the formulas of docs/measures.md in exact arithmetic (fractions over the integer
counts; mpmath at 50 digits for the square roots). Before, ``prevalence·(1 − prevalence)`` was
formed as ``rp/n·(1 − rp/n)``, the multiclass evenness from ``1/(1 − r/n)`` and Fleiss's kappa from
``4n(tp + tn) − (rp + pp)² − (rn + pn)²`` over ``4n² − …``: with 3 negatives in 1e15 examples
evenness_real and chi2_kb were 8e-4 off (and different with the other class positive), at 1e17 the
binary evenness and chi2_kb were 0, the three-class chi2_kb 3.895 for 3, and kappa_fleiss 1.0 for 0.5.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from batcheval.measures.compute import compute

MEASURES = (
    "evenness_real",
    "evenness_predicted",
    "evenness_global",
    "chi2_kb",
    "chi2_km",
    "chi2_kbm",
    "kappa_fleiss",
)


def _sqrt(x: Fraction) -> float:
    with mpmath.workdps(50):
        root = mpmath.sqrt(mpmath.mpf(abs(x.numerator)) / x.denominator)
        return float(root if x >= 0 else -root)


def _exact(table) -> dict[str, float]:
    """docs/measures.md §2–§4 over the integer counts of one K×K table (real × predicted)."""
    c = [[int(v) for v in row] for row in table]
    k = len(c)
    n = sum(map(sum, c))
    real = [sum(row) for row in c]
    pred = [sum(c[i][j] for i in range(k)) for j in range(k)]
    trace = sum(c[i][i] for i in range(k))

    def even(margin: list[int]) -> Fraction:
        # half the harmonic mean of p and 1 − p over the present classes (for K = 2, p(1 − p))
        if n in margin:
            return Fraction(0)
        present = [r for r in margin if r]
        return len(present) / sum(Fraction(n, r) + Fraction(n, n - r) for r in present)

    def bookmaker(margin: list[int]) -> Fraction:
        # Σ_k dtp_k / (1 − share_k), dtp_k = (n·c_kk − r_k·p_k)/n²
        terms = [
            Fraction(n * c[i][i] - real[i] * pred[i], n * (n - margin[i])) for i in range(k) if margin[i] < n
        ]
        return sum(terms, Fraction(0))

    even_r, even_p = even(real), even(pred)
    b, m = bookmaker(real), bookmaker(pred)
    k_real, k_pred = sum(r > 0 for r in real), sum(p > 0 for p in pred)
    kb = k_real * n * b * b * even_r
    km = k_pred * n * m * m * even_p
    sign = (b * m > 0) - (b * m < 0)
    # e = Σ ((prevalence_k + bias_k)/2)², kappa_fleiss = (accuracy − e)/(1 − e), 0 when 1 − e is 0
    e = sum(Fraction(real[i] + pred[i], 2 * n) ** 2 for i in range(k))
    fleiss = (Fraction(trace, n) - e) / (1 - e) if e != 1 else Fraction(0)
    return {
        "evenness_real": float(even_r),
        "evenness_predicted": float(even_p),
        "evenness_global": _sqrt(even_r * even_p),
        "chi2_kb": float(kb),
        "chi2_km": float(km),
        "chi2_kbm": sign * _sqrt(kb * km),
        "kappa_fleiss": float(fleiss),
    }


def _measures(table) -> dict[str, float]:
    out = compute(np.array([table], dtype=np.int64), list(MEASURES))
    return {name: float(out[name][0]) for name in MEASURES}


def _assert_close(got: dict[str, float], want: dict[str, float], rel: float, what: str) -> None:
    for name in MEASURES:
        assert abs(got[name] - want[name]) <= rel * abs(want[name]), (what, name, got[name], want[name])


# real × predicted, one class nearly all of n (the report's tables at 1e12, 1e15, 1e17 and near 2^62)
DOMINANT = [
    [[3, 3], [3, 10**12]],
    [[3, 3], [3, 10**15]],
    [[3, 3], [3, 10**17]],
    [[10**17, 7], [2, 5]],
    [[4, 1], [6, 2**61 + 2**60]],
    [[3, 0], [3, 10**16]],
]


@pytest.mark.parametrize("table", DOMINANT)
def test_binary_measures_of_a_dominant_class_are_exact_in_either_orientation(table):
    want = _exact(table)
    _assert_close(_measures(table), want, 1e-14, "class 1 positive")
    # class 0 positive: the same table with both labels and predictions swapped
    swapped = [row[::-1] for row in table[::-1]]
    _assert_close(_measures(swapped), want, 1e-14, "class 0 positive")


@pytest.mark.parametrize("table", DOMINANT[:5])
def test_two_classes_of_three_give_the_binary_values(table):
    """docs/measures.md §4: for K = 2 every multiclass measure equals the binary one (here through
    the multiclass kernel, with a third class absent from both margins)."""
    three = [[*row, 0] for row in table] + [[0, 0, 0]]
    want = _exact(table)
    _assert_close(_measures(three), want, 1e-14, "K = 3, one class absent")


def test_kappa_fleiss_equals_kappa_cohen_when_prevalence_is_bias():
    table = [[3, 3], [3, 10**17]]
    out = compute(np.array([table]), ["kappa_fleiss", "kappa_cohen"])
    assert out["kappa_fleiss"][0] == pytest.approx(0.5, rel=1e-15)
    assert out["kappa_fleiss"][0] == pytest.approx(out["kappa_cohen"][0], rel=1e-15)


@pytest.mark.parametrize(
    "table",
    [
        [[10**15, 3, 2], [4, 5, 1], [2, 1, 7]],
        [[9, 2, 0], [1, 10**17, 3], [0, 4, 6]],
        [[5, 1, 2, 0], [3, 8, 0, 1], [1, 0, 10**13, 2], [0, 2, 1, 4]],
    ],
)
def test_multiclass_measures_of_a_dominant_class_are_exact(table):
    _assert_close(_measures(table), _exact(table), 1e-13, "multiclass")


@pytest.mark.parametrize("k", [2, 3, 5])
def test_evenness_and_fleiss_of_ordinary_tables_are_exact_to_a_few_ulp(k):
    """Up to 500 examples (skewed ones included: before, a binary evenness of 499 to 1 was ~200 ulp off)."""
    rng = np.random.default_rng(530 + k)
    n = rng.integers(1, 501, 400)
    shares = rng.dirichlet([0.3] * k * k, 400)
    tables = np.array([rng.multinomial(m, q) for m, q in zip(n, shares, strict=True)])
    tables = tables.reshape(-1, k, k)
    out = compute(tables, ["evenness_real", "evenness_predicted", "evenness_global", "kappa_fleiss"])
    for g, table in enumerate(tables):
        want = _exact(table.tolist())
        for name in ("evenness_real", "evenness_predicted", "evenness_global", "kappa_fleiss"):
            got = float(out[name][g])
            assert abs(got - want[name]) <= 2e-15 * abs(want[name]), (table.tolist(), name, got, want[name])
