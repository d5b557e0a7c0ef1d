"""Paired leaderboards: joint tables of every run against a reference run (the
leader, or the run ranked just above it).

Dense boards take one pass over the rows (:func:`fill_cells`), which
writes each run's class pair per example into a runs × examples table, and
then read only that table: each run's own table (:func:`cell_counts`; binary cells as bit
planes too, :func:`binary_planes`) and its joint table with its reference
(:func:`joint_from_cells`, :func:`joint_from_planes`). Other boards count first, then hold the
reference runs' predictions (:func:`fill_predictions`) and count every row
against them (:func:`joint_vs_reference`).
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from .count import thread_rows
from .delta import informedness_gradient
from .jit import jit, jit_inline, jit_parallel, prange


@intrinsic
def prefetch(typingctx, array, index):
    """Ask the CPU to bring the cache line of ``array[index]`` (a 1-d array) towards its
    caches, without waiting for it: LLVM's ``llvm.prefetch`` (a read, to every level), which
    numba does not expose. An index out of range is harmless: a prefetch never faults."""
    if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        address = builder.bitcast(builder.gep(data, [args[1]]), ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [address.type, i32, i32, i32])
        fn = builder.module.declare_intrinsic("llvm.prefetch", [address.type], fnty)
        builder.call(fn, [address, i32(0), i32(3), i32(1)])  # read, keep in every cache, data
        return context.get_dummy_value()

    return types.void(array, index), codegen


#: a class range at most this wide looks each row's class pair up in one table of span² bytes
PAIR_SPAN = 64


@jit_parallel
def fill_cells(
    k0, k1, k2, k3, offset, stride, nkeys, label, pred, vmin, lut, k, example, ex_lo, n_examples, n_threads,
    cells, byte_pairs,
):  # fmt: skip
    """Write each row's class pair plus one, ``real · K + predicted + 1``, to
    ``cells[g * E + e]`` for its group g (packed as in
    :func:`~batcheval.kernels.count.count_private`) and example e (``example
    - ex_lo``). Returns the rows whose label or prediction is not a class.

    ``byte_pairs`` (65,536 int8, else any one-element array): the key, class and example ranges
    were guessed from a sample, there is one key column and the classes are bytes: each row's
    cell value is ``byte_pairs[label byte · 256 + prediction byte]`` (0 outside the coding) and a
    key or example outside its range writes to ``cells``' last byte, a sink past the table. Nothing is
    checked (the count returned is 0): a row outside leaves fewer filled cells than rows,
    which the caller's comparison of the two catches (then it fills again with the scanned
    ranges). The checks a row would take instead cost more than the scan they spare (0.17
    against 0.10 s for 100M rows).
    """
    n = label.shape[0]
    # a lookup without a -1 has no value to reject (classes found in the data, say):
    # a second copy of the loop skips the test, a fifth of the pass
    # np.bool_, not the literal True: the literal compiled _fill_rows twice (for it and for bool)
    every_value_a_class = np.bool_(True)
    for c in range(lut.shape[0]):
        every_value_a_class &= lut[c] >= 0
    # each row's (label, prediction) → its cell value in one lookup (0: not a class pair);
    # the values k·k + 1 must fit the int8 table, else the lookup is skipped
    span = lut.shape[0] if lut.shape[0] <= PAIR_SPAN and k * k < 127 else 0
    pairs = np.zeros(span * span, np.int8)
    for a in range(span):
        for b in range(span):
            if lut[a] >= 0 and lut[b] >= 0:
                pairs[a * span + b] = lut[a] * k + lut[b] + 1
    # the group's offsets and strides, and the example's, folded into scalars: read from
    # arrays inside the loop they are reloaded after every store (numba cannot tell that
    # ``cells`` does not alias them), which made the pass twice as slow
    s0, s1 = stride[0] * n_examples, stride[1] * n_examples
    s2, s3 = stride[2] * n_examples, stride[3] * n_examples
    base = -ex_lo - offset[0] * s0
    if nkeys > 1:
        base -= offset[1] * s1
    if nkeys > 2:
        base -= offset[2] * s2
    if nkeys > 3:
        base -= offset[3] * s3
    bad = np.zeros(n_threads, np.int64)
    for t in prange(n_threads):
        lo, hi = thread_rows(t, n, n_threads)
        if byte_pairs.shape[0] == 65536:
            _fill_rows_guessed(k0, offset[0], label, pred, byte_pairs, example, ex_lo, n_examples, lo, hi,
                               cells)  # fmt: skip
        else:
            bad[t] = _fill_rows(k0, k1, k2, k3, s0, s1, s2, s3, base, nkeys, label, pred, vmin, lut, k,
                                pairs, span, example, every_value_a_class, lo, hi, cells)  # fmt: skip
    return bad.sum()


@jit
def _fill_rows_guessed(k0, offset, label, pred, byte_pairs, example, ex_lo, n_examples, lo, hi, cells):
    """Rows ``lo..hi-1`` of :func:`fill_cells` with guessed ranges, one key column and byte
    classes, unchecked: a row's class pair comes from ``byte_pairs`` (0 for a value outside
    the coding: an empty cell), and a key or example outside its range writes to the last
    byte, a sink. Either leaves fewer filled cells than rows.

    The key is clamped before it is scaled: ``key − offset`` as uint64 lies in ``[0, groups)``
    only for a key inside the guess, while ``key · E`` first could wrap modulo 2⁶⁴ onto
    another group's cell (with even E, INT64_MIN lands on the first group's) and fill an
    empty cell unnoticed. An example past the guess (``example − ex_lo`` as uint64 at least
    E, which a value below it is too) would land in the next group's cells: it goes to the
    sink as well."""
    sink = np.uint64(cells.shape[0] - 1)
    e = np.uint64(n_examples)
    groups = sink // e
    for i in range(lo, hi):
        u = np.uint64(i)
        c = byte_pairs[(np.uint64(np.uint8(label[u])) << np.uint64(8)) | np.uint64(np.uint8(pred[u]))]
        g = min(np.uint64(np.int64(k0[u]) - offset), groups)
        x = np.uint64(np.int64(example[u]) - ex_lo)
        cells[min(g * e + x, sink) if x < e else sink] = c


@jit_inline
def _cell_index(i, k0, k1, k2, k3, s0, s1, s2, s3, base, nkeys, example):
    """Row i's cell of :func:`fill_cells`: ``g · E + e`` with the offsets folded into ``base``."""
    u = np.uint64(i)
    at = np.int64(k0[u]) * s0 + np.int64(example[u]) + base
    if nkeys > 1:
        at += np.int64(k1[u]) * s1
    if nkeys > 2:
        at += np.int64(k2[u]) * s2
    if nkeys > 3:
        at += np.int64(k3[u]) * s3
    return np.uint64(at)


