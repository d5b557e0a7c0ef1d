"""Every measure as a pure function of the count tensor ``counts[G, K, K]``.

The stage knows nothing of frames or keys: counts in, one float64 array per
measure out. :mod:`.registry` holds the names, :mod:`.compute` dispatches
them to the numba kernels, :mod:`.significance` turns statistics into
p-values.

Examples
--------
>>> import numpy as np
>>> from batcheval.measures import compute
>>> counts = np.array([[[28, 12], [30, 30]]])  # real × predicted, class 1 positive
>>> out = compute(counts, ["recall", "precision", "informedness"])
>>> {k: round(float(v[0]), 4) for k, v in out.items()}
{'recall': 0.5, 'precision': 0.7143, 'informedness': 0.2}
"""

from __future__ import annotations

from .compute import binary_cells, compute, compute_cells
from .names import higher_is_better
from .registry import (
    BINARY_EQUIVALENT,
    BINARY_MEASURES,
    BINARY_STATS,
    LOWER_IS_BETTER,
    MULTICLASS_MEASURES,
    MULTICLASS_STATS,
    check_names,
    default_measures,
    equivalent,
    with_beta,
)
from .significance import alpha_sbb, check_level, chi2_upper_tail

__all__ = [
    "BINARY_EQUIVALENT",
    "BINARY_MEASURES",
    "BINARY_STATS",
    "LOWER_IS_BETTER",
    "MULTICLASS_MEASURES",
    "MULTICLASS_STATS",
    "alpha_sbb",
    "binary_cells",
    "check_level",
    "check_names",
    "chi2_upper_tail",
    "compute",
    "compute_cells",
    "default_measures",
    "equivalent",
    "higher_is_better",
    "with_beta",
]


def __dir__() -> list[str]:
    """What ``dir()`` (and so tab completion) lists of ``be.measures``: its API, ``__all__``, not
    its submodules and ``annotations`` (PEP 562)."""
    return sorted(__all__)
