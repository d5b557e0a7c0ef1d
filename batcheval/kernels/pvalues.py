"""The exact tests of many binary tables in one pass: Fisher's exact test and the chance test, of
each distinct table once.

:func:`distinct_tests` visits the distinct tables of a group column (``first[d]``: a group holding
the d-th distinct table, found by :func:`~batcheval.kernels.count.distinct_tables`) and writes each
row that ``what`` asks for. The values are those of the kernels that compute them one at a time
(:func:`~batcheval.kernels.fisher.upper_tail`, :func:`~batcheval.kernels.chance.midp_cell`): one
pass instead of one per test, no copy of the distinct tables' cells, and one spread over the
threads.

:func:`distinct_pass` is what :mod:`batcheval.measures` runs: the same tests, the point measures of
:func:`~batcheval.kernels.binary.program` (a block of distinct tables at a time, whose loops
vectorise) and the χ² tails of one degree of freedom (scipy's own compiled erfc), all in one pass
over the distinct tables, so that the measure stage spreads over the threads once for them.
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from . import binary
from .chance import WIDE_LEFT, log_factorials, midp_cell, summed_exactly
from .fisher import stirlerr_table, upper_tail
from .jit import jit_inline, jit_parallel, n_threads, prange

#: ``what`` code of Fisher's one-sided p-value (toward positive association).
FISHER = -1
#: ``what`` code of the two-sided mid-p chance test of informedness = 0.
CHANCE = -2


@jit_inline
def _test_tables(tp, fp, fn, tn, first):
    """``(ln k!, Stirling terms)`` for the distinct tables ``first``: ln k! up to the largest n
    whose chance test is summed exactly, as binary_chance builds it, and Fisher's Stirling terms
    up to the largest n."""
    # typed int64 from the start: a literal's own type would compile the table builders twice
    top = np.int64(-1)
    top_n = np.int64(0)
    for d in range(first.shape[0]):
        h = first[d]
        n = tp[h] + fp[h] + fn[h] + tn[h]
        top_n = max(top_n, n)
        if n > top and summed_exactly(n, tp[h] + fn[h], tp[h] + fp[h]):
            top = n
    return log_factorials(top, first.shape[0]), stirlerr_table(top_n)


# some 300-500 ns a table for both tests: every thread pays from a few thousand distinct tables
@jit_parallel(serial_below=2048)
def distinct_tests(tp, fp, fn, tn, first, what, out, wide):
    """``out[i, d]`` for the table of group ``first[d]``: Fisher's p (``what[i]`` = :data:`FISHER`)
    or the chance test's mid-p (:data:`CHANCE`). NaN p-values for an empty table.

    ``tp fp fn tn`` are the int64 cell columns of every group. ``wide``: as
    :func:`~batcheval.kernels.chance.midp_cell`'s; returns how many tables it left at
    :data:`~batcheval.kernels.chance.WIDE_LEFT`.
    """
    n_distinct = first.shape[0]
    lf, se = _test_tables(tp, fp, fn, tn, first)
    missed = 0
    for d in prange(n_distinct):
        g = first[d]
        a, b, c, e = tp[g], fp[g], fn[g], tn[g]
        n = a + b + c + e
        left = 0
        for i in range(what.shape[0]):
            w = what[i]
            if w == FISHER:
                out[i, d] = np.nan if n == 0 else upper_tail(a, n, a + c, a + b, se)
            else:
                out[i, d] = midp_cell(a, n, a + c, a + b, lf, se, wide)
                if out[i, d] == WIDE_LEFT:
                    left = 1
        missed += left
    return missed


# -- scipy's erfc inside a kernel ----------------------------------------------------------------
# The χ² tails of one degree of freedom are scipy.special.erfc(sqrt(x / 2)). Called from a kernel
# they run in the pass that computes their statistics, spread over its threads, instead of in a
# thread pool of their own after it. The kernel calls scipy's own compiled erfc (cython_special's
# double version: the function the ufunc loops over, so the same bits) by a symbol name that
# register_erfc binds to its address: a name, unlike a function pointer held as a constant, keeps
# the kernel in numba's disk cache.
_ERFC_SYMBOL = "batcheval_scipy_erfc"
#: how the double version's capsule signature starts (after it, Cython's skip-dispatch flag)
_ERFC_SIGNATURE = b"double (double"
_erfc_bound: list[bool] = []


def register_erfc() -> None:
    """Bind the symbol that :func:`distinct_pass` calls to scipy's erfc (once; before its first
    call, which would otherwise fail to link)."""
    if _erfc_bound:
        return
    import ctypes

    from llvmlite import binding
    from numba.extending import get_cython_function_address
    from scipy.special import cython_special

    # the fused erfc's double version, whose C prototype _erfc declares: check the capsule's
    # signature rather than trust the fused index, so that a scipy that reorders them fails here
    # with a message instead of calling the complex version
    name = ctypes.pythonapi.PyCapsule_GetName
    name.restype, name.argtypes = ctypes.c_char_p, [ctypes.py_object]
    capsule = cython_special.__pyx_capi__.get("__pyx_fuse_1erfc")
    signature = name(capsule) if capsule is not None else None
    if signature is None or not signature.startswith(_ERFC_SIGNATURE):
        raise RuntimeError(
            f"scipy.special.cython_special's erfc has signature {signature!r}, not {_ERFC_SIGNATURE!r}..."
        )
    binding.add_symbol(
        _ERFC_SYMBOL, get_cython_function_address("scipy.special.cython_special", "__pyx_fuse_1erfc")
    )
    _erfc_bound.append(True)


@intrinsic
def _erfc(typingctx, x):
    """scipy.special.erfc of a float64, by the symbol :func:`register_erfc` binds."""
    if x != types.float64:
        return None

    def codegen(context, builder, sig, args):
        # cpdef's C prototype: the value and Cython's skip-dispatch flag (0: no Python override;
        # a prototype without the flag ignores it)
        fnty = ir.FunctionType(ir.DoubleType(), [ir.DoubleType(), ir.IntType(32)])
        fn = cgutils.get_or_insert_function(builder.module, fnty, _ERFC_SYMBOL)
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(32), 0)])

    return types.float64(types.float64), codegen


# the program's block size: a block's rows are written by the program and read back by the tails
# while still in L1/L2
_BLOCK = binary.BLOCK


@jit_parallel(serial_below=2048)
def distinct_pass_kernel(tp, fp, fn, tn, first, ops, consts, n_regs, fisher_rows, chance_rows, tail_stats,
                         tail_rows, out, threads, wide):  # fmt: skip
    n_distinct = first.shape[0]
    lf, se = _test_tables(tp, fp, fn, tn, first)
    # blocks of at most _BLOCK tables, as many of them as a multiple of the threads and of equal
    # size, so that each thread gets the same count of tables: prange hands each thread an equal
    # run of blocks, and 23 blocks of 512 (issue #24's 11,565 tables) gave one thread 12, the
    # other 11 (the last one short). (The threads come as an argument: numba's get_num_threads
    # inside a kernel is a dynamic global, which keeps the kernel out of the disk cache.) The
    # blocks' bounds move with the thread count, so a table's values must not depend on where
    # it falls in its block: run_block's operations stay element by element (a vectorised
    # loop body, e.g. SVML's log, against its scalar remainder could give other bits).
    missed = 0
    n_blocks = (n_distinct + _BLOCK - 1) // _BLOCK
    n_blocks = (n_blocks + threads - 1) // threads * threads
    size = (n_distinct + n_blocks - 1) // n_blocks
    for i in prange(n_blocks):
        lo = min(i * size, n_distinct)
        m = min(n_distinct, lo + size) - lo
        ba = np.empty(m, np.int64)
        bb = np.empty(m, np.int64)
        bc = np.empty(m, np.int64)
        bd = np.empty(m, np.int64)
        for j in range(m):
            g = first[lo + j]
            ba[j], bb[j], bc[j], bd[j] = tp[g], fp[g], fn[g], tn[g]
        if ops.shape[0]:
            missed += binary.run_block(ba, bb, bc, bd, 0, m, ops, consts, n_regs, out, lo, wide)
        if fisher_rows.shape[0] or chance_rows.shape[0]:
            left = 0
            for j in range(m):
                a, b, c, e = ba[j], bb[j], bc[j], bd[j]
                n = a + b + c + e
                if fisher_rows.shape[0]:
                    p = np.nan if n == 0 else upper_tail(a, n, a + c, a + b, se)
                    for r in fisher_rows:
                        out[r, lo + j] = p
                if chance_rows.shape[0]:
                    p = midp_cell(a, n, a + c, a + b, lf, se, wide)
                    left += 1 if p == WIDE_LEFT else 0
                    for r in chance_rows:
                        out[r, lo + j] = p
            # run_block's count too: limbs_if_needed runs the kernel again with wide=True
            missed += left
        root = np.empty(m)
        for t in range(tail_stats.shape[0]):
            x, o = out[tail_stats[t]], out[tail_rows[t]]
            # the roots first, in a loop that vectorises (the erfc calls do not)
            for j in range(m):
                # as chi2_upper_tail: P(X >= x) = 1 for x <= 0, NaN stays NaN
                v = x[lo + j] if not x[lo + j] < 0.0 else 0.0
                root[j] = math.sqrt(v / 2.0)
            for j in range(m):
                o[lo + j] = _erfc(root[j])
    return missed


def distinct_pass(
    tp: np.ndarray,
    fp: np.ndarray,
    fn: np.ndarray,
    tn: np.ndarray,
    first: np.ndarray,
    program: tuple[np.ndarray, np.ndarray, int] | None,
    fisher_rows: np.ndarray,
    chance_rows: np.ndarray,
    tail_stats: np.ndarray,
    tail_rows: np.ndarray,
    out: np.ndarray,
) -> None:
    """Everything :mod:`batcheval.measures` computes once per distinct binary table, in one pass
    over the distinct tables (``first[d]``: a group holding the d-th one), writing ``out[row, d]``:

    - the point measures of ``program`` (:func:`~batcheval.kernels.binary.program`: its rows),
    - Fisher's one-sided p into each row of ``fisher_rows`` (NaN for an empty table),
    - the chance test's mid-p into each row of ``chance_rows``,
    - the χ² tail of one degree of freedom of row ``tail_stats[t]`` into row ``tail_rows[t]``,
      with scipy's bits (:func:`~batcheval.measures.significance.chi2_upper_tail`); the statistics
      must be rows of ``program``.

    The values are those of :func:`~batcheval.kernels.binary.binary_measures`,
    :func:`distinct_tests` and the scipy tail, each table's in one visit: one spread over the
    threads instead of four, and a block's statistics still in cache when its tails are taken.

    Examples
    --------
    >>> from batcheval.kernels import binary
    >>> cells = [np.array([v]) for v in (12, 12, 20, 56)]
    >>> slots = np.full(len(binary.NAMES), -1)
    >>> slots[binary.NAMES.index("chi2")] = 0
    >>> out = np.empty((4, 1))
    >>> rows = np.array([1]), np.array([2]), np.array([0]), np.array([3])
    >>> distinct_pass(*cells, np.array([0]), binary.program(slots, 1.0), *rows, out)
    >>> out[:, 0].round(4).tolist()  # χ², Fisher, chance, the χ² tail: scipy gives 4.702, 0.0294, 0.0301
    [4.702, 0.0294, 0.0336, 0.0301]
    """
    register_erfc()
    ops, consts, n_regs = program if program is not None else (np.empty((0, 5), np.int64), np.empty(0), 5)
    # threads by the count of distinct tables, not of groups (the cell columns)
    kernel = distinct_pass_kernel
    run = kernel.by_work(first.shape[0])
    if first.shape[0]:
        args = (ops, consts, n_regs, fisher_rows, chance_rows, tail_stats, tail_rows, out)
        threads = n_threads() if run is kernel.parallel else 1
        binary.limbs_if_needed(run, tp, fp, fn, tn, first, *args, threads)
