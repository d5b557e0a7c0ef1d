"""Frame → encoded keys → ``counts[G, K, K]``.

This is the create/append stage of the pipeline: it encodes the key and class
columns (:mod:`batcheval.core.encode`), picks a race-free counting strategy for the
size of the key space, runs the kernel, and trims the dense key space down to
the groups that occur.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from ..errors import InvalidLabelError
from ..kernels import count as _count
from ..kernels.jit import n_threads, readonly
from .encode import ClassCoding, KeyColumn, column_ranges, encode_columns, encode_key
from .memory import check_allocation

__all__ = [
    "PRIVATE_CELLS",
    "PRIVATE_ROWS_PER_THREAD",
    "Counted",
    "KeySpace",
    "check_cells",
    "compact",
    "count_again",
    "count_checked",
    "count_encoded",
    "count_frame",
    "encode_frame",
    "encode_frame_scanning",
    "exact_keys",
    "group_ids",
    "identity_lut",
    "kernel_keys",
    "key_cards",
    "key_space",
    "radix_count",
    "raise_outside",
    "run_count_kernel",
    "use_radix",
]  # fmt: skip

_MAX_KERNEL_KEYS = 4
# private per-thread tables while all of them together stay under this many cells
PRIVATE_CELLS = 1 << 25
PRIVATE_ROWS_PER_THREAD = (1 << 32) - 1
# 8-bit counters while the mean rows of a group in one thread fit one (wraps stay rare)
BYTE_ROWS_PER_GROUP = 255
# radix partitioning: cells per partition (int64: 1 MiB, an L2's worth) and when to use it
_RADIX_PART_BITS = 17
_RADIX_MIN_CELLS = 1 << 19  # 2 MiB of uint32 private table: past a typical L2
_RADIX_BLOCK_ROWS = 1 << 24
# positions of the label and prediction arrays in the kernels' argument tuple
_ROW_ARGS = (_MAX_KERNEL_KEYS + 3, _MAX_KERNEL_KEYS + 4)
_PROBE = 2048
_GROUPED_FRACTION = 0.5
# a dense key space may be this much larger than the rows before we hash instead
_DENSE_FACTOR = 4
_DENSE_MIN = 1 << 20
# packed ids of one re-encoding round stay below this (int64 with headroom)
_PACK_LIMIT = 1 << 62


@dataclass
class Counted:
    keys: pl.DataFrame
    classes: pl.Series
    counts: np.ndarray
    # the key-space ids of the rows of ``counts``, and the class codes kept on its axes
    groups: np.ndarray | None = None
    class_codes: np.ndarray | None = None
    # rows per group of ``counts``, as compact summed them to find the groups that occur
    totals: np.ndarray | None = None


def count_frame(
    df: pl.DataFrame, by: Sequence[str], label: str, prediction: str, classes: Sequence[Any] | None
) -> Counted:
    """Count ``df`` into one K×K table per distinct combination of ``by``."""
    coding, space = encode_frame(df, by, label, prediction, classes, guess=True, guess_keys=True)
    return count_encoded(df, by, coding, space)


def count_encoded(
    df: pl.DataFrame, by: Sequence[str], coding: ClassCoding, space: KeySpace | None
) -> Counted:
    """:func:`count_frame` for a frame already through :func:`encode_frame`."""
    if space is None:
        k = coding.n_codes
        keys = pl.DataFrame([df.get_column(name).clear() for name in by])
        return Counted(keys, coding.classes, np.zeros((0, k, k), dtype=np.int64))
    flat = None
    if coding.exact is not None or space.guessed:
        # a class or key range guessed from a sample: counted with every row's codes checked,
        # and counted again with the scanned ranges when some row fell outside them
        flat = count_checked(space.columns, coding, space.size)
        if flat is None:
            flat, coding, space = count_again(df.height, coding, space)
    k = coding.n_codes
    if flat is None:
        flat = run_count_kernel(space.columns, coding, space.size, k)
    return compact(space, coding, flat.reshape(space.size, k, k), bool(by))


def count_again(
    n_rows: int, coding: ClassCoding, space: KeySpace
) -> tuple[np.ndarray | None, ClassCoding, KeySpace]:
    """After :func:`count_checked` met a row outside a guessed range: the scanned class coding
    and key space, with the counts where they came along (else None: count with them).

    Only what missed is scanned again. The kernels do not say which code was outside, so with
    both ranges guessed the class columns are scanned first (they must be if a class missed):
    classes inside their guess mean a key missed, and the keys are scanned; classes outside it
    are counted again against the guessed keys, every key code checked, and only if that count
    meets a key outside its range too are the keys scanned and counted a third time (a class
    and a key outside their guesses at once: one count more than scanning both at once).
    """
    if coding.exact is None:
        return None, coding, key_space(exact_keys(space.columns), n_rows, coding.n_codes)
    guessed, coding = coding, coding.exact()
    if not space.guessed:
        return None, coding, space
    lo, hi = guessed.vmin, guessed.vmin + guessed.n_codes
    k = coding.n_codes
    # a larger K could make the guessed space too wide to be dense (key_space's limit)
    if (coding.vmin < lo or coding.vmin + k > hi) and space.size * k * k < 1 << 31:
        flat = count_checked(space.columns, coding, space.size)
        if flat is not None:
            return flat, coding, space
    return None, coding, key_space(exact_keys(space.columns), n_rows, k)


def encode_frame(
    df: pl.DataFrame,
    by: Sequence[str],
    label: str,
    prediction: str,
    classes: Sequence[Any] | None,
    guess: bool = False,
    guess_keys: bool = False,
) -> tuple[ClassCoding, KeySpace | None]:
    """The class coding and the key space of ``df`` (None for a frame without rows).

    ``guess``, ``guess_keys``: the class range, and the integer keys' ranges, may come from a
    sample (see :func:`.encode.encode_columns`); only :func:`count_encoded` takes such a coding
    or key space.
    """
    coding, space, _ = encode_frame_scanning(
        df, by, label, prediction, classes, guess=guess, guess_keys=guess_keys
    )
    return coding, space


def encode_frame_scanning(
    df: pl.DataFrame,
    by: Sequence[str],
    label: str,
    prediction: str,
    classes: Sequence[Any] | None,
    also: Sequence[np.ndarray] = (),
    guess: bool = False,
    guess_keys: bool = False,
) -> tuple[ClassCoding, KeySpace | None, list[tuple[int, int]]]:
    """:func:`encode_frame`, and the min and max of each array of ``also`` (integer
    arrays of the frame's length) from the same pass over the rows
    (:func:`~batcheval.core.encode.encode_columns`)."""
    n_rows = df.height
    coding, key_cols, found = encode_columns(
        df, by, label, prediction, classes, also if n_rows else (), guess=guess, guess_keys=guess_keys
    )
    if n_rows == 0:
        return coding, None, found
    return coding, key_space(key_cols, n_rows, coding.n_codes), found


def compact(space: KeySpace, coding: ClassCoding, counts: np.ndarray, keyed: bool) -> Counted:
    """The finalize stage: keep the groups that occur, and with a trimmed class
    coding the classes that occur (``counts[space id, code, code]`` in)."""
    totals, class_use = _count.group_totals(counts, len(coding.label))
    if not keyed:
        present = np.zeros(1, np.int64)
    elif np.count_nonzero(totals) == space.size:  # every group occurs: no compaction
        present = np.arange(space.size, dtype=np.int64)
    else:
        present = np.flatnonzero(totals)
        if len(present) and present[-1] - present[0] + 1 == len(present):
            # one run of groups (a padded key range's empty ends trimmed): a view, not a copy
            counts = counts[present[0] : present[-1] + 1]
        else:
            counts = counts[present]
    keys = space.decode(present)

    class_values = coding.classes
    used = np.arange(coding.n_codes)
    if coding.trim:
        used = np.flatnonzero(class_use)
        if len(used) != coding.n_codes:
            counts = np.ascontiguousarray(counts[:, used][:, :, used])
            class_values = class_values.gather(used)
    return Counted(keys, class_values, counts, present, used, totals[present])


def group_ids(keys: pl.DataFrame) -> tuple[np.ndarray, pl.DataFrame]:
    """The combine stage: a dense group id per key row, and the distinct keys.

    Ids follow the sorted order of the distinct keys (nulls last), the order
    every table's keys are kept in. Key rows go through the same encoders as
    counting, so merging and pooling cost a few passes over the key columns
    instead of a hash join per table.
    """
    n_rows = keys.height
    if n_rows == 0:
        return np.zeros(0, dtype=np.int64), keys.clear()
    space = key_space([encode_key(keys.get_column(c), n_rows) for c in keys.columns], n_rows, 1)
    ids = np.empty(n_rows, dtype=np.int64)
    _count.pack_ids(*kernel_keys(space.columns), ids)
    seen = np.zeros(space.size, dtype=np.bool_)
    seen[ids] = True
    present = np.flatnonzero(seen)
    rank = np.cumsum(seen, dtype=np.int64) - 1
    return rank[ids], space.decode(present)


@dataclass
class KeySpace:
    """Kernel-ready key columns whose packed ids span ``range(size)``."""

    columns: list[KeyColumn]
    size: int
    decode_ids: Any  # Callable[[np.ndarray], list[pl.Series]]

    @property
    def guessed(self) -> bool:
        """Whether some column's range came from a sample, so that a row's packed id may fall
        outside ``range(size)`` (``KeyColumn.exact``); only ``count_checked`` counts such a space."""
        return any(c.exact is not None for c in self.columns)

    def decode(self, ids: np.ndarray) -> pl.DataFrame:
        return pl.DataFrame(self.decode_ids(ids))


def _strides(cols: Sequence[KeyColumn]) -> list[int]:
    strides = [1] * len(cols)
    for i in range(len(cols) - 2, -1, -1):
        strides[i] = strides[i + 1] * cols[i + 1].cardinality
    return strides


def _decode_packed(cols: Sequence[KeyColumn]):
    strides = np.asarray(_strides(cols), dtype=np.int64)
    cards = np.asarray([max(c.cardinality, 1) for c in cols], dtype=np.int64)

    def decode(ids: np.ndarray) -> list[pl.Series]:
        codes = np.empty((len(cols), len(ids)), dtype=np.int64)
        _count.unpack_ids(np.ascontiguousarray(ids, dtype=np.int64), strides, cards, codes)
        out: list[pl.Series] = []
        for j, c in enumerate(cols):
            decoded = c.decode(codes[j])  # a re-encoded column decodes to the columns it packed
            out.extend(decoded if isinstance(decoded, list) else [decoded])
        return out

    return decode


def key_space(cols: list[KeyColumn], n_rows: int, n_classes: int) -> KeySpace:
    if not cols:
        zero = KeyColumn("", np.zeros(n_rows, np.int8), 0, 1, lambda c: pl.Series([]))
        return KeySpace([zero], 1, lambda ids: [])
    size = 1
    for c in cols:
        size *= c.cardinality
    dense_ok = size <= max(_DENSE_FACTOR * n_rows, _DENSE_MIN) and size * n_classes * n_classes < 1 << 31
    if len(cols) <= _MAX_KERNEL_KEYS and dense_ok:
        return KeySpace(cols, size, _decode_packed(cols))
    if any(c.exact is not None for c in cols):
        # the hashed space packs ids unchecked: guessed ranges are scanned first
        return key_space(exact_keys(cols), n_rows, n_classes)
    return _hashed_space(cols)


def exact_keys(cols: list[KeyColumn]) -> list[KeyColumn]:
    """``cols`` with every column whose range was guessed (:attr:`KeyColumn.exact`) rebuilt from
    its scanned range, all of them in one pass over the rows."""
    guessed = [c for c in cols if c.exact is not None]
    found = iter(column_ranges([c.values for c in guessed]) if guessed else [])
    return [c if c.exact is None else c.exact(next(found)) for c in cols]


def _hashed_space(cols: list[KeyColumn]) -> KeySpace:
    """Key spaces too sparse to count densely: pack ids, then dictionary-encode them.

    Columns are packed four at a time (while the product fits in int64) and
    each packed id column re-encoded, until one dense column remains.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    groups: list[list[KeyColumn]] = []
    for c in cols:
        last = groups[-1] if groups else None
        if (
            last is not None
            and len(last) < _MAX_KERNEL_KEYS
            and _product(last) * max(c.cardinality, 1) < _PACK_LIMIT
        ):
            last.append(c)
        else:
            groups.append([c])

    merged: list[KeyColumn] = []
    for group in groups:
        if (
            len(group) == 1
            and len(groups) == 1
            and group[0].cardinality <= 4 * len(group[0].values) + (1 << 16)
        ):
            merged.append(group[0])
            continue
        ids = np.empty(len(group[0].values), dtype=np.int64)
        _count.pack_ids(*kernel_keys(group), ids)
        enc = pc.dictionary_encode(pa.array(ids))
        distinct = np.asarray(enc.dictionary)
        order = np.argsort(distinct, kind="stable")
        rank = np.empty(len(order), dtype=np.int32)
        rank[order] = np.arange(len(order), dtype=np.int32)
        codes = rank[np.asarray(enc.indices).astype(np.int64)]
        sorted_ids = distinct[order]
        inner = _decode_packed(group)
        merged.append(KeyColumn("", codes, 0, len(order), _GroupDecoder(inner, sorted_ids)))
    # the product of the re-encoded columns' cardinalities can be the square of the rows (five
    # keys of 100 values each over 2M rows: four packed into 2M codes beside 100, a 2e8-group
    # table of 6.4 GB), so columns are packed again until the space is as dense as key_space's
    n_rows = len(merged[0].values)
    sparse = len(merged) > 1 and _product(merged) > max(_DENSE_FACTOR * n_rows, _DENSE_MIN)
    if len(merged) > _MAX_KERNEL_KEYS or _product(merged) >= _PACK_LIMIT or sparse:
        return _hashed_space(merged)
    return KeySpace(merged, _product(merged), _decode_packed(merged))


class _GroupDecoder:
    """Codes of a re-encoded column → the key columns it was packed from."""

    def __init__(self, inner, sorted_ids: np.ndarray) -> None:
        self.inner, self.sorted_ids = inner, sorted_ids

    def __call__(self, codes: np.ndarray) -> list[pl.Series]:
        return self.inner(self.sorted_ids[codes])


def _product(cols: Sequence[KeyColumn]) -> int:
    p = 1
    for c in cols:
        p *= max(c.cardinality, 1)
    return p


def kernel_keys(cols: Sequence[KeyColumn]) -> tuple:
    dummy = readonly(np.zeros(1, dtype=np.int64))
    arrays = [c.values for c in cols] + [dummy] * (_MAX_KERNEL_KEYS - len(cols))
    offsets = np.zeros(_MAX_KERNEL_KEYS, dtype=np.int64)
    strides = np.zeros(_MAX_KERNEL_KEYS, dtype=np.int64)
    for i, (c, s) in enumerate(zip(cols, _strides(cols), strict=True)):
        offsets[i], strides[i] = c.offset, s
    return (*arrays, offsets, strides, len(cols))


def key_cards(cols: Sequence[KeyColumn]) -> np.ndarray:
    """The cardinality of each key column (int64, one slot per kernel key): the bounds that
    :func:`~batcheval.kernels.count.direct_ids` checks a row's key codes against."""
    cards = np.ones(_MAX_KERNEL_KEYS, dtype=np.int64)
    for i, c in enumerate(cols):
        cards[i] = c.cardinality
    return cards


def _private_fits(cells: int, threads: int) -> bool:
    """Whether every thread can have its own uint32 table of ``cells`` (with uint32 cell ids)."""
    return (threads == 1 or cells * threads <= PRIVATE_CELLS) and cells < (1 << 32) - 1


def count_checked(cols: list[KeyColumn], coding: ClassCoding, n_groups: int) -> np.ndarray | None:
    """Flat counts with a coding whose class range, and key columns whose ranges, may miss values
    (guessed ranges); None when some row's label, prediction or key lies outside them, or when
    this table is not one for the counters that check every row (direct codes, by per-thread
    tables or radix partitions)."""
    threads = n_threads()
    k = coding.n_codes
    cells = n_groups * k * k
    keys = kernel_keys(cols)
    if not identity_lut(coding.lut) or cells >= (1 << 32) - 1 or k == 0:
        return None
    check_cells(n_groups, k)
    if use_radix(keys, len(coding.label), cells):
        # the partitions' id pass checks the codes too: no scan of the class columns first
        # (16 of a row's bytes with int64 labels: some 25 ms of CPU for 20M rows)
        flat = np.zeros(cells, dtype=np.int64)
        args = (*keys, coding.label, coding.prediction, coding.vmin, coding.lut, k, True, key_cards(cols))
        outside = _count_radix(args, len(cols), len(coding.label), cells, threads, flat)
        return None if outside else flat
    if not _private_fits(cells, threads):
        return None
    flat, outside = _count_private(keys, key_cards(cols), coding, cells, threads)
    return None if outside else flat


def _count_private(
    keys: tuple, cards: np.ndarray, coding: ClassCoding, cells: int, threads: int
) -> tuple[np.ndarray, int]:
    """``(flat counts, rows outside the class codes)`` by per-thread 8- or 16-bit tables with their
    wrap counts (:func:`~batcheval.kernels.count.count_private`); with any row outside (a positive
    count) the kernel stops early and the counts are incomplete."""
    direct = identity_lut(coding.lut)
    n_rows = len(coding.label)
    # the first block's sums store every cell; with no rows there is no block
    flat = np.empty(cells, dtype=np.int64) if n_rows else np.zeros(cells, dtype=np.int64)
    n_groups = max(cells // (coding.n_codes * coding.n_codes), 1)
    # 8-bit counters where the tables outgrow L2 and a group's rows in one thread fit one
    # (so a cell wraps only in a group far larger than the rest): half the cache footprint
    byte = cells >= _RADIX_MIN_CELLS and n_rows <= BYTE_ROWS_PER_GROUP * threads * n_groups
    # one cell more per thread: the rows outside the class set land there; the wrap tables one
    # more again, for the count of every wrap
    low = np.zeros((threads, cells + 1), dtype=np.uint8 if byte else np.uint16)
    wraps = np.zeros((threads, cells + 2), dtype=np.uint32)
    n_keys = keys[_MAX_KERNEL_KEYS + 2]
    block = PRIVATE_ROWS_PER_THREAD * threads  # no cell's wrap count can wrap within a block
    bad = 0
    # by the rows, not the tables' size: clustered counts of a few thousand rows fill runs ×
    # examples cells (the Quickstart's 37,014 rows: 230,840), and the parallel versions would
    # compile for them (about 3 s of CPU of a first call on an empty cache)
    count, sum_split = _count.count_private.by_work(n_rows), _count.sum_split_rows.by_work(n_rows)
    for lo in range(0, n_rows, block):
        rows = slice(lo, min(n_rows, lo + block))
        sliced = tuple(a[rows] if i < n_keys else a for i, a in enumerate(keys[:_MAX_KERNEL_KEYS]))
        count(
            *sliced,
            *keys[_MAX_KERNEL_KEYS:],
            coding.label[rows],
            coding.prediction[rows],
            coding.vmin,
            coding.lut,
            coding.n_codes,
            direct,
            cards,
            low,
            wraps,
        )
        wrapped = bool(wraps[:, cells + 1].any())
        sum_split(low, wraps, wrapped, lo > 0, flat)
        bad += int(low[:, cells].sum()) + (int(wraps[:, cells].sum()) << (8 * low.itemsize))
        if bad:
            break
        if lo + block < n_rows:
            low[:] = 0
            if wrapped:
                wraps[:] = 0
    return flat, bad


def run_count_kernel(cols: list[KeyColumn], coding: ClassCoding, n_groups: int, k: int) -> np.ndarray:
    """Flat ``counts[G*K*K]`` with a coding that covers every value; raises
    :class:`~batcheval.errors.InvalidLabelError` for values outside ``classes=``."""
    if k == 0 and len(coding.label):
        # classes=[]: every row is outside them (and the kernels would divide by K² cells)
        raise_outside(coding, len(coding.label))
    threads = n_threads()
    cells = n_groups * k * k
    check_cells(n_groups, k)
    keys = kernel_keys(cols)
    cards = key_cards(cols)
    args = (*keys, coding.label, coding.prediction, coding.vmin, coding.lut, k, False, cards)
    if use_radix(keys, len(coding.label), cells):
        flat = np.zeros(cells, dtype=np.int64)
        bad = _count_radix(args, len(cols), len(coding.label), cells, threads, flat)
    elif _private_fits(cells, threads):
        flat, bad = _count_private(keys, cards, coding, cells, threads)
    else:
        flat = np.zeros(cells, dtype=np.int64)
        bad = _count.count_partitioned(*args[:-2], threads, flat)
    if bad:
        raise_outside(coding, bad)
    return flat


def check_cells(n_groups: int, k: int) -> None:
    """Raise :class:`~batcheval.errors.MemoryBudgetError` before allocating the int64 counts of
    ``n_groups`` K×K tables when they would not fit in memory."""
    check_allocation(
        n_groups * k * k * 8,
        f"counting {n_groups} groups over {k} classes ({k}×{k} cells each)",
        "count fewer key combinations or classes at once, e.g. one part of the frame at a time",
    )


def identity_lut(lut: np.ndarray) -> bool:
    """Whether a class coding's lookup is the identity, so the kernel needs no lookup.

    A coding's ``lut`` covers every value of its label and prediction arrays (the kernels read
    it unchecked), so an identity lut also says that no value lies outside the class set.

    Examples
    --------
    >>> import numpy as np
    >>> identity_lut(np.arange(3)), identity_lut(np.array([0, -1, 1]))
    (True, False)
    """
    return bool(np.array_equal(lut, np.arange(len(lut), dtype=lut.dtype)))


def use_radix(keys: tuple, n_rows: int, cells: int, rows_per_cell: float = 2.0) -> bool:
    """Radix-partition when a table outgrows L2 and the rows are not grouped by key.

    Below ``rows_per_cell`` the private tables win for contingency counts;
    a sweep's histogram (many cells per group, most of them empty) passes 0.
    """
    if (
        cells < _RADIX_MIN_CELLS
        or cells >= (1 << 32) - 1
        or n_rows < rows_per_cell * cells
        or n_rows < 4 * _PROBE
    ):
        return False
    starts = np.linspace(0, n_rows - _PROBE - 1, 8).astype(np.int64)
    return _count.run_fraction(*keys, starts, _PROBE) < _GROUPED_FRACTION


def _count_radix(args: tuple, n_keys: int, n_rows: int, cells: int, threads: int, flat: np.ndarray) -> int:
    def fill_ids(lo: int, hi: int, shift: int, ids: np.ndarray, hist: np.ndarray) -> int:
        sliced = tuple(a[lo:hi] if (i < n_keys or i in _ROW_ARGS) else a for i, a in enumerate(args))
        return _count.cell_ids(*sliced, shift, ids, hist)

    return radix_count(fill_ids, n_rows, cells, threads, flat)


def radix_count(fill_ids: Any, n_rows: int, cells: int, threads: int, flat: np.ndarray) -> int:
    """Three passes (ids, partition, count) that keep every increment in cache.

    ``fill_ids(lo, hi, shift, ids, hist)`` writes the flat cell id of rows
    ``[lo, hi)`` (the dtype's max for a row to skip), counts ids per (thread,
    partition) in ``hist`` and returns the rows it skipped. Rows go through in
    blocks whose two id buffers are reused: first-touch page faults on fresh
    buffers the size of the input cost more than the passes themselves.
    """
    shift = _RADIX_PART_BITS
    n_parts = ((cells - 1) >> shift) + 1
    block = min(n_rows, _RADIX_BLOCK_ROWS)
    ids = np.empty(block, dtype=np.uint32)
    grouped = np.empty(block, dtype=np.uint32)
    hist = np.empty((threads, n_parts), dtype=np.int64)
    bad = 0
    for lo in range(0, n_rows, block):
        hi = min(n_rows, lo + block)
        hist[:] = 0
        bad += fill_ids(lo, hi, shift, ids[: hi - lo], hist)
        # partition-major, thread-minor offsets keep each thread's writes in row order
        per_part = hist.T.reshape(-1)
        starts = np.concatenate(([0], np.cumsum(per_part)[:-1])).reshape(n_parts, threads).T.copy()
        _count.scatter_by_part(ids[: hi - lo], shift, starts, grouped)
        bounds = np.concatenate(([0], np.cumsum(hist.sum(axis=0))))
        _count.count_parts(grouped, bounds, flat)
    return int(bad)


def raise_outside(coding: ClassCoding, bad: int) -> None:
    """Name the column and values that fell outside ``classes=``."""
    classes = coding.classes.to_list()
    arrays = (coding.label, coding.prediction)
    for i, (role, name, arr) in enumerate(zip(("label", "prediction"), coding.names, arrays, strict=True)):
        idx = arr.astype(np.int64) - coding.vmin
        inside = (idx >= 0) & (idx < len(coding.lut))
        codes = np.full(len(arr), -1, dtype=np.int64)
        codes[inside] = coding.lut[idx[inside]]
        if (codes < 0).any():
            if coding.sources is not None:  # arrays of codes or bytes: show the column's own values
                shown = coding.sources[i].filter(pl.Series(codes < 0)).unique().sort().head(5).to_list()
            else:
                shown = np.unique(arr[codes < 0])[:5].tolist()
            raise InvalidLabelError(
                f"{role} column {name!r} has {int((codes < 0).sum())} value(s) outside "
                f"classes={classes}: {shown}"
            )
    raise InvalidLabelError(f"{bad} rows have labels or predictions outside classes={classes}")
