"""The forest plot of a leaderboard frame (``be.plot(board)``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from ..errors import InvalidArgumentError
from .backend import pyplot

__all__ = ["plot_leaderboard"]


def plot_leaderboard(
    board: pl.DataFrame,
    *,
    top: int = 20,
    path: Any = None,
    title: str | None = None,
    ax: Any = None,
) -> Any:
    """Forest plot of the ``top`` runs of a :func:`leaderboard` frame (``be.plot(board)``).

    One row per run, best at the top: the measure as a point, its interval as
    a bar; runs that could be the best are drawn filled, the others hollow, and
    a dashed line marks the leader's value.

    Examples
    --------
    >>> import batcheval as be
    >>> from batcheval.examples.synthetic import make_sweep
    >>> board = be.leaderboard(make_sweep(n_runs=30, rows_per_fold=100), pool="fold")
    >>> fig = be.plot(board, top=10)
    >>> len(fig.axes[0].get_yticklabels()), fig.axes[0].get_xlabel()
    (10, 'informedness')
    """
    measure = _board_measure(board)
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise InvalidArgumentError(f"top must be a positive integer, got {top!r}")
    rows = board.sort("rank", maintain_order=True).head(top)
    keys = [c for c in rows.columns[: rows.columns.index("rank")]]
    labels = [", ".join(str(v) for v in r) for r in rows.select(keys).iter_rows()] if keys else []
    value = rows.get_column(measure).to_numpy()
    low = rows.get_column(f"{measure}_ci_low").to_numpy()
    high = rows.get_column(f"{measure}_ci_high").to_numpy()
    tied = rows.get_column("tied_with_leader").fill_null(False).to_numpy()
    plt = pyplot()
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 1.2 + 0.28 * len(rows)))
    else:
        fig = ax.figure
    y = np.arange(len(rows))[::-1]
    ax.hlines(y, low, high, color="0.35", linewidth=1.4)
    ax.plot(value[tied], y[tied], "o", color="C0", label="could be the best")
    ax.plot(value[~tied], y[~tied], "o", mfc="white", color="C3", label="not the best")
    if len(rows):
        ax.axvline(value[0], color="0.6", linestyle="--", linewidth=0.9)
    ax.set_yticks(y, labels or [str(r) for r in rows.get_column("rank").to_list()])
    ax.set_xlabel(measure)
    ax.set_title(title or f"top {len(rows)} runs by {measure}")
    ax.grid(True, axis="x", color="0.93")
    ax.legend(fontsize="small", loc="best")
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=110)
    return fig


def _board_measure(board: pl.DataFrame) -> str:
    for name in board.columns:
        # rank has rank_ci_low/_ci_high too: the simultaneous rank intervals, not the measure's
        if name != "rank" and f"{name}_ci_low" in board.columns and f"{name}_ci_high" in board.columns:
            return name
    raise InvalidArgumentError(
        f"not a leaderboard frame: no <measure>_ci_low/_ci_high columns among {board.columns}"
    )
