"""matplotlib, imported only when something is drawn (the ``plot`` extra), and what the charts share."""

from __future__ import annotations

import os
import textwrap
import weakref
from pathlib import Path
from typing import Any

from ..errors import InvalidArgumentError

__all__ = [
    "MAX_LABEL",
    "check_axes",
    "check_path",
    "check_title",
    "fit_legend",
    "lay_out",
    "legend_below",
    "literal",
    "own_layout",
    "percent",
    "pyplot",
    "shorten",
    "shorten_apart",
    "wrap_title",
]

MAX_LABEL = 60  # characters of a name in a legend or on an axis; longer names keep their two ends


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend, or an ImportError that names the extra."""
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("plotting needs matplotlib: pip install 'batcheval[plot]'") from exc
    return plt


def check_axes(ax: Any) -> None:
    """Refuse an ``ax=`` that is not one matplotlib Axes (``None``: the chart makes its own figure).

    A string or the array of axes ``plt.subplots(1, 2)`` returns raised a bare AttributeError
    (``'str' object has no attribute 'figure'``) from the drawing.
    """
    if ax is None:
        return
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise InvalidArgumentError(
            f"ax= takes one matplotlib Axes (as from fig, ax = plt.subplots()), got a {type(ax).__name__}"
        )


def check_title(title: Any) -> None:
    """Refuse a ``title=`` that is not a string (``None``: the chart's own title), which matplotlib
    would draw as its ``str()``: ``1``, ``['a']`` or an object's repr.

    Examples
    --------
    >>> check_title("runs"), check_title(None)
    (None, None)
    >>> check_title(1)
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: title= takes a string, got 1
    """
    if title is not None and not isinstance(title, str):
        raise InvalidArgumentError(f"title= takes a string, got {title!r}")


def check_path(path: Any) -> None:
    """Refuse a ``path=`` that ``Figure.savefig`` cannot write, before anything is drawn.

    A missing directory or a directory itself raised a bare FileNotFoundError or
    IsADirectoryError after the drawing, and an unknown extension matplotlib's ValueError.
    ``None`` (no file) and an open file object pass; a path without an extension is written
    with matplotlib's default format (PNG), its extension appended.

    Examples
    --------
    >>> check_path("chart.png")
    >>> check_path("chart.xyz")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: path='chart.xyz' cannot be written: ...
    """
    if path is None or hasattr(path, "write"):
        return
    if not isinstance(path, str | os.PathLike):
        raise InvalidArgumentError(f"path= takes a file path (a str or a pathlib.Path), got {path!r}")
    target = Path(path)
    if target.is_dir():
        # before the extension savefig would append: a directory "charts" was written as charts.png
        # beside it, where a directory is refused
        raise InvalidArgumentError(f"path={str(path)!r} cannot be written: it is a directory")
    suffix = target.suffix.lower()
    if suffix:
        from matplotlib.backend_bases import FigureCanvasBase

        known = FigureCanvasBase.get_supported_filetypes()
        if suffix[1:] not in known:
            raise InvalidArgumentError(
                f"path={str(path)!r} cannot be written: matplotlib writes no {suffix!r} files; use "
                f"one of {', '.join('.' + k for k in sorted(known))}"
            )
    else:  # savefig appends the default format's extension
        import matplotlib

        target = target.with_name(f"{target.name}.{matplotlib.rcParams['savefig.format']}")
    if not target.parent.is_dir():
        raise InvalidArgumentError(
            f"path={str(path)!r} cannot be written: no directory {str(target.parent)!r}"
        )
    if target.is_dir():
        raise InvalidArgumentError(f"path={str(path)!r} cannot be written: it is a directory")


def percent(level: float) -> str:
    """A level as a percentage with the digits it has: ``{:.0%}`` printed 0.999 as 100%.

    Examples
    --------
    >>> [percent(v) for v in (0.95, 0.975, 0.999, 0.9999)]
    ['95%', '97.5%', '99.9%', '99.99%']
    """
    return f"{round(100 * level, 8):g}%"


def shorten(name: str, most: int = MAX_LABEL) -> str:
    """``name`` cut in the middle to ``most`` characters: names of a sweep differ at the end
    (``..._number_07``) as often as at the start.

    Examples
    --------
    >>> shorten("run=" + "x" * 70 + "_07", 20)
    'run=xxxxxx…xxxxxx_07'
    """
    if len(name) <= most:
        return name
    tail = (most - 1) // 2
    return name[: most - 1 - tail] + "…" + name[len(name) - tail :]


def literal(text: str) -> str:
    """``text`` as matplotlib draws it letter for letter: every ``$`` escaped, since a name with two
    (``budget_$5_to_$10``) was parsed as mathtext, raising a ValueError (``5_to_``) or drawing
    ``run_$x$`` as math.

    Examples
    --------
    >>> literal("budget_$5_to_$10")
    'budget_\\\\$5_to_\\\\$10'
    """
    return text.replace("$", r"\$")


def shorten_apart(names: list[str], most: int) -> list[str] | None:
    """``names`` cut to at most ``most`` characters and still told apart, or None when no cut does.

    Cut in the middle (:func:`shorten`) when that keeps them distinct; else around the part in which
    they differ (a sweep's ``model_C=0.01_penalty=l2`` and ``model_C=10_penalty=l2`` differ only in the
    middle, which the middle cut dropped), with as much of its context as fits; else keeping their
    starts, else their ends.

    Examples
    --------
    >>> shorten_apart(["model_C=0.01_penalty=l2_solver=lbfgs", "model_C=10_penalty=l2_solver=lbfgs"], 16)
    ['…el_C=0.01_pena…', '…del_C=10_penal…']
    >>> shorten_apart(["ab", "ac"], 1) is None
    True
    """
    if most < 1:
        return None
    apart = len(set(names))
    for cut in (_cut_middle, _cut_around_difference, _cut_end, _cut_start):
        short = [name if len(name) <= most else cut(name, most, names) for name in names]
        if len(set(short)) == apart and all(len(s) <= most for s in short):
            return short
    return None


def _cut_middle(name: str, most: int, names: list[str]) -> str:
    return shorten(name, most)


def _cut_end(name: str, most: int, names: list[str]) -> str:
    return name[: most - 1] + "…"


def _cut_start(name: str, most: int, names: list[str]) -> str:
    return "…" + name[len(name) - most + 1 :]


def _cut_around_difference(name: str, most: int, names: list[str]) -> str:
    """``name`` cut to the part in which ``names`` differ (after their common start and before their
    common end), widened evenly by its neighbours to ``most`` characters, ``…`` where it was cut."""
    shortest = min(len(n) for n in names)
    start = _common_start(names)
    end = len(name) - min(_common_start([n[::-1] for n in names]), shortest - start)
    if end - start > most - 2:  # the differing part itself is too long: cut in its middle
        core = shorten(name[start:end], max(most - 2, 1))
        return ("…" if start > 0 else "") + core + ("…" if end < len(name) else "")
    room = most - (end - start) - 2  # beside two ellipses
    left = min(start, room // 2 + max(0, room - room // 2 - (len(name) - end)))
    right = min(len(name) - end, room - left)
    lo, hi = start - left, end + right
    return ("…" if lo > 0 else "") + name[lo:hi] + ("…" if hi < len(name) else "")


#: each axes' title as its chart set it, and as :func:`wrap_title` last wrapped it: a later layout
#: that narrows the axes wraps it again (:func:`lay_out`), unless its owner has set another title
_TITLES: weakref.WeakKeyDictionary[Any, tuple[str, str]] = weakref.WeakKeyDictionary()


def wrap_title(ax: Any) -> None:
    """Break each line of the axes' title that is wider than the axes into lines that are not.

    A long ``title=`` ran off both sides of the figure (``fig.savefig`` cut it; ``path=``, which
    saves the tight box, drew a figure twice as wide around it). Lines are broken at spaces, a word
    wider than the axes within itself; the chart's own subtitles are lines of their own.
    """
    title = ax.title
    text = title.get_text()
    if not text:
        return
    raw, wrapped = _TITLES.get(ax, (None, None))
    if text == wrapped:  # wrapped before, at another width: start from the chart's own lines
        text = raw
    else:
        raw = text
    renderer = ax.figure.canvas.get_renderer()
    room = ax.get_window_extent(renderer).width
    lines = []
    for line in text.split("\n"):
        title.set_text(line)
        width = title.get_window_extent(renderer).width
        if width <= room or len(line) < 2:
            lines.append(line)
            continue
        chars = max(8, int(len(line) * room / width))  # the line's own mean character width
        lines.extend(textwrap.wrap(line, chars, break_on_hyphens=False))
    title.set_text("\n".join(lines))
    _TITLES[ax] = (raw, title.get_text())


def fit_legend(ax: Any, legend: Any) -> None:
    """Grow the figure to hold the legend beside the axes, the axes keeping their size in inches.

    A legend outside the axes of a fixed figure ran off it (40 curves), or tight_layout squeezed the
    axes into a strip to make room (long names). Only a figure of this one axes and no layout engine
    is resized; any other is laid out as before (:func:`lay_out`).
    """
    fig = ax.figure
    if len(fig.axes) != 1 or fig.get_layout_engine() is not None:
        lay_out(fig)
        return
    legend.set_in_layout(False)
    fig.tight_layout()
    w, h = fig.get_size_inches()
    box = legend.get_window_extent(fig.canvas.get_renderer()).transformed(fig.dpi_scale_trans.inverted())
    pos = ax.get_position()
    new_w = max(w, box.x1 + 0.15)
    below = max(0.0, 0.15 - box.y0)  # the legend's foot under the figure's bottom
    new_h = h + below
    fig.set_size_inches(new_w, new_h)
    left, bottom = pos.x0 * w / new_w, (pos.y0 * h + below) / new_h
    right, top = left + pos.width * w / new_w, bottom + pos.height * h / new_h
    if ax.get_subplotspec() is not None:
        # through the subplot parameters, as tight_layout moves it: after set_position a caller's own
        # tight_layout (the demo's) no longer counted the legend and pushed it off the figure
        fig.subplots_adjust(left=left, bottom=bottom, right=right, top=top)
    else:
        ax.set_position([left, bottom, right - left, top - bottom])
    legend.set_in_layout(True)


#: the legends :func:`legend_below` placed, by axes: each later chart's layout moves them all
_BELOW: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def legend_below(ax: Any, legend: Any) -> None:
    """Lay the figure out with ``legend`` under the axes' x label: in a figure of several axes a
    legend beside each of them took the width the curves need (long run names left strips of axes
    and titles wrapped a word a line)."""
    fig = ax.figure
    _BELOW[ax] = legend
    for _ in range(3):  # the layout moves the axes and the anchors are in their fraction: settle them
        lay_out(fig)
        renderer = fig.canvas.get_renderer()
        for other in fig.axes:
            below = _BELOW.get(other)
            if below is None or other.get_legend() is not below:
                continue
            box = other.get_window_extent(renderer)
            foot = other.xaxis.get_tightbbox(renderer)
            bottom = box.y0 if foot is None else min(foot.y0, box.y0)
            gap = 4.0 * fig.dpi / 72  # four points under the label
            anchor = (0.5, (bottom - gap - box.y0) / max(box.height, 1.0))
            below.set_bbox_to_anchor(anchor, transform=other.transAxes)


def own_layout(fig: Any) -> bool:
    """Whether batcheval lays ``fig`` out (:func:`lay_out`): it has no layout engine of the caller's."""
    from matplotlib.layout_engine import PlaceHolderLayoutEngine

    engine = fig.get_layout_engine()
    return engine is None or isinstance(engine, PlaceHolderLayoutEngine)


def lay_out(fig: Any) -> None:
    """``tight_layout`` for a figure without a layout engine; a figure with one (the caller's
    ``layout="constrained"`` or ``"tight"``) is left to it, which places the axes and their legends
    when the figure is drawn.

    tight_layout replaced a caller's constrained layout ("The figure layout has changed to tight"), as
    the CD diagram had learnt not to. What a ``tight_layout()`` call leaves behind (matplotlib's
    placeholder engine) is no engine of the caller's: such a figure is laid out tightly again.
    """
    if own_layout(fig):
        fig.tight_layout()
        # the layout narrows the axes drawn before this one (a chart on each of a caller's subplots):
        # their titles, wrapped at the old width, ran off the figure's edge
        charts = [ax for ax in fig.axes if _TITLES.get(ax, (None, None))[1] == ax.title.get_text()]
        before = [ax.title.get_text() for ax in charts]
        for ax in charts:
            wrap_title(ax)
        if [ax.title.get_text() for ax in charts] != before:
            fig.tight_layout()


def _common_start(names: list[str]) -> int:
    """How many first characters every one of ``names`` shares."""
    first, last = min(names), max(names)  # the most different pair in sort order bounds all of them
    return next((i for i, (a, b) in enumerate(zip(first, last, strict=False)) if a != b), len(first))
