"""Curve frames for the charts of Powers 2015 (docs/references.md), from sweep counts."""

from __future__ import annotations

import reprlib
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import polars as pl

from ..errors import InvalidArgumentError
from ..io.arguments import as_flag, as_one_value, is_real, is_value_list
from ..io.frames import as_key_list, check_free_names, check_roles, key_argument, read_once, select_columns
from .sweep import sweep
from .swept import CELLS

__all__ = ["CHARTS", "POINT_COLUMNS", "curves"]

#: chart → (x, y) in words; see :func:`curves`.
CHARTS = {
    "roc": ("fallout", "recall"),
    "boc": ("fallout", "informedness"),
    "lift": ("bias", "recall"),
    "bift": ("bias", "informedness"),
    "bprd": ("smoothed relative drift (s+pp)/(s+rp)", "informedness"),
    "bird": ("log2 smoothed relative drift", "bookmaker information -log2(s_tpr/s_fpr)"),
    "pr": ("recall", "precision"),
}

#: the columns of a curve frame that are not keys (see :func:`curves`)
POINT_COLUMNS = ("chart", "threshold", "x", "y", "s", "prevalence", "exact")


def _xy(chart: str, tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray, s: float):
    rp, rn, pp = tp + fn, fp + tn, tp + fp
    n = rp + rn
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = np.where(rp > 0, tp / rp, np.nan)
        fallout = np.where(rn > 0, fp / rn, np.nan)
        informedness = np.where((rp > 0) & (rn > 0), recall - fallout, 0.0)
        drift = (s + pp) / (s + rp)
        if chart == "roc":
            return fallout, recall
        if chart == "boc":
            return fallout, informedness
        if chart == "lift":
            return pp / n, recall
        if chart == "bift":
            return pp / n, informedness
        if chart == "bprd":
            return drift, informedness
        if chart == "bird":
            s_tpr = (s + tp) / (s + rp)
            s_fpr = (s + fp) / (s + rn)
            # a group of one class carries no information at any threshold: Bookmaker information 0,
            # as its informedness is 0 (boc, bift, bprd, evaluate). The smoothed ratio read s_fpr =
            # s/s = 1 there, so positives alone drew a curve of 1.32 to 0 bits, "worse than chance"
            one_class = (rp == 0) | (rn == 0)
            return np.log2(drift), np.where(one_class, 0.0, 0.0 - np.log2(s_tpr / s_fpr))  # 0.0 - : no -0
        if chart == "pr":
            return recall, np.where(pp > 0, tp / pp, np.nan)
    raise InvalidArgumentError(f"unknown chart {chart!r}; choose one of {sorted(CHARTS)}")


