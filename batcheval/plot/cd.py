"""The critical-difference diagram of a :func:`batcheval.rank_methods` result (``be.plot(res, chart="cd")``).

Demšar (2006, JMLR 7:1, Fig. 1–2): methods sit on the average-rank axis, best (rank 1) on the
left; a thick bar joins each maximal group of methods whose average ranks differ by less than
Nemenyi's critical difference (CD), drawn as a ruler above the axis. Methods joined by a bar are
not significantly different at the result's level.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import InvalidArgumentError
from ..inference.ranks import RankResult, is_rank_result
from .backend import (
    MAX_LABEL,
    check_axes,
    check_path,
    check_title,
    literal,
    pyplot,
    shorten_apart,
    wrap_title,
)

__all__ = ["cliques", "plot_cd", "rank_ticks"]

_MAX_METHODS = 40  # drawn without top= (a diagram of 40 is some 13 inches tall); top= may ask for more
_MIN_BAR = 0.08  # the shortest clique bar, a share of the rank axis
_AXIS_INCHES = 4.6  # the rank axis of a figure of our own
_MIN_AXIS = 0.25  # the least share of a caller's axes the rank axis keeps, however long the names
_MARGIN = 4.0  # pixels between the outermost text and the axes' edge


def cliques(ranks: np.ndarray, cd: float) -> list[tuple[int, int]]:
    """Maximal runs ``[i, j]`` of sorted ``ranks`` whose spread is below ``cd`` (at least two methods).

    Examples
    --------
    >>> cliques(np.array([1.0, 1.5, 2.6, 3.0, 4.2]), 1.2)
    [(0, 1), (1, 2), (2, 3)]
    """
    out: list[tuple[int, int]] = []
    last = -1
    for i in range(len(ranks)):
        j = int(np.searchsorted(ranks, ranks[i] + cd, side="left")) - 1
        if j > i and j > last:
            out.append((i, j))
            last = j
    return out


def rank_ticks(hi: float) -> np.ndarray:
    """Ticks of the rank axis 1..``hi``: every rank up to 20, then 1 and the multiples of a round step
    (linspace's rounding gave uneven gaps: 1, 5, 9, 13, 17, 20, 24).

    Examples
    --------
    >>> rank_ticks(6).tolist()
    [1, 2, 3, 4, 5, 6]
    >>> rank_ticks(40).tolist()
    [1, 5, 10, 15, 20, 25, 30, 35, 40]
    """
    top = int(hi)
    if top <= 20:
        return np.arange(1, top + 1)
    step = next(s for s in (2, 5, 10, 20, 50) if top / s <= 10)
    return np.concatenate(([1], np.arange(step, top + 1, step)))


def plot_cd(
    result: RankResult,
    *,
    top: int | None = None,
    path: Any = None,
    title: str | None = None,
    ax: Any = None,
) -> Any:
    """Draw the critical-difference diagram of a :func:`batcheval.rank_methods` result.

    Parameters
    ----------
    result
        What :func:`batcheval.rank_methods` returned.
    top
        Draw only the best ``top`` methods (the rank axis and the CD stay those of all k), as many
        as asked (all k at most); default all, which must then be at most 40.
    path, title, ax
        Write a PNG there; a title; an existing matplotlib Axes.

    Every method's name and average rank stay inside the figure returned (not only in the file
    ``path=`` writes): a figure the diagram makes is widened to hold the names beside a rank axis of
    about 4.6 inches, and on a caller's ``ax`` the rank axis takes the width the names leave (at least
    a quarter of it: longer names are cut, ``…``, in the middle, or around the part in which they
    differ when the middle cut makes two alike, so they stay distinct; names too long for the axes even
    then stick out of it on both sides, the rank axis kept in view). Names over 60 characters are cut
    so too, and every name is drawn letter for letter (a ``$`` starts no mathtext). A group's bar is
    at least 8 % of the rank axis long, so methods of one average rank (all tied) are joined by a bar,
    not a dot.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import polars as pl
    >>> import batcheval as be
    >>> df = pl.DataFrame({
    ...     "method": ["a", "b", "c"] * 4,
    ...     "dataset": [d for d in "wxyz" for _ in range(3)],
    ...     "score": [0.9, 0.8, 0.7, 0.85, 0.86, 0.6, 0.7, 0.65, 0.5, 0.92, 0.9, 0.91],
    ... })
    >>> fig = be.plot(be.rank_methods(df), chart="cd")
    >>> sorted(t.get_text() for t in fig.axes[0].texts if t.get_text()[1:2] == " ")
    ['a (1.25)', 'b (2.00)', 'c (2.75)']
    """
    if not is_rank_result(result):  # a frame raised a bare AttributeError ('n_methods')
        raise InvalidArgumentError(
            f"result= takes what be.rank_methods returns (a RankResult), got {type(result).__name__}"
        )
    check_path(path)
    check_axes(ax)
    check_title(title)
    k = result.n_methods
    if top is None:
        if k > _MAX_METHODS:
            raise InvalidArgumentError(
                f"{k} methods are too many for one diagram by default (at most {_MAX_METHODS}); give top= "
                f"(top={k} draws them all)"
            )
        top = k
    if isinstance(top, bool | np.bool_) or not isinstance(top, int | np.integer) or top < 2:
        raise InvalidArgumentError(f"top= must be an integer of at least 2, got {top!r}")
    top = min(int(top), k)  # more than the methods draws them all (2**70 overflowed head)
    shown = result.ranks.head(top)  # min(top, 40): top=45 drew 40
    names = [str(v) for v in shown.get_column(result.method).to_list()]
    # cut as the other charts' names, in the middle, or around where they differ if that makes two alike
    names = shorten_apart(names, MAX_LABEL) or names
    ranks = shown.get_column("mean_rank").to_numpy()
    m = len(names)
    groups = cliques(ranks, result.cd)
    plt = pyplot()
    half = math.ceil(m / 2)
    step = 0.32
    bar_gap = 0.13
    base = 0.1 + bar_gap * max(len(groups), 1)
    height = base + step * (half + 1)
    own = ax is None
    if own:
        fig, ax = plt.subplots(figsize=(8.0, 1.1 + 0.55 * (half + 1) + 0.2 * len(groups)))
    else:
        fig = ax.figure
    lo, hi = 1.0, float(max(k, math.ceil(ranks.max())))
    span = hi - lo
    pad = 0.04 * span + 0.2
    ax.set_xlim(lo - span * 0.35 - pad, hi + span * 0.35 + pad)
    ax.set_ylim(height, -0.85)
    ax.axis("off")
    ax.plot([lo, hi], [0, 0], color="0.1", linewidth=1.2)
    ticks = rank_ticks(hi)
    for t in ticks:
        ax.plot([t, t], [0, -0.07], color="0.1", linewidth=1.0)
        ax.text(t, -0.11, f"{t:g}", ha="center", va="bottom", fontsize=9)
    ax.text(
        (lo + hi) / 2, -0.42, "average rank (1 = best)", ha="center", va="bottom", fontsize=8, color="0.35"
    )
    cd_y = -0.62
    ax.plot([lo, lo + result.cd], [cd_y, cd_y], color="0.1", linewidth=1.4)
    for x in (lo, lo + result.cd):
        ax.plot([x, x], [cd_y - 0.05, cd_y + 0.05], color="0.1", linewidth=1.0)
    ax.text(lo + result.cd / 2, cd_y - 0.06, f"CD = {result.cd:.3g}", ha="center", va="bottom", fontsize=9)
    labels = []
    for i, (name, r) in enumerate(zip(names, ranks, strict=True)):
        if i < half:
            y = base + step * (i + 1)
            x_end, ha = lo - pad, "right"
        else:
            y = base + step * (m - i)
            x_end, ha = hi + pad, "left"
        ax.plot([r, r, x_end], [0, y, y], color="0.25", linewidth=0.9)
        gap = (-0.08 if ha == "right" else 0.08) * (span / 10 + 0.2)
        text = ax.text(x_end + gap, y, f"{literal(name)} ({r:.2f})", ha=ha, va="center", fontsize=9)
        labels.append((text, name, r))
    for g, (i, j) in enumerate(groups):
        y = 0.12 + bar_gap * g
        # at least _MIN_BAR of the axis: methods of one average rank (all tied) got a bar from 2.988 to
        # 3.012 on a 1-5 axis, a dot under their lines
        middle, half_bar = (
            (ranks[i] + ranks[j]) / 2,
            max((ranks[j] - ranks[i]) / 2 + 0.003 * span, _MIN_BAR * span / 2),
        )
        ax.plot([middle - half_bar, middle + half_bar], [y, y], color="0.05", linewidth=4,
                solid_capstyle="round")  # fmt: skip
    shown_text = f" (the best {m} shown)" if m < k else ""
    ax.set_title(
        title or f"{k} methods{shown_text}, {result.n_datasets} datasets; Nemenyi CD at α = {result.alpha:g}",
        fontsize=10,
    )
    wrap_title(ax)
    _fit_texts(fig, ax, (lo, hi), own, labels)
    if path is not None:
        fig.savefig(path, dpi=120, bbox_inches="tight")
    return fig


def _extents(ax: Any, renderer: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every text and line of the diagram as (anchor x in ranks, pixels left of it, pixels right of it)."""
    anchors, left, right = [], [], []
    for t in ax.texts:
        w = t.get_window_extent(renderer).width
        share = {"right": 1.0, "left": 0.0}.get(t.get_horizontalalignment(), 0.5)
        anchors.append(t.get_position()[0])
        left.append(w * share)
        right.append(w * (1.0 - share))
    for line in ax.get_lines():
        x = np.asarray(line.get_xdata(), dtype=float)
        half = line.get_linewidth() * ax.figure.dpi / 72.0  # a round cap's reach
        anchors += [x.min(), x.max()]
        left += [half, half]
        right += [half, half]
    return np.array(anchors), np.array(left) + _MARGIN, np.array(right) + _MARGIN


