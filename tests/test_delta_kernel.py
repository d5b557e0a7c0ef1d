"""kernels/delta: binary informedness's delta-method variance, table by table, has the bits of
the numpy code over stacked tables (``cells_last``, ``gradient_cells_last``,
``gradient_variance``), which the float tables still take; and that numpy code against
a finite-difference gradient."""

from __future__ import annotations

import numpy as np
import pytest

from batcheval.inference import intervals as iv


def awkward_tables(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    # 24,000 tables: 96,000 cells, past the size from which the parallel kernel runs
    tables = [rng.integers(0, size, (6000, 2, 2)) for size in (3, 20, 1000, 10**9)]
    special = np.array(
        [
            [[0, 0], [0, 0]],  # empty
            [[5, 0], [0, 5]],  # perfect
            [[5, 5], [0, 0]],  # one real class
            [[0, 0], [3, 4]],
            [[0, 7], [0, 9]],  # one predicted class
            [[1, 0], [0, 0]],  # one cell
            [[2**40, 3], [5, 2**41]],
            [[0, 1], [1, 0]],  # always wrong
        ]
    )
    return np.concatenate([*tables, special, np.repeat(special, 20, axis=0)]).astype(np.int64)


def numpy_variance(counts: np.ndarray, extra: float = 0.0, mask: bool = True) -> np.ndarray:
    c = iv.cells_last(counts) + extra
    g, undefined = iv.gradient_cells_last(c, "informedness")
    var = iv.gradient_variance(c, g)
    return np.where(undefined, np.nan, var) if mask else var


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    nan = np.isnan(a) & np.isnan(b)
    return bool(np.array_equal(a.view(np.int64)[~nan], b.view(np.int64)[~nan]) and (np.isnan(a) == nan).all())


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint16])
def test_standard_error_has_the_bits_of_the_numpy_code(dtype):
    counts = awkward_tables()
    counts = counts[counts.max(axis=(1, 2)) <= np.iinfo(dtype).max].astype(dtype)
    got = iv.standard_errors(counts, ["informedness"])["informedness"]
    assert same_bits(got, np.sqrt(numpy_variance(counts)))
    # float tables take the numpy path itself
    assert same_bits(iv.standard_errors(counts.astype(np.float64), ["informedness"])["informedness"], got)


def test_adjusted_standard_error_has_the_bits_of_the_numpy_code():
    counts = awkward_tables(1)
    got = iv.adjusted_se(counts, "informedness")
    extra = iv.pseudo_count(2)
    expected = np.where(
        np.isnan(np.sqrt(numpy_variance(counts))), np.nan, np.sqrt(numpy_variance(counts, extra, mask=False))
    )
    assert same_bits(got, expected)
    assert same_bits(
        iv.smoothed_se(counts, "informedness", 0.25), iv.smoothed_se(counts * 1.0, "informedness", 0.25)
    )


def test_the_numpy_gradient_against_finite_differences():
    def informedness(p):
        return p[1, 1] / p[1].sum() - p[0, 1] / p[0].sum()

    rng = np.random.default_rng(2)
    for table in rng.integers(1, 50, (20, 2, 2)):
        pi = table / table.sum()
        g, undefined = iv.delta_gradient(table[None], "informedness")
        assert not undefined[0]
        h = 1e-6
        for i in range(2):
            for j in range(2):
                # along e_ij − e_00 the proportions keep their sum: the gradient is defined up
                # to a constant, which the delta method's variance does not see
                step = np.zeros((2, 2))
                step[i, j] += h
                step[0, 0] -= h
                numeric = (informedness(pi + step) - informedness(pi - step)) / (2 * h)
                assert g[0][i, j] - g[0][0, 0] == pytest.approx(numeric, abs=1e-6)


def test_the_kernel_is_the_path_integer_tables_take(monkeypatch):
    from batcheval.kernels import delta

    calls = []
    real = delta.informedness_variance
    monkeypatch.setattr(delta, "informedness_variance", lambda *a: calls.append(1) or real(*a))
    iv.standard_errors(awkward_tables()[:50], ["informedness"])
    iv.adjusted_se(awkward_tables()[:50], "informedness")
    assert len(calls) == 3
