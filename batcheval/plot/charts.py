"""Charts of curve frames (needs the ``plot`` extra: ``pip install batcheval[plot]``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from ..inference.leaderboard import is_leaderboard
from ..inference.ranks import is_rank_result
from ..scores.curves import CHARTS
from .backend import pyplot
from .cd import plot_cd
from .forest import plot_leaderboard

__all__ = ["plot"]

_MAX_LINES = 40


def _guides(ax, chart: str) -> None:
    """The chance line or axis and the break-even lines paper 004 draws for each chart."""
    style = {"color": "0.55", "linewidth": 0.9, "linestyle": "--"}
    if chart in ("roc", "lift"):
        ax.plot([0, 1], [0, 1], label="chance", **style)
        for c in (0.25, 0.5, 0.75):  # isocost lines: equal informedness, parallel to chance
            ax.plot([0, 1 - c], [c, 1], color="0.85", linewidth=0.7)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
    elif chart in ("boc", "bift"):
        ax.axhline(0.0, label="chance (informedness 0)", **style)
        ax.set_xlim(0, 1)
        ax.set_ylim(-1, 1)
    elif chart == "bprd":
        ax.axhline(0.0, label="chance", **style)
        ax.axvline(1.0, color="0.7", linewidth=0.8, label="no drift (pp = rp)")
    elif chart == "bird":
        ax.axhline(0.0, label="chance (no information)", **style)
        ax.axvline(0.0, color="0.7", linewidth=0.8, label="no drift")
    elif chart == "pr":
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)


def plot(curves: pl.DataFrame, chart: str | None = None, *, by: str | list[str] | None = None,
         path: str | Path | None = None, title: str | None = None, ax: Any = None,
         top: int | None = None):  # fmt: skip
    """Draw one chart of a :func:`batcheval.curves` frame, one line per group.

    Given a :func:`batcheval.leaderboard` frame instead, draw a forest plot of
    its ``top`` runs (default 20) with their intervals (see
    :func:`batcheval.plot.forest.plot_leaderboard`). Given a
    :func:`batcheval.rank_methods` result (``chart="cd"`` or None), draw its
    critical-difference diagram (see :func:`batcheval.plot.cd.plot_cd`).

    Parameters
    ----------
    curves
        A frame from :func:`batcheval.curves`.
    chart
        Which chart to draw; default the only one in the frame.
    by
        Columns that name a line; default every key column of the frame.
    path
        Write a PNG there as well as returning the figure.
    title, ax
        A title, and an existing matplotlib Axes to draw on.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import polars as pl
    >>> import batcheval as be
    >>> df = pl.DataFrame({"run": [1, 1, 1, 1], "label": [0, 0, 1, 1], "score": [0.1, 0.4, 0.35, 0.8]})
    >>> fig = be.plot(be.curves(df, by="run", kind="roc"))
    >>> fig.axes[0].get_xlabel()
    'fallout'
    """
    if is_rank_result(curves):
        if chart not in (None, "cd"):
            raise ValueError(f"a rank_methods result draws chart='cd', not {chart!r}")
        return plot_cd(curves, top=top, path=path, title=title, ax=ax)
    if chart == "cd":
        raise ValueError("chart='cd' draws a be.rank_methods result; this is a frame")
    if is_leaderboard(curves):
        return plot_leaderboard(curves, top=20 if top is None else top, path=path, title=title, ax=ax)
    plt = pyplot()
    charts = curves.get_column("chart").unique().to_list()
    if chart is None:
        if len(charts) != 1:
            raise ValueError(f"the frame holds charts {sorted(charts)}; choose one with chart=")
        chart = charts[0]
    if chart not in charts:
        raise ValueError(f"chart {chart!r} is not in the frame; it holds {sorted(charts)}")
    data = curves.filter(pl.col("chart") == chart)
    keys = [c for c in data.columns if c not in ("chart", "threshold", "x", "y", "s")]
    by = keys if by is None else ([by] if isinstance(by, str) else list(by))
    groups = data.partition_by(by, as_dict=True, maintain_order=True) if by else {(): data}
    if len(groups) > _MAX_LINES:
        raise ValueError(
            f"{len(groups)} lines are too many for one chart (at most {_MAX_LINES}); filter first"
        )
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 5.2))
    else:
        fig = ax.figure
    _guides(ax, chart)
    for key, group in groups.items():
        part = group.sort("threshold", descending=True)
        name = ", ".join(f"{c}={v}" for c, v in zip(by, key, strict=True)) or chart
        ax.plot(
            part["x"].to_numpy(), part["y"].to_numpy(), marker=".", markersize=3, linewidth=1.2, label=name
        )
    x_label, y_label = CHARTS[chart]
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    ax.set_title(title or f"{chart.upper()} chart")
    ax.grid(True, color="0.93")
    ax.legend(fontsize="small", loc="best")
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=110)
    return fig