def curves(
    data: Any,
    by: str | Sequence[str] | None = None,
    label: str = "label",
    score: str | Sequence[str] = "score",
    *,
    kind: str | Sequence[str] = "roc",
    thresholds: int | Sequence[float] | Literal["exact"] = "exact",
    smoothing: float = 1.0,
    positive: Any = None,
    pool: str | Sequence[str] | None = None,
    drop_nonfinite: bool = False,
    drop_nulls: bool = False,
    classes: Sequence[Any] | None = None,
) -> pl.DataFrame:
    """Tidy curve frames: one row per group × chart × threshold with ``x`` and ``y``.

    Charts (Powers 2015; docs/references.md): ``roc`` (fallout, recall), ``boc`` (fallout,
    informedness), ``lift`` (bias, recall), ``bift`` (bias, informedness),
    ``bprd`` ((s+pp)/(s+rp), informedness), ``bird`` (log2 of that drift,
    Bookmaker information −log2(s_tpr/s_fpr) with s_tpr = (s+tp)/(s+rp) and
    s_fpr = (s+fp)/(s+rn)) and ``pr`` (recall, precision). ``s`` is the
    Laplace smoothing count, reported in column ``s`` (used by bprd and bird).
    A group of one class (all positives or all negatives) has informedness 0 at
    every threshold, as :func:`batcheval.evaluate` gives it, and so Bookmaker
    information 0 (``bird``'s y); its ``roc`` fallout or recall and its ``pr``
    precision are NaN or meaningless, and :func:`batcheval.plot` marks its ROC and
    PR lines "n/a" and its BIRD line "one class".

    With multiclass scores (a list of score columns in sorted class order, or
    a List column) every class gets its one-vs-rest curves, keyed by ``class``
    (:func:`batcheval.sweep` sweeps each class against the rest).

    Parameters
    ----------
    data, by, label, score, positive, pool, drop_nonfinite, drop_nulls, classes
        As in :func:`batcheval.sweep`.
    kind
        One chart name of :data:`batcheval.CHARTS`, or a list of them, each named once.
    thresholds
        ``"exact"`` (every distinct score, the default), an int or a list. With
        ``pool=`` and ``"exact"``, the pooled tables' rows are swept together:
        the curve at every distinct score of the pooled group.
    smoothing
        The Laplace count ``s`` of bprd and bird.

    Returns
    -------
    polars.DataFrame
        Keys, ``chart``, ``threshold``, ``x``, ``y``, ``s``, ``prevalence`` (the group's share of
        positives, rp/n: the precision of chance) and ``exact`` (True when the thresholds are every
        distinct score, so that a PR curve's step sum is its average precision).

    Examples
    --------
    >>> import polars as pl
    >>> import batcheval as be
    >>> df = pl.DataFrame({"label": [0, 0, 1, 1], "score": [0.1, 0.4, 0.35, 0.8]})
    >>> be.curves(df, kind="roc").select("threshold", "x", "y").rows()
    [(0.8, 0.0, 0.5), (0.4, 0.5, 0.5), (0.35, 0.5, 1.0), (0.1, 1.0, 1.0)]
    """
    positive = as_one_value(positive, "positive=")
    drop_nulls = as_flag(drop_nulls, "drop_nulls=")
    drop_nonfinite = as_flag(drop_nonfinite, "drop_nonfinite=")
    by, pool = key_argument(by), key_argument(pool, "pool")  # read again below: a generator once
    score = read_once(score)  # read for the pooled roles, then by the sweep
    # bytes iterate as byte values (kind=b"x" was refused as the chart 120), a dict as its keys
    kinds = list(kind) if is_value_list(kind) else [kind]
    if not kinds:
        raise InvalidArgumentError(f"kind= names at least one chart of {sorted(CHARTS)}, got {kind!r}")
    for k in kinds:
        if not isinstance(k, str) or k not in CHARTS:
            raise InvalidArgumentError(f"unknown chart {k!r}; choose one of {sorted(CHARTS)}")
    # a chart named twice came back twice, every point a duplicate row of the frame
    repeated = sorted({k for k in kinds if kinds.count(k) > 1})
    if repeated:
        raise InvalidArgumentError(f"kind= names {repeated[0]!r} more than once: {kind!r}")
    # a NaN count made every bprd and bird point NaN
    if not is_real(smoothing) or not (np.isfinite(float(smoothing)) and float(smoothing) >= 0):
        raise InvalidArgumentError(f"smoothing= takes a finite count >= 0, got {reprlib.repr(smoothing)}")
    # the sweep's columns too: the curves are read off them, keys being the rest
    read = [*POINT_COLUMNS, "n", "n_pooled", *CELLS]
    pooled = as_key_list(pool, "pool")  # pooled away: only the keys left beside the points matter
    check_free_names([k for k in as_key_list(by) if k not in pooled], read, "be.curves' points")
    if pool is not None and isinstance(thresholds, str) and thresholds == "exact":
        # the pooled curve over every distinct score: the pooled tables' rows swept together
        # (sweep's pool= needs a shared grid), which is the sum of their tables at those scores
        pooled, keys = as_key_list(pool, "pool"), as_key_list(by)
        # a pooled column that is the label or a score, refused as a grid's sweep refuses it (it gave
        # the curve of all rows): pooled, it would have been a key of the sweep
        scores = [score] if isinstance(score, str) else list(score) if isinstance(score, list | tuple) else []
        check_roles([*keys, *(c for c in pooled if c not in keys)], label, *scores,
                    roles=("label", *["score"] * len(scores)))  # fmt: skip
        # no longer a key of the sweep, so checked here, in by= as a key (as auc and a grid name it):
        # a misspelt one was ignored
        select_columns(data, pooled, {c: "key" if c in keys else "pool" for c in pooled})
        by, pool = [c for c in keys if c not in pooled], None
    sw = sweep(data, by, label, score, thresholds=thresholds, positive=positive, pool=pool,
               measures=[], drop_nonfinite=drop_nonfinite, drop_nulls=drop_nulls,
               classes=classes)  # fmt: skip
    keys = [c for c in sw.columns if c not in ("threshold", "n", "n_pooled", *CELLS)]
    cells = [sw.get_column(c).to_numpy().astype(np.float64) for c in CELLS]
    tp, fp, fn, tn = cells
    with np.errstate(divide="ignore", invalid="ignore"):
        # the chance line of a PR chart: a grid's lowest threshold need not predict every row positive
        prevalence = (tp + fn) / (tp + fp + fn + tn)
    # a step sum over a grid is no average precision, which needs every distinct score
    exact = isinstance(thresholds, str) and thresholds == "exact"
    frames = []
    for chart in kinds:
        x, y = _xy(chart, *cells, float(smoothing))
        frames.append(
            sw.select(*keys, "threshold")
            .with_columns(
                pl.lit(chart).alias("chart"),
                pl.Series("x", x, dtype=pl.Float64),
                pl.Series("y", y, dtype=pl.Float64),
                pl.lit(float(smoothing)).alias("s"),
                pl.Series("prevalence", prevalence, dtype=pl.Float64),
                pl.lit(exact).alias("exact"),
            )
            .select(*keys, *POINT_COLUMNS)
        )
    return pl.concat(frames)
