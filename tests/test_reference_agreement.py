"""Every measure equals the plain-numpy reference, on random and degenerate tables."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from batcheval.measures import BINARY_MEASURES, MULTICLASS_MEASURES, compute
from tests.reference import chance as chance_ref
from tests.reference.naive import binary_reference, multiclass_reference

DEGENERATE_2X2 = [
    [[0, 0], [0, 0]],  # empty
    [[5, 0], [0, 0]],  # only negatives, all predicted negative
    [[0, 0], [0, 7]],  # only positives, all predicted positive
    [[3, 4], [0, 0]],  # no real positives
    [[0, 0], [2, 6]],  # no real negatives
    [[3, 0], [4, 0]],  # never predicts positive
    [[0, 3], [0, 4]],  # always predicts positive
    [[0, 2], [3, 0]],  # everything wrong
    [[4, 0], [0, 6]],  # everything right
    [[1, 0], [0, 0]],
    [[0, 1], [0, 0]],
    [[0, 0], [1, 0]],
]


def _close(a: float, b: float) -> bool:
    if math.isnan(b):
        return math.isnan(a)
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _check_binary(tables: np.ndarray, beta: float = 2.0) -> None:
    names = [*BINARY_MEASURES]
    got = compute(tables, names, beta=beta)
    for g, table in enumerate(tables):
        ref = binary_reference(table, beta=beta)
        for name in names:
            assert _close(float(got[name][g]), ref[name]), (name, table.tolist(), got[name][g], ref[name])


def _check_multiclass(tables: np.ndarray) -> None:
    got = compute(tables, list(MULTICLASS_MEASURES))
    rng = np.random.default_rng(0)
    for g, table in enumerate(tables):
        ref = multiclass_reference(table)
        for name in MULTICLASS_MEASURES:
            if ref[name] is None:  # a small table batcheval shuffles: within 4 Monte Carlo errors
                want = chance_ref.permutation_p(table, name.removeprefix("p_"), 20_000, rng)
                assert abs(got[name][g] - want) <= 4 * math.sqrt(max(want * (1 - want), 1e-4) / 1_000)
                continue
            assert _close(float(got[name][g]), ref[name]), (name, table.tolist(), got[name][g], ref[name])


def test_degenerate_binary_tables_follow_the_spec():
    _check_binary(np.array(DEGENERATE_2X2, dtype=np.int64))


def test_degenerate_binary_rules():
    got = compute(np.array(DEGENERATE_2X2, dtype=np.int64))
    assert all(math.isnan(v[0]) for v in got.values()), "an empty group is NaN everywhere"
    never_positive = 5  # [[3, 0], [4, 0]]
    assert math.isnan(got["precision"][never_positive])
    for name in ("informedness", "markedness", "correlation", "bookmark", "kappa_cohen"):
        assert got[name][never_positive] == 0.0, name
    # Scott's pi keeps its definition (accuracy - e)/(1 - e): 1 - e is not 0 here
    assert got["kappa_fleiss"][never_positive] == pytest.approx((3 / 7 - 29 / 49) / (20 / 49))


@given(arrays(np.int64, (8, 2, 2), elements=st.integers(0, 60)))
def test_random_binary_tables(tables):
    _check_binary(tables)


@given(arrays(np.int64, (6, 2, 2), elements=st.integers(0, 40)))
def test_each_binary_measure_asked_alone(tables):
    # the kernel computes only what is asked for: each measure alone must not
    # lean on a value that only another requested measure would have computed
    tables = np.concatenate([tables, np.array(DEGENERATE_2X2, dtype=np.int64)])
    refs = [binary_reference(table, beta=0.5) for table in tables]
    for name in BINARY_MEASURES:
        got = compute(tables, [name], beta=0.5)[name]
        for g, table in enumerate(tables):
            ref = refs[g][name]
            assert _close(float(got[g]), ref), (name, table.tolist(), got[g], ref)


@given(st.integers(2, 6).flatmap(lambda k: arrays(np.int64, (4, k, k), elements=st.integers(0, 30))))
def test_random_multiclass_tables(tables):
    _check_multiclass(tables)


def test_large_counts_keep_precision():
    tables = np.array([[[2_000_000_007, 1_999_999_993], [1_000_000_001, 3_000_000_011]]], dtype=np.int64)
    got = compute(tables, ["informedness", "dtp", "correlation"])
    ref = binary_reference(tables[0], exact_tests=False)  # no exact tails of 8e9 examples to sum
    for name in got:
        assert got[name][0] == pytest.approx(ref[name], rel=1e-12)


@pytest.mark.parametrize("k", [3, 5])
def test_sparse_multiclass_tables(k):
    rng = np.random.default_rng(k)
    tables = rng.integers(0, 5, (50, k, k)) * (rng.uniform(size=(50, k, k)) < 0.3)
    _check_multiclass(tables.astype(np.int64))


def test_bookmaker_sums_near_zero_are_exact():
    """Tables whose Bookmaker sums cancel to within their rounding of zero are written again from
    exact sums (kernels.multiclass.exact_bookmaker): each sign, and each exact 0, is the rational
    sum's, and every value is within a few ulps of it."""
    from fractions import Fraction

    from batcheval.kernels import multiclass as mk

    rng = np.random.default_rng(0)
    y, p = rng.integers(0, 3, (4000, 10)), rng.integers(0, 3, (4000, 10))
    tables = np.zeros((4000, 3, 3), np.int64)
    np.add.at(tables, (np.repeat(np.arange(4000), 10), y.ravel(), p.ravel()), 1)
    left = np.zeros(4000, np.uint8)
    mk.multiclass_tables(tables, np.arange(len(mk.NAMES)), np.empty((len(mk.NAMES), 4000)), left, None)
    near = tables[left == 2]
    assert len(near) > 50  # the lean kernel's float sums left these to the exact ones
    got = compute(near, ["informedness", "markedness", "macro_informedness", "macro_markedness"])
    for g, t in enumerate(near):
        n, real, pred = int(t.sum()), t.sum(axis=1), t.sum(axis=0)
        det = [n * int(t[k, k]) - int(real[k]) * int(pred[k]) for k in range(3)]
        want = {
            "informedness": sum(
                Fraction(d, n * (n - int(r))) for d, r in zip(det, real, strict=True) if r < n
            ),
            "markedness": sum(Fraction(d, n * (n - int(q))) for d, q in zip(det, pred, strict=True) if q < n),
        }
        per_inf = [Fraction(d, int(r) * (n - int(r))) for d, r in zip(det, real, strict=True) if 0 < r < n]
        per_mark = [Fraction(d, int(q) * (n - int(q))) for d, q in zip(det, pred, strict=True) if 0 < q < n]
        want["macro_informedness"] = sum(per_inf) / len(per_inf) if per_inf else Fraction(0)
        want["macro_markedness"] = sum(per_mark) / len(per_mark) if per_mark else Fraction(0)
        for name, exact in want.items():
            value = float(got[name][g])
            assert np.sign(value) == np.sign(float(exact)), (name, t.tolist(), value, exact)
            assert value == pytest.approx(float(exact), rel=1e-14, abs=0.0) or (exact == 0 and value == 0.0)
