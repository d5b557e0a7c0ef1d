"""Charts of curve frames (needs the ``plot`` extra: ``pip install batcheval[plot]``)."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from ..errors import ColumnNotFoundError, InvalidArgumentError
from ..inference.leaderboard import is_leaderboard
from ..inference.ranks import RankResult, is_rank_result
from ..io.frames import as_key_list
from ..scores.curves import CHARTS, POINT_COLUMNS
from .backend import (
    MAX_LABEL,
    check_axes,
    check_path,
    check_title,
    fit_legend,
    legend_below,
    literal,
    own_layout,
    pyplot,
    shorten_apart,
    wrap_title,
)
from .cd import plot_cd
from .forest import plot_leaderboard

__all__ = ["plot"]

_MAX_LINES = 40
# ten colours, then each again with the next dash pattern: 40 lines, 40 distinct legend entries
_STYLES = ("-", "--", ":", "-.")


# axis names as people know them, beside batcheval's
_AXIS_NAMES = {
    "fallout": "false positive rate (fallout)",
    "recall": "true positive rate (recall)",
    "precision": "precision (positive predictive value)",
    "bias": "share predicted positive (bias)",
    "informedness": "informedness (tpr − fpr)",
}
_TITLES = {
    "roc": "ROC curves: true positive rate against false positive rate",
    "boc": "BOC curves: informedness against false positive rate",
    "lift": "lift curves: true positive rate against share predicted positive",
    "bift": "BIFT curves: informedness against share predicted positive",
    "bprd": "BPRD curves: informedness against relative drift",
    "bird": "BIRD curves: Bookmaker information against log2 drift",
    "pr": "precision-recall curves",
}
# the point every curve of a chart starts and ends at (threshold above every score, below every score)
_ENDS = {"roc": ((0.0, 0.0), (1.0, 1.0)), "lift": ((0.0, 0.0), (1.0, 1.0)),
         "boc": ((0.0, 0.0), (1.0, 0.0)), "bift": ((0.0, 0.0), (1.0, 0.0))}  # fmt: skip


def axis_name(name: str) -> str:
    """The axis label of a curve coordinate: the familiar name, with batcheval's in brackets.

    Examples
    --------
    >>> axis_name("fallout")
    'false positive rate (fallout)'
    """
    return _AXIS_NAMES.get(name, name)


def _guides(ax, chart: str, prevalence: list[float]) -> None:
    """The chance line or axis and the break-even lines Powers 2015 draws for each chart."""
    style = {"color": "0.55", "linewidth": 0.9, "linestyle": "--"}
    if chart in ("roc", "lift"):
        ax.plot([0, 1], [0, 1], label="chance", **style)
        # isocost lines parallel to chance: informedness c in ROC space, c/(1 − prevalence) in LIFT's,
        # where tpr − bias = (1 − prevalence)·informedness (unlabelled: their value is the group's)
        for c in (0.25, 0.5, 0.75):
            ax.plot([0, 1 - c], [c, 1], color="0.85", linewidth=0.7)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
    elif chart in ("boc", "bift"):
        ax.axhline(0.0, label="chance (informedness 0)", **style)
        ax.set_xlim(0, 1)
    elif chart == "bprd":
        ax.axhline(0.0, label="chance", **style)
        ax.axvline(1.0, color="0.7", linewidth=0.8, label="no drift (pp = rp)")
    elif chart == "bird":
        ax.axhline(0.0, label="chance (no information)", **style)
        ax.axvline(0.0, color="0.7", linewidth=0.8, label="no drift")
    elif chart == "pr":
        # a classifier that guesses has precision = prevalence at every recall
        values = sorted({round(p, 6) for p in prevalence if not math.isnan(p)})
        if len(values) == 1:
            ax.axhline(values[0], label=f"chance (prevalence {values[0]:.3g})", **style)
        elif values:
            ax.axhspan(
                values[0],
                values[-1],
                color="0.9",
                label=f"chance (prevalence {values[0]:.3g}–{values[-1]:.3g})",
            )
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)


def _area(chart: str, x: np.ndarray, y: np.ndarray, exact: bool, one_class: bool, drawn: bool) -> str:
    """The legend's summary of one line: ROC AUC, or the average precision of a PR curve; for a
    group of one class, what its line is, or that it has none (``drawn`` False: no point where both
    of the chart's rates are defined, as a ROC's fallout of positives alone)."""
    if one_class and not drawn:
        # the legend listed the group with a line and a marker of its colour that nothing in the
        # axes matched (ROC, BOC; LIFT and PR of negatives alone)
        undefined = {"roc": ", AUC n/a", "pr": ", AP n/a"}.get(chart, "")
        return f" (one class: no curve{undefined})"
    if chart == "roc":
        if one_class:  # be.auc's roc_auc is NaN there; the legend read "AUC nan"
            return " (AUC n/a)"
        area = float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2.0))
        if not exact:
            # a grid's chords cut under the curve: its trapezoid area is no AUC (0.781 for sklearn's 0.8125)
            return f" (grid area {area:.3f})"
        return f" (AUC {area:.3f})"
    if chart == "pr":  # step interpolation from recall 0, as average_precision_score
        if one_class:  # be.auc's pr_auc is NaN there; the flat line at precision 1 read "AP 1.000"
            return " (AP n/a)"
        if not len(x) or x[-1] != 1.0:
            # a curve stopped short of recall 1 (a threshold grid above the lowest score) leaves out
            # the rest of the area: its sum was no average precision (0.446 for sklearn's 0.654)
            return " (AP n/a)"
        if not exact:
            # a grid's coarse steps give another sum than average precision (0.827 against 0.908)
            return f" (grid area {float(np.sum(np.diff(x) * y[1:])):.3f})"
        return f" (AP {float(np.sum(np.diff(x) * y[1:])):.3f})"
    if chart == "bird" and one_class:  # drawn at y = 0 (be.curves): no information, as informedness 0
        return " (one class: no information)"
    if chart in ("boc", "bift", "bprd") and one_class:  # drawn on the chance line, hard to tell from it
        return " (one class: informedness 0)"
    return ""


def _sort_key(key: tuple) -> tuple:
    """Numeric settings in numeric order (1, 5, 25, 75; also inside strings: "C=5" before "C=25"), nulls
    last."""
    out = []
    for v in key:
        if v is None:
            out.append((1, ()))
        elif isinstance(v, int | float):
            out.append((0, ((0, float(v), ""),)))
        else:  # natural order: runs of digits compare as numbers
            parts = re.split(r"(\d+(?:\.\d+)?)", str(v))
            out.append(
                (0, tuple((0, float(t), "") if i % 2 else (1, 0.0, t) for i, t in enumerate(parts) if t))
            )
    return tuple(out)


_FEW_POINTS = 50  # a curve with fewer finite points keeps all of them in view


def _bulk(v: np.ndarray) -> tuple[float, float]:
    """The range of one curve's coordinate that stays in view: all of a short curve, and of a long one
    all but the points beyond Tukey's far fences (3 interquartile ranges past the quartiles).

    The 2nd-98th percentiles before cut the few most selective thresholds of every curve, its most
    informed points among them (docs/measures.md, Charts): BIRD's log drift spreads them widely."""
    lo, hi = float(v.min()), float(v.max())
    if len(v) < _FEW_POINTS:
        return lo, hi
    q1, q3 = np.percentile(v, [25, 75])
    return max(lo, float(q1 - 3 * (q3 - q1))), min(hi, float(q3 + 3 * (q3 - q1)))


