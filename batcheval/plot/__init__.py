"""Charts: curve frames (:mod:`.charts`) and leaderboard forest plots (:mod:`.forest`), drawn with
matplotlib (the ``plot`` extra), which is imported only when something is drawn."""

from .charts import plot
from .report import plot_confusion, report

__all__ = ["plot", "plot_confusion", "report"]
