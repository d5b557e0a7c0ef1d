"""Measures of tables whose counts reach the top of the int64 range (n up to 2^63 − 1, which the
constructor and ``compute`` accept) are those of the exact formulas over the integer counts.

The references are Python integers and fractions. Before, the multiclass kernel summed two counts in
int64 (``r + p`` and ``(n − r) + (n − p)``), which wrap past 2^63: a perfect three-class table of
3·2^61 examples had kappa_fleiss −1, one class of 2^62 + 10 examples weighted_f1 −1 and macro_f1 1/3,
and fifty classes of 2^57 each kappa_fleiss −3.27. ``2·c`` of a cell over 2^62 wrapped too, which sent
the conditional entropy's ``ln(c/p)`` of a cell near its column's total the imprecise way.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

import mpmath
import numpy as np
import polars as pl
import pytest

from batcheval.core.table import ContingencyTable
from batcheval.errors import CountOverflowError
from batcheval.inference.intervals import intervals
from batcheval.measures import compute, compute_cells


def _multiclass_exact(table) -> dict[str, Fraction]:
    """kappa_fleiss, macro_f1 and weighted_f1 (docs/measures.md, multiclass measures) in fractions."""
    c = [[int(v) for v in row] for row in table]
    k = len(c)
    n = sum(map(sum, c))
    real = [sum(row) for row in c]
    pred = [sum(c[i][j] for i in range(k)) for j in range(k)]
    agree = Fraction(sum(c[i][i] for i in range(k)), n)
    chance = sum((Fraction(real[i] + pred[i], 2 * n) ** 2 for i in range(k)), Fraction(0))
    # a class's f1 is defined where it is real or predicted (scikit-learn's zero_division=nan)
    f1 = {i: Fraction(2 * c[i][i], real[i] + pred[i]) for i in range(k) if real[i] + pred[i]}
    return {
        "kappa_fleiss": (agree - chance) / (1 - chance),
        "macro_f1": sum(f1.values(), Fraction(0)) / len(f1),
        "weighted_f1": sum((f1[i] * real[i] for i in f1), Fraction(0)) / sum(real[i] for i in f1),
    }


def _fifty_classes() -> np.ndarray:
    c = np.zeros((50, 50), dtype=np.int64)
    np.fill_diagonal(c, 2**63 // 64)
    c[0, 1] = 3
    return c


HUGE_MULTICLASS = [
    [[2**61, 1, 0], [0, 2**61, 1], [1, 0, 2**61]],
    [[2**62 + 10, 0, 0], [0, 1, 0], [0, 0, 1]],
    [[2**62, 2**60, 0], [2**59, 2**60, 0], [0, 7, 2**58]],
    _fifty_classes().tolist(),
]


@pytest.mark.parametrize("table", HUGE_MULTICLASS, ids=["3x2^61", "2^62+10", "mixed", "K50"])
def test_multiclass_sums_of_two_counts_past_int64_are_exact(table):
    counts = np.array([table], dtype=np.int64)
    assert int(counts.sum(dtype=object)) < 2**63  # a valid table
    want = _multiclass_exact(table)
    got = compute(counts, list(want))
    for name, value in want.items():
        assert math.isclose(got[name][0], float(value), rel_tol=1e-14), (name, got[name][0], float(value))
    frame = ContingencyTable(pl.DataFrame({"g": [0]}), list(range(len(table))), counts).measures(list(want))
    for name, value in want.items():
        assert math.isclose(frame[name][0], float(value), rel_tol=1e-14), name


def test_conditional_entropy_of_a_column_of_more_than_2_to_62_keeps_its_digits():
    # ln(c/p) of a cell with c >= p/2 is log1p((c − p)/p); 2·c wrapped for c > 2^62 and took ln(c/p),
    # with c/p rounded near 1 (a relative error of 6.5e-4)
    table = [[2**62 + 2**50, 0], [1000, 2**61]]
    n = sum(map(sum, table))
    pred = [table[0][0] + table[1][0], table[1][1]]
    with mpmath.workdps(50):
        want = -sum(
            mpmath.mpf(table[i][j]) / n * mpmath.log(mpmath.mpf(table[i][j]) / pred[j], 2)
            for i in range(2)
            for j in range(2)
            if table[i][j]
        )
        want = float(want)
    got = compute(np.array([table]), ["conditional_entropy"])["conditional_entropy"][0]
    assert math.isclose(got, want, rel_tol=1e-13)


def test_a_float_count_of_2_to_63_is_past_the_int64_range():
    # numpy compared the float maximum with int64's maximum rounded up to 2^63, so 2.0**63 passed
    # and was cast to -2^63: a negative prevalence, p_fisher 0, and intervals() blamed a negative count
    message = re.escape(f"counts exceed the int64 range: {2**63} (group 0)")
    counts = np.array([[[2.0**63, 0.0], [0.0, 3.0]]])
    with pytest.raises(CountOverflowError, match=message):
        compute(counts, ["accuracy", "prevalence"])
    with pytest.raises(CountOverflowError, match=message):
        intervals(counts, ["accuracy"])
    with pytest.raises(CountOverflowError, match=re.escape(f"tn exceed the int64 range: {2**63} (group 0)")):
        compute_cells([3.0], [0.0], [0.0], [2.0**63], ["accuracy"])
    # the float just below 2^63 is a count, exactly
    below = float(2**63 - 1024)
    got = compute(np.array([[[below, 0.0], [0.0, 3.0]]]), ["prevalence"])["prevalence"][0]
    assert got == float(Fraction(3, 2**63 - 1024 + 3))


def test_a_table_of_python_integers_in_an_object_array_is_its_exact_counts():
    # as measures.compute takes them; the group whose total passes int64 is named by its keys
    keys = pl.DataFrame({"run": [1, 2]})
    big = 2**63 - 2
    table = ContingencyTable(keys, [0, 1], np.array([[[big, 0], [0, 1]], [[3, 1], [2, 4]]], dtype=object))
    assert table.counts.dtype == np.int64 and table.counts.tolist() == [[[big, 0], [0, 1]], [[3, 1], [2, 4]]]
    assert table.n == big + 11
    over = np.array([[[0, 0], [0, 0]], [[big, 1], [1, 1]]], dtype=object)
    message = f"group 1 ({{'run': 2}}) holds {big + 3} examples, beyond the int64 range"
    with pytest.raises(CountOverflowError, match=re.escape(message)):
        ContingencyTable(keys, [0, 1], over)


def _binary_coefficients(table) -> dict[str, Fraction]:
    """docs/measures.md's chance-corrected binary measures of ``[[tn, fp], [fn, tp]]`` in fractions."""
    (tn, fp), (fn, tp) = ((int(v) for v in row) for row in table)
    rp, rn, pp, pn = tp + fn, fp + tn, tp + fp, fn + tn
    det = tp * tn - fp * fn
    informedness, markedness = Fraction(det, rp * rn), Fraction(det, pp * pn)
    return {
        "informedness": informedness,
        "markedness": markedness,
        "bookmark": informedness * markedness,
        "kappa_cohen": Fraction(2 * det, rp * pn + pp * rn),
        "kappa_fleiss": Fraction(4 * det - (fn - fp) ** 2, (rp + pp) * (rn + pn)),
    }


