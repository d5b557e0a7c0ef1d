"""The cells at every (group, threshold) of a sweep, before any measure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from .. import measures as _measures
from ..core.encode import WIDE_INTEGERS
from ..core.table import ContingencyTable
from ..io.frames import check_free_names
from ..measures.registry import check_beta

__all__ = ["CELLS", "Swept", "pooled_empty"]

#: The cell columns of a sweep frame, in order.
CELLS = ("tp", "fp", "fn", "tn")


# below this many bytes numpy's own allocation (malloc, not a fresh mmap) is as good
_POOLED_FROM = 1 << 17


def pooled_empty(shape: int | tuple[int, ...], dtype: type | np.dtype) -> np.ndarray:
    """``np.empty(shape, dtype)`` (C order, writable) in memory from pyarrow's pool.

    numpy takes an array this large straight from the kernel (mmap) and hands it back on free,
    so every sweep faulted its ~1.2 GB of output columns in afresh, each page zeroed by the
    kernel before the kernel wrote it: as costly as the writing itself, and on a virtual
    machine more. pyarrow's allocator (mimalloc or jemalloc) keeps freed pages for the next
    request, so a sweep after a sweep writes into memory already mapped. polars wraps the
    arrays without copying, and the buffer lives as long as any column made from it.

    Examples
    --------
    >>> a = pooled_empty((2, 3), np.int64)
    >>> a[:] = 7
    >>> a.shape, a.dtype, int(a.sum()), a.flags.writeable
    ((2, 3), dtype('int64'), 42, True)
    """
    dt = np.dtype(dtype)
    shape = (shape,) if isinstance(shape, int | np.integer) else tuple(shape)
    size = int(np.prod(shape, dtype=np.int64))
    if size * dt.itemsize < _POOLED_FROM:
        # malloc serves these from memory already mapped; and a small sweep need not import pyarrow
        return np.empty(shape, dtype=dt)
    import pyarrow as pa

    return np.frombuffer(pa.allocate_buffer(size * dt.itemsize), dtype=dt).reshape(shape)


def _repeatable(key: pl.Series) -> bool:
    """Whether polars wraps the numpy array of ``key``'s values as the same dtype without a copy."""
    numeric = (key.dtype.is_integer() and key.dtype not in WIDE_INTEGERS) or key.dtype.is_float()
    return numeric and not key.null_count()


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
        if isinstance(self.per_group, int | np.integer) and all(map(_repeatable, self.keys.iter_columns())):
            # numeric keys: each value written T times into pooled memory and wrapped without a
            # copy, rather than an index of every output row built and gathered through
            per = int(self.per_group)
            repeated = []
            for key in self.keys.iter_columns():
                values = key.to_numpy()
                out = pooled_empty((len(values), per), values.dtype)
                out[:] = values[:, None]
                repeated.append(pl.Series(key.name, out.reshape(-1), dtype=key.dtype))
            return pl.DataFrame([*repeated, thr])
        index_type = pl.get_index_type()
        # an index Series gathers 2-3x faster, and built in the index's own dtype it is not cast
        # (a 10M-row int64 index cast to UInt32 cost as much as the gather itself)
        as_index = len(self.threshold) < (1 << 32) or index_type == pl.UInt64
        dtype = (np.uint32 if index_type == pl.UInt32 else np.uint64) if as_index else np.int64
        groups = np.arange(self.keys.height, dtype=dtype)
        if isinstance(self.per_group, int | np.integer):
            # broadcast-and-copy: several times faster than np.repeat at 10M rows
            rows = pooled_empty((len(groups), int(self.per_group)), dtype)
            rows[:] = groups[:, None]
            rows = rows.reshape(-1)
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
        check_free_names(self.keys.columns, list(values), "the measures")  # as ContingencyTable.measures
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
        return ContingencyTable(self.key_rows(), pl.Series("class", [False, True]), counts, copy=False)
