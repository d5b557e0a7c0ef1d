"""matplotlib, imported only when something is drawn (the ``plot`` extra)."""

from __future__ import annotations

__all__ = ["pyplot"]


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend, or an ImportError that names the extra."""
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("plotting needs matplotlib: pip install 'batcheval[plot]'") from exc
    return plt
