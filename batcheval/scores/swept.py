"""The cells at every (group, threshold) of a sweep, before any measure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from .. import measures as _measures
from ..core.table import ContingencyTable
from ..measures.registry import check_beta

__all__ = ["CELLS", "Swept"]

#: The cell columns of a sweep frame, in order.
CELLS = ("tp", "fp", "fn", "tn")


@dataclass
class Swept:
    """The cells at every (group, threshold), before any measure.

    ``keys`` has one row per group, and group r owns the next ``per_group[r]``
    rows of ``threshold`` and the cell columns (a scalar when every group has
    the same thresholds).
    """

    keys: pl.DataFrame
    per_group: int | np.ndarray
    threshold: np.ndarray
    n: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    fn: np.ndarray
    tn: np.ndarray
    #: measures computed with the cells (:func:`batcheval.kernels.sweep.sweep_columns`), by name
    measured: dict[str, np.ndarray] | None = None

    def key_rows(self) -> pl.DataFrame:
        """The keys repeated for each threshold, then the ``threshold`` column."""
        thr = pl.Series("threshold", self.threshold, dtype=pl.Float64)
        if not self.keys.width:
            return pl.DataFrame([thr])
        index_type = pl.get_index_type()
        # an index Series gathers 2-3x faster, and built in the index's own dtype it is not cast
        # (a 10M-row int64 index cast to UInt32 cost as much as the gather itself)
        as_index = len(self.threshold) < (1 << 32) or index_type == pl.UInt64
        dtype = (np.uint32 if index_type == pl.UInt32 else np.uint64) if as_index else np.int64
        groups = np.arange(self.keys.height, dtype=dtype)
        if isinstance(self.per_group, int | np.integer):
            # broadcast-and-copy: several times faster than np.repeat at 10M rows
            rows = np.broadcast_to(groups[:, None], (len(groups), int(self.per_group))).ravel()
        else:
            rows = np.repeat(groups, self.per_group)
        if as_index:
            return self.keys[pl.Series(rows, dtype=index_type)].hstack([thr])
        return self.keys[rows].hstack([thr])

    def frame(self, measures: Sequence[str] | None, beta: float | None) -> pl.DataFrame:
        """The sweep's output: key rows, ``n``, the cells and the measures."""
        head = self.key_rows()
        cells = (self.tp, self.fp, self.fn, self.tn)
        names = None if measures is None else list(dict.fromkeys(measures))
        if self.measured is not None and names == list(self.measured):
            check_beta(beta)  # as compute_cells would
            values = self.measured
        else:
            values = _measures.compute_cells(*cells, measures, beta=beta)
        return head.hstack(
            [pl.Series("n", self.n, dtype=pl.Int64)]
            + [pl.Series(name, c, dtype=pl.Int64) for name, c in zip(CELLS, cells, strict=True)]
            + [pl.Series(name, v, dtype=pl.Float64) for name, v in values.items()]
        )

    def table(self) -> ContingencyTable:
        """Keys × thresholds as one accumulator of 2×2 tables (classes False, True)."""
        counts = np.empty((len(self.tp), 2, 2), dtype=np.int64)
        counts[:, 1, 1], counts[:, 0, 1] = self.tp, self.fp
        counts[:, 1, 0], counts[:, 0, 0] = self.fn, self.tn
        return ContingencyTable(self.key_rows(), pl.Series("class", [False, True]), counts)