def _width_at(scale: float, anchors: np.ndarray, left: np.ndarray, right: np.ndarray) -> float:
    """Pixels the diagram takes when a rank is ``scale`` pixels wide."""
    return float(np.max(anchors * scale + right) - np.min(anchors * scale - left))


def _fit_texts(
    fig: Any, ax: Any, axis: tuple[float, float], own: bool, labels: list[tuple[Any, str, float]]
) -> None:
    """Hold every method name inside the axes, and the axes inside a figure of our own.

    The x limits were fixed multiples of the rank span, so long names ran past them; only ``path=``
    saved them whole (``bbox_inches="tight"``), while the figure returned, or drawn on ``ax=``, cut them.
    A figure of ours is widened to keep the rank axis ``_AXIS_INCHES`` long beside the names; on a
    caller's axes the rank axis takes what the names leave, and names that leave it less than
    ``_MIN_AXIS`` of the axes are cut shorter while they stay distinct (:func:`shorten_apart`: names
    of a sweep that differ only in the middle lost that part to the middle cut, so they were kept
    whole, ran past the figure and took the rank axis with them).
    """
    span = axis[1] - axis[0]
    renderer = fig.canvas.get_renderer()
    if own:
        anchors, left, right = _extents(ax, renderer)
        need = _width_at(_AXIS_INCHES * fig.dpi / span, anchors, left, right) / fig.dpi + 0.3
        width, height = fig.get_size_inches()
        fig.set_size_inches(max(width, need), height)
    names = [name for _, name, _ in labels]
    for layout in (True, False):  # before tight_layout (no text outside the axes), then at its width
        width = ax.get_window_extent().width
        for most in (None, 40, 30, 24, 18, 12, 8):
            cut = names if most is None else shorten_apart(names, most)
            if cut is None:  # no shorter cut tells them apart: keep the last one
                break
            for (text, _, r), name in zip(labels, cut, strict=True):
                text.set_text(f"{literal(name)} ({r:.2f})")
            anchors, left, right = _extents(ax, renderer)
            if own or _width_at(_MIN_AXIS * width / span, anchors, left, right) <= width:
                break
        _set_limits(ax, anchors, left, right, axis, width)
        if layout and fig.get_layout_engine() is None:
            fig.tight_layout()
        elif layout:  # the caller's engine (constrained layout) places the axes: tight_layout replaced it
            fig.draw_without_rendering()


def _set_limits(
    ax: Any, anchors: np.ndarray, left: np.ndarray, right: np.ndarray, axis: tuple[float, float], width: float
) -> None:
    """x limits at which the diagram's items fill the axes' ``width`` pixels: the pixels per rank found
    by bisection (the width they take grows with it), at least ``_MIN_AXIS`` of the axes a rank span.

    Items wider than the axes even then stick out evenly on both sides, and the window keeps the rank
    axis ``axis``: it began at the leftmost name, so a long one left the axis, the bars and the lines
    outside the limits, clipped away.
    """
    lo, hi = axis
    low, high = _MIN_AXIS * width / (hi - lo), width / (hi - lo)
    if _width_at(low, anchors, left, right) < width:
        for _ in range(60):
            mid = (low + high) / 2
            low, high = (mid, high) if _width_at(mid, anchors, left, right) <= width else (low, mid)
    first, last = float(np.min(anchors - left / low)), float(np.max(anchors + right / low))
    view = width / low
    start = first if last - first <= view else (first + last - view) / 2
    edge = _MARGIN / low
    start = min(max(start, hi + edge - view), lo - edge)
    ax.set_xlim(start, start + view)
