"""The simulated sweep of ``batcheval demo --synthetic``."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from batcheval.examples import synthetic
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


def test_at_equal_informedness_accuracy_rewards_guessing_negative_and_f1_guessing_positive():
    # the module docstring said runs biased toward the majority class (negative, prevalence 0.3)
    # score well on accuracy and F1; a guesser with positive rate b has accuracy 0.3b + 0.7(1 - b),
    # highest at b = 0, and F1 0.6b/(0.3 + b), rising in b. Per run, from the counts in plain polars:
    df = make_sweep()
    hit = pl.col("label") == pl.col("prediction")
    counts = (
        df.group_by("run")
        .agg(
            tp=(hit & (pl.col("label") == 1)).sum(),
            tn=(hit & (pl.col("label") == 0)).sum(),
            fp=(~hit & (pl.col("label") == 0)).sum(),
            fn=(~hit & (pl.col("label") == 1)).sum(),
        )
        .sort("run")
    )
    tp, tn, fp, fn = (counts.get_column(c).to_numpy().astype(float) for c in ("tp", "tn", "fp", "fn"))
    n = tp + tn + fp + fn
    informedness = tp / (tp + fn) - fp / (fp + tn)
    guesses_positive = (tp + fp) / n
    design = np.column_stack([np.ones_like(n), informedness, guesses_positive])
    (_, _, on_accuracy), *_ = np.linalg.lstsq(design, (tp + tn) / n, rcond=None)
    (_, _, on_f1), *_ = np.linalg.lstsq(design, 2 * tp / (2 * tp + fp + fn), rcond=None)
    assert on_accuracy < -0.2 and on_f1 > 0.1  # -0.399 and +0.145 over the 200 default runs
    doc = " ".join(synthetic.__doc__.split())
    assert "runs that guess the majority (negative) class more often score higher on accuracy" in doc
    assert "the minority (positive) class more often score higher on F1" in doc
