"""Exact ROC and precision-recall summaries over every distinct score (Powers 2015; docs/references.md).

Scores are moved into one array grouped by group, each group is sorted, and
one walk per group from the top score down integrates the exact curves
(:mod:`batcheval.kernels.exact`). ``thresholds="exact"`` sweeps use the same
grouping and emit every point instead.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import polars as pl

from .. import measures as _measures
from ..errors import InvalidArgumentError, UnknownMeasureError, quiet
from ..io.arguments import as_flag, as_one_value
from ..io.frames import (
    as_key_list,
    check_free_names,
    check_in_memory,
    key_argument,
    named_as_pooled,
    read_once,
    unused_name,
)
from ..kernels import delong as _delong
from ..kernels import exact as _exact
from ..kernels.jit import n_threads
from ..measures import names as _names
from ..measures.registry import check_beta
from .auc_interval import auc_interval
from .exact import grouped_scores
from .multiclass import is_multiclass_score, one_vs_rest_frame, predicted_shares
from .prepare import prepare_scores

__all__ = ["AUC_AVERAGES", "AUC_AVERAGE_ALIASES", "auc"]

# the columns of a binary (or per-class) AUC after its keys, but ``best_<measure>``
_AREA_COLUMNS = ("n", "positives", "negatives", "roc_auc", "roc_auch", "gini", "auboc", "pr_auc",
                 "best_threshold")  # fmt: skip

#: The multiclass averages ``be.auc`` returns, named ``<average>_<area>`` as ``macro_f1`` and
#: ``bias_weighted_informedness`` are.
AUC_AVERAGES: tuple[str, ...] = tuple(
    f"{average}_{area}"
    for area in ("roc_auc", "pr_auc")
    for average in ("macro", "prevalence_weighted", "bias_weighted")
)

#: The ``<area>_<average>`` names of releases before one scheme for averages: asked for with
#: ``averages=``, they give columns of that name.
AUC_AVERAGE_ALIASES: dict[str, str] = {
    f"{area}_{average}": f"{average}_{area}"
    for area in ("roc_auc", "pr_auc")
    for average in ("macro", "prevalence_weighted", "bias_weighted")
}


def auc(
    data: Any,
    by: str | Sequence[str] | None = None,
    label: str = "label",
    score: str = "score",
    *,
    measure: str = "informedness",
    beta: float | None = None,
    positive: Any = None,
    classes: Sequence[Any] | None = None,
    per_class: bool = False,
    drop_nonfinite: bool = False,
    drop_nulls: bool = False,
    ci: float | None = None,
    pool: str | Sequence[str] | None = None,
    averages: str | Sequence[str] | None = None,
) -> pl.DataFrame:
    """Exact ROC and precision-recall summaries of a score, for every group.

    With multiclass scores — ``score`` a list of columns, one per class in
    sorted class order, or one List column — each class is scored against the
    rest. ``per_class=True`` returns those rows (with a ``class`` column);
    otherwise ``roc_auc`` and ``pr_auc`` come averaged three ways, named as
    ``evaluate``'s averages are: ``macro_roc_auc`` (unweighted, scikit-learn's
    ``average="macro"``), ``prevalence_weighted_roc_auc`` (its
    ``average="weighted"``) and ``bias_weighted_roc_auc`` (weights: the share
    of rows whose top score is the class, the weighting Powers 2015 asks for; a
    row whose top score ``t`` classes share counts ``1/t`` to each of them),
    and the same three of ``pr_auc``. Classes whose AUC is undefined in a
    group are left out of its averages.

    Returns one row per group with ``n``, ``positives``, ``negatives`` and

    - ``roc_auc``: trapezoids over the exact ROC curve, tied scores taking one
      diagonal step (equals scikit-learn's ``roc_auc_score``);
    - ``roc_auch``: the area under the ROC convex hull;
    - ``gini`` = 2·roc_auc − 1 and ``auboc`` = gini/2;
    - ``pr_auc``: average precision (equals ``average_precision_score``);
    - ``best_threshold`` and ``best_<measure>``: the distinct score whose
      threshold maximises ``measure`` (the Youden point for informedness;
      the highest such threshold on ties), or minimises it for ``fallout``,
      ``miss_rate``, ``lr_minus``, ``conditional_entropy``, the p-values and
      ``alpha_sbb`` (:data:`batcheval.measures.registry.LOWER_IS_BETTER`). The measures of
      association either way (the χ² statistics, mutual information, conditional entropy,
      the two-sided p-values) can pick a threshold below chance, where the scores rank the
      classes the wrong way round: the Youden point (informedness) cannot.

    Groups with only one class give NaN, without an error.

    Parameters
    ----------
    data, by, label
        As in :func:`batcheval.evaluate` (a frame in memory: exact areas need
        each group's scores at once).
    score
        The score column, or one column per class (or a List column) for
        multiclass scores.
    measure
        The binary measure whose best threshold is reported; an alias such as ``"youden_j"``
        names its column ``best_youden_j``. Averaged multiclass scores have no best threshold,
        and refuse any other measure than the default.
    beta
        β of ``measure="f_beta"``, as in :func:`batcheval.sweep` (checked, and unused by
        other measures). Averaged multiclass scores, which have no best threshold, refuse it.
    positive, classes
        The positive class (default: the greater of two) and the class set. Multiclass scores
        score every class against the rest, and refuse ``positive=``.
    per_class
        Multiclass scores: one row per group × class instead of the averages (refused for a
        binary score).
    drop_nonfinite, drop_nulls
        Skip rows with a NaN/infinite score, or a null score or label.
    ci
        A confidence level such as 0.95: adds ``roc_auc_se``, DeLong, DeLong & Clarke-Pearson's
        (1988) standard error computed from midranks in O(n log n) (Sun & Xu 2014;
        :mod:`batcheval.kernels.delong`), as pROC's ``ci.auc(method="delong")`` has it, and the
        interval ``roc_auc_ci_low``, ``roc_auc_ci_high``: ``logit(roc_auc) ± z·se/(roc_auc(1 −
        roc_auc))`` mapped back, with the variance floored at half of Hanley and McNeil's, and
        near 0 and 1 cut to Newcombe's score interval, so that it narrows as the group grows
        (:mod:`batcheval.scores.auc_interval`). Not pROC's ``roc_auc ± z·se``, which covered a
        true AUC of 0.99 in 36 % of groups of 10 + 10 examples and was [1, 1] wherever the classes
        separate (docs/calibration_auc.md). NaN for groups with fewer than two examples of either
        class. Binary scores, or multiclass scores with ``per_class=True``.
    pool
        Key column(s) to pool over, as in :func:`batcheval.evaluate`: the
        scores of the pooled groups are ranked together (the pooled curve),
        and each area also gets ``<area>_mean`` and ``<area>_std`` over the
        pooled groups (sample standard deviation), with ``n_pooled``. Pooled
        columns may be named in ``by`` too or only here.
    averages
        Multiclass scores: the averages to return (default: all six of
        :data:`AUC_AVERAGES`). A string is one average. The names of releases
        before one naming scheme, ``roc_auc_macro``, ``roc_auc_prevalence_weighted``,
        ``roc_auc_bias_weighted`` and the same of ``pr_auc``
        (:data:`AUC_AVERAGE_ALIASES`), are accepted and give columns of that name.

    Returns
    -------
    polars.DataFrame
        One row per group (per group × class with ``per_class``).

    Examples
    --------
    >>> import polars as pl
    >>> import batcheval as be
    >>> df = pl.DataFrame({"label": [0, 0, 1, 1], "score": [0.1, 0.4, 0.35, 0.8]})
    >>> be.auc(df).select("roc_auc", "pr_auc", "best_threshold", "best_informedness").rows()
    [(0.75, 0.8333333333333333, 0.8, 0.5)]
    >>> be.auc(df, ci=0.95).select("roc_auc_se", "roc_auc_ci_low", "roc_auc_ci_high").rows()
    [(0.3535533905932738, 0.06932327703202112, 0.9917916068049315)]
    >>> df = pl.DataFrame({"fold": [0, 0, 1, 1], "label": [0, 1, 0, 1], "score": [0.1, 0.4, 0.5, 0.8]})
    >>> be.auc(df, pool="fold").select("n_pooled", "roc_auc", "roc_auc_mean", "roc_auc_std").rows()
    [(2, 0.75, 1.0, 0.0)]

    Three classes, one score column per class:

    >>> mc = pl.DataFrame({"label": [0, 1, 2, 2, 0, 1], "p0": [0.8, 0.1, 0.1, 0.3, 0.3, 0.5],
    ...                    "p1": [0.1, 0.6, 0.2, 0.3, 0.5, 0.2], "p2": [0.1, 0.3, 0.7, 0.4, 0.2, 0.3]})
    >>> be.auc(mc, score=["p0", "p1", "p2"]).columns
    ['n', 'macro_roc_auc', 'prevalence_weighted_roc_auc', 'bias_weighted_roc_auc',
     'macro_pr_auc', 'prevalence_weighted_pr_auc', 'bias_weighted_pr_auc']
    >>> be.auc(mc, score=["p0", "p1", "p2"], averages=["roc_auc_macro", "macro_pr_auc"]).rows()
    [(6, 0.8333333333333334, 0.8166666666666668)]
    """
    positive = as_one_value(positive, "positive=")
    drop_nulls = as_flag(drop_nulls, "drop_nulls=")
    by, pool = key_argument(by), key_argument(pool, "pool")  # read again below: a generator once
    classes = read_once(classes)  # pool= reads it twice, for the pooled and the per-group areas
    # read to check them, then again by the one-vs-rest frame, and by both auc calls of pool=
    score, averages = read_once(score), read_once(averages)
    # read strictly as drop_nulls=: drop_nonfinite="no" dropped the NaN rows, per_class="no" gave classes
    drop_nonfinite = as_flag(drop_nonfinite, "drop_nonfinite=")
    per_class = as_flag(per_class, "per_class=")
    check_in_memory(data, "auc")
    if ci is not None:
        ci = _measures.check_level(ci)
    if not isinstance(measure, str):
        raise InvalidArgumentError(f"measure= takes one measure name such as 'f1', got {measure!r}")
    # an unknown name is refused on every path, averaged multiclass too, as is f_beta without beta=
    # (which auc did not take: following the advice ended in a TypeError)
    check_beta(beta)  # as sweep and evaluate check it, whatever the measure
    _measures.check_names([_names.canonical(measure)], 2, beta)
    wanted = _average_names(averages)
    multiclass = is_multiclass_score(data, score)
    _check_form_arguments(
        score, multiclass, positive=positive, measure=measure, beta=beta, per_class=per_class
    )
    if multiclass and not per_class:
        outputs = ["n", *wanted]
    else:
        outputs = [*_AREA_COLUMNS, f"best_{measure}"]
        outputs += ["roc_auc_se", "roc_auc_ci_low", "roc_auc_ci_high"] if ci is not None else []
    pooled = as_key_list(pool, "pool")  # pooled keys leave the output: _pooled_auc checks its own names
    check_free_names([k for k in as_key_list(by) if k not in pooled], outputs, "be.auc's areas")
    if pool is not None:
        if ci is not None:
            raise InvalidArgumentError(
                "auc() takes ci= or pool=, not both (DeLong intervals of pooled curves are not "
                f"built); got ci={ci!r} with pool={pool!r}"
            )
        with named_as_pooled([c for c in pooled if c not in as_key_list(by)]):  # a key in by= is a key
            return _pooled_auc(data, by, label, score, pool, measure=measure, beta=beta, positive=positive,
                               classes=classes, per_class=per_class, drop_nonfinite=drop_nonfinite,
                               drop_nulls=drop_nulls, averages=averages)  # fmt: skip
    if multiclass:
        if ci is not None and not per_class:
            raise InvalidArgumentError("ci= with multiclass scores needs per_class=True (one AUC per class)")
        if averages is not None and per_class:
            raise InvalidArgumentError(
                f"averages={averages!r} chooses multiclass averages; per_class=True returns "
                "one row per class instead"
            )
        return _multiclass_auc(
            data, by, label, score, classes, measure, per_class, drop_nonfinite, drop_nulls, ci, wanted, beta
        )
    if averages is not None:
        raise InvalidArgumentError(
            f"averages={averages!r} chooses averages over classes, for multiclass scores (a list of "
            f"score columns); score={score!r} is one binary score"
        )
    asked, measure = measure, _names.canonical(measure)
    scored = prepare_scores(
        data, by, label, score, positive, classes, drop_nonfinite, drop_nulls, score_range=False
    )
    seg = grouped_scores(scored)
    n_groups = len(seg.positives)
    areas = np.empty((n_groups, 3))
    best_thr = np.empty(n_groups)
    best_val = np.empty(n_groups)
    if measure != "informedness":
        pts = seg.points()
        cells = pts.cells()
        values = (
            _measures.compute_cells(*cells, [measure], beta=beta)[measure] if len(pts.tp) else np.empty(0)
        )
        # a rate of error (fallout, miss_rate, lr_minus) is best at its least, as a leaderboard ranks it
        sign = 1.0 if _names.higher_is_better(measure) else -1.0
        best = _exact.segment_argmax(sign * values, pts.starts) if n_groups else np.empty(0, np.int64)
    delong_auc = np.empty(n_groups)
    delong_var = np.empty(n_groups)
    if n_groups and ci is not None:
        # DeLong's variance walks the same sorted groups: one sort per group serves both
        _delong.summarise_variance(seg.blocks(), seg.starts, seg.scores, seg.positives, areas, best_thr,
                                   best_val, delong_auc, delong_var)  # fmt: skip
    elif n_groups:
        declined = np.zeros(n_groups, np.uint8)
        _exact.summarise(seg.blocks(), seg.starts, seg.scores, seg.positives, areas, best_thr, best_val,
                         declined)  # fmt: skip
        if declined.any():  # the bucket sort and the 128-bit walk compile only for such groups
            _exact.summarise_declined(np.flatnonzero(declined), n_threads(), seg.starts, seg.scores,
                                      seg.positives, areas, best_thr, best_val)  # fmt: skip
    if measure != "informedness":
        best_val = np.where(best >= 0, values[np.maximum(best, 0)] if len(pts.tp) else np.nan, np.nan)
        best_thr = np.where(best >= 0, pts.threshold[np.maximum(best, 0)] if len(pts.tp) else np.nan, np.nan)
    # with one class there is no curve to pick a point on: NaN, as the docstring promises
    one_class = (seg.positives == 0) | (seg.negatives == 0)
    best_thr = np.where(one_class, np.nan, best_thr)
    best_val = np.where(one_class, np.nan, best_val)
    roc = areas[:, 0]
    columns = [
        pl.Series("n", seg.positives + seg.negatives, dtype=pl.Int64),
        pl.Series("positives", seg.positives, dtype=pl.Int64),
        pl.Series("negatives", seg.negatives, dtype=pl.Int64),
        pl.Series("roc_auc", roc),
        pl.Series("roc_auch", areas[:, 1]),
        pl.Series("gini", 2.0 * roc - 1.0),
        pl.Series("auboc", roc - 0.5),
        pl.Series("pr_auc", areas[:, 2]),
        pl.Series("best_threshold", best_thr, dtype=pl.Float64),
        pl.Series(f"best_{asked}", best_val, dtype=pl.Float64),
    ]
    if ci is not None:
        columns += _delong_columns(delong_auc, delong_var, seg.positives, seg.negatives, float(ci))
    return seg.keys.hstack(columns) if seg.keys.width else pl.DataFrame(columns)


def _check_form_arguments(
    score: Any, multiclass: bool, *, positive: Any, measure: str, beta: Any, per_class: bool
) -> None:
    """Refuse an argument the form of ``score`` has no use for: each was ignored, and the result
    looked like an answer to it (the macro averages for ``positive=99``)."""
    # the CLI's auc reaches these too: per_class=True reads there as --per-class
    if multiclass and positive is not None:
        # as sweep and curves refuse it: which class is positive is what one-vs-rest varies
        raise InvalidArgumentError(
            f"positive={positive!r} names the positive class of one binary score; multiclass scores "
            f"(score={score!r}) score every class against the rest"
        )
    if multiclass and not per_class and _names.canonical(measure) != "informedness":
        raise InvalidArgumentError(
            f"measure={measure!r} picks the best threshold of one binary score; the averages of "
            f"multiclass scores (score={score!r}) have no best threshold (per_class=True gives one "
            "for each class)"
        )
    if multiclass and not per_class and beta is not None:
        # the β of f_beta at the best threshold, which the averages do not have: the measure check
        # above leaves only informedness here, which has no β
        raise InvalidArgumentError(
            f"beta={beta!r} is the β of measure='f_beta' at the best threshold of one binary score; "
            f"the averages of multiclass scores (score={score!r}) have no best threshold (per_class=True "
            "gives one for each class)"
        )
    if not multiclass and per_class:
        raise InvalidArgumentError(
            f"per_class=True returns one row per class of multiclass scores (a list of score columns); "
            f"score={score!r} is one binary score"
        )


def _delong_columns(
    area: np.ndarray, var: np.ndarray, positives: np.ndarray, negatives: np.ndarray, level: float
) -> list[pl.Series]:
    """The DeLong standard error and the interval columns from each group's AUC and DeLong variance."""
    from scipy import special

    low, high = auc_interval(area, var, positives, negatives, float(special.ndtri(0.5 + level / 2)))
    return [
        pl.Series("roc_auc_se", np.sqrt(var)),
        pl.Series("roc_auc_ci_low", low),
        pl.Series("roc_auc_ci_high", high),
    ]


def _average_names(averages: str | Sequence[str] | None) -> dict[str, str]:
    """{column name asked: batcheval name} of ``averages=``, in the order asked (default: all)."""
    if averages is None:
        return {name: name for name in AUC_AVERAGES}
    if isinstance(averages, np.ndarray) and averages.ndim == 0:  # np.array("macro_roc_auc"): one name
        averages = averages.item()
    if not isinstance(averages, str | Iterable):  # a raw TypeError of list(averages)
        raise InvalidArgumentError(
            f"averages= takes an average name such as 'macro_roc_auc' or a list of them, got {averages!r}"
        )
    asked = [averages] if isinstance(averages, str) else list(averages)
    if not asked:
        raise InvalidArgumentError("averages= names at least one average, got an empty list")
    out: dict[str, str] = {}
    for name in asked:
        if not isinstance(name, str):
            raise UnknownMeasureError(f"averages= takes average names such as 'macro_roc_auc', got {name!r}")
        canonical = AUC_AVERAGE_ALIASES.get(name, name)
        if canonical not in AUC_AVERAGES:
            close = difflib.get_close_matches(name, [*AUC_AVERAGES, *AUC_AVERAGE_ALIASES], n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise UnknownMeasureError(
                f"unknown average {name!r}{hint}; be.auc averages are {', '.join(AUC_AVERAGES)}"
            )
        if canonical not in out.values():  # asked twice under two names: one column, as first asked
            out[name] = canonical
    return out


def _multiclass_auc(
    data, by, label, score, classes, measure, per_class, drop_nonfinite, drop_nulls, ci=None, wanted=None,
    beta=None,
) -> pl.DataFrame:  # fmt: skip
    ovr = one_vs_rest_frame(data, by, label, score, classes, drop_nulls, drop_nonfinite)
    long, keys, wide = ovr.frame, ovr.keys, ovr.wide
    if per_class:
        return auc(long, keys, ovr.is_class, ovr.score, measure=measure, beta=beta, positive=True,
                   classes=[False, True], drop_nonfinite=drop_nonfinite, drop_nulls=drop_nulls,
                   ci=ci)  # fmt: skip
    # the per-class areas are only averaged here: a key of their name (not of the averages')
    # is carried under a free one
    hidden: dict[str, str] = {}
    for k in keys[:-1]:
        if k in _AREA_COLUMNS or k == "best_informedness":
            taken = [*long.columns, *wide.columns, *_AREA_COLUMNS, "best_informedness", *hidden.values()]
            hidden[k] = unused_name(taken, f"_{k}")
    long, wide = long.rename(hidden), wide.rename(hidden)
    keys = [hidden.get(k, k) for k in keys]
    # the best point is not averaged: the fast informedness walk serves
    per = auc(long, keys, ovr.is_class, ovr.score, measure="informedness", positive=True,
              classes=[False, True], drop_nonfinite=drop_nonfinite, drop_nulls=drop_nulls)  # fmt: skip
    group_keys = keys[:-1]
    bias = unused_name(per.columns, "bias")
    prevalence = unused_name([*per.columns, bias], "prevalence")
    shares = predicted_shares(wide, group_keys, ovr.names, ovr.values, long.schema["class"], bias)
    per = per.join(shares, on=keys, how="left", nulls_equal=True).with_columns(
        pl.col(bias).fill_null(0.0), (pl.col("positives") / pl.col("n")).alias(prevalence)
    )
    averaged = {}
    for m in ("roc_auc", "pr_auc"):
        v = pl.col(m).fill_nan(None)
        defined = v.is_not_null()
        # no class with a defined area: NaN, as a binary AUC of one class is
        averaged[f"macro_{m}"] = v.mean().fill_null(float("nan"))
        averaged[f"prevalence_weighted_{m}"] = (v * pl.col(prevalence)).sum() / pl.col(prevalence).filter(
            defined
        ).sum()
        averaged[f"bias_weighted_{m}"] = (v * pl.col(bias)).sum() / pl.col(bias).filter(defined).sum()
    wanted = wanted or {name: name for name in AUC_AVERAGES}
    # n: of the group's rows (every class has them all)
    aggs = [pl.col("n").first()]
    aggs += [averaged[canonical].alias(name) for name, canonical in wanted.items()]
    restore = {v: k for k, v in hidden.items()}
    if not group_keys:  # one row, or none when no rows are left (as the binary areas)
        return per.select(aggs).head(min(1, per.height))
    out = per.group_by(group_keys, maintain_order=True).agg(aggs).sort(group_keys, nulls_last=True)
    return out.rename(restore)


def _pooled_auc(data, by, label, score, pool, **kwargs) -> pl.DataFrame:
    over = as_key_list(pool, "pool")
    keys = as_key_list(by)
    rest = [k for k in keys if k not in over]
    pooled = auc(data, rest or None, label, score, **kwargs)
    with quiet("dropped "):  # the same rows again, per pooled group: the first call reported them
        per = auc(data, rest + over, label, score, **kwargs)
    # the area columns by name, never a key: a key named pr_auc_model (or macro_pr_auc beside a
    # binary score) was averaged as an area, a raw polars error for a string key
    known = {"roc_auc", "roc_auch", "pr_auc", *AUC_AVERAGES, *AUC_AVERAGE_ALIASES}
    areas = [c for c in per.columns if c in known and c not in rest + over]
    aggs = [pl.len().cast(pl.Int64).alias("n_pooled")]
    for c in areas:
        # NaN, not null, for one pooled group (std) or none, as evaluate's pooled spreads are
        aggs += [
            pl.col(c).mean().fill_null(float("nan")).alias(f"{c}_mean"),
            pl.col(c).std().fill_null(float("nan")).alias(f"{c}_std"),
        ]
    check_free_names(rest, [str(a.meta.output_name()) for a in aggs], "pool=")
    group = rest + (["class"] if "class" in per.columns and "class" not in over else [])
    if group:
        spread = per.group_by(group, maintain_order=True).agg(aggs)
        return pooled.join(spread, on=group, how="left", nulls_equal=True)
    # pooled over every key: one row, or none when no rows are left (as the pooled areas)
    return pl.concat([pooled, per.select(aggs).head(pooled.height)], how="horizontal")
