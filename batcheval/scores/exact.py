"""Every group's scores in one array, grouped and sorted: the exact ROC points.

Scores are moved into one array grouped by group, each group is sorted, and
one walk per group from the top score down gives every distinct score with its
cumulative tp and fp (:mod:`batcheval.kernels.exact`). Exact areas
(:mod:`.auc`) integrate these points; ``thresholds="exact"`` sweeps
(:mod:`.sweep`) emit them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from ..kernels import exact as _exact
from ..kernels.jit import n_threads
from .prepare import Scored, check_nonfinite
from .swept import Swept, pooled_empty

__all__ = ["Points", "Segments", "exact_sweep", "group_blocks", "grouped_scores"]


@dataclass
class Segments:
    """Scores grouped by group: group g owns ``scores[starts[g]:starts[g+1]]``,
    its negatives first and then its ``positives[g]`` positives."""

    keys: pl.DataFrame
    starts: np.ndarray
    scores: np.ndarray
    positives: np.ndarray

    @property
    def negatives(self) -> np.ndarray:
        return np.diff(self.starts) - self.positives

    def blocks(self) -> np.ndarray:
        """:func:`group_blocks` of these groups, for the threads there are."""
        return group_blocks(self.starts, n_threads())

    def points(self) -> Points:
        """Every group's distinct scores, descending, with cumulative tp and fp."""
        n = len(self.scores)
        n_groups = len(self.positives)
        thr = np.empty(n)
        tp = np.empty(n, dtype=np.int64)
        fp = np.empty(n, dtype=np.int64)
        n_points = np.zeros(n_groups, dtype=np.int64)
        if n_groups:
            _exact.group_points(
                self.blocks(), self.starts, self.scores, self.positives, thr, tp, fp, n_points
            )
        starts = np.concatenate(([0], np.cumsum(n_points)))
        total = int(starts[-1])
        if total != n:  # ties left gaps between groups
            out = np.empty(total), np.empty(total, dtype=np.int64), np.empty(total, dtype=np.int64)
            _exact.compact_points(self.starts, starts, thr, tp, fp, *out)
            thr, tp, fp = out
        return Points(self.keys, starts, thr, tp, fp, self.positives, self.negatives)


@dataclass
class Points:
    """Each group's distinct scores (descending) with cumulative tp and fp."""

    keys: pl.DataFrame
    starts: np.ndarray  # starts[g]: first point of group g
    threshold: np.ndarray
    tp: np.ndarray
    fp: np.ndarray
    positives: np.ndarray
    negatives: np.ndarray

    def cells(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(tp, fp, fn, tn)`` at every point."""
        per_group = np.diff(self.starts)
        fn = np.repeat(self.positives, per_group) - self.tp
        tn = np.repeat(self.negatives, per_group) - self.fp
        return self.tp, self.fp, fn, tn


def group_blocks(starts: np.ndarray, threads: int) -> np.ndarray:
    """Bounds of runs of whole groups with about equal rows, a few for each thread.

    The kernels that sort each group take one run at a time and sort its groups in one set of
    scratch arrays; ``prange`` hands each thread an equal count of runs, so runs of equal rows
    give the threads equal work however the group sizes vary.

    Examples
    --------
    >>> group_blocks(np.array([0, 5, 10, 30, 40]), 1).tolist()  # groups 0-1, 2, none, 3
    [0, 2, 3, 3, 4]
    """
    n_groups = len(starts) - 1
    n_blocks = max(1, min(n_groups, 4 * threads))
    targets = np.linspace(0, starts[-1], n_blocks + 1)
    blocks = np.searchsorted(starts[:-1], targets, side="left")
    blocks[0], blocks[-1] = 0, n_groups
    return np.maximum.accumulate(blocks).astype(np.int64)


def grouped_scores(scored: Scored) -> Segments:
    """Two-pass counting sort of the finite scores by group and class.

    The first pass counts each thread's rows per group and class; the second
    writes each score to its group's negatives or positives, which places the
    label without writing it. A label column's own coding gives every row a
    class, so only non-finite scores can leave rows out. Unless some are
    known to, the first pass reads no scores; the second counts the rows it
    skips, and finding any there means raising, or (with ``drop_nonfinite``)
    counting again.
    """
    n_groups = scored.space.size
    n_rows = len(scored.score)
    # per-thread sizes cost threads·2G cells: one thread for sparse key spaces
    threads = n_threads() if 2 * n_groups * n_threads() <= max(n_rows, 1 << 20) else 1
    rows = scored.rows
    check = bool(scored.nonfinite)
    # the second pass reads each row's cell, 2 or 4 bytes, instead of its keys and label again
    width = np.uint16 if 2 * n_groups < 1 << 16 else np.uint32 if 2 * n_groups < 1 << 32 else np.int64
    cells = pooled_empty(n_rows, width)  # past the last cell: a row skipped
    while True:
        per_thread = np.zeros((threads, 2 * n_groups), dtype=np.int64)
        _exact.segment_cells(*rows, check, per_thread, cells)
        per_cell = per_thread.sum(axis=0)
        first = np.concatenate(([0], np.cumsum(per_cell)))
        # thread-minor offsets within a cell keep its rows in row order
        at = np.ascontiguousarray(first[:-1] + np.cumsum(per_thread, axis=0) - per_thread)
        grouped = pooled_empty(int(first[-1]), np.float64)
        skipped = _exact.scatter_cells(cells, scored.score, at, grouped)
        if check or not skipped:
            break
        check_nonfinite(
            scored.score_name, int(skipped), scored.drop_nonfinite, scored.score, scored.nulls_dropped
        )
        check = True
    per_group = per_cell[0::2] + per_cell[1::2]
    present = np.flatnonzero(per_group)  # without keys the one group, or none when no rows are left
    starts = np.append(first[2 * present], first[-1])
    return Segments(scored.space.decode(present), starts, grouped, per_cell[1::2][present])


def exact_sweep(scored: Scored) -> Swept:
    """Cells at every distinct score of each group (``thresholds="exact"``)."""
    pts = grouped_scores(scored).points()
    tp, fp, fn, tn = pts.cells()
    per_group = np.diff(pts.starts)
    n = np.repeat(pts.positives + pts.negatives, per_group)
    return Swept(pts.keys, per_group, pts.threshold, n, tp, fp, fn, tn)
