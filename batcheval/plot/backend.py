"""matplotlib, imported only when something is drawn (the ``plot`` extra), and what the charts share."""

from __future__ import annotations

__all__ = ["percent", "pyplot"]


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
