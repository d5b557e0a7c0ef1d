"""kernels/delta: the multiclass delta-method variances of the chance-corrected measures, the
least-favourable tables and their variances, the variance by class and the smoothed centres, table
by table, have the bits of the numpy code over stacked tables that computed them before
(tests/reference/chance_delta.py), on whole and float tables with empty rows and columns, one-class
and empty tables."""

from __future__ import annotations

import numpy as np
import pytest

from batcheval.inference import floors
from batcheval.inference import intervals as iv
from batcheval.kernels.delta import pairwise_sum

from .reference import chance_delta as ref


def awkward_tables(k: int, g: int, seed: int = 0, floats: bool = False) -> np.ndarray:
    rng = np.random.default_rng(seed)
    parts = [rng.integers(0, scale + 1, (g, k, k)) for scale in (1, 5, 100, 10**6)]
    gaps = rng.integers(0, 50, (g, k, k))
    gaps[:, rng.integers(0, k)] = 0  # a class never real
    gaps[:, :, rng.integers(0, k)] = 0  # and one never predicted
    few = np.zeros((5, k, k), np.int64)
    few[0, 0, 0] = 7  # one class, one cell
    few[1, 0, :] = 3  # one real class
    few[2, :, 0] = 4  # one predicted class
    few[4] = np.eye(k, dtype=np.int64) * 9  # perfect (few[3] is empty)
    good = rng.integers(0, 3, (g, k, k))
    good[:, np.arange(k), np.arange(k)] += rng.integers(50, 100, (g, k))
    c = np.concatenate([*parts, gaps, few, np.full((1, k, k), 5), good]).astype(np.int64)
    # a clustered board's rows over their repeats are not whole
    return c / rng.uniform(1.0, 3.0, (len(c), k, 1)) if floats else c


def same(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.array_equal(a, b, equal_nan=True))


CASES = [(k, floats) for k in (1, 2, 3, 5, 9, 50) for floats in (False, True)]


@pytest.mark.parametrize(("k", "floats"), CASES)
@pytest.mark.parametrize("name", iv.DELTA_MEASURES)
def test_variance_has_the_bits_of_the_gradient(k: int, floats: bool, name: str) -> None:
    c = awkward_tables(k, 30, k, floats)
    for extra in (0.0, iv.interval_pseudo_counts(max(k, 2))[1]):
        var, undefined = iv.chance_variance(c, name, extra)
        want, want_undefined = ref.delta_variance(c, name, extra)
        assert np.array_equal(undefined, want_undefined)
        assert same(np.where(undefined, np.nan, var), np.where(want_undefined, np.nan, want))


@pytest.mark.parametrize(("k", "floats"), [case for case in CASES if case[0] > 1])
@pytest.mark.parametrize("name", iv.DELTA_MEASURES)
def test_least_favourable_variance_has_the_bits_of_the_moved_tables(k: int, floats: bool, name: str) -> None:
    c = awkward_tables(k, 30, 10 + k, floats)
    got = floors.least_favourable_variance(c, name, 1, 0.95)
    want = ref.least_favourable_variance(c, name, 0.95)
    if k == 2 and name == "informedness":  # a 2×2 kernel of its own, older than these
        np.testing.assert_allclose(got, want, rtol=1e-12)
    else:
        assert same(got, want)
    assert same(floors.least_favourable_table(c, 0.9), ref.least_favourable_table(c, 0.9))


@pytest.mark.parametrize(("k", "floats"), [case for case in CASES if case[0] > 2])
@pytest.mark.parametrize("name", iv.DELTA_MEASURES)
def test_class_parts_have_the_bits_of_the_gradient(k: int, floats: bool, name: str) -> None:
    c = awkward_tables(k, 20, 20 + k, floats)
    v, n_k = floors.class_parts(c, name, 1)
    cf = np.asarray(c, dtype=np.float64)
    grad, _ = iv.delta_gradient(cf, name)
    sizes = cf.sum(axis=2)
    n = sizes.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (cf * grad).sum(axis=2) / sizes
        want = np.nan_to_num((cf * (grad - mean[:, :, None]) ** 2).sum(axis=2) / (n * n)[:, None])
    assert same(v, want)
    assert np.array_equal(n_k, sizes.astype(np.int64))


@pytest.mark.parametrize(("k", "floats"), CASES)
def test_chance_values_have_the_bits_of_numpy(k: int, floats: bool) -> None:
    c = awkward_tables(k, 20, 30 + k, floats)
    for extra in (0.0, iv.pseudo_count(max(k, 2))):
        got = iv.kernel_chance_values(c, extra)
        want = iv.chance_values(iv.cells_last(c) + extra)
        for row, name in zip(got, iv.DELTA_MEASURES, strict=True):
            assert same(row, want[name]), name


@pytest.mark.parametrize("name", iv.DELTA_MEASURES)
def test_smoothed_variance_is_that_of_the_table_plus_one(name: str) -> None:
    c = awkward_tables(4, 20)
    se = iv.standard_errors(c + 1, [name])[name]
    assert same(floors.smoothed_variance(c, name, 1), se * se)


def test_many_classes_and_the_parallel_kernels() -> None:
    """1000 classes: each column's sum down the rows first (ordered_sum), and tables past the size
    from which the parallel versions run."""
    rng = np.random.default_rng(5)
    k = 1000
    c = rng.integers(0, 3, (3, k, k))
    c[:, np.arange(k), np.arange(k)] += 40
    c[1, 7] = 0
    c[2, :, 3] = 0
    for name in iv.DELTA_MEASURES:
        var, undefined = iv.chance_variance(c, name, 0.01)
        want, want_undefined = ref.delta_variance(c, name, 0.01)
        assert np.array_equal(undefined, want_undefined)
        assert same(var, want)
    floats = c / rng.uniform(1.0, 2.0, (3, k, 1))
    assert same(floors.least_favourable_variance(floats, "correlation", 1, 0.95),
                ref.least_favourable_variance(floats, "correlation", 0.95))  # fmt: skip


def test_pairwise_sum_has_numpy_bits() -> None:
    rng = np.random.default_rng(0)
    for n in (0, 1, 7, 8, 9, 127, 128, 129, 256, 257, 1000, 3001, 100_003):
        a = rng.random(n) * 10 ** rng.uniform(-8, 8, n)
        assert pairwise_sum(a, 0, n) == a.sum(), n


def test_empty_board() -> None:
    c = np.zeros((0, 3, 3), np.int64)
    assert iv.chance_variance(c, "kappa_cohen")[0].shape == (0,)
    assert floors.least_favourable_variance(c, "markedness", 1, 0.95).shape == (0,)
    assert floors.class_parts(c, "informedness", 1)[0].shape == (0, 3)
