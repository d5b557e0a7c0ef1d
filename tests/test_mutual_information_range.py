"""mutual_information lies in its range [0, log2 K], the estimate and its interval's ends alike.

MI <= min(H(real), H(pred)) <= log2 K, but the kernel's G²/(2n ln 2) of a perfect balanced table
came out a unit in the last place above it: 1.0000000000000002 for K = 2 (scikit-learn's
mutual_info_score / ln 2 and the spec give 1.0) and 1.5849625007211565 for K = 3, and so did the
upper end of its interval, which hold_estimate does not clip. The kernel clips it at log2 K, as it
clips correlation and mcc at ±1.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import mutual_info_score

import batcheval as be
from batcheval.measures.compute import compute


def _mi(counts: np.ndarray) -> float:
    got = compute(np.asarray([counts], dtype=np.int64), ["mutual_information"])
    return float(got["mutual_information"][0])


def test_perfect_balanced_tables_give_log2_k_exactly():
    assert _mi(np.array([[5, 0], [0, 5]])) == 1.0 == math.log2(2)
    assert _mi(np.eye(3, dtype=np.int64) * 2) == math.log2(3)
    assert _mi(np.eye(4, dtype=np.int64) * 5) == 2.0


@pytest.mark.parametrize("k", range(2, 12))
@pytest.mark.parametrize("per_class", [1, 2, 5, 7, 100])
def test_perfect_balanced_tables_stay_in_range_and_agree_with_sklearn(k, per_class):
    got = _mi(np.eye(k, dtype=np.int64) * per_class)
    labels = np.repeat(np.arange(k), per_class)
    assert 0.0 <= got <= math.log2(k)
    assert got == pytest.approx(mutual_info_score(labels, labels) / math.log(2), rel=1e-14)
    assert got == pytest.approx(math.log2(k), rel=1e-14)


@pytest.mark.parametrize(("k", "method"), [(2, "wilson_delta"), (2, "bootstrap"), (3, "bootstrap")])
def test_interval_ends_stay_in_range(k, method):
    y = np.repeat(np.arange(k), 5)
    out = be.evaluate(y_true=y, y_pred=y, measures=["mutual_information"], ci=0.95, ci_method=method, seed=0)
    estimate, low, high = out.select(
        "mutual_information", "mutual_information_ci_low", "mutual_information_ci_high"
    ).row(0)
    assert estimate == math.log2(k)
    assert 0.0 <= low <= estimate <= high <= math.log2(k)
    assert high == math.log2(k)


def test_other_tables_are_unchanged():
    # far from the end of the range the value is G²/(2n ln 2) as before; sklearn as the reference
    rng = np.random.default_rng(5)
    for _ in range(20):
        k = int(rng.integers(2, 6))
        y, p = rng.integers(0, k, 200), rng.integers(0, k, 200)
        counts = np.zeros((k, k), dtype=np.int64)
        np.add.at(counts, (y, p), 1)
        assert _mi(counts) == pytest.approx(mutual_info_score(y, p) / math.log(2), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(
    "table",
    [
        [[5, 0, 0], [0, 5, 0], [0, 0, 0]],
        [[5, 0, 0, 0], [0, 3, 0, 0], [0, 0, 0, 0], [0, 0, 0, 9]],
        [[6, 0], [0, 3]],
    ],
)
def test_a_perfect_table_stays_below_the_entropy_of_its_real_classes(table):
    # MI <= H(real), which is below log2 K where a class is absent or the classes are unequal: the
    # clip at log2 K left [[5, 0, 0], [0, 5, 0], [0, 0, 0]] at 1.0000000000000002 for an H(real) of 1
    counts = np.array(table, dtype=np.int64)
    shares = counts.sum(axis=1)[counts.sum(axis=1) > 0] / counts.sum()
    h_real = float(-np.sum(shares * np.log2(shares)))
    labels = np.repeat(np.arange(len(table)), counts.sum(axis=1))
    got = _mi(counts)
    assert got <= h_real
    assert got == pytest.approx(mutual_info_score(labels, labels) / math.log(2), rel=1e-14)
