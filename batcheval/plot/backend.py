"""matplotlib, imported only when something is drawn (the ``plot`` extra), and what the charts share."""

from __future__ import annotations

from typing import Any

__all__ = ["fit_legend", "percent", "pyplot"]


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend, or an ImportError that names the extra."""
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("plotting needs matplotlib: pip install 'batcheval[plot]'") from exc
    return plt


def percent(level: float) -> str:
    """A level as a percentage with the digits it has: ``{:.0%}`` printed 0.999 as 100%.

    Examples
    --------
    >>> [percent(v) for v in (0.95, 0.975, 0.999, 0.9999)]
    ['95%', '97.5%', '99.9%', '99.99%']
    """
    return f"{round(100 * level, 8):g}%"


def fit_legend(ax: Any, legend: Any) -> None:
    """Grow the figure to hold the legend beside the axes, the axes keeping their size in inches.

    A legend outside the axes of a fixed figure ran off it (40 curves), or tight_layout squeezed the
    axes into a strip to make room (long names). Only a figure of this one axes and no layout engine
    is resized; any other is laid out as before.
    """
    fig = ax.figure
    if len(fig.axes) != 1 or fig.get_layout_engine() is not None:
        fig.tight_layout()
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