@jit
def _fill_rows(
    k0, k1, k2, k3, s0, s1, s2, s3, base, nkeys, label, pred, vmin, lut, k, pairs, span, example,
    every_value_a_class, lo, hi, cells,
):  # fmt: skip
    """Rows ``lo..hi-1`` of :func:`fill_cells`; returns those outside the class set.

    A function of its own, called once per thread: the same loop written in the
    ``prange`` body took 1.4x as long (0.30 against 0.21 s of CPU for 100M rows
    on one thread), as numba's parallel lowering hands it to LLVM in a form that
    optimises worse.
    """
    nbad = 0
    if span > 0 and every_value_a_class:
        for i in range(lo, hi):
            u = np.uint64(i)
            c = pairs[np.uint64((np.int64(label[u]) - vmin) * span + np.int64(pred[u]) - vmin)]
            cells[_cell_index(i, k0, k1, k2, k3, s0, s1, s2, s3, base, nkeys, example)] = c
    elif span > 0:
        for i in range(lo, hi):
            u = np.uint64(i)
            c = pairs[np.uint64((np.int64(label[u]) - vmin) * span + np.int64(pred[u]) - vmin)]
            if c == 0:
                nbad += 1
                continue
            cells[_cell_index(i, k0, k1, k2, k3, s0, s1, s2, s3, base, nkeys, example)] = c
    else:
        for i in range(lo, hi):
            u = np.uint64(i)
            a = lut[np.uint64(np.int64(label[u]) - vmin)]
            b = lut[np.uint64(np.int64(pred[u]) - vmin)]
            if a < 0 or b < 0:
                nbad += 1
                continue
            cells[_cell_index(i, k0, k1, k2, k3, s0, s1, s2, s3, base, nkeys, example)] = a * k + b + 1
    return nbad


