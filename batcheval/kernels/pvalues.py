"""The per-table tests of many binary tables in one pass: Fisher's exact test, the chance test and
the χ² statistics whose tails are wanted, of each distinct table once.

:func:`distinct_tests` visits the distinct tables of a group column (``first[d]``: a group holding
the d-th distinct table, found by :func:`~batcheval.kernels.count.distinct_tables`) and writes each
row that ``what`` asks for. The values are those of the kernels that compute them one at a time
(:func:`~batcheval.kernels.fisher.upper_tail`, :func:`~batcheval.kernels.chance.midp_cell`,
:func:`~batcheval.kernels.binary.measure_value`): one pass instead of one per test, no copy of the
distinct tables' cells, and one spread over the threads.
"""

from __future__ import annotations

import math

import numpy as np

from .binary import measure_value
from .chance import EXACT_VARIANCE, INT_LIMIT, TABLE_MIN, TABLE_PER_GROUP, midp_cell
from .fisher import stirlerr_table, upper_tail
from .jit import jit_parallel, prange

#: ``what`` code of Fisher's one-sided p-value (toward positive association).
FISHER = -1
#: ``what`` code of the two-sided mid-p chance test of informedness = 0.
CHANCE = -2


# some 300-500 ns a table for both tests: every thread pays from a few thousand distinct tables
@jit_parallel(serial_below=2048)
def distinct_tests(tp, fp, fn, tn, first, what, b2, out):
    """``out[i, d]`` for the table of group ``first[d]``: Fisher's p (``what[i]`` = :data:`FISHER`),
    the chance test's mid-p (:data:`CHANCE`) or measure ``NAMES[what[i]]`` of
    :mod:`~batcheval.kernels.binary` with ``b2`` = β². NaN p-values for an empty table.

    ``tp fp fn tn`` are the int64 cell columns of every group.
    """
    n_distinct = first.shape[0]
    # ln k! up to the largest n whose chance test is summed exactly, as binary_chance builds it
    top = -1
    top_n = 0  # and Fisher's Stirling terms up to the largest n
    for d in range(n_distinct):
        h = first[d]
        n = tp[h] + fp[h] + fn[h] + tn[h]
        top_n = max(top_n, n)
        r = tp[h] + fn[h]
        p = tp[h] + fp[h]
        if n > top and 0 < r < n and 0 < p < n < INT_LIMIT:
            nf, rf, pf = float(n), float(r), float(p)
            if rf * (nf - rf) / nf * (pf * (nf - pf) / (nf * (nf - 1.0))) <= EXACT_VARIANCE:
                top = n
    size = max(min(top + 1, TABLE_PER_GROUP * n_distinct + TABLE_MIN), 0)
    lf = np.empty(size, np.float64)
    for i in range(size):
        lf[i] = math.lgamma(float(i) + 1.0)
    se = stirlerr_table(top_n)
    for d in prange(n_distinct):
        g = first[d]
        a, b, c, e = tp[g], fp[g], fn[g], tn[g]
        n = a + b + c + e
        for i in range(what.shape[0]):
            w = what[i]
            if w == FISHER:
                out[i, d] = np.nan if n == 0 else upper_tail(a, n, a + c, a + b, se)
            elif w == CHANCE:
                out[i, d] = midp_cell(a, n, a + c, a + b, lf)
            else:
                out[i, d] = measure_value(w, a, b, c, e, b2)
