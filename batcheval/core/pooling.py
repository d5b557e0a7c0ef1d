"""Pooling over a key: the micro average (tables summed, then measured) beside the mean and
spread of the per-table measures (Powers 2012; docs/averaging.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from ..errors import InvalidArgumentError
from ..io.arguments import as_one_value
from ..io.frames import check_free_names
from .table import ContingencyTable

__all__ = ["check_mean_weights", "pooled_measures"]


def check_mean_weights(mean_weights: Any, pool: Any) -> None:
    """Refuse a ``mean_weights=`` that would be ignored: an unknown value, or one without ``pool=``.

    Examples
    --------
    >>> check_mean_weights("size", "fold")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: mean_weights must be 'n' or None, got 'size'
    """
    mean_weights = as_one_value(mean_weights, "mean_weights=", such="'n'")
    if mean_weights not in (None, "n"):
        raise InvalidArgumentError(f"mean_weights must be 'n' or None, got {mean_weights!r}")
    if mean_weights is not None and pool is None:
        raise InvalidArgumentError(
            "mean_weights='n' weights the means over pooled tables; it needs pool=, e.g. pool='fold'"
        )


def pooled_measures(
    table: ContingencyTable,
    over: list[str],
    measures: Sequence[str] | None,
    per_class: bool,
    positive: Any,
    beta: float | None,
    mean_weights: str | None,
) -> pl.DataFrame:
    """Measures of the tables summed over ``over`` (micro), with each per-table measure's
    ``_mean`` and ``_std`` over the tables pooled into each row, and ``n_pooled``."""
    pooled, index = table.pool_with_index(over)
    kwargs = {"per_class": per_class, "positive": positive, "beta": beta}
    head, micro = pooled.measure_arrays(measures, **kwargs)
    fold_head, per_fold = table.measure_arrays(list(micro), **kwargs, check_names=False)
    kept = [c for c in table.by if c not in over]
    check_free_names(kept, ["n_pooled", *(f"{m}_{s}" for m in micro for s in ("mean", "std"))], "pool=")
    if per_class:  # rows are group × class: class k of group g goes to pooled row index[g]·K + k
        k = table.n_classes
        index = (index[:, None] * k + np.arange(k)).reshape(-1)
    n_out = head.height
    weights = fold_head.get_column("n").to_numpy().astype(np.float64) if mean_weights == "n" else None
    n_pooled = np.bincount(index, minlength=n_out)
    columns = [pl.Series("n_pooled", n_pooled, dtype=pl.Int64)]
    for name, values in micro.items():
        columns.append(pl.Series(name, values, dtype=pl.Float64))
    for name, values in per_fold.items():
        mean, std = _group_mean_std(values, index, n_out, weights)
        columns += [pl.Series(f"{name}_mean", mean), pl.Series(f"{name}_std", std)]
    return head.hstack(columns)


def _group_mean_std(
    values: np.ndarray, index: np.ndarray, n_out: int, weights: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Per-group mean and sample std of ``values`` (reliability-weighted if ``weights``).

    NaN propagates: a pooled group with one undefined fold value has an
    undefined mean, as with any mean.
    """
    w = np.ones_like(values) if weights is None else weights
    sw = np.bincount(index, weights=w, minlength=n_out)
    sw2 = np.bincount(index, weights=w * w, minlength=n_out)
    # a group whose values are all equal has that value as its mean exactly, not one rounding step
    # off it (std 1.7e-16 for equal folds, inf for one table); others keep the plain weighted mean
    ref = np.zeros(n_out)
    ref[index] = values  # one member of each group, whichever the scatter keeps
    same = (np.bincount(index, weights=values != ref[index], minlength=n_out) == 0) & (sw2 > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(same, ref, np.bincount(index, weights=w * values, minlength=n_out) / sw)
        dev = values - mean[index]
        ss = np.bincount(index, weights=w * dev * dev, minlength=n_out)
        # unbiased for reliability weights; reduces to ddof=1 when all weights are 1; one table
        # (or all weight on one) has no spread to estimate
        spread = sw - sw2 / sw
        std = np.where(spread > 0, np.sqrt(ss / spread), np.nan)
    return mean, std