@jit_parallel
def cell_counts(cells, n_examples, n_threads, counts):
    """``counts[g, c]``: the cells of group g's row of ``cells`` (``G × E``, as
    :func:`fill_cells` writes them) that hold c, so ``counts[g, 0]`` is its
    empty cells and ``counts[g, 1:]`` its flat K × K table.
    """
    n_groups = counts.shape[0]
    for t in prange(n_threads):
        lo, hi = thread_rows(t, n_groups, n_threads)
        _count_cells(cells, n_examples, lo, hi, counts)


@jit
def _count_cells(cells, n_examples, lo, hi, counts):
    """Groups ``lo..hi-1`` of :func:`cell_counts`.

    Up to 8 values (binary tables: 0-4) count in the 8-bit lanes of one register,
    emptied every 255 cells (0.02 against 0.045 s of CPU for 100M cells); more take
    four histograms of alternate cells: one alone would wait on its own increments,
    as a run's cells hold a few values.
    """
    width = counts.shape[1]
    if width <= 8:
        for g in range(lo, hi):
            for c in range(width):
                counts[g, c] = 0
            own = g * n_examples
            start = 0
            while start < n_examples:
                stop = min(n_examples, start + 255)
                lanes = np.uint64(0)
                for e in range(own + start, own + stop):
                    lanes += np.uint64(1) << (np.uint64(cells[np.uint64(e)]) << np.uint64(3))
                for c in range(width):
                    counts[g, c] += np.int64((lanes >> np.uint64(8 * c)) & np.uint64(255))
                start = stop
        return
    hist = np.empty((4, width), np.int64)
    for g in range(lo, hi):
        hist[:] = 0
        own = g * n_examples
        stop = own + n_examples
        e = own
        while e + 4 <= stop:
            hist[0, np.uint64(cells[np.uint64(e)])] += 1
            hist[1, np.uint64(cells[np.uint64(e + 1)])] += 1
            hist[2, np.uint64(cells[np.uint64(e + 2)])] += 1
            hist[3, np.uint64(cells[np.uint64(e + 3)])] += 1
            e += 4
        while e < stop:
            hist[0, np.uint64(cells[np.uint64(e)])] += 1
            e += 1
        for c in range(width):
            counts[g, c] = hist[0, c] + hist[1, c] + hist[2, c] + hist[3, c]


