"""Counting kernels: rows of (keys, label, prediction) into ``counts[G, K, K]``.

A row's group id is packed arithmetically from up to four integer key arrays,
``g = sum((k_j - offset_j) * stride_j)``, inside the loop, so no id column is
ever materialised. Class codes come from a small lookup table indexed by
``value - vmin``; a code of -1 marks a value outside the class set, and such
rows are counted and reported instead of being written.

Indices known to be non-negative are cast to uint64 in the hot loops: numba
then skips its negative-index wraparound, which costs a fifth of a counting
pass.

Two race-free strategies:

* :func:`count_private` gives each thread a private table and a contiguous
  slice of the rows; :func:`sum_split_rows` then adds the tables into the int64
  result. The private tables hold 16-bit counters and count their wraps apart —
  a quarter of the cache footprint of int64 counters, which matters because
  scattered increments are bound by cache misses — as long as the caller feeds
  at most 2**32 - 1 rows per thread between flushes. It is the fast path while
  ``threads * G * K * K`` cells fit comfortably in memory.
* :func:`count_partitioned` gives each thread a range of group ids instead; each
  thread reads every row but writes only its own groups, so memory stays at one
  table whatever the number of groups (10M groups and beyond).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from .jit import SERIAL_BELOW, jit, jit_inline, jit_parallel, prange, readonly


@jit_inline
def row_group(i, k0, k1, k2, k3, offset, stride, nkeys):
    """Packed group id of row ``i`` (a non-negative index)."""
    # an unsigned index: numba then skips the negative-index wraparound, whose branch per
    # element also keeps LLVM from vectorising the loop around it
    u = np.uint64(i)
    g = (np.int64(k0[u]) - offset[0]) * stride[0]
    if nkeys > 1:
        g += (np.int64(k1[u]) - offset[1]) * stride[1]
    if nkeys > 2:
        g += (np.int64(k2[u]) - offset[2]) * stride[2]
    if nkeys > 3:
        g += (np.int64(k3[u]) - offset[3]) * stride[3]
    return g


@jit_inline
def thread_rows(t, n, n_threads):
    """Rows ``[lo, hi)`` of thread t when n rows are split into equal contiguous slices."""
    step = (n + n_threads - 1) // n_threads
    lo = min(n, t * step)
    return lo, min(n, lo + step)


@jit_inline
def _cell(i, k0, k1, k2, k3, offset, stride, nkeys, label, pred, vmin, lut, n_classes):
    """Flat cell index ``g*K*K + real*K + predicted`` of row i; -1 outside the class set."""
    u = np.uint64(i)
    a = lut[np.uint64(np.int64(label[u]) - vmin)]
    b = lut[np.uint64(np.int64(pred[u]) - vmin)]
    if a < 0 or b < 0:
        return -1
    g = row_group(i, k0, k1, k2, k3, offset, stride, nkeys)
    return g * (n_classes * n_classes) + a * n_classes + b


@jit_inline
def key_code(u, j, k0, k1, k2, k3, offset):
    """Row ``u``'s code ``k_j - offset_j`` of key j."""
    if j == 0:
        return np.int64(k0[u]) - offset[0]
    if j == 1:
        return np.int64(k1[u]) - offset[1]
    if j == 2:
        return np.int64(k2[u]) - offset[2]
    return np.int64(k3[u]) - offset[3]