def _clip_bird(ax, lines: list[tuple[str, np.ndarray, np.ndarray]]) -> int:
    """Keep every BIRD curve in view but its far outliers: limits from each curve's own range within
    Tukey's far fences (:func:`_bulk`), widened to hold its most informed point; points beyond are
    drawn at the edge with a triangle of their curve's colour. Returns how many points were clipped.

    Pooled percentiles treated a curve of few thresholds (a 4-leaf tree beside runs of 1,000 scores)
    as the others' outliers: its two most informed points became grey triangles among their tails.
    """
    ranges = []
    for _, x, y in lines:
        ok = np.isfinite(x) & np.isfinite(y)  # an infinite point (smoothing=0) sets no limit
        if ok.any():
            (lo_x, hi_x), (lo_y, hi_y) = _bulk(x[ok]), _bulk(y[ok])
            # a curve's most informed point is what the chart is read for: always in view
            best = int(np.argmin(y[ok]))
            bx, by = float(x[ok][best]), float(y[ok][best])
            ranges.append((min(lo_x, bx), max(hi_x, bx), min(lo_y, by), hi_y))
    if not ranges:
        return 0
    lo_x, hi_x = min(r[0] for r in ranges), max(r[1] for r in ranges)
    lo_y, hi_y = min(r[2] for r in ranges), max(r[3] for r in ranges)
    pad_x, pad_y = 0.08 * max(hi_x - lo_x, 1e-9), 0.08 * max(hi_y - lo_y, 1e-9)
    lo_x, hi_x = min(lo_x - pad_x, -0.05), max(hi_x + pad_x, 0.05)
    lo_y, hi_y = min(lo_y - pad_y, -0.05), max(hi_y + pad_y, 0.05)
    ax.set_xlim(lo_x, hi_x)
    ax.set_ylim(lo_y, hi_y)
    clipped = 0
    for i, (_, x, y) in enumerate(lines):
        shown = ~(np.isnan(x) | np.isnan(y))
        out = ~((x >= lo_x) & (x <= hi_x) & (y >= lo_y) & (y <= hi_y)) & shown
        if out.any():
            ax.plot(np.clip(x[out], lo_x, hi_x), np.clip(y[out], lo_y, hi_y), linestyle="none", marker="^",
                    markersize=5, color=f"C{i % 10}", label="_beyond the axes", zorder=5,
                    clip_on=False)  # fmt: skip
            clipped += int(out.sum())
    if clipped:  # one legend entry for the triangles of every curve
        ax.plot([], [], linestyle="none", marker="^", markersize=5, color="0.3",
                label="beyond the axes (drawn at the edge, in the curve's colour)")  # fmt: skip
    return clipped


