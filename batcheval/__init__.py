"""batcheval: evaluate classifiers at the scale of whole experiment sweeps.

Predictions for many runs come in as a frame; batcheval counts them into one
K×K contingency table per group with numba kernels and computes every
measure for all groups at once, returning polars frames.

    frame → encoded keys → counts[G, K, K] → measures → polars frame
"""

from . import measures
from ._version import __version__
from .core.table import ContingencyTable
from .errors import (
    BatchevalError,
    BatchevalWarning,
    ClassMismatchError,
    ColumnNotFoundError,
    CountOverflowError,
    DuplicateColumnError,
    InvalidArgumentError,
    InvalidLabelError,
    InvalidScoreError,
    MemoryBudgetError,
    MergeError,
    NullValuesError,
    SourceError,
    UnknownMeasureError,
)
from .evaluate import evaluate
from .inference import intervals
from .inference.adjust import adjust
from .inference.cv import compare
from .inference.delong import compare_auc
from .inference.leaderboard import leaderboard
from .inference.ranks import RankResult, rank_methods
from .measures import BINARY_MEASURES, MULTICLASS_MEASURES, alpha_sbb
from .plot import plot, plot_confusion, report
from .scores.auc import AUC_AVERAGE_ALIASES, AUC_AVERAGES, auc
from .scores.curves import CHARTS, curves
from .scores.sweep import sweep

__all__ = [
    "AUC_AVERAGES",
    "AUC_AVERAGE_ALIASES",
    "BINARY_MEASURES",
    "CHARTS",
    "MULTICLASS_MEASURES",
    "BatchevalError",
    "BatchevalWarning",
    "ClassMismatchError",
    "ColumnNotFoundError",
    "ContingencyTable",
    "CountOverflowError",
    "DuplicateColumnError",
    "InvalidArgumentError",
    "InvalidLabelError",
    "InvalidScoreError",
    "MemoryBudgetError",
    "MergeError",
    "NullValuesError",
    "RankResult",
    "SourceError",
    "UnknownMeasureError",
    "__version__",
    "adjust",
    "alpha_sbb",
    "auc",
    "compare",
    "compare_auc",
    "curves",
    "evaluate",
    "intervals",
    "leaderboard",
    "measures",
    "plot",
    "plot_confusion",
    "rank_methods",
    "report",
    "sweep",
]
