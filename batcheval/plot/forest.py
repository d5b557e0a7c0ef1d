"""The forest plot of a leaderboard frame (``be.plot(board)``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from ..errors import InvalidArgumentError
from ..io.arguments import as_flag
from ..measures import check_level
from .backend import (
    check_axes,
    check_path,
    check_title,
    fit_legend,
    lay_out,
    literal,
    percent,
    pyplot,
    shorten,
    wrap_title,
)

__all__ = ["plot_leaderboard"]


def plot_leaderboard(
    board: pl.DataFrame,
    *,
    top: int = 20,
    path: Any = None,
    title: str | None = None,
    ax: Any = None,
    level: float | None = None,
    paired: bool | None = None,
) -> Any:
    """Forest plot of the ``top`` runs of a :func:`leaderboard` frame (``be.plot(board)``).

    One row per run, best at the top: the measure as a point, its interval as
    a bar; the leader is a star, runs that could be best (``could_be_best``,
    else ``tied_with_leader``) are filled, the others hollow, and a dashed line
    marks the leader's value. A run whose interval is undefined (an end is NaN:
    a board of one class, a constant predictor's mcc) gets a dotted line across
    the axes instead of a bar, and the subtitle names it, as it names runs whose
    measure is undefined (those are not drawn). Names longer than 60 characters
    are cut in the middle (``…``) unless that makes two alike; a figure the plot
    makes is widened to hold the names beside axes about 5 inches wide. The title
    names the measure, the interval level and how many of the runs are shown; the
    subtitle says whether the tests against the leader were paired. An empty board
    is refused. ``level`` and ``paired`` default to what the board records
    (``board.metadata``, kept by :func:`leaderboard`; a sorted, filtered, pickled or
    copied board has none, and the title then names no level unless ``level`` is
    given) and to whether it has an ``n_paired`` column. A ``level`` given is a number
    strictly between 0 and 1 (0.95, not 95), as ``leaderboard(ci=)`` takes it; a ``paired``
    given is True or False.

    Examples
    --------
    >>> import batcheval as be
    >>> from batcheval.examples.synthetic import make_sweep
    >>> board = be.leaderboard(make_sweep(n_runs=30, rows_per_fold=100), pool="fold")
    >>> fig = be.plot(board, top=10)
    >>> len(fig.axes[0].get_yticklabels()), fig.axes[0].get_xlabel()
    (10, 'informedness')
    >>> fig.axes[0].get_title().splitlines()
    ['informedness: top 10 of 30 runs, 95% intervals', 'unpaired tests against the leader (no example ids)']
    """
    check_path(path)
    check_axes(ax)
    check_title(title)
    if level is not None:  # 95 was titled "9500% intervals", NaN "nan% intervals", "0.9" a bare TypeError
        level = check_level(level, "level")
    measure = _board_measure(board)
    if board.height == 0:  # it drew an empty "top 0 of 0 runs" chart
        raise InvalidArgumentError("board= is empty: the leaderboard frame has no runs to draw")
    # a numpy integer (a count from numpy) as the CD diagram takes it; a bool is no count
    if isinstance(top, bool | np.bool_) or not isinstance(top, int | np.integer) or top < 1:
        raise InvalidArgumentError(f"top must be a positive integer, got {top!r}")
    top = min(int(top), board.height)  # more than the board's runs draws them all (2**70 overflowed head)
    meta = getattr(board, "metadata", None) or {}
    level = meta.get("ci") if level is None else level
    # "no" was read as paired: any truthy value was
    paired = ("n_paired" in board.columns) if paired is None else as_flag(paired, "paired")
    # a run whose measure is undefined has a null rank: nothing to draw, and sorted first it was taken
    # for the leader
    ranked = board.filter(pl.col("rank").is_not_null())
    rows = ranked.sort("rank", maintain_order=True).head(top)
    keys = [c for c in rows.columns[: rows.columns.index("rank")]]
    _one_board(board, keys, measure)
    labels = [", ".join(str(v) for v in r) for r in rows.select(keys).iter_rows()] if keys else []
    # cut in the middle as the curve charts' legend names are, unless that makes two runs look alike
    # (names that differ only in the middle): the figure is then widened to hold them whole
    short = [shorten(t) for t in labels]
    if len(set(short)) == len(set(labels)):
        labels = short
    value = rows.get_column(measure).to_numpy()
    low = rows.get_column(f"{measure}_ci_low").to_numpy()
    high = rows.get_column(f"{measure}_ci_high").to_numpy()
    best = "could_be_best" if "could_be_best" in rows.columns else "tied_with_leader"
    tied = rows.get_column(best).fill_null(False).to_numpy().copy()
    plt = pyplot()
    own = ax is None
    if own:
        fig, ax = plt.subplots(figsize=(7.2, 1.9 + 0.3 * len(rows)))
    else:
        fig = ax.figure
    y = np.arange(len(rows))[::-1]
    # an interval with an undefined end (a board of one class, a constant predictor's mcc) has no bar:
    # hlines dropped it silently, so its point read as a certain value. A dotted line across the axes
    # marks it, and the subtitle names those runs
    no_interval = np.isnan(low) | np.isnan(high)
    # an infinite end (a ratio's bootstrap interval where enough resamples have a denominator of 0,
    # intervals.infinite_ratios) has no place on the axis: hlines dropped the bar, the leader's
    # included. It runs to the edge of the axes, once their limits are set, with an arrow there
    unbounded = ~no_interval & ~(np.isfinite(low) & np.isfinite(high))
    bounded = ~no_interval & ~unbounded
    ax.hlines(y[bounded], low[bounded], high[bounded], color="0.35", linewidth=1.4)
    for i, row in enumerate(np.flatnonzero(no_interval)):
        ax.axhline(y[row], color="0.55", linestyle=":", linewidth=1.2, zorder=1,
                   label="no interval (undefined)" if i == 0 else "_")  # fmt: skip
    is_leader = rows.get_column("rank").to_numpy() == 1  # runs tied with the leader share rank 1
    tied &= ~is_leader
    if is_leader.any():
        ax.axvline(value[is_leader][0], color="0.6", linestyle="--", linewidth=0.9)
        ax.plot(value[is_leader], y[is_leader], "*", color="C0", markersize=13, label="leader")
    if tied.any():  # a legend entry only for what is drawn
        ax.plot(value[tied], y[tied], "o", color="C0", label="could be the best")
    if (rest := ~tied & ~is_leader).any():
        ax.plot(value[rest], y[rest], "o", mfc="white", color="C3", label="not the best")
    if unbounded.any():
        _unbounded_bars(ax, y[unbounded], low[unbounded], high[unbounded])
    ticks = labels or [str(r) for r in rows.get_column("rank").to_list()]
    ticks = [literal(f"{t} (leader)" if lead else t) for t, lead in zip(ticks, is_leader, strict=True)]
    ax.set_yticks(y, ticks)
    if len(rows):  # the default 5% margins left a blank band of 25 rows above and below 500 runs
        ax.set_ylim(-0.6, len(rows) - 0.4)
    # a board ranked lowest first (fallout, miss_rate, ...) reads as an error without a word
    ranked_values = ranked.sort("rank").get_column(measure).to_numpy()
    lowest = meta["higher_is_better"] is False if "higher_is_better" in meta else _lowest_first(ranked_values)
    ax.set_xlabel(f"{measure} (lower is better)" if lowest else measure)
    level_text = f", {percent(level)} intervals" if level is not None else ""
    how = ("paired tests against the leader (on the same examples)" if paired
           else "unpaired tests against the leader (no example ids)")  # fmt: skip
    if no_interval.any():
        names = _names(rows.filter(pl.Series(no_interval)), keys)
        count = int(no_interval.sum())
        how += f"\n{count} run{'s' if count > 1 else ''} without an interval (undefined; dotted){names}"
    undefined = board.height - ranked.height
    if undefined:
        names = _names(board.filter(pl.col("rank").is_null()), keys)
        how += f"\n{undefined} run{'s' if undefined > 1 else ''} with an undefined {measure} not drawn{names}"
    ax.set_title(
        title or f"{measure}: top {len(rows)} of {board.height} runs{level_text}\n{how}", fontsize="medium"
    )
    wrap_title(ax)
    ax.grid(True, axis="x", color="0.93")
    if keys:
        ax.set_ylabel(literal(", ".join(keys)))
    if own and len(rows):
        _fit_labels(fig, ax)
    # beside the axes, the figure widened to hold it: inside it would cover intervals, and below them it
    # sat on the x label of a board of one or two rows
    if ax.get_legend_handles_labels()[0]:
        legend = ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                           frameon=False)  # fmt: skip
        fit_legend(ax, legend)
    else:
        lay_out(fig)
    if path is not None:
        fig.savefig(path, dpi=110, bbox_inches="tight")  # long run names push the title past the axes
    return fig


_AXES_WIDTH = 5.0  # inches the intervals keep beside the run names


def _fit_labels(fig: Any, ax: Any) -> None:
    """Widen a figure of ours to hold the run names and title beside axes of ``_AXES_WIDTH`` inches.

    A fixed 7.2-inch figure, laid out tightly, gave 60-character names all but 1.4 inches of it and
    the intervals a strip with two x ticks.
    """
    renderer = fig.canvas.get_renderer()
    to_inches = fig.dpi_scale_trans.inverted()
    names = max((t.get_window_extent(renderer).width for t in ax.get_yticklabels()), default=0.0)
    side = ax.yaxis.label.get_window_extent(renderer).width + 0.35 * fig.dpi  # the axis name and pads
    title = ax.title.get_window_extent(renderer).width + 0.4 * fig.dpi
    need = to_inches.transform((max(names + side + _AXES_WIDTH * fig.dpi, title), 0.0))[0]
    width, height = fig.get_size_inches()
    if need > width:
        fig.set_size_inches(need, height)


def _one_board(board: pl.DataFrame, keys: list[str], measure: str) -> None:
    """Refuse boards stacked into one frame (``pl.concat`` of several datasets' boards, as the demo
    writes leaderboard.parquet): drawn as one, they gave two "(leader)" stars, duplicate labels and
    a leader line at one of them.

    One board has one value at rank 1 (runs tied with the leader share it) and names each run once.
    """
    leaders = board.filter(pl.col("rank") == 1)
    values = leaders.get_column(measure).unique(maintain_order=True).to_list()
    if len(values) > 1:
        shown = ", ".join(f"{v:.4g}" for v in values[:3]) + (", ..." if len(values) > 3 else "")
        why = f"{leaders.height} runs of rank 1 with different {measure} ({shown})"
    elif keys and (twice := board.group_by(keys, maintain_order=True).len().filter(pl.col("len") > 1)).height:
        run = ", ".join(f"{k}={v!r}" for k, v in zip(keys, twice.row(0), strict=False))
        why = f"the run {run} appears in {twice['len'][0]} rows"
    else:
        return
    # a column that tells the boards apart: a text column after the board's own (the demo's
    # "dataset"), else a key column that names each leader differently
    after = board.columns[board.columns.index("rank") + 1 :]
    text = [
        c
        for c in after
        if board.schema[c] == pl.String or isinstance(board.schema[c], pl.Categorical | pl.Enum)
    ]
    split = next((c for c in text if board.get_column(c).n_unique() > 1), None) or next(
        (c for c in keys if leaders.get_column(c).n_unique() == leaders.height > 1), None
    )
    if split is None:
        how = "filter the rows of one board first"
    else:
        how = f"filter one first, e.g. board.filter(pl.col({split!r}) == {board.get_column(split)[0]!r})"
    raise InvalidArgumentError(
        f"the frame holds several leaderboards: {why}; a forest plot draws one board: {how}"
    )


def _unbounded_bars(ax: Any, y: np.ndarray, low: np.ndarray, high: np.ndarray) -> None:
    """Bars of intervals with an infinite end, drawn to the edge of ``ax`` (its limits as the finite
    values set them, its finite ends included), with an arrow at that edge."""
    ax.plot(np.where(np.isfinite(low), low, high), y, linestyle="none")  # the finite ends in the limits
    left, right = ax.get_xlim()
    ax.hlines(y, np.maximum(low, left), np.minimum(high, right), color="0.35", linewidth=1.4, zorder=1.5)
    for edge, side, marker in ((right, high, ">"), (left, low, "<")):
        at = np.isinf(side)
        if at.any():
            ax.plot(np.full(int(at.sum()), edge), y[at], marker, color="0.35", markersize=6, clip_on=False,
                    label=f"interval to {'+' if marker == '>' else '-'}inf")  # fmt: skip
    ax.set_xlim(left, right)


def _lowest_first(values: np.ndarray) -> bool:
    """Whether a board without its metadata (sorted, filtered or read from a file) was ranked
    lowest first: its values, in rank order, rise."""
    values = values[np.isfinite(values)]
    return len(values) > 1 and values[-1] > values[0]


def _names(rows: pl.DataFrame, keys: list[str], most: int = 3) -> str:
    """``": a; b; c and 2 more"``: the first ``most`` runs' key values for a subtitle (empty without keys)."""
    if not keys:
        return ""
    names = [shorten(", ".join(str(v) for v in r), 30) for r in rows.select(keys).head(most).iter_rows()]
    more = f" and {rows.height - most} more" if rows.height > most else ""
    return literal(": " + "; ".join(names) + more)


def _board_measure(board: pl.DataFrame) -> str:
    for name in board.columns:
        # rank has rank_ci_low/_ci_high too: the simultaneous rank intervals, not the measure's
        if name != "rank" and f"{name}_ci_low" in board.columns and f"{name}_ci_high" in board.columns:
            return name
    raise InvalidArgumentError(
        f"not a leaderboard frame: no <measure>_ci_low/_ci_high columns among {board.columns}"
    )