def _one_curve_per_group(data: pl.DataFrame, by: list[str], keys: list[str], n_groups: int) -> None:
    """Refuse a ``by`` that leaves several curves in one group: their points, joined in threshold order,
    made one zigzag line, and the legend's area was of that zigzag, not of any curve."""
    extra = [k for k in keys if k not in by]
    if not extra or data.select([*by, *extra]).unique().height == n_groups:
        return
    # a multiclass frame's 'class' comes from its one-vs-rest step: be.curves(pool=['class']) fails
    poolable = [k for k in extra if k != "class"]
    pool = f" or pool them when making the frame: be.curves(..., pool={poolable!r})" if poolable else ""
    raise InvalidArgumentError(
        f"by={by!r} puts several curves in one line: the frame's key column{'s' if len(extra) > 1 else ''} "
        f"{extra!r} take{'' if len(extra) > 1 else 's'} more than one value within a group; name every key "
        f"(by={[*by, *extra]!r}){pool}"
    )


def _one_curve_each(groups: dict, by: list[str], chart: str) -> None:
    """Refuse a line whose rows are several curves although the key columns name one: frames stacked
    with ``pl.concat`` (the same runs' curves on two datasets, two key-less frames, BIRD curves of two
    smoothings). Their points, joined in threshold order, made one zigzag line, and the legend's area
    was of that zigzag, not of any curve (as :func:`_one_curve_per_group` refuses for a ``by`` that
    leaves out a key).

    One curve has one ``s``, ``prevalence`` and ``exact``, each threshold once, and an x that never
    falls as the threshold falls: every chart's x grows with the rows predicted positive (fallout,
    recall, bias, drift).
    """
    for key, group in groups.items():
        line = ", ".join(f"{c}={v!r}" for c, v in zip(by, key, strict=True))
        where = f"the line {line}" if line else "the one line of a frame without key columns"
        why = None
        for column in ("s", "prevalence", "exact"):
            values = group.get_column(column).unique(maintain_order=True) if column in group.columns else []
            if len(values) > 1:
                shown = ", ".join(f"{v:.4g}" if isinstance(v, float) else str(v) for v in values.head(3))
                why = f"its {column} takes {len(values)} values ({shown}{', ...' if len(values) > 3 else ''})"
                break
        threshold = group.get_column("threshold")
        if why is None and threshold.is_duplicated().any():
            again = threshold.filter(threshold.is_duplicated())[0]
            why = f"its threshold {again:.6g} appears in {int((threshold == again).sum())} rows"
        if why is None:
            part = group.sort("threshold", descending=True)
            x, t = part.get_column("x").to_numpy(), part.get_column("threshold").to_numpy()
            shown = ~np.isnan(x)
            x, t = x[shown], t[shown]
            falls = np.flatnonzero(x[1:] < x[:-1])
            if len(falls):
                i = int(falls[0])
                why = (
                    f"its x ({CHARTS[chart][0]}) falls from {x[i]:.4g} to {x[i + 1]:.4g} as the threshold "
                    f"falls from {t[i]:.4g} to {t[i + 1]:.4g}, which one curve's never does"
                )
        if why is not None:
            raise InvalidArgumentError(
                f"curves= holds several curves in {where}: {why}; frames stacked with pl.concat need a "
                "column that tells them apart, added before stacking (frame.with_columns(dataset="
                "pl.lit('iris'))): a key column, it names each curve's line; or filter one first"
            )