def _multiclass_coefficients(table) -> dict[str, Fraction]:
    """The multiclass Bookmaker measures and kappas (docs/measures.md) in fractions, from
    det_k = n·c_kk − r_k·p_k."""
    c = [[int(v) for v in row] for row in table]
    k = len(c)
    n = sum(map(sum, c))
    real = [sum(row) for row in c]
    pred = [sum(c[i][j] for i in range(k)) for j in range(k)]
    det = [n * c[i][i] - real[i] * pred[i] for i in range(k)]
    inf_k = [Fraction(det[i], real[i] * (n - real[i])) for i in range(k)]
    mark_k = [Fraction(det[i], pred[i] * (n - pred[i])) for i in range(k)]

    def weighted(weights: list[int], values: list[Fraction]) -> Fraction:
        return sum((Fraction(w, n) * v for w, v in zip(weights, values, strict=True)), Fraction(0))

    agree = n * sum(c[i][i] for i in range(k)) - sum(r * p for r, p in zip(real, pred, strict=True))
    return {
        "informedness": weighted(real, inf_k),
        "markedness": weighted(pred, mark_k),
        "bias_weighted_informedness": weighted(pred, inf_k),
        "prevalence_weighted_markedness": weighted(real, mark_k),
        "macro_informedness": sum(inf_k, Fraction(0)) / k,
        "macro_markedness": sum(mark_k, Fraction(0)) / k,
        "kappa_cohen": Fraction(agree, n * n - sum(r * p for r, p in zip(real, pred, strict=True))),
        "kappa_fleiss": _multiclass_exact(table)["kappa_fleiss"],
    }


