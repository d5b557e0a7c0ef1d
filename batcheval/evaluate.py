"""``evaluate``: a frame of predictions in, a frame of measures out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import polars as pl

from .core.engine import check_engine, count_any
from .core.pooling import check_mean_weights, pooled_measures
from .core.table import ContingencyTable
from .errors import InvalidArgumentError, warn
from .inference import clustered as _clustered
from .inference import intervals as _intervals
from .io.arguments import as_flag, as_one_value
from .io.frames import (
    as_key_list,
    check_free_names,
    check_label_keywords,
    from_mapping,
    is_label_values,
    key_argument,
    named_as_pooled,
    named_by_keyword,
    read_once,
    shown_value,
)
from .measures import BINARY_MEASURES, MULTICLASS_MEASURES
from .measures import names as _names
from .measures import registry as _registry

__all__ = ["evaluate"]


def evaluate(
    data: Any = None,
    by: str | Sequence[str] | None = None,
    label: str = "label",
    prediction: str = "prediction",
    *,
    pool: str | Sequence[str] | None = None,
    measures: Sequence[str] | None = None,
    per_class: bool = False,
    classes: Sequence[Any] | None = None,
    positive: Any = None,
    beta: float | None = None,
    drop_nulls: bool = False,
    mean_weights: Literal["n"] | None = None,
    ci: float | None = None,
    ci_method: Literal["wilson_delta", "bootstrap"] = "wilson_delta",
    n_boot: int = 1000,
    seed: int | None = None,
    example: str | Sequence[str] | None = None,
    cluster: str | Sequence[str] | None = None,
    abstain: Any = None,
    align: Literal["hungarian"] | None = None,
    on_error: Literal["raise", "skip"] = "raise",
    progress: bool | None = None,
    batch_rows: int | None = None,
    engine: Literal["local", "dask"] = "local",
    client: Any = None,
    y_true: Any = None,
    y_pred: Any = None,
) -> pl.DataFrame:
    """Evaluate every group of a prediction frame at once.

    Parameters
    ----------
    data
        Per-example predictions. In memory: a polars DataFrame, a pyarrow
        Table, a pandas DataFrame, or a dict of equal-length columns. Streamed in batches of ``batch_rows``
        with bounded memory: a path, glob, directory or list of parquet, ipc
        or csv files, a pyarrow Dataset or RecordBatchReader, or a polars
        LazyFrame. With ``engine="dask"``: paths or a Dask DataFrame.
    by
        Key columns, e.g. ``["run", "fold"]``; one result row per distinct
        combination. Integer, string, categorical, boolean, temporal and
        float keys all work; nulls form their own group.
    label, prediction
        The real class and the predicted class: integers, booleans, strings or categoricals.
        Floats and Decimals (SQL NUMERIC) holding whole numbers are read as the integers they
        hold; a value with a fraction is refused, not truncated.
    pool
        Key column(s) to pool over: their count tables are summed before
        measuring (the micro average, see docs/averaging.md), and each measure also gets
        ``<measure>_mean`` and ``<measure>_std`` over the pooled groups
        (sample standard deviation; NaN when only one group was pooled).
        A pooled column may be named in ``by`` too or only here (as
        :func:`batcheval.leaderboard` takes it): ``by="run", pool="fold"``
        and ``by=["run", "fold"], pool="fold"`` are the same.
    measures
        One measure (a string) or a list of them; default: every measure that
        applies (the binary set for two classes, the multiclass set
        otherwise). Aliases are accepted (``specificity``, ``tpr``, ``ppv``,
        ``youden_j``, ``balanced_accuracy``, ...; see
        :mod:`batcheval.measures.names`) and name their output columns.
    per_class
        One row per group × class with the one-vs-rest binary measures.
    classes
        Fix the class set; default: the sorted union of label and prediction
        values over the whole input.
    positive
        The positive class of binary measures; default: the greater class
        (1 for 0/1 labels, True for booleans, the later name for text labels, with a
        warning where a measure asked for depends on it). With more than two classes,
        the binary measures of ``positive`` against the rest (one-vs-rest, as
        :func:`batcheval.sweep` does); not together with ``per_class``.
    beta
        β for the ``f_beta`` column, added when given: to the default measures, and after the
        last of a ``measures=`` list that lacks it, as if named there (so ``ci=`` gives it an
        interval). Binary measures only: a table of more than two classes measured as such
        has no ``f_beta``.
    drop_nulls
        Skip rows with a null label or prediction instead of raising; a
        :class:`~batcheval.errors.BatchevalWarning` reports how many.
    mean_weights
        ``"n"`` weights ``<measure>_mean`` and ``_std`` by group size (with ``pool=``; any other
        value, or ``"n"`` without ``pool=``, is an :class:`~batcheval.errors.InvalidArgumentError`).
    on_error
        For streamed sources: ``"raise"`` (default) stops at the first file
        that cannot be read or lacks a column, naming it; ``"skip"`` leaves
        such files out, warns, and lists them in ``result.metadata["skipped"]``.
        A file that fails half-way contributes nothing either way.
    progress
        Show a progress bar (rows, batches, rate, ETA) on stderr while
        streaming; default: only when stderr is a terminal.
    batch_rows
        Rows per streamed batch (default 16M).
    engine, client
        ``"dask"`` counts each file (or partition) as a task on a Dask
        cluster (``client``, else the default client, else a new
        LocalCluster) and merges the partial tables in a tree; needs the
        ``batcheval[dask]`` extra. ``client`` is a ``distributed.Client``,
        and only for ``engine="dask"``.
    ci
        A confidence level such as 0.95: adds ``<measure>_ci_low`` and
        ``<measure>_ci_high`` for every measure asked for (of the pooled
        tables when pooling, one-vs-rest with ``per_class``). Under
        ``"wilson_delta"``, named measures with no closed form (mcc of a group with more
        than two classes present, macro_f1, weighted_f1, kappa_fleiss, ...) get the
        smoothed percentile bootstrap: ``n_boot`` resamples of the table of the classes
        present in the group (a real example or a prediction), K of them, plus
        ``1/(K(K − 1))`` in each of its cells (none in a class the group never has, so
        the interval does not change with the classes of other groups or ``classes=``; its
        resamples come from a generator numbered by the group's position among the groups,
        so a group that sorts before it draws other resamples), which keeps its
        level at small n where the plain one collapsed (``docs/calibration_bootstrap.md``; binary f1,
        jaccard and mcc have closed forms, and a measure equal to one with an interval of its own
        takes that interval: binary macro_informedness and macro_markedness informedness's and
        markedness's, weighted_recall accuracy's at any K, ``measures.BINARY_EQUIVALENT``, and
        binary f_beta with ``beta=1`` f1's and with ``beta=0`` precision's);
        p-values get none, and a
        :class:`~batcheval.errors.BatchevalWarning` names them. With the
        default measure set, only the closed-form intervals are added, f1's
        and jaccard's included (the bootstrap of every measure would cost far
        more than the measures). Every interval lies in its measure's range, and holds its
        estimate wherever both are defined; it is NaN where the estimate is, and under
        ``"wilson_delta"`` also where the estimate is the convention 0 of an empty
        denominator (docs/measures.md, rule 2): ``informedness`` of a table with one real
        class, ``markedness`` with one predicted class, ``correlation`` (binary ``mcc``) with
        either, ``kappa_cohen`` with every example real and predicted in one class. Such a 0
        is not measured, and a zero-width interval would claim it is (one example more in
        the empty margin can move markedness by ±0.5); ``"bootstrap"`` gives it [0, 0], as
        every resample of such a table has the same empty margin. The bootstrap intervals of
        the unbounded ratios ``odds_ratio``, ``lr_plus`` and ``lr_minus`` count a resample whose
        denominator is 0 (``fp·fn = 0``, fallout 0, inverse recall 0) as +inf, not as undefined,
        so their upper end is +inf where more than ``(1 − ci)/2`` of the resamples are.
        See :mod:`batcheval.inference.intervals` for the formulas and their sources.
    ci_method
        ``"wilson_delta"``: Wilson score intervals for the proportions
        (recall, precision, inverse_recall, inverse_precision, ...; the
        modified Wilson interval for accuracy), Miettinen & Nurminen's score
        interval for binary informedness (tpr − fpr) and markedness, binary
        correlation and kappa_cohen built on those two score intervals, and for
        multiclass tables the delta-method interval of the table with
        pseudo-counts in every cell (coverage in ``docs/calibration_intervals.md``).
        ``"bootstrap"``: the plain percentile intervals of ``n_boot``
        multinomial resamples of each table, for every measure but the p-values
        (it covers less than its level in small tables with few errors or an
        almost empty cell; ``docs/calibration_bootstrap.md``).
    n_boot, seed
        Bootstrap replicates per table, and the seed that makes them
        reproducible (None: different on each call).
    example, cluster
        Column(s) identifying a test example, and a group of examples that are
        not independent (several questions about one passage). Each cluster
        (``cluster=`` if given, else the example) is one independent unit,
        however many rows it has in a pooled group: with ``ci=`` the intervals
        use a cluster-robust (CR2) design effect and Student's t with Bell and
        McCaffrey's degrees of freedom (``C − 1`` for ``C`` equal clusters),
        and ``p_informedness``, ``p_markedness`` and
        ``alpha_sbb`` become the clustered chance tests (the exact test on the
        table divided by the statistic's design effect; the other ``p_``
        columns still count rows). The measures with a closed-form interval
        have a cluster-robust one (binary f1, jaccard and mcc too, and the measures equal to
        one of them: mcc, macro_informedness and macro_markedness in any group of at most two
        classes present, weighted_recall in any group, binary f_beta with ``beta=1``, which is
        f1, and with ``beta=0``, which is precision); the others
        (macro_f1, weighted_f1, ...) have none, and a warning names those of
        them named in ``measures=``.
        Pass ``example=`` when
        ``pool=`` spans seeds or replicates that score the same examples, or
        the repeats count as independent evidence. Without either, pooling
        over a key not named like a fold warns whenever the output has an
        interval (``ci=``) or a p-value (a ``p_`` column or ``alpha_sbb``, as
        in the default measure set). ``ci_method="wilson_delta"``
        only; in-memory frames only. If example ids restart in each fold, name
        both: ``example=["fold", "example_id"]``. The intervals reach their
        level from about 20 clusters; with 10 they covered 0.916 to 0.984, and
        with a rare class whose few errors fall on the same examples in every
        seed they cover less (0.788 with 50 positives over 10 seeds): a sample without
        such an example shows no clustering (docs/calibration_cluster.md). See
        :mod:`batcheval.inference.clustered`.
    abstain
        A prediction value meaning "no answer", or a list of them (Powers 2003,
        docs/references.md). Measures are computed on the retained rows (``n``), and
        the output gains ``abstained`` (count), ``retained`` (n/N) and
        ``<measure>_overall`` = measure × retained for recall and
        informedness (and their multiclass averages). A label equal to an
        abstain value raises :class:`~batcheval.errors.InvalidLabelError`.
        See :mod:`batcheval.labels.abstain`.
    align
        ``"hungarian"``: predictions are cluster ids, mapped per group to the
        label classes by the assignment maximising the matched diagonal;
        unmatched ids (more clusters than classes) count as abstentions, and
        a ``mapping`` list column records ``{predicted, class}`` per id. See
        :mod:`batcheval.labels.align`.
    y_true, y_pred
        The short form for a single table: two equal-length sequences of real
        and predicted classes instead of ``data``.

    Returns
    -------
    polars.DataFrame
        Keys, ``n``, ``tp fp fn tn`` (binary), then one float64 column per
        measure (and ``_mean``/``_std`` columns when pooling), with
        ``n_pooled`` = number of groups pooled into each row. A streamed
        result also carries ``.metadata``: the parts read, rows, batches, rows
        dropped (``drop_nulls=``; a streamed sweep's ``drop_nonfinite=`` too) and
        skipped parts (an attribute of this frame, not kept by further polars
        operations).

    Examples
    --------
    >>> import polars as pl
    >>> import batcheval as be
    >>> df = pl.DataFrame({
    ...     "run":        [1, 1, 1, 1, 2, 2, 2, 2],
    ...     "fold":       [0, 0, 1, 1, 0, 0, 1, 1],
    ...     "label":      [1, 0, 1, 0, 1, 0, 1, 0],
    ...     "prediction": [1, 0, 1, 1, 1, 1, 0, 0],
    ... })
    >>> be.evaluate(df, by=["run", "fold"], measures=["informedness"]).rows()[:2]
    [(1, 0, 2, 1, 0, 0, 1, 1.0), (1, 1, 2, 1, 1, 0, 0, 0.0)]
    >>> out = be.evaluate(df, by=["run", "fold"], pool="fold", measures=["informedness"])
    >>> out.select("run", "n_pooled", "informedness", "informedness_mean", "informedness_std").rows()
    [(1, 2, 0.5, 0.5, 0.7071067811865476), (2, 2, 0.0, 0.0, 0.0)]
    >>> be.evaluate(y_true=[0, 1, 1, 0], y_pred=[0, 1, 0, 0], measures="youden_j").rows()
    [(4, 1, 0, 1, 2, 0.5)]
    """
    positive = as_one_value(positive, "positive=")
    drop_nulls = as_flag(drop_nulls, "drop_nulls=")
    progress = None if progress is None else as_flag(progress, "progress=")
    keywords = None  # the columns of y_true= and y_pred=, which messages name by keyword
    if y_true is not None or y_pred is not None:
        check_label_keywords(data, y_true, y_pred)
        keywords = {label: "y_true=", prediction: "y_pred="}
        data = from_mapping({label: y_true, prediction: y_pred}, keywords)
    elif data is None:
        raise InvalidArgumentError("evaluate needs data= (a frame, a path, ...) or y_true= and y_pred=")
    elif isinstance(data, ContingencyTable):
        # counted already; the message for other objects spoke of lists of labels and predictions
        raise InvalidArgumentError(
            f"evaluate counts the rows of a frame, got {data!r}; a table is measured by "
            "table.measures([...]), and one group's report is be.report(table)"
        )
    elif is_label_values(data):  # evaluate(y_true, y_pred), as scikit-learn's functions are called
        if is_label_values(by) and len(by) == len(data):
            raise InvalidArgumentError(
                "evaluate(y_true, y_pred) takes keywords: evaluate(y_true=..., y_pred=...); "
                f"got data={shown_value(data)} and by={shown_value(by)}"
            )
        raise InvalidArgumentError(
            f"data= takes a frame, a path or a list of paths, got {shown_value(data)}; labels and "
            "predictions as lists or arrays are given by keyword: evaluate(y_true=..., y_pred=...)"
        )
    # read once: each is read again below, and a generator was spent by the first reading (pool= of
    # one silently pooled nothing, example= of one reached the clustered counts empty)
    by, pool = key_argument(by), key_argument(pool, "pool")
    example, cluster = key_argument(example, "example"), key_argument(cluster, "cluster")
    classes = read_once(classes)  # handed to every batch of a streamed source, and to Dask
    names, rename = _names.resolve(measures)
    check_engine(engine, on_error, batch_rows, client)
    check_mean_weights(mean_weights, pool)
    keys = as_key_list(by)
    given_by = by  # as the user wrote it, for messages
    # pooled keys may be given in by or only in pool, as leaderboard takes them; a key named in by=
    # is a key, in messages too
    pool_only = [c for c in as_key_list(pool, "pool") if c not in keys]
    keys += pool_only
    by = keys or None
    if ci is not None:  # before counting: a bad option should not cost a pass over the data
        n_boot = _intervals.check_options(ci, ci_method, n_boot, seed)
        ci = float(ci)  # checked: a float16 or a Fraction, kept, reached the intervals as given
    else:
        # ci_method="boot" was accepted without a word, and ci_method="bootstrap" with n_boot= and
        # seed= gave no interval: ci= is what asks for them
        _intervals.check_options(0.95, ci_method, n_boot, seed)
        shaping = [f"{name}={value!r}" for name, value, default in
                   (("ci_method", ci_method, "wilson_delta"), ("n_boot", n_boot, 1000), ("seed", seed, None))
                   if value != default]  # fmt: skip
        if shaping:
            warn(f"{', '.join(shaping)} set{'s' if len(shaping) == 1 else ''} how intervals are made, and "
                 "without ci= none is; pass ci=0.95 for 95 % intervals")  # fmt: skip
    units = as_key_list(cluster, "cluster") or as_key_list(example, "example")
    kept = [k for k in keys if k not in as_key_list(pool, "pool")]  # the result's groups
    if units and set(units) <= set(kept):
        # each group then holds one example id: one cluster, and every interval NaN without a word
        what = "cluster" if cluster is not None else "example"
        given = cluster if cluster is not None else example
        pooled = f" pooled over pool={pool!r}" if pool is not None else ""
        raise InvalidArgumentError(
            f"{what}={given!r} names only keys of by={given_by!r}{pooled}, so each "
            f"group holds one {what}; name the column that identifies the {what}s within a group"
        )
    clustered = None
    if units:  # checked before counting, like ci=
        if align is not None or abstain is not None or engine != "local" or _is_file_source(data):
            raise InvalidArgumentError(
                "example= and cluster= work on a frame in memory without abstain= or align=; "
                "read the data first, e.g. pl.read_parquet(paths)"
            )
        if ci is not None and ci_method != "wilson_delta":
            raise InvalidArgumentError(
                f"example= and cluster= need ci_method='wilson_delta' (cluster-robust standard errors), "
                f"got ci_method={ci_method!r}"
            )
        with named_by_keyword(keywords), named_as_pooled(pool_only):
            clustered = _clustered.select_clustered(
                data, as_key_list(by), label, prediction, as_key_list(example, "example"),
                as_key_list(cluster, "cluster"), drop_nulls=drop_nulls,
            )  # fmt: skip
    if (align is not None or abstain is not None) and (engine != "local" or _is_file_source(data)):
        raise InvalidArgumentError(
            "abstain= and align= work on a frame in memory, not on a streamed source or engine='dask'; "
            "read the data first, e.g. pl.read_parquet(paths)"
        )
    with named_by_keyword(keywords), named_as_pooled(pool_only):
        table, held, report = _count(data, by, label, prediction, classes, drop_nulls, abstain, align,
                                     on_error, progress, batch_rows, engine, client)  # fmt: skip
    full, versus = table, None
    if table.n_classes > 2 and positive is not None:
        if per_class:
            raise InvalidArgumentError(
                f"positive={positive!r} and per_class=True together: per_class already gives every "
                "class against the rest; drop one of them"
            )
        full, versus = table, positive  # the clustered cells are counted over the full class set
        table = table.versus_rest(positive)  # one-vs-rest binary measures of that class
        positive = None
    # beta= adds f_beta to a list that lacks it, as to the default set (it was dropped from a list)
    measures = _registry.with_beta(names, beta, per_class or table.n_classes <= 2)
    if positive is None and not per_class and table.n_classes == 2 and table.classes.dtype == pl.String:
        _say_which_class_is_positive(table.classes.to_list(), measures, beta)
    if pool is None:
        out = table.measures(measures, per_class=per_class, positive=positive, beta=beta)
    else:
        over = as_key_list(pool, "pool")
        out = pooled_measures(table, over, measures, per_class, positive, beta, mean_weights)
    if ci is not None:
        kept = [c for c in as_key_list(by) if c not in as_key_list(pool, "pool")]
        measured = [c for c in out.columns if c in _MEASURE_NAMES]  # the columns that get intervals
        ends = [f"{c}_ci_{end}" for c in measured for end in ("low", "high")]
        check_free_names(kept, ends, "ci=")
    wants_tests = any(c in out.columns for c in _clustered.CLUSTERED_CHANCE)
    if clustered is None and pool is not None and (ci is not None or _has_p_values(out)):
        # the intervals and every p-value count rows: a seed that scores the same examples again
        # narrows both (p_informedness was 0.19 against 0.63 with example=), with ci= or without
        _clustered.warn_independent_rows(as_key_list(pool, "pool"))
    if clustered is not None and (ci is not None or wants_tests):  # tests and intervals count clusters
        # the example ids inside clusters count the repeats of an example's rows (seeds that copy them)
        prepared = _clustered.grouped_cells(full, clustered, units, label, prediction,
                                            as_key_list(pool, "pool"), versus,
                                            as_key_list(example, "example"))  # fmt: skip
        _clustered.warn_one_cluster(prepared[1], cluster, example)
        out = _clustered.add_clustered_chance(
            out, full, clustered, units=units, label=label, prediction=prediction,
            pool=as_key_list(pool, "pool"), per_class=per_class, versus=versus, prepared=prepared,
        )  # fmt: skip
    if ci is not None and clustered is not None:
        out = _clustered.add_clustered_intervals(
            out, full, clustered, units=units, label=label, prediction=prediction,
            pool=as_key_list(pool, "pool"), measures=measures, per_class=per_class, positive=positive,
            beta=beta, ci=ci, versus=versus, prepared=prepared,
        )  # fmt: skip
    elif ci is not None:
        out = _intervals.add_intervals(out, table, pool=pool, measures=measures, per_class=per_class,
                                       positive=positive, beta=beta, ci=ci, method=ci_method,
                                       n_boot=n_boot, seed=seed)  # fmt: skip
    if held is not None:
        out = held.annotate(out, pool=pool, per_class=per_class, n_classes=table.n_classes)
    elif report is not None:
        out.metadata = report.as_dict()  # type: ignore[attr-defined]
    if rename:
        meta = getattr(out, "metadata", None)
        out = _names.rename_columns(out, rename)
        if meta is not None:
            out.metadata = meta  # type: ignore[attr-defined]
    return out


def _count(
    data: Any,
    by: Any,
    label: str,
    prediction: str,
    classes: Any,
    drop_nulls: bool,
    abstain: Any,
    align: Any,
    on_error: Any,
    progress: Any,
    batch_rows: Any,
    engine: Any,
    client: Any,
) -> tuple[Any, Any, Any]:
    """The table of ``data``, with abstentions or alignment applied (``held``) or the streamed
    source's report."""
    held = report = None
    if align is not None:
        from .labels.align import align_frame

        table, held = align_frame(data, by, label, prediction, method=align, abstain=abstain,
                                  classes=classes, drop_nulls=drop_nulls)  # fmt: skip
    elif abstain is not None:
        from .labels.abstain import split_abstentions

        table, held = split_abstentions(data, by, label, prediction, abstain, classes=classes,
                                        drop_nulls=drop_nulls)  # fmt: skip
    else:
        table, report = count_any(data, by, label, prediction, classes=classes, drop_nulls=drop_nulls,
                                  on_error=on_error, progress=progress, batch_rows=batch_rows,
                                  engine=engine, client=client)  # fmt: skip
    return table, held, report


_MEASURE_NAMES = frozenset(BINARY_MEASURES) | frozenset(MULTICLASS_MEASURES)


def _has_p_values(out: pl.DataFrame) -> bool:
    """Whether ``out`` holds a p-value column (``p_...``) or ``alpha_sbb``, which count rows."""
    return any(c in _MEASURE_NAMES and (c.startswith("p_") or c == "alpha_sbb") for c in out.columns)


def _say_which_class_is_positive(classes: list[str], measures: Sequence[str], beta: float | None) -> None:
    """Warn which of two named classes the binary measures take as positive when ``positive=`` is not
    given: the greater, "legit" of "fraud" and "legit", whose recall and f1 a newcomer read as the
    fraud's (scikit-learn refuses string labels without ``pos_label``). Only measures whose value
    depends on the choice count (read off a probe table: informedness, correlation, kappa and the
    chance tests do not); integer and boolean labels have their usual positive, 1 and True."""
    from .measures import compute

    probe = np.array([[[37, 6], [9, 21]]], dtype=np.int64)
    try:
        as_one, as_zero = (compute(probe, list(measures), positive=k, beta=beta) for k in (1, 0))
    except (InvalidArgumentError, KeyError):  # a name the probe cannot take: say nothing
        return
    depend = [m for m in measures if m in as_one and not np.allclose(as_one[m], as_zero[m], equal_nan=True)]
    if depend:
        shown = ", ".join(depend[:4]) + (", ..." if len(depend) > 4 else "")
        warn(
            f"{shown} {'takes' if len(depend) == 1 else 'take'} {classes[1]!r} as the positive class, "
            f"the greater of {classes}; pass "
            f"positive={classes[1]!r} (or positive={classes[0]!r}) to say so"
        )


def _is_file_source(data: Any) -> bool:
    from .io.sources import is_streamed

    return is_streamed(data) and not isinstance(data, pl.LazyFrame)
