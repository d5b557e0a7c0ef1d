"""The synthetic example (``batcheval demo --synthetic``): a simulated sweep, evaluated and ranked.

``batcheval demo`` itself runs the real scikit-learn sweep in
:mod:`batcheval.examples.sklearn_sweep`; this one needs nothing but batcheval.

Each run is a simulated classifier with its own skill (the probability of an
informed decision) and its own guessing bias. At equal skill, runs that guess
the majority (negative) class more often score higher on accuracy, and runs
that guess the minority (positive) class more often score higher on F1: both
reward a bias without knowing more, which is exactly what informedness
corrects for.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..evaluate import evaluate

__all__ = ["main", "make_sweep"]


def make_sweep(n_runs: int = 200, n_folds: int = 5, rows_per_fold: int = 400, seed: int = 0) -> pl.DataFrame:
    """Predictions of ``n_runs`` simulated classifiers, ``n_folds`` folds each.

    The label has prevalence 0.3. Run ``r`` makes an informed (correct)
    decision with probability ``skill[r]``, and otherwise guesses positive
    with probability ``bias[r]``: Powers' informed-plus-chance model.

    Examples
    --------
    >>> df = make_sweep(n_runs=3, n_folds=2, rows_per_fold=5)
    >>> df.shape, df.columns
    ((30, 4), ['run', 'fold', 'label', 'prediction'])
    """
    rng = np.random.default_rng(seed)
    n = n_runs * n_folds * rows_per_fold
    run = np.repeat(np.arange(n_runs, dtype=np.int32), n_folds * rows_per_fold)
    # int8 as before where it holds every fold number (0 to n_folds - 1), wider where it does not
    fold_dtype = next(t for t in (np.int8, np.int16, np.int32, np.int64) if n_folds - 1 <= np.iinfo(t).max)
    fold = np.tile(np.repeat(np.arange(n_folds, dtype=fold_dtype), rows_per_fold), n_runs)
    skill = rng.uniform(0.0, 0.6, n_runs)
    bias = rng.uniform(0.05, 0.95, n_runs)
    label = rng.uniform(size=n) < 0.3
    informed = rng.uniform(size=n) < skill[run]
    guess = rng.uniform(size=n) < bias[run]
    prediction = np.where(informed, label, guess)
    return pl.DataFrame(
        {"run": run, "fold": fold, "label": label.astype(np.int8), "prediction": prediction.astype(np.int8)}
    )


def main(n_runs: int = 200, top: int = 10) -> pl.DataFrame:
    """Evaluate the sweep pooled over folds and print the top runs three ways."""
    df = make_sweep(n_runs=n_runs)
    print(f"sweep: {df.height:,} predictions, {n_runs} runs × 5 folds (label prevalence 0.3)\n")
    scores = evaluate(
        df,
        by=["run", "fold"],
        pool="fold",
        measures=["informedness", "markedness", "f1", "accuracy", "bias", "p_informedness"],
    )
    ranked = scores.with_columns(
        pl.col("informedness").rank("ordinal", descending=True).alias("rank_informedness"),
        pl.col("f1").rank("ordinal", descending=True).alias("rank_f1"),
        pl.col("accuracy").rank("ordinal", descending=True).alias("rank_accuracy"),
    ).sort("rank_informedness")
    with pl.Config(
        tbl_rows=top + 2,
        tbl_cols=12,
        float_precision=3,
        tbl_hide_dataframe_shape=True,
        tbl_width_chars=160,
        tbl_column_data_type_inline=True,
    ):
        print(
            ranked.select(
                "run",
                "informedness",
                "informedness_std",
                "markedness",
                "f1",
                "accuracy",
                "bias",
                "rank_f1",
                "rank_accuracy",
            ).head(top)
        )
    print()
    for measure in ("accuracy", "f1"):
        best = ranked.sort(f"rank_{measure}").row(0, named=True)
        print(
            f"the {measure} winner is run {best['run']} (positive-prediction bias {best['bias']:.2f}, "
            f"informedness {best['informedness']:.3f}), ranked {best['rank_informedness']} by informedness"
        )
    return ranked


if __name__ == "__main__":
    main()