# perfect (and for two classes, all wrong) tables of more than 2^53 examples, whose margin
# products round below the determinant: 1.0000000000000002 before, bookmark 1.0000000000000004
PAST_2_TO_53 = [
    [[128572661996663381, 0], [0, 65258794626017422]],
    [[1684905957546623092, 0], [0, 412459318875262415]],
    [[0, 1257624546841154663], [2156715027115601189, 0]],
    [[948431962538981262, 0, 0], [0, 682675355756111847, 0], [0, 0, 726705538444077267]],
    [[520129740656419199, 0, 0], [0, 1746487947384867451, 0], [0, 0, 277981390843305135]],
    [[1102066292785638311, 0, 0], [0, 351718405909980243, 0], [0, 0, 209854276465189291]],
    [[1355559833219325296, 0, 0], [0, 273784026820051004, 0], [0, 0, 1546058272975072584]],
]
# and at ordinary sizes the multiclass means of ones round above 1 too (the review's tables:
# informedness and markedness of 875 examples, kappa_fleiss of 1.08e9)
ORDINARY = [
    [[258, 0, 0], [0, 613, 0], [0, 0, 4]],
    [[712828837, 0, 0], [0, 315173506, 0], [0, 0, 55016376]],
]


@pytest.mark.parametrize("table", PAST_2_TO_53 + ORDINARY)
def test_coefficients_of_tables_past_2_to_53_stay_within_their_range(table):
    want = _binary_coefficients(table) if len(table) == 2 else _multiclass_coefficients(table)
    # correlation is ±√(informedness · markedness), ±1 here, as both are
    sign = 1 if want["informedness"] > 0 else -1
    want["correlation"] = Fraction(sign)
    got = compute(np.array([table]), list(want))
    for name, value in want.items():
        assert -1 <= got[name][0] <= 1, (name, got[name][0])
        assert math.isclose(got[name][0], float(value), rel_tol=1e-15), (name, got[name][0], float(value))


def _information(table) -> tuple[float, float]:
    """(mutual_information, conditional_entropy) in bits at 60 digits: H(real) − H(real | predicted)
    and −Σ c/n · log2(c/p) over the nonzero cells (p: the cell's predicted total)."""
    with mpmath.workdps(60):
        c = [[int(v) for v in row] for row in table]
        k = len(c)
        n = sum(map(sum, c))
        real = [sum(row) for row in c]
        pred = [sum(c[i][j] for i in range(k)) for j in range(k)]
        h_real = -sum(mpmath.mpf(r) / n * mpmath.log(mpmath.mpf(r) / n, 2) for r in real if r)
        h_cond = -sum(
            mpmath.mpf(c[i][j]) / n * mpmath.log(mpmath.mpf(c[i][j]) / pred[j], 2)
            for i in range(k)
            for j in range(k)
            if c[i][j]
        )
        return float(h_real - h_cond), float(h_cond)


# one class holds nearly all of n: H(real) took ln(r/n) of an r/n rounded near 1 (conditional
# entropy 1.3e-9 off at n = 1e9, 7.7e-7 at 1e12, 2.2e-5 at 1e15; the mutual information of a
# perfect relabelling, capped at H(real), 4e-7)
DOMINANT = [
    [[0, 1], [0, 10**9]],
    [[0, 1], [0, 10**12]],
    [[0, 1], [0, 10**15]],
    [[10**15, 0], [1, 0]],
    [[0, 0, 0], [0, 696200720121, 0], [2, 0, 0]],
    [[3, 0, 0], [0, 10**14, 5], [0, 0, 0]],
]


@pytest.mark.parametrize("table", DOMINANT)
def test_entropies_with_one_class_nearly_all_of_n_keep_their_digits(table):
    mi, h_cond = _information(table)
    got = compute(np.array([table]), ["mutual_information", "conditional_entropy"])
    assert math.isclose(got["conditional_entropy"][0], h_cond, rel_tol=1e-13, abs_tol=1e-300)
    assert math.isclose(got["mutual_information"][0], mi, rel_tol=1e-13, abs_tol=1e-300)