@intrinsic
def prefetch(typingctx, arr, idx):
    """Ask the cache for the line holding ``arr[idx]`` (a read, kept in every level: LLVM's
    ``llvm.prefetch``, which numba does not offer); no load, no fault, nothing returned."""
    sig = types.void(arr, idx)

    def codegen(context, builder, signature, args):
        data = context.make_array(arr)(context, builder, args[0]).data
        byte_ptr = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0i8")
        # read (0), locality 3 (keep in all levels), data cache (1)
        builder.call(fn, [builder.bitcast(builder.gep(data, [args[1]]), byte_ptr), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


#: Rows a counting thread turns into cell ids before it increments their cells (16 KiB of ids).
COUNT_BLOCK = 4096


@jit
def direct_ids(ids, lo, m, k0, k1, k2, k3, offset, stride, nkeys, label, pred, vmin, n_classes, cards, trash):
    """``ids[j]``: the flat cell of row ``lo + j`` for ``j < m``, with class codes ``value - vmin``,
    or ``trash`` when a label or prediction lies outside ``[vmin, vmin + n_classes)`` or a key
    code outside ``[0, cards_j)`` (a key range guessed from a sample is checked here too).

    A function of its own, called once per block of rows: inlined into :func:`count_private`,
    the same loop (range check included) came out 2.6x slower, 82 -> 211-234 ms for 20M rows
    on one thread, while on its own LLVM compiles it as it compiles the loop without a check.
    """
    kk = n_classes * n_classes
    k_u = np.uint64(n_classes)
    # the keys' codes, bounds and strides in scalars, and each code checked as it is packed: a
    # check by an inlined helper that read the columns again ran at 35 ns a row, 15x this loop
    c0, c1, c2, c3 = np.uint64(cards[0]), np.uint64(cards[1]), np.uint64(cards[2]), np.uint64(cards[3])
    o0, o1, o2, o3 = offset[0], offset[1], offset[2], offset[3]
    s0, s1, s2, s3 = stride[0], stride[1], stride[2], stride[3]
    for j in range(m):
        u = np.uint64(lo + j)
        x = np.int64(k0[u]) - o0
        inside = np.uint64(x) < c0
        g = x * s0
        if nkeys > 1:
            x = np.int64(k1[u]) - o1
            inside &= np.uint64(x) < c1
            g += x * s1
        if nkeys > 2:
            x = np.int64(k2[u]) - o2
            inside &= np.uint64(x) < c2
            g += x * s2
        if nkeys > 3:
            x = np.int64(k3[u]) - o3
            inside &= np.uint64(x) < c3
            g += x * s3
        a = np.int64(label[u]) - vmin
        b = np.int64(pred[u]) - vmin
        # one unsigned compare per code also catches a value below vmin (or the offset), and any
        # int64 wraparound: v - vmin lies in [0, K) only for the K values vmin + c
        inside &= (np.uint64(a) < k_u) & (np.uint64(b) < k_u)
        cell = g * kk + a * n_classes + b
        ids[np.uint64(j)] = np.uint32(cell if inside else trash)


@jit_parallel
def count_private(
    k0, k1, k2, k3, offset, stride, nkeys, label, pred, vmin, lut, n_classes, direct, cards, low, wraps
):
    """Add row counts into ``low[t]`` and ``wraps[t]``, one private flat table per thread.

    ``low[t]`` holds the low 8 or 16 bits of thread t's counts (uint8 or uint16), ``wraps[t]``
    (uint32) how often each wrapped: :func:`sum_split_rows` adds them up. A table of 16-bit
    counters is half the cache footprint of 32-bit ones, and a cell's 65,536th row of one thread
    is rare, so the wrap test per increment is a branch that is never taken (20M increments into
    100k 2×2 tables: 43.4-49.0 ms with uint32 counters, 33.4-39.7 with uint16 and the test, one
    thread); 8-bit counters halve the footprint again where cells hold a few rows each (K = 10,
    10M cells of 2 rows: 122.7-126.3 → 101.6-102.6 ms on one thread, 143.6-154.8 → 108.9-115.2 ms
    of CPU on two). A wrap touches the wrap table, whose pages are otherwise never written.
    ``wraps[t, -1]`` counts thread t's wraps.
    ``low`` has one column more than the ``G*K*K`` cells and ``wraps`` two: rows whose label or
    prediction is not a class are counted in the column after the cells, and a thread stops
    after the block of rows where it found the first, so ``low[:, -1].sum() + wraps[:, -2].sum()
    > 0`` says that there were some (an 8-bit count of them may wrap to 0), and the counts are
    then incomplete.
    ``direct`` says that ``lut`` is the identity (``lut[v] == v``): the codes are then
    ``value - vmin`` with no lookup (:func:`direct_ids`), and a row whose value lies outside
    ``[vmin, vmin + n_classes)`` goes to the last column. So a direct coding need not cover
    every value: a class range guessed from a sample is checked here, in the same vectorised
    loop, instead of by a scan of its own (``core/counting.count_checked``). ``cards[j]`` bounds
    key j's codes in the same way on that path (a row with a code outside ``[0, cards[j])`` goes
    to the last column), so the key ranges may be guessed from a sample too; the lookup path
    reads keys and codes unchecked.

    Each thread works through its rows in blocks of :data:`COUNT_BLOCK`: one loop turns
    a block's rows into uint32 cell ids, without a branch (it vectorises: the four column
    streams are read at close to memory speed), and a second loop increments those cells.
    Fused into one loop, the scattered increments keep the id arithmetic from vectorising
    and the count took about 1.5x as long.
    """
    n = label.shape[0]
    n_threads = low.shape[0]
    trash = low.shape[1] - 1
    any_wrap = trash + 1
    kk = n_classes * n_classes
    for t in prange(n_threads):
        buf = low[t]
        wrapped = wraps[t]
        ids = np.empty(COUNT_BLOCK, np.uint32)
        lo, hi = thread_rows(t, n, n_threads)
        for blo in range(lo, hi, COUNT_BLOCK):
            m = min(hi, blo + COUNT_BLOCK) - blo
            # the next block's rows, prefetched while this block's cells are incremented
            nlo = blo + COUNT_BLOCK
            nm = max(0, min(hi, nlo + COUNT_BLOCK) - nlo)
            if direct:
                direct_ids(
                    ids, blo, m, k0, k1, k2, k3, offset, stride, nkeys, label, pred, vmin, n_classes, cards,
                    trash,
                )  # fmt: skip
            else:
                for j in range(m):
                    u = np.uint64(blo + j)
                    g = row_group(u, k0, k1, k2, k3, offset, stride, nkeys)
                    a = lut[np.uint64(np.int64(label[u]) - vmin)]
                    b = lut[np.uint64(np.int64(pred[u]) - vmin)]
                    cell = g * kk + a * n_classes + b
                    ids[np.uint64(j)] = np.uint32(cell if (a | b) >= 0 else trash)
            for j in range(m):
                c = np.uint64(ids[np.uint64(j)])
                buf[c] += 1
                if buf[c] == 0:
                    wrapped[c] += 1
                    wrapped[any_wrap] += 1
                if j < nm and j & 7 == 0:
                    # a prefetch of each of the next block's columns every 8 rows (a 64-byte
                    # line of int64; narrower columns get the same line again), issued among the
                    # increments: the column streams load while the increments wait on L2
                    # instead of after them. Masks per column's itemsize, tested apart, lost
                    # half the gain to their branches
                    r = np.uint64(nlo + j)
                    prefetch(label, r)
                    prefetch(pred, r)
                    prefetch(k0, r)
                    if nkeys > 1:
                        prefetch(k1, r)
                    if nkeys > 2:
                        prefetch(k2, r)
                    if nkeys > 3:
                        prefetch(k3, r)
            if buf[trash] != 0 or wrapped[trash] != 0:
                # a row outside the class codes: the caller raises or counts again with the
                # scanned range, so the rest of this thread's rows need not be read
                break


@jit_parallel
def count_partitioned(
    k0, k1, k2, k3, offset, stride, nkeys, label, pred, vmin, lut, n_classes, n_threads, out
):
    """Add row counts into the flat table ``out``; thread t owns a range of groups.

    Returns the number of rows whose label or prediction is not a class.
    """
    n = label.shape[0]
    kk = n_classes * n_classes
    n_groups = out.shape[0] // kk
    n_threads = max(1, min(n_groups, n_threads))
    span = (n_groups + n_threads - 1) // n_threads
    bad = np.zeros(n_threads, np.int64)
    for t in prange(n_threads):
        glo = t * span
        ghi = min(n_groups, glo + span)
        nbad = 0
        for i in range(n):
            g = row_group(i, k0, k1, k2, k3, offset, stride, nkeys)
            if g < glo or g >= ghi:
                continue
            a = lut[np.uint64(np.int64(label[i]) - vmin)]
            b = lut[np.uint64(np.int64(pred[i]) - vmin)]
            if a < 0 or b < 0:
                nbad += 1
                continue
            out[np.uint64(g * kk + a * n_classes + b)] += 1
        bad[t] = nbad
    return bad.sum()


@jit_parallel
def sum_rows(bufs, out):
    """``out += bufs[:, :len(out)].sum(axis=0)`` into an int64 table, split over threads by cell
    (``bufs`` may have more columns, such as :func:`count_private`'s last one)."""
    n_rows = bufs.shape[0]
    for c in prange(out.shape[0]):
        s = 0
        for t in range(n_rows):
            s += bufs[t, c]
        out[c] += s


@jit_parallel
def sum_split_rows(low, wraps, wrapped, add, out):
    """``out += (low + 2**bits * wraps).sum(axis=0)`` over the first ``len(out)`` cells, or
    ``out =`` without ``add``: :func:`count_private`'s 8- or 16-bit tables into an int64 table,
    split over threads by cell. The wrap counts are read only when ``wrapped`` (some counter
    wrapped; their pages are otherwise never touched). Without ``add`` ``out`` may be fresh
    ``np.empty`` pages: a store faults each page in once, where ``+=`` reads the zero page first
    and then faults again to write it."""
    n_rows = low.shape[0]
    bits = np.int64(8 * low.itemsize)
    for c in prange(out.shape[0]):
        s = 0
        for t in range(n_rows):
            s += low[t, c]
        if wrapped:
            for t in range(n_rows):
                s += np.int64(wraps[t, c]) << bits
        if add:
            out[c] += s
        else:
            out[c] = s


@jit_parallel
def pack_ids(k0, k1, k2, k3, offset, stride, nkeys, out):
    """Materialise packed group ids; only for key spaces too large to count densely."""
    for i in prange(out.shape[0]):
        out[i] = row_group(i, k0, k1, k2, k3, offset, stride, nkeys)


@jit_parallel
def mark_present(values, vmin, present):
    """Set ``present[v - vmin]`` for every value; for class discovery.

    Threads mark private copies (a racing write of True to one byte is benign
    in practice, but not something to rely on) that are OR-ed at the end.
    """
    n = values.shape[0]
    # wide ranges (up to 2**24 values) stay serial: eight copies would cost more than they save
    n_threads = 1 if present.shape[0] > (1 << 20) else max(1, min(8, n >> 16))
    marks = np.zeros((n_threads, present.shape[0]), np.bool_)
    for t in prange(n_threads):
        lo, hi = thread_rows(t, n, n_threads)
        for i in range(lo, hi):
            marks[t, np.int64(values[i]) - vmin] = True
    for t in range(n_threads):
        for j in range(present.shape[0]):
            present[j] |= marks[t, j]


@jit
def scatter_add(src, index, out):
    """``out[index[g]] += src[g]`` for non-negative int64 rows; False on overflow."""
    # compare with the headroom first: LLVM treats signed overflow as impossible,
    # so a wrapped-sum check after the fact would be optimised away
    top = np.iinfo(np.int64).max
    for g in range(src.shape[0]):
        row = index[g]
        for c in range(src.shape[1]):
            v = src[g, c]
            if v > top - out[row, c]:
                return False
            out[row, c] += v
    return True


# -- radix-partitioned counting ----------------------------------------------------
# Shuffled rows scatter increments over the whole table; once a thread's table
# outgrows its L2 cache every increment is a cache miss. These three passes
# trade two sequential passes over a 4-byte id per row for increments that
# stay in cache: ids → partition histogram → ids grouped by partition → count.


@jit_parallel
def cell_ids(
    k0, k1, k2, k3, offset, stride, nkeys, label, pred, vmin, lut, n_classes, direct, cards, shift, ids, hist
):
    """Write each row's flat cell id; count ids per (thread, partition) in ``hist``.

    Rows outside the class set get the id ``bad`` (the dtype's max) and are
    left out of ``hist``. Returns the number of such rows.
    ``direct``: ``lut`` is the identity, so a row's codes are ``value - vmin``, checked against
    ``[0, n_classes)`` instead of looked up: the coding need not cover every value (a class
    range guessed from a sample, as :func:`count_private` takes it), and key codes against
    ``[0, cards[j])`` (guessed key ranges; a row outside either gets the id ``bad``).
    """
    n = label.shape[0]
    n_threads = hist.shape[0]
    bad_id = ids.dtype.type(np.iinfo(ids.dtype).max)
    bad = np.zeros(n_threads, np.int64)
    k_u = np.uint64(n_classes)
    kk = n_classes * n_classes
    for t in prange(n_threads):
        lo, hi = thread_rows(t, n, n_threads)
        nbad = 0
        for i in range(lo, hi):
            if direct:
                u = np.uint64(i)
                a = np.int64(label[u]) - vmin
                b = np.int64(pred[u]) - vmin
                inside = (np.uint64(a) < k_u) & (np.uint64(b) < k_u)
                g = row_group(i, k0, k1, k2, k3, offset, stride, nkeys)
                for j in range(nkeys):
                    # a key code outside [0, cards_j): one packed from a guessed key range
                    if np.uint64(key_code(u, j, k0, k1, k2, k3, offset)) >= np.uint64(cards[j]):
                        inside = False
                cell = g * kk + a * n_classes + b if inside else -1
            else:
                cell = _cell(i, k0, k1, k2, k3, offset, stride, nkeys, label, pred, vmin, lut, n_classes)
            if cell < 0:
                nbad += 1
                ids[i] = bad_id
            else:
                ids[i] = cell
                hist[t, np.uint64(cell >> shift)] += 1
        bad[t] = nbad
    return bad.sum()


@jit_parallel
def scatter_by_part(ids, shift, starts, out):
    """Copy ``ids`` into ``out`` grouped by partition; ``starts[t, p]`` is where
    thread t writes its first id of partition p (prefix sums of the histogram)."""
    n = ids.shape[0]
    n_threads = starts.shape[0]
    bad_id = ids.dtype.type(np.iinfo(ids.dtype).max)
    for t in prange(n_threads):
        pos = starts[t].copy()
        lo, hi = thread_rows(t, n, n_threads)
        for i in range(lo, hi):
            cell = ids[i]
            if cell == bad_id:
                continue
            p = np.uint64(np.int64(cell) >> shift)
            out[np.uint64(pos[p])] = cell
            pos[p] += 1


@jit_parallel
def count_parts(grouped, bounds, out):
    """``out[id] += 1`` for every id; partition p owns ``grouped[bounds[p]:bounds[p+1]]``
    and a disjoint range of cells, so partitions never race."""
    for p in prange(bounds.shape[0] - 1):
        for i in range(bounds[p], bounds[p + 1]):
            out[np.uint64(grouped[i])] += 1


@jit
def run_fraction(k0, k1, k2, k3, offset, stride, nkeys, starts, length):
    """Share of rows, over a few sampled windows, whose group equals the previous row's.

    Near 1 for input sorted or segmented by key, near 1/G for shuffled rows.
    """
    same = 0
    total = 0
    for s in starts:
        prev = row_group(s, k0, k1, k2, k3, offset, stride, nkeys)
        for i in range(s + 1, s + length):
            g = row_group(i, k0, k1, k2, k3, offset, stride, nkeys)
            same += g == prev
            total += 1
            prev = g
    return same / max(total, 1)


def group_totals(counts: np.ndarray, rows: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Rows per group of a ``[G, K, K]`` int64 table, and per class the rows where it is
    the real or the predicted class (over all groups): what trimming needs, in one pass.

    Tables of fewer than :data:`~.jit.SERIAL_BELOW` cells, or counted from fewer ``rows`` than
    that (a dense key space of many empty groups: at most a few million cells, a few ms), are
    summed by numpy: the same integers, without compiling a kernel on a first small call (0.37 s
    of a cold start; the parallel version 2.4 s).

    Examples
    --------
    >>> import numpy as np
    >>> totals, by_class = group_totals(np.array([[[3, 1], [0, 2]], [[0, 0], [0, 0]]]))
    >>> totals.tolist(), by_class.tolist()
    ([6, 0], [7, 5])
    """
    if counts.size < SERIAL_BELOW or (rows is not None and rows < SERIAL_BELOW):
        totals = counts.sum(axis=(1, 2), dtype=np.int64)
        by_class = counts.sum(axis=(0, 2), dtype=np.int64) + counts.sum(axis=(0, 1), dtype=np.int64)
        return totals, by_class
    return group_totals_kernel(readonly(counts))  # one compiled type, whoever owns the counts


@jit_parallel
def group_totals_kernel(counts):
    """:func:`group_totals` of a large table: one pass, split over threads by group."""
    n_groups, k, _ = counts.shape
    totals = np.zeros(n_groups, np.int64)
    n_chunks = max(1, min(n_groups, 64))
    used = np.zeros((n_chunks, k), np.int64)
    for chunk in prange(n_chunks):
        if k == 2:
            # the 2×2 tables of binary counting, unrolled with the class sums in scalars (the
            # general loop adds every cell into used[chunk, i] and used[chunk, j] in memory)
            u0 = 0
            u1 = 0
            for g in range(chunk * n_groups // n_chunks, (chunk + 1) * n_groups // n_chunks):
                a, b, c, d = counts[g, 0, 0], counts[g, 0, 1], counts[g, 1, 0], counts[g, 1, 1]
                totals[g] = a + b + c + d
                u0 += a + a + b + c
                u1 += b + c + d + d
            used[chunk, 0] = u0
            used[chunk, 1] = u1
            continue
        for g in range(chunk * n_groups // n_chunks, (chunk + 1) * n_groups // n_chunks):
            s = 0
            for i in range(k):
                for j in range(k):
                    v = counts[g, i, j]
                    s += v
                    used[chunk, i] += v
                    used[chunk, j] += v
            totals[g] = s
    # a loop, not used.sum(axis=0): numba's axis reduction alone compiles for seconds
    by_class = np.zeros(k, np.int64)
    for chunk in range(n_chunks):
        for i in range(k):
            by_class[i] += used[chunk, i]
    return totals, by_class


def unpack_ids(ids: np.ndarray, strides: np.ndarray, cards: np.ndarray, out: np.ndarray) -> None:
    """``out[j, g] = (ids[g] // strides[j]) % cards[j]``: packed (non-negative int64) group ids
    back to key codes; numpy below :data:`~.jit.SERIAL_BELOW` ids (no compile on a first small
    call).

    Examples
    --------
    >>> import numpy as np
    >>> out = np.empty((2, 3), np.int64)
    >>> unpack_ids(np.array([0, 4, 5]), np.array([3, 1]), np.array([2, 3]), out)
    >>> out.tolist()
    [[0, 1, 1], [0, 1, 2]]
    """
    if ids.shape[0] < SERIAL_BELOW:
        for j in range(strides.shape[0]):
            out[j] = (ids // strides[j]) % cards[j]
        return
    n = strides.shape[0]
    # strides of a mixed radix (every key space's): the id after id v has v's codes plus one
    radix = (
        bool(n)
        and strides[-1] == 1
        and all(strides[j] == strides[j + 1] * cards[j + 1] for j in range(n - 1))
    )
    unpack_ids_kernel(ids, strides, cards, radix, out)


@jit_parallel
def unpack_ids_kernel(ids, strides, cards, radix, out):
    """:func:`unpack_ids` of many ids, split over threads. With ``radix`` (``strides`` those of a
    mixed radix of ``cards``), an id one past the one before it gets that one's codes plus one,
    with carries: two integer divisions per column cost some 4 ns a value (0.87 ms for 100k
    ids of two columns), and the groups that occur are mostly consecutive ids."""
    n_cols = strides.shape[0]
    n = ids.shape[0]
    n_chunks = max(1, min(n, 64))
    for chunk in prange(n_chunks):
        prev = -2
        for g in range(chunk * n // n_chunks, (chunk + 1) * n // n_chunks):
            v = ids[g]
            if radix and v == prev + 1:
                carry = True
                for j in range(n_cols - 1, -1, -1):
                    c = out[j, g - 1]
                    if carry:
                        c += 1
                        carry = c == cards[j]
                        if carry:
                            c = 0
                    out[j, g] = c
            else:
                for j in range(n_cols):
                    out[j, g] = (v // strides[j]) % cards[j]
            prev = v


#: Groups the distinct tables' int32 ids can number (callers take another path from here on)
_IDS_LIMIT = 1 << 31


@jit
def distinct_tables(tp, fp, fn, tn):
    """``(ids, first)``: the distinct 2×2 tables among G, by hashing their cells.

    ``ids[g]`` (int32: fewer than 2³¹ groups) is the index of table g's cells among the distinct
    ones and ``first[d]`` the first group with the d-th distinct cells, so a per-table value
    computed for ``first`` and gathered by ``ids`` is the value of every group. Folds of one size
    give tables that repeat often: 100k tables of 200 rows hold a few thousand distinct ones.
    """
    n = tp.shape[0]
    if n >= _IDS_LIMIT:
        raise ValueError("distinct_tables: 2**31 groups or more do not fit its int32 ids")
    size = 1
    while size < 2 * n:
        size *= 2
    mask = np.uint64(size - 1)
    slots = np.full(size, -1, np.int64)
    first = np.empty(n, np.int64)
    ids = np.empty(n, np.int32)
    n_distinct = 0
    for g in range(n):
        a, b, c, d = tp[g], fp[g], fn[g], tn[g]
        h = np.uint64(a) * np.uint64(0x9E3779B97F4A7C15)
        h = (h ^ np.uint64(b)) * np.uint64(0xC2B2AE3D27D4EB4F)
        h = (h ^ np.uint64(c)) * np.uint64(0x165667B19E3779F9)
        h = (h ^ np.uint64(d)) * np.uint64(0x9E3779B97F4A7C15)
        i = (h >> np.uint64(32)) & mask
        while True:
            k = slots[i]
            if k < 0:
                slots[i] = n_distinct
                first[n_distinct] = g
                ids[g] = n_distinct
                n_distinct += 1
                break
            f = first[k]
            if tp[f] == a and fp[f] == b and fn[f] == c and tn[f] == d:
                ids[g] = k
                break
            i = (i + np.uint64(1)) & mask
    return ids, first[:n_distinct]


@jit
def distinct_small_tables(tp, fp, fn, tn):
    """:func:`distinct_tables` (the same ``ids`` and ``first``) of tables whose cells are all below
    2¹⁶, and True; else empty arrays and False, for the general kernel.

    Each table's cells are packed into one key, kept in the hash table next to its index: the
    general kernel compares cells read back from the four columns at ``first[k]``, four reads
    from 3.2 MB of columns per probe (100k tables, 11,565 distinct: 1.05-1.07 ms against
    0.63 ms). A slot is a (key, index + 1) pair, so that a probe reads one cache line, not one
    in an array of keys and one in an array of indices; and the table starts small and doubles
    when half full (:func:`_small_run` probes until then), so that it stays near twice the
    distinct tables found rather than twice the groups: for those 100k tables 2¹⁵ slots
    (0.5 MB, in L2) instead of 2¹⁸ (4 MB).
    """
    n = tp.shape[0]
    if n >= _IDS_LIMIT:
        raise ValueError("distinct_small_tables: 2**31 groups or more do not fit its int32 ids")
    top_bits = 1
    while (1 << top_bits) < 2 * n:
        top_bits += 1
    bits = min(top_bits, _FIRST_BITS)
    first = np.empty(n, np.int64)
    ids = np.empty(n, np.int32)
    n_distinct = 0
    g = 0
    while True:
        table = np.zeros(2 << bits, np.uint64)
        # the distinct tables found so far into the larger table, in their order, so that an id
        # stays the index of its table's first group among the distinct ones
        shift = np.uint64(64 - bits)
        mask = np.uint64((1 << bits) - 1)
        for k in range(n_distinct):
            f = first[k]
            key = _small_key(tp[f], fp[f], fn[f], tn[f])
            i = (key * np.uint64(0x9E3779B97F4A7C15)) >> shift
            while table[2 * i + 1] != 0:
                i = (i + np.uint64(1)) & mask
            table[2 * i] = key
            table[2 * i + 1] = k + 1
        limit = n if bits == top_bits else 1 << (bits - 1)
        g, n_distinct = _small_run(tp, fp, fn, tn, g, table, bits, first, ids, n_distinct, limit)
        if g < 0:  # a cell of 2¹⁶ or more (or negative)
            return ids[:0], first[:0], False
        if g == n:
            return ids, first[:n_distinct], True
        bits += 1


#: the hash table's first size (2**bits slots) in distinct_small_tables
_FIRST_BITS = 15


@jit_inline
def _small_key(a, b, c, d):
    """A table's four cells (each below 2¹⁶) packed into one key."""
    key = np.uint64(a) | (np.uint64(b) << np.uint64(16)) | (np.uint64(c) << np.uint64(32))
    return key | (np.uint64(d) << np.uint64(48))


# its loop keeps numba's fast loop only while the table it probes is not reassigned inside it (a
# table grown in place ran at 4.7 ms for 100k tables against 0.63): a function of its own, inlined
# (one compile fewer on an empty cache than a plain jit function)
@jit_inline
def _small_run(tp, fp, fn, tn, g, table, bits, first, ids, n_distinct, limit):
    """:func:`distinct_small_tables`' probes from group ``g`` until the end or ``limit`` distinct
    tables: ``(next group, distinct tables)``, next group −1 for a cell of 2¹⁶ or more.
    ``table[2 i]`` is slot i's key, ``table[2 i + 1]`` its table's index + 1 (0: empty)."""
    n = tp.shape[0]
    shift = np.uint64(64 - bits)
    mask = np.uint64((1 << bits) - 1)
    for h in range(np.uint64(g), np.uint64(n)):  # unsigned: no wraparound test on the indices
        a, b, c, d = tp[h], fp[h], fn[h], tn[h]
        if (a | b | c | d) >> 16 != 0:
            return -1, n_distinct
        key = _small_key(a, b, c, d)
        # Fibonacci hashing: the product's top bits
        i = (key * np.uint64(0x9E3779B97F4A7C15)) >> shift
        while True:
            j = np.uint64(2) * i
            k = table[j + np.uint64(1)]
            if k == 0:
                table[j + np.uint64(1)] = np.uint64(n_distinct + 1)
                table[j] = key
                first[n_distinct] = h
                ids[h] = n_distinct
                n_distinct += 1
                if n_distinct == limit:
                    return np.int64(h) + 1, n_distinct
                break
            if table[j] == key:
                ids[h] = np.int64(k) - 1
                break
            i = (i + np.uint64(1)) & mask
    return n, n_distinct


@jit_parallel
def gather_two(src, ids, out_a, out_b):
    """Per-table values handed to every group of that table, into two blocks in one pass:
    ``out_a[:, g] = src[:n_a, ids[g]]`` and ``out_b[:, g] = src[n_a:, ids[g]]``
    (``n_a = out_a.shape[0]``; ``out_b`` may have no rows). One spread over the threads where two
    gathers were two, each ending in a barrier that waits for the slower thread. int32 ``ids``
    (:func:`distinct_tables`'): the gather reads them once a row, 46 times for every default
    measure, and half the bytes stay in L2 beside the rows streamed out."""
    n_a = out_a.shape[0]
    n_rows = n_a + out_b.shape[0]
    n = ids.shape[0]
    block = 4096
    n_blocks = (n + block - 1) // block
    # a row at a time, a block of groups at a time (each thread takes a run of rows): the row's
    # source values, read at random, stay in L2. Every row inside a block instead cycled the
    # whole source through it: 45 rows of 11,565 distinct tables (4.2 MB) gathered at 0.3 ms a
    # row of 100k groups, from L3, against 0.086 ms while they fit (11 rows)
    for i in prange(n_rows * n_blocks):
        r = i // n_blocks
        lo = (i - r * n_blocks) * block
        hi = min(n, lo + block)
        s = src[r]
        o = out_a[r] if r < n_a else out_b[r - n_a]
        for g in range(lo, hi):
            # an unsigned index: no test for a negative one to wrap (a quarter of the time)
            o[g] = s[np.uint64(ids[g])]


def cells_2x2(counts: np.ndarray, positive: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(tp, fp, fn, tn)`` of ``[G, 2, 2]`` int64 tables, as new contiguous int64 arrays: one
    pass of a kernel, or numpy below :data:`~.jit.SERIAL_BELOW` cells (no compile on a first
    small call).

    Examples
    --------
    >>> import numpy as np
    >>> [c.tolist() for c in cells_2x2(np.array([[[5, 1], [2, 7]]]), 1)]
    [[7], [1], [2], [5]]
    """
    if counts.size < SERIAL_BELOW:
        p, q = positive, 1 - positive
        return tuple(np.array(counts[:, i, j], dtype=np.int64) for i, j in ((p, p), (q, p), (p, q), (q, q)))
    return cells_2x2_kernel(counts, positive)


@jit_parallel
def cells_2x2_kernel(counts, positive):
    """:func:`cells_2x2` of many tables in one pass."""
    n = counts.shape[0]
    p = positive
    q = 1 - positive
    tp = np.empty(n, np.int64)
    fp = np.empty(n, np.int64)
    fn = np.empty(n, np.int64)
    tn = np.empty(n, np.int64)
    for g in prange(n):
        tp[g] = counts[g, p, p]
        fp[g] = counts[g, q, p]
        fn[g] = counts[g, p, q]
        tn[g] = counts[g, q, q]
    return tp, fp, fn, tn
