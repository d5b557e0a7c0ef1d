"""The exact tests of many binary tables in one pass: Fisher's exact test and the chance test, of
each distinct table once.

:func:`distinct_tests` visits the distinct tables of a group column (``first[d]``: a group holding
the d-th distinct table, found by :func:`~batcheval.kernels.count.distinct_tables`) and writes each
row that ``what`` asks for. The values are those of the kernels that compute them one at a time
(:func:`~batcheval.kernels.fisher.upper_tail`, :func:`~batcheval.kernels.chance.midp_cell`): one
pass instead of one per test, no copy of the distinct tables' cells, and one spread over the
threads. (The point measures and the χ² statistics of the distinct tables come from
:func:`~batcheval.kernels.binary.binary_measures` over their cells, whose loops vectorise.)
"""

from __future__ import annotations

import numpy as np

from .chance import log_factorials, midp_cell, summed_exactly
from .fisher import stirlerr_table, upper_tail
from .jit import jit_parallel, prange

#: ``what`` code of Fisher's one-sided p-value (toward positive association).
FISHER = -1
#: ``what`` code of the two-sided mid-p chance test of informedness = 0.
CHANCE = -2


# some 300-500 ns a table for both tests: every thread pays from a few thousand distinct tables
@jit_parallel(serial_below=2048)
def distinct_tests(tp, fp, fn, tn, first, what, out):
    """``out[i, d]`` for the table of group ``first[d]``: Fisher's p (``what[i]`` = :data:`FISHER`)
    or the chance test's mid-p (:data:`CHANCE`). NaN p-values for an empty table.

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
        if n > top and summed_exactly(n, tp[h] + fn[h], tp[h] + fp[h]):
            top = n
    lf = log_factorials(top, n_distinct)
    se = stirlerr_table(top_n)
    for d in prange(n_distinct):
        g = first[d]
        a, b, c, e = tp[g], fp[g], fn[g], tn[g]
        n = a + b + c + e
        for i in range(what.shape[0]):
            w = what[i]
            if w == FISHER:
                out[i, d] = np.nan if n == 0 else upper_tail(a, n, a + c, a + b, se)
            else:
                out[i, d] = midp_cell(a, n, a + c, a + b, lf)