@jit_parallel
def joint_from_cells(cells, n_examples, rows, ref, k, joint):
    """``joint[i]``: run i's flat ``[real, reference's prediction, own
    prediction]`` table against its reference run ``ref[i]`` (no reference:
    -1, zeros), over the examples both predicted, where run i is row
    ``rows[i]`` of the ``cells`` table of :func:`fill_cells`.

    The joint cells are incremented one example at a time; binary boards read
    their cells' bit planes instead (:func:`joint_from_planes`).
    """
    kk = k * k
    width = kk + 1  # a cell of ``cells`` holds a class pair code plus one, 0 when empty
    # (own cell, reference's cell) → the joint cell: real · K² + reference's prediction · K + own
    # prediction, or -1 when either run did not predict the example
    at = np.full(width * width, -1, np.int64)
    for c in range(kk):
        for m in range(kk):
            at[(c + 1) * width + m + 1] = (c // k) * kk + (m % k) * k + c % k
    for i in prange(rows.shape[0]):
        r = ref[i]
        if r < 0:
            continue
        own = rows[i] * n_examples
        other = rows[r] * n_examples
        out = joint[i]
        for e in range(n_examples):
            pair = np.int64(cells[np.uint64(own + e)]) * width + np.int64(cells[np.uint64(other + e)])
            cell = at[np.uint64(pair)]
            if cell >= 0:
                out[np.uint64(cell)] += 1


#: the low bit of each byte of a word
_LOW_BITS = np.uint64(0x0101010101010101)


@jit_inline
def _words(cells):
    """``cells`` as 64-bit words, as far as whole words go (bytes in memory order: this
    is read on little-endian machines, where byte j of word q is cell 8q + j)."""
    return cells[: cells.shape[0] // 8 * 8].view(np.uint64)


@jit_inline
def _word(words, p):
    """The 8 cells from byte ``p`` on, as one word: two aligned words shifted
    together when ``p`` is not a multiple of 8 (the caller keeps both in range)."""
    q = p >> 3
    s = np.uint64(8 * (p & 7))
    if s == 0:
        return words[q]
    return (words[q] >> s) | (words[q + 1] << (np.uint64(64) - s))


@jit_inline
def _add_joint(out, s_all, s_r, s_l, s_o, s_rl, s_ro, s_lo, s_rlo):
    """Add to ``out`` (8 cells, real · 4 + reference's prediction · 2 + own prediction) the
    joint table whose examples paired number ``s_all``, of which ``s_r`` are of real class 1,
    ``s_l`` the reference predicted 1 and ``s_o`` the run did, and the others of their
    intersections (inclusion-exclusion)."""
    out[7] += s_rlo
    out[6] += s_rl - s_rlo
    out[5] += s_ro - s_rlo
    out[4] += s_r - s_rl - s_ro + s_rlo
    out[3] += s_lo - s_rlo
    out[2] += s_l - s_rl - s_lo + s_rlo
    out[1] += s_o - s_ro - s_lo + s_rlo
    out[0] += s_all - s_r - s_l - s_o + s_rl + s_ro + s_lo - s_rlo


#: runs per task of :func:`joint_from_planes`
_JOINT_BLOCK = 1024
#: how many runs ahead :func:`joint_from_planes` prefetches the second reference's row
_PREFETCH_RUNS = 8


@jit_parallel
def fill_predictions(
    run, run_lo, run_lut, slot, example, ex_lo, n_examples, pred, class_lo, class_lut, preds
):
    """``preds[s * E + e]`` = the class code that the run held in slot s predicted for example e.

    Run g is ``run_lut[run - run_lo]`` and is held when ``slot[g] >= 0``;
    example e is ``example - ex_lo`` and the code ``class_lut[pred -
    class_lo]``. Cells start at -1 (not predicted). Two rows of one (run,
    example) would race for a cell, so callers check afterwards that each
    held run set as many cells as it has rows.
    """
    for i in prange(run.shape[0]):
        s = slot[np.uint64(run_lut[np.uint64(np.int64(run[i]) - run_lo)])]
        if s < 0:  # rows of other runs read only their run column
            continue
        e = np.int64(example[i]) - ex_lo
        preds[np.uint64(s * n_examples + e)] = class_lut[np.uint64(np.int64(pred[i]) - class_lo)]


@jit
def labels_differ(cells, n_examples, k):
    """Whether some example's real class differs between the runs holding it, in cells as
    :func:`fill_cells` writes them (real · k + predicted + 1, 0: none).

    Each example's class is read from the first row holding it; then every cell is compared with
    it through a table of the codes' real classes (no division, no branch a cell).
    """
    n_rows = cells.shape[0] // max(n_examples, 1)
    real_of = np.full(k * k + 1, -1, np.int64)
    for v in range(1, k * k + 1):
        real_of[v] = (v - 1) // k
    first = np.full(n_examples, -1, np.int64)
    left = n_examples
    for g in range(n_rows):
        if left == 0:
            break
        for e in range(n_examples):
            if first[e] < 0 and cells[g * n_examples + e] > 0:
                first[e] = real_of[cells[g * n_examples + e]]
                left -= 1
    differ = False
    for g in range(n_rows):
        base = g * n_examples
        for e in range(n_examples):
            r = real_of[cells[base + e]]
            differ |= (r >= 0) & (r != first[e])
        if differ:
            return True
    return False


@jit
def binary_labels_differ(planes):
    """:func:`labels_differ` of binary cells from their bit planes (:func:`binary_planes`): 64
    examples a word, real class 1 somewhere and 0 elsewhere."""
    n_words = planes.shape[2]
    ones = np.zeros(n_words, np.uint64)
    zeros = np.zeros(n_words, np.uint64)
    for g in range(planes.shape[0]):
        for w in range(n_words):
            ones[w] |= planes[g, 1, w]
            zeros[w] |= planes[g, 0, w] & ~planes[g, 1, w]
    for w in range(n_words):
        if ones[w] & zeros[w]:
            return True
    return False


@jit
def first_repeat(run, run_lo, run_lut, example, ex_lo, n_examples, seen):
    """Group of the first row whose (run, example) an earlier row already had, else -1.

    Rows are coded as in :func:`fill_predictions`; ``seen`` is a zeroed bitmap
    of G × E bits. One thread: two threads setting bits of one byte would
    lose one of them.
    """
    for i in range(run.shape[0]):
        g = run_lut[np.uint64(np.int64(run[i]) - run_lo)]
        bit = np.uint64(g * n_examples + np.int64(example[i]) - ex_lo)
        byte = bit >> np.uint64(3)
        mask = np.uint8(1 << (bit & np.uint64(7)))
        if seen[byte] & mask:
            return g
        seen[byte] |= mask
    return -1


@jit_parallel
def joint_vs_reference(
    run, run_lo, run_lut, example, ex_lo, label, pred, class_lo, class_lut, ref, n_examples, preds, k, bufs
):  # fmt: skip
    """Add each row to ``bufs[t]``, a private flat ``[G, K, K, K]`` table per thread.

    A row of run g on example e (coded as in :func:`fill_predictions`) adds
    one to cell ``(g, real, l, own prediction)``, where ``l = preds[ref[g] *
    E + e]`` is what g's reference run predicted there. Runs without a
    reference (``ref[g] < 0``) and examples the reference did not predict
    are skipped. Classes that are already ``0..K-1`` skip their lookup (a
    quarter of the pass); every index is non-negative and cast to uint64,
    which spares numba's wraparound.
    """
    n = run.shape[0]
    n_threads = bufs.shape[0]
    k2 = k * k
    k3 = k2 * k
    identity = class_lo == 0 and class_lut.shape[0] == k
    for c in range(class_lut.shape[0]):
        identity &= class_lut[c] == c
    step = (n + n_threads - 1) // n_threads
    for t in prange(n_threads):
        buf = bufs[t]
        start = min(n, t * step)
        stop = min(n, start + step)
        # two copies of the loop: a test inside it would cost the lookup it saves
        if identity:
            for i in range(start, stop):
                g = run_lut[np.uint64(np.int64(run[i]) - run_lo)]
                r = ref[np.uint64(g)]
                if r < 0:
                    continue
                lead = np.int64(preds[np.uint64(r * n_examples + np.int64(example[i]) - ex_lo)])
                if lead < 0:
                    continue
                buf[np.uint64(g * k3 + np.int64(label[i]) * k2 + lead * k + np.int64(pred[i]))] += 1
        else:
            for i in range(start, stop):
                g = run_lut[np.uint64(np.int64(run[i]) - run_lo)]
                r = ref[np.uint64(g)]
                if r < 0:
                    continue
                lead = np.int64(preds[np.uint64(r * n_examples + np.int64(example[i]) - ex_lo)])
                if lead < 0:
                    continue
                y = class_lut[np.uint64(np.int64(label[i]) - class_lo)]
                p = class_lut[np.uint64(np.int64(pred[i]) - class_lo)]
                buf[np.uint64(g * k3 + y * k2 + lead * k + p)] += 1


@jit_parallel
def paired_informedness_se(joint, se):
    """``se[g]``: the delta-method standard error of informedness(run) −
    informedness(reference) from the binary joint table ``joint[g]`` (flat
    ``[real, reference's prediction, run's prediction]``), as
    ``inference/paired_se.delta_se`` computes it with numpy, element by element:
    ``(Σ π G² − (Σ π G)²) / n`` with ``G[y, l, p] = g_run[y, p] − g_ref[y, l]``;
    NaN where either table has one real class."""
    n = joint.shape[0]
    for b in prange((n + _JOINT_BLOCK - 1) // _JOINT_BLOCK):
        # scratch per block: allocated per table, it took as long as the arithmetic
        x = np.empty(8)
        g_run = np.empty((2, 2))
        g_ref = np.empty((2, 2))
        for i in range(b * _JOINT_BLOCK, min(n, (b + 1) * _JOINT_BLOCK)):
            se[i] = _paired_informedness_se(joint, i, x, g_run, g_ref)


@jit
def _paired_informedness_se(joint, i, x, g_run, g_ref):
    for c in range(8):
        x[c] = np.float64(joint[i, c])
    # the run's table sums out the reference's prediction, the reference's the run's
    bad = informedness_gradient(x[0] + x[2], x[1] + x[3], x[4] + x[6], x[5] + x[7], g_run)
    bad |= informedness_gradient(x[0] + x[1], x[2] + x[3], x[4] + x[5], x[6] + x[7], g_ref)
    n = x[0]
    for c in range(1, 8):
        n += x[c]
    s1 = 0.0
    s2 = 0.0
    for c in range(8):
        y, ref, own = c >> 2, (c >> 1) & 1, c & 1
        grad = g_run[y, own] - g_ref[y, ref]
        pg = (x[c] / n) * grad
        if c == 0:
            s1, s2 = pg, pg * grad
        else:
            s1 += pg
            s2 += pg * grad
    if bad:
        return np.nan
    var = s2 - s1 * s1
    if math.isnan(var) or math.isnan(n):  # numpy's NaN (0/0 here would carry the sign bit)
        return np.nan
    # np.maximum(var, 0.0): -0.0 kept
    return math.sqrt((var if var >= 0.0 else 0.0) / n)


@jit_inline
def _cells_at(t00, t01, t10, t11, positive, out, g):
    """``out[:, g]``: the (tp, fp, fn, tn) of the table ``t[real, predicted]`` at class ``positive``."""
    if positive == 1:
        out[0, g], out[1, g], out[2, g], out[3, g] = t11, t01, t10, t00
    else:
        out[0, g], out[1, g], out[2, g], out[3, g] = t00, t10, t01, t11


@jit_parallel
def binary_pair_cells(joint, positive, run_cells, ref_cells, agree):
    """What the paired columns read of binary joint tables ``joint[g]`` (flat
    ``[real, reference's prediction, run's prediction]``), in one pass: ``run_cells[:, g]``
    and ``ref_cells[:, g]``, the (tp, fp, fn, tn) of the run's and the reference's tables
    at class ``positive``, and ``agree[:, g]``: the examples paired, those only the
    reference got right and those only the run got right (McNemar's discordant counts).

    numpy summed the joint over each axis (a copy and an add per slice) and took the
    diagonals with ``einsum``: about 12 ms of one thread for 100k tables, on the thread
    that holds the GIL.
    """
    for g in prange(joint.shape[0]):
        j = joint[g]
        # the run's table sums out the reference's prediction, the reference's the run's
        _cells_at(j[0] + j[2], j[1] + j[3], j[4] + j[6], j[5] + j[7], positive, run_cells, g)
        _cells_at(j[0] + j[1], j[2] + j[3], j[4] + j[5], j[6] + j[7], positive, ref_cells, g)
        agree[0, g] = j[0] + j[1] + j[2] + j[3] + j[4] + j[5] + j[6] + j[7]
        agree[1, g] = j[1] + j[6]  # the reference's prediction is the real class, the run's not
        agree[2, g] = j[2] + j[5]


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of a 64-bit word: LLVM's ``llvm.ctpop`` (one instruction
    where the CPU has it), which numba does not expose."""
    if not isinstance(x, types.Integer) or x.bitwidth != 64:
        return None

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(fn, args)

    return types.int64(x), codegen


@jit_parallel
def binary_planes(cells, n_examples, n_threads, counts, planes):
    """:func:`cell_counts` of binary cells (codes 0-4), and each row as three bit planes:
    ``planes[g, 0]`` the examples row g filled, ``planes[g, 1]`` those of real class 1 and
    ``planes[g, 2]`` those it predicted 1, 64 examples a word (example 64w + 8b + j of the row at
    bit 8j + b of word w: the bytes of 8 words of cells shifted together).

    The joint tables then count 64 examples a word with ``popcount``
    (:func:`joint_from_planes`) and read 3/8 of a byte a cell, where counting them from the
    cells' bytes took some 25 operations for 8; a row's counts come from the same
    planes, so this pass takes the place of :func:`cell_counts`.
    """
    n_groups = counts.shape[0]
    for t in prange(n_threads):
        lo, hi = thread_rows(t, n_groups, n_threads)
        _binary_planes(cells, n_examples, lo, hi, counts, planes)


@jit
def _binary_planes(cells, n_examples, lo, hi, counts, planes):
    words = _words(cells)
    n_words = planes.shape[2]
    for g in range(lo, hi):
        own = g * n_examples
        # whole 8-cell words of the row within ``words``, keeping the word after each for _word
        whole = max(0, min(n_examples, 8 * (words.shape[0] - 1) - own)) // 8
        c1 = c2 = c3 = c4 = np.int64(0)
        for w in range(n_words):
            # each bit of the codes' three as a plane: cell 8b + j of the block at bit 8j + b (an
            # order of the block's examples that every row shares, which popcounts do not see)
            b0 = b1 = b2 = np.uint64(0)
            full = min(8, whole - 8 * w)
            for b in range(full):
                x = _word(words, own + 64 * w + 8 * b)
                s = np.uint64(b)
                b0 |= (x & _LOW_BITS) << s
                b1 |= ((x >> np.uint64(1)) & _LOW_BITS) << s
                b2 |= ((x >> np.uint64(2)) & _LOW_BITS) << s
            for e in range(64 * w + 8 * max(full, 0), min(64 * w + 64, n_examples)):  # the row's last cells
                v = np.uint64(cells[np.uint64(own + e)])
                s = np.uint64(8 * ((e - 64 * w) % 8) + (e - 64 * w) // 8)
                b0 |= (v & np.uint64(1)) << s
                b1 |= ((v >> np.uint64(1)) & np.uint64(1)) << s
                b2 |= ((v >> np.uint64(2)) & np.uint64(1)) << s
            # codes 1-4 (real · 2 + predicted + 1) are 001, 010, 011 and 100
            f = b0 | b1 | b2
            r = (b1 & b0) | b2
            p = (b1 & ~b0) | b2
            planes[g, 0, w] = f
            planes[g, 1, w] = r
            planes[g, 2, w] = p
            c1 += popcount(f & ~(r | p))
            c2 += popcount(f & ~r & p)
            c3 += popcount(r & ~p)
            c4 += popcount(r & p)
        counts[g, 0] = n_examples - (c1 + c2 + c3 + c4)
        counts[g, 1] = c1
        counts[g, 2] = c2
        counts[g, 3] = c3
        counts[g, 4] = c4


@jit
def _planes_joint(planes, own, other, out):
    """Add to ``out`` (8 cells, real · 4 + reference's prediction · 2 + own prediction)
    the binary joint table of rows ``own`` and ``other`` of ``planes``: where both are
    filled and any of real, the reference's and the run's prediction are 1, the examples
    are counted 64 a word, and inclusion-exclusion gives the 8 cells (:func:`_add_joint`)."""
    s_all = s_r = s_l = s_o = s_rl = s_ro = s_lo = s_rlo = np.int64(0)
    for w in range(planes.shape[2]):
        both = planes[own, 0, w] & planes[other, 0, w]
        r = both & planes[own, 1, w]
        lr = both & planes[other, 2, w]
        pred = planes[own, 2, w]
        s_all += popcount(both)
        s_r += popcount(r)
        s_l += popcount(lr)
        s_o += popcount(both & pred)
        s_rl += popcount(r & lr)
        s_ro += popcount(r & pred)
        s_lo += popcount(lr & pred)
        s_rlo += popcount(r & lr & pred)
    _add_joint(out, s_all, s_r, s_l, s_o, s_rl, s_ro, s_lo, s_rlo)


@jit_parallel
def joint_from_planes(planes, rows, ref, ref2, joint, joint2):
    """Binary joint tables from :func:`binary_planes`' rows: ``joint[i]``, flat ``[real,
    reference's prediction, own prediction]``, of run i (row ``rows[i]``) against ``ref[i]``,
    and ``joint2[i]`` against ``ref2[i]`` (-1: none; an empty ``ref2`` for one reference), over
    the examples both predicted; each run's own row is read once for both.

    On an adjacent board the second reference, the run ranked just above, is a row read at
    random. Taking the runs down the ranking instead (each run's reference read just before
    it) left the runs' own rows, their references and their joint tables read at random, and
    touching the next rows ahead of time with loads did not help; prefetching the second
    reference's row :data:`_PREFETCH_RUNS` runs ahead (:func:`prefetch`, which does not wait)
    did: 100-105 -> 77-82 ms of one thread's CPU when the joint tables were counted from the
    cells' bytes (stop 34), which the planes now take 12-19 ms for.
    """
    n = rows.shape[0]
    two = ref2.shape[0] == n
    flat = planes.reshape(-1)
    row_words = planes.shape[1] * planes.shape[2]
    for b in prange((n + _JOINT_BLOCK - 1) // _JOINT_BLOCK):
        for i in range(b * _JOINT_BLOCK, min(n, (b + 1) * _JOINT_BLOCK)):
            ahead = i + _PREFETCH_RUNS
            if two and ahead < n and ref2[ahead] >= 0:
                row = rows[ref2[ahead]] * row_words
                for line in range(row, row + row_words + 8, 8):
                    prefetch(flat, min(line, flat.shape[0] - 1))
            if ref[i] >= 0:
                _planes_joint(planes, rows[i], rows[ref[i]], joint[i])
            if two and ref2[i] >= 0:
                _planes_joint(planes, rows[i], rows[ref2[i]], joint2[i])