def _as_frame(curves: Any) -> pl.DataFrame:
    """A polars DataFrame of ``curves=``: a lazy frame collected, a pandas one converted."""
    if isinstance(curves, pl.LazyFrame):
        return curves.collect()
    if type(curves).__module__.split(".")[0] == "pandas" and hasattr(curves, "columns"):
        return pl.from_pandas(curves)
    if not isinstance(curves, pl.DataFrame):
        raise InvalidArgumentError(
            "curves= takes a be.curves or be.leaderboard frame (polars, lazy or pandas) or a "
            f"be.rank_methods result, got {type(curves).__name__}"
        )
    return curves


def plot(curves: pl.DataFrame | pl.LazyFrame | RankResult | Any, chart: str | None = None, *,
         by: str | list[str] | None = None, path: str | Path | None = None, title: str | None = None,
         ax: Any = None, top: int | None = None) -> Any:  # fmt: skip
    """Draw one chart of a :func:`batcheval.curves` frame, one line per group.

    Given a :func:`batcheval.leaderboard` frame instead, draw a forest plot of
    its ``top`` runs (default 20) with their intervals (see ``plot_leaderboard``:
    ``from batcheval.plot.forest import plot_leaderboard``). Given a
    :func:`batcheval.rank_methods` result (``chart="cd"`` or None), draw its
    critical-difference diagram (see ``plot_cd``: ``from batcheval.plot.cd import plot_cd``).
    ``batcheval.plot`` is this function, so these modules are imported with ``from``, not
    as ``import batcheval.plot.forest``.

    Parameters
    ----------
    curves
        A frame from :func:`batcheval.curves` or :func:`batcheval.leaderboard` (a lazy frame is
        collected, a pandas one converted), or a :func:`batcheval.rank_methods` result.
    chart
        Which chart to draw (one name); default the only one in the frame.
    by
        Key columns that name a line, each once (not the point columns ``chart``, ``threshold``,
        ``x``, ``y``, ``s``, ``prevalence``, ``exact``); default every key column of the frame. Each
        line must be one curve: a ``by`` that leaves out a key column taking several values per line
        is refused (pool those when making the frame: ``be.curves(..., pool=...)``), and so is a line
        whose rows are several curves: frames stacked with ``pl.concat`` (the same runs on two
        datasets, key-less frames, two smoothings) need a column that tells them apart, added before
        stacking.
    path
        Write the figure there as well as returning it, in the format of the file's extension
        (``.png``, ``.pdf``, ``.svg``, ...; PNG without one). A path that cannot be written (no
        such directory, a directory, an extension matplotlib does not know) is refused before
        anything is drawn.
    top
        How many runs of a leaderboard, or methods of a rank_methods result, to draw; refused
        for a curve frame.
    title, ax
        A title, and an existing matplotlib Axes to draw on. The legend sits beside the axes, and
        the figure is widened to hold it, the axes keeping their size, unless the figure holds
        other axes (then a curve chart's legend goes under its x label and the figure gets
        ``tight_layout``, every chart's title wrapped again to its axes' new width) or has a layout
        engine (``layout="constrained"`` or ``"tight"``), which is kept: it places the axes and the
        legend when the figure is drawn (so do the forest plot and the CD diagram). Names longer
        than 60 characters are cut in the middle (``…``), or around the part in which they differ
        when the middle cut makes two alike; above 10 lines the colours repeat with another dash
        pattern.

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn (annotated ``Any``: matplotlib is an optional dependency, loaded on
        first use).

    Notes
    -----
    The legend gives a ROC line's AUC (the trapezoid area, ``roc_auc_score``) and a PR line's
    average precision (the step sum, ``average_precision_score``) with the default exact
    thresholds. On a threshold grid (``thresholds=`` a count or a list) the coarse steps give
    another area, labelled "grid area" in both charts; "AP n/a" marks a PR curve that does not
    reach recall 1 (a grid above the lowest score), and "AUC n/a" and "AP n/a" a group of one
    class, whose AUC and average precision are undefined (NaN in :func:`batcheval.auc`). Such a
    group's line reads "one class: no curve" where its chart defines no point (a ROC's fallout or
    recall is 0/0), "one class: informedness 0" on the chance line of BOC, BIFT and BPRD, and
    "one class: no information" on BIRD's (Bookmaker information 0, as its informedness is 0). The
    PR line is drawn as steps (each recall's step at the precision the step sum counts, as scikit-learn's
    ``PrecisionRecallDisplay``), so the area under it is the legend's. The
    PR chart's chance line is at each group's prevalence (the frame's ``prevalence`` column; a
    band when groups differ), leaving out one-class groups.

    Examples
    --------
    >>> import polars as pl
    >>> import batcheval as be
    >>> df = pl.DataFrame({"run": [1, 1, 1, 1], "label": [0, 0, 1, 1], "score": [0.1, 0.4, 0.35, 0.8]})
    >>> fig = be.plot(be.curves(df, by="run", kind="roc"))
    >>> fig.axes[0].get_xlabel()
    'false positive rate (fallout)'
    """
    # checked first: a list of charts was looked up in a dict (TypeError: unhashable type: 'list'),
    # by=1 iterated and title=5 added to a string
    if chart is not None and not isinstance(chart, str):
        raise InvalidArgumentError(
            f"chart= takes one chart name (be.plot draws one chart: call it once per chart), got {chart!r}"
        )
    check_title(title)
    if by is not None and not (
        isinstance(by, str) or (isinstance(by, list | tuple) and all(isinstance(b, str) for b in by))
    ):
        raise InvalidArgumentError(f"by= takes a column name or a list of them, got {by!r}")
    check_path(path)
    check_axes(ax)
    if is_rank_result(curves):
        if chart not in (None, "cd") or by is not None:
            bad = f"chart={chart!r}" if chart not in (None, "cd") else f"by={by!r}"
            raise InvalidArgumentError(
                f"a be.rank_methods result draws chart='cd' and takes no by=; got {bad}"
            )
        return plot_cd(curves, top=top, path=path, title=title, ax=ax)
    curves = _as_frame(curves)
    if chart == "cd":
        raise InvalidArgumentError("chart='cd' draws a be.rank_methods result; curves= is a frame")
    if is_leaderboard(curves):
        if chart not in (None, "forest") or by is not None:
            bad = f"chart={chart!r}" if chart not in (None, "forest") else f"by={by!r}"
            raise InvalidArgumentError(
                f"a be.leaderboard frame draws a forest plot and takes no chart= or by=; got {bad}"
            )
        return plot_leaderboard(curves, top=20 if top is None else top, path=path, title=title, ax=ax)
    missing = [c for c in ("chart", "threshold", "x", "y") if c not in curves.columns]
    if missing:
        raise ColumnNotFoundError(
            f"curves= has no column {missing[0]!r}: not a be.curves frame (columns {curves.columns}); "
            "be.plot draws be.curves and be.leaderboard frames and be.rank_methods results"
        )
    if top is not None:
        raise InvalidArgumentError(
            f"top= applies to a be.leaderboard frame or a be.rank_methods result, not to curves; "
            f"got top={top!r} (filter the curve frame instead)"
        )
    if chart is not None and chart not in CHARTS:
        raise InvalidArgumentError(f"chart={chart!r} is not a chart; choose one of {sorted(CHARTS)}")
    if curves.height == 0:
        raise InvalidArgumentError("curves= is empty: the frame has no rows to draw")
    plt = pyplot()
    charts = curves.get_column("chart").unique().to_list()
    if chart is None:
        if len(charts) != 1:
            raise InvalidArgumentError(f"the frame holds charts {sorted(charts)}; choose one with chart=")
        chart = charts[0]
    if chart not in charts:
        raise InvalidArgumentError(f"chart {chart!r} is not in the frame; it holds {sorted(charts)}")
    data = curves.filter(pl.col("chart") == chart)
    keys = [c for c in data.columns if c not in POINT_COLUMNS]
    by = keys if by is None else as_key_list(by)  # a name twice: partition_by raised polars' DuplicateError
    for name in by:
        if name in POINT_COLUMNS and name in data.columns:
            # by="threshold" drew a one-point "curve" per threshold, each with a made-up AUC
            raise InvalidArgumentError(
                f"by= column {name!r} is a point column of the curves, not a key column: a line is named by "
                f"key columns; the frame's key columns are {keys}"
            )
        if name not in keys:
            raise ColumnNotFoundError(f"by= column {name!r} not found; the frame's key columns are {keys}")
    groups = data.partition_by(by, as_dict=True, maintain_order=True) if by else {(): data}
    _one_curve_per_group(data, by, keys, len(groups))
    _one_curve_each(groups, by, chart)
    if len(groups) > _MAX_LINES:
        raise InvalidArgumentError(
            f"{len(groups)} lines are too many for one chart (at most {_MAX_LINES}); filter first"
        )
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.6, 5.2))  # the axes and their labels; the legend widens it
    else:
        fig = ax.figure
    lines = []
    prevalence = []
    for key, group in sorted(groups.items(), key=lambda kv: _sort_key(kv[0])):
        part = group.sort("threshold", descending=True)
        x, y = part["x"].to_numpy(), part["y"].to_numpy()
        drawn = bool((np.isfinite(x) & np.isfinite(y)).any())  # a point of its own, not only the ends
        if chart in _ENDS and drawn:  # every threshold above / below all scores: the curve's two ends
            (x0, y0), (x1, y1) = _ENDS[chart]
            x, y = np.concatenate(([x0], x, [x1])), np.concatenate(([y0], y, [y1]))
        elif chart == "pr" and len(x):
            # a grid's thresholds above a group's top score predict nothing positive: precision is
            # undefined there (NaN), and drawn or summed it made the legend read "AP nan"
            defined = np.isfinite(y)
            x, y = x[defined], y[defined]
        share = float(part["prevalence"][0]) if "prevalence" in part.columns else float("nan")
        one_class = share in (0.0, 1.0)  # no chance level to draw, and no average precision
        if chart == "pr" and len(x):
            # from the counts: precision at the lowest threshold is the prevalence only when that
            # threshold predicts every row positive, which a grid's need not (0.6 for a true 0.3)
            prevalence.append(float("nan") if one_class else share)
            if drawn:  # not for negatives alone, whose recall is undefined: no point at (0, 0) either
                x, y = np.concatenate(([0.0], x)), np.concatenate(([y[0]], y))  # recall 0 at the top score
        name = ", ".join(f"{c}={v}" for c, v in zip(by, key, strict=True)) or chart
        exact = bool(part["exact"][0]) if "exact" in part.columns else True
        lines.append((name, _area(chart, x, y, exact, one_class, drawn), x, y))
    # cut in the middle, else around the part in which they differ: a sweep's names that differ only in
    # the middle (..._C=0.01_penalty=l2_..., ..._C=100_penalty=l2_...) were cut to one legend entry;
    # kept whole when no cut tells them apart
    names = [name for name, _, _, _ in lines]
    names = shorten_apart(names, MAX_LABEL) or names
    lines = [(literal(name) + area, x, y) for name, (_, area, x, y) in zip(names, lines, strict=True)]
    _guides(ax, chart, prevalence)
    # a PR curve is a step function, as its legend's step sum counts it: from one point to the next (recall
    # rising) at the next point's precision, "steps-pre" in this order (scikit-learn's display, whose
    # recall falls, draws "steps-post"). Straight lines between the points drew precisions no threshold
    # gives, under an area (0.365) other than the legend's AP (0.489)
    drawstyle = "steps-pre" if chart == "pr" else "default"
    for i, (name, x, y) in enumerate(lines):
        ax.plot(x, y, marker=".", markersize=3, linewidth=1.2, label=name, color=f"C{i % 10}",
                linestyle=_STYLES[i // 10 % len(_STYLES)], drawstyle=drawstyle)  # fmt: skip
    subtitle = ""
    if chart in ("boc", "bift") and lines:  # informedness rarely goes below 0: no empty lower half
        low = min(float(np.nanmin(y)) for _, _, y in lines)
        high = max(float(np.nanmax(y)) for _, _, y in lines)
        ax.set_ylim(min(-0.05, low - 0.05), max(0.05, high + 0.05))
    if chart == "bird":
        clipped = _clip_bird(ax, lines)
        # Powers 2015's sign: H(s_tpr) − H(s_fpr) = −log2(s_tpr/s_fpr) is negative when tpr > fpr. In the
        # subtitle: a box in the axes' lower left hid the most informed stretch of the curves
        subtitle = "\nmore informed ↓ (better): y = −log2(tpr/fpr) < 0 when tpr > fpr"
        if clipped:
            subtitle += f"\n{clipped} extreme point{'s' if clipped > 1 else ''} drawn at the axes' edge (▲)"
    elif chart in ("roc", "boc", "bift", "lift", "bprd"):
        ax.annotate("better ↑", xy=(0.02, 0.97), xycoords="axes fraction", va="top", fontsize="small",
                    color="0.3")  # fmt: skip
    elif chart == "pr":
        ax.annotate("better ↗", xy=(0.85, 0.97), xycoords="axes fraction", va="top", fontsize="small",
                    color="0.3")  # fmt: skip
    x_label, y_label = CHARTS[chart]
    ax.set_xlabel(axis_name(x_label))
    ax.set_ylabel(axis_name(y_label))
    ax.set_title((title or _TITLES[chart]) + subtitle, fontsize="medium")
    wrap_title(ax)
    ax.grid(True, color="0.93")
    # outside the axes, so that no curve is hidden under it; two columns keep 40 lines within its height
    entries = len(ax.get_legend_handles_labels()[0])
    if len(fig.axes) > 1 and own_layout(fig):  # a chart on one of a caller's subplots
        legend = ax.legend(fontsize="small", loc="upper center", borderaxespad=0.0,
                           ncol=2 if entries > 10 else 1)  # fmt: skip
        legend_below(ax, legend)
    else:
        legend = ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0),
                           borderaxespad=0.0, ncol=2 if entries > 20 else 1)  # fmt: skip
        fit_legend(ax, legend)
    if path is not None:
        fig.savefig(path, dpi=110, bbox_inches="tight")
    return fig
