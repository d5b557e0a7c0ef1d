"""The simulated sweep of ``batcheval demo --synthetic``."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from batcheval.examples.synthetic import make_sweep


@pytest.mark.parametrize(
    ("n_folds", "dtype"), [(5, pl.Int8), (128, pl.Int8), (129, pl.Int16), (300, pl.Int16)]
)
def test_make_sweep_numbers_every_fold_from_zero(n_folds, dtype):
    # the folds were int8 whatever their number: 300 folds wrapped to 256 numbered -128 to 127
    n_runs, rows = 2, 3
    df = make_sweep(n_runs=n_runs, n_folds=n_folds, rows_per_fold=rows)
    expected = np.tile(np.repeat(np.arange(n_folds), rows), n_runs)
    np.testing.assert_array_equal(df.get_column("fold").to_numpy(), expected)
    assert df.schema["fold"] == dtype  # int8 where it holds them, as the default sweep always was
