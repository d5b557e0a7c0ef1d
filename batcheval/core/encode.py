"""Encoding: frame columns → integer arrays the counting kernels read.

Keys
    Integer-like key columns (ints, bools, dates, times) are read as they are:
    the kernel packs ``value - min`` arithmetically, so they cost no copy.
    Strings and categoricals go through dictionary codes (polars categorical
    physical codes, remapped so that codes follow the sorted values, or an
    enum's order; nulls of a categorical take the last code). Anything
    else — floats such as a threshold column, strings or integers with nulls,
    integers with a range far wider than the data — goes through pyarrow's hash-based
    ``dictionary_encode``. Every :class:`KeyColumn` knows how to turn codes
    back into key values.

Classes
    Labels and predictions share one class set: the sorted union of both
    columns over the whole input (never per group), or the caller's
    ``classes=``. The kernel maps ``value - vmin`` through a small lookup table
    to a class code, -1 for values outside the class set.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import numpy as np
import polars as pl

from ..errors import InvalidArgumentError, InvalidLabelError, NullValuesError
from ..kernels.jit import readonly

__all__ = [
    "WIDE_INTEGERS",
    "ClassCoding",
    "KeyColumn",
    "as_integers",
    "check_classes",
    "check_key_dtype",
    "check_nulls",
    "class_values",
    "column_ranges",
    "decimal_integers",
    "encode_classes",
    "encode_columns",
    "encode_key",
    "guess_key_range",
    "integer_like",
    "is_whole_number",
    "kernel_input",
    "label_kind",
    "narrow_integers",
    "not_whole",
    "sample_range",
    "split_decimals",
    "typed_nulls",
    "value_range",
]

# a class range this narrow is counted as is and trimmed to the present classes after
_COUNT_RANGE_LIMIT = 64
# ranges up to this get a presence bitmap; wider ones are dictionary-encoded
_LUT_RANGE_LIMIT = 1 << 24
#: Rows (of each column) whose values guess an integer class range (:func:`encode_columns`).
CLASS_SAMPLE = 4096
#: Frames from this many rows on may take an integer key's range from a sample
#: (:func:`guess_key_range`); below it the scan costs little and a miss would cost a count.
KEY_GUESS_ROWS = 1 << 20
# a guessed key range is widened at each end by this many sample gaps (span / sample): the
# chance that the sample misses the lowest (or highest) of a dense id's values by more is about
# exp(-16), while the table grows by 2 * 16 / 4096 of the span
_KEY_PAD_GAPS = 16


@dataclass
class KeyColumn:
    """One key column as integer codes ``values - offset`` in ``[0, cardinality)``."""

    name: str
    values: np.ndarray
    offset: int
    cardinality: int
    decode: Callable[[np.ndarray], pl.Series]
    # set when the range was guessed from a sample (:func:`guess_key_range`), so values may lie
    # outside ``[offset, offset + cardinality)``: makes the column from its scanned (min, max)
    exact: Callable[[tuple[int, int]], KeyColumn] | None = None

    def __post_init__(self) -> None:
        self.values = kernel_input(self.values)


def kernel_input(arr: np.ndarray) -> np.ndarray:
    """:func:`readonly` of an integer column, widened to int64 when it is small.

    numba compiles the counting kernels once per column dtype: an int32 key or int8 labels
    after an int64 frame cost another second or so of compiling on their first call. Inputs
    below :data:`~batcheval.kernels.jit.SERIAL_BELOW` rows run the kernels' serial twins, and
    widening them copies at most half a megabyte, so those twins see one dtype. Large columns
    keep their own dtype: the hot path reads an int8 or int32 column as it is, where a cast of
    20M rows would copy 160 MB first; their parallel kernels compile on the first large call
    of each dtype, as before.

    Examples
    --------
    >>> import numpy as np
    >>> kernel_input(np.array([1, 0, 1], np.int8)).dtype
    dtype('int64')
    >>> kernel_input(np.zeros(1 << 16, np.int8)).dtype
    dtype('int8')
    """
    from ..kernels.jit import SERIAL_BELOW

    if arr.dtype != np.int64 and arr.dtype.kind in "iub" and arr.size < SERIAL_BELOW:
        arr = arr.astype(np.int64)
    return readonly(arr)


def _numpy(s: pl.Series) -> np.ndarray:
    arr = s.to_numpy()
    if arr.dtype == np.bool_:
        arr = arr.view(np.uint8)
    elif arr.dtype == np.uint64:
        arr = arr.view(np.int64)  # caller has checked the values fit
    return readonly(arr)


def value_range(arr: np.ndarray) -> tuple[int, int]:
    """Min and max of a non-empty integer array in one parallel pass.

    uint64 arrays must already be known to fit in int64 (they are read as int64).
    """
    # column_ranges' loop vectorises; minmax's also collects the small values' bit mask, which
    # keeps it scalar (an int32 column of 100M rows: 0.07 s of CPU against ~0.03 s)
    return column_ranges([arr])[0]


def column_ranges(arrays: Sequence[np.ndarray]) -> list[tuple[int, int]]:
    """Min and max of each of several non-empty integer arrays of one length, in one pass.

    uint64 arrays must already be known to fit in int64 (they are read as int64).

    Examples
    --------
    >>> import numpy as np
    >>> column_ranges([np.array([3, -1, 7], np.int32), np.array([5, 5, 2], np.int8)])
    [(-1, 7), (2, 5)]
    """
    from ..kernels.jit import SERIAL_BELOW, n_threads
    from ..kernels.ranges import RANGE_SLOTS
    from ..kernels.ranges import column_ranges as scan

    if arrays and len(arrays[0]) < SERIAL_BELOW:
        # numpy's min and max: the same values, and no kernel to compile on a first small call
        # (the scan's serial twin and its per-dtype loops cost 0.76 s of a cold start)
        return [(int(a.min()), int(a.max())) for a in arrays]
    out: list[tuple[int, int]] = []
    dummy = readonly(np.zeros(1, np.int64))
    for lo in range(0, len(arrays), RANGE_SLOTS):
        chunk = [readonly(a) for a in arrays[lo : lo + RANGE_SLOTS]]
        slots = chunk + [dummy] * (RANGE_SLOTS - len(chunk))
        found = scan(*slots, len(chunk), n_threads())
        out.extend((int(found[0, j]), int(found[1, j])) for j in range(len(chunk)))
    return out


# numpy dtypes whose every value a 256-entry lookup covers: their range needs no scan
_BYTE_BOUNDS = {np.dtype(np.int8): (-128, 127), np.dtype(np.uint8): (0, 255)}


#: Integer dtypes that numpy, and so the kernels, cannot read.
WIDE_INTEGERS = (pl.Int128, pl.UInt128)


def integer_like(dtype: pl.DataType) -> bool:
    """Whether a column of ``dtype`` reads as a numpy integer array (128-bit integers do not)."""
    if dtype in WIDE_INTEGERS:
        return False
    return dtype.is_integer() or dtype == pl.Boolean or dtype.is_temporal()


def _fits_int64(s: pl.Series) -> bool:
    lo, hi = s.min(), s.max()
    return lo is None or (-(1 << 63) <= lo and hi < 1 << 63)  # type: ignore[operator]


def narrow_integers(s: pl.Series, role: str) -> pl.Series:
    """A 128-bit integer or a Decimal label or prediction column as Int64; an error if its values
    do not fit (or, for a Decimal, are no whole numbers: :func:`decimal_integers`).

    Examples
    --------
    >>> narrow_integers(pl.Series("label", [0, 1], dtype=pl.Int128), "label").dtype
    Int64
    >>> narrow_integers(pl.Series("label", [0, 2**70], dtype=pl.Int128), "label")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidLabelError: label column 'label' (Int128) holds 1180591620717411303424, ...
    """
    if isinstance(s.dtype, pl.Decimal):
        return decimal_integers(s, role)
    if s.dtype not in WIDE_INTEGERS:
        return s
    if not _fits_int64(s):
        top = s.max() if s.max() >= 1 << 63 else s.min()  # type: ignore[operator]
        raise InvalidLabelError(
            f"{role} column {s.name!r} ({s.dtype}) holds {top}, which does not fit in int64; "
            "class labels must fit in int64, or be strings"
        )
    return s.cast(pl.Int64)


def split_decimals(s: pl.Series) -> tuple[pl.Series, pl.Series, pl.Series]:
    """A Decimal Series as Int64 (null where null), with its values beyond int64 and its values
    with a fraction, for the callers' own refusals (class labels, counts).

    Examples
    --------
    >>> from decimal import Decimal as D
    >>> [p.to_list() for p in split_decimals(pl.Series([D("2.00"), D("2.50")], dtype=pl.Decimal(5, 2)))]
    [[2, 2], [], [Decimal('2.50')]]
    """
    whole = s.cast(pl.Int64, strict=False)  # truncates the fraction; null beyond int64
    return whole, s.filter(whole.is_null() & s.is_not_null()), s.filter(whole.cast(s.dtype) != s)


def is_whole_number(v: Any) -> bool:
    """A float or Decimal scalar that names an integer class (``1.0``, ``Decimal("1.00")``), as
    the whole values of a float or Decimal label column do."""
    if isinstance(v, float | np.floating):
        return float(v).is_integer()
    return isinstance(v, Decimal) and v.is_finite() and v == v.to_integral_value()


def decimal_integers(s: pl.Series, role: str) -> pl.Series:
    """A Decimal label or prediction column (SQL NUMERIC, read from duckdb or a warehouse's
    parquet) as the Int64 class codes it holds: the scores' Decimals are numbers too, and a
    class column of ``DECIMAL(1, 0)`` is as common as one of integers. A value with a fraction
    is refused, not truncated (a cast would read 1.50 as class 1 without a word), and so is one
    beyond int64.

    Examples
    --------
    >>> from decimal import Decimal as D
    >>> decimal_integers(pl.Series("label", [D("1.00"), D("-2")], dtype=pl.Decimal(5, 2)), "label").to_list()
    [1, -2]
    >>> decimal_integers(pl.Series("label", [D("1.00"), D("2.50")], dtype=pl.Decimal(5, 2)), "label")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidLabelError: label column 'label' (Decimal(precision=5, scale=2)) holds 1 ...
    """
    whole, wide, bad = split_decimals(s)
    if len(wide):
        raise InvalidLabelError(
            f"{role} column {s.name!r} ({s.dtype}) holds {wide[0]}, which does not fit in int64; "
            "class labels must fit in int64, or be strings"
        )
    if len(bad):
        raise InvalidLabelError(
            f"{role} column {s.name!r} ({s.dtype}) holds {len(bad)} value{'s' if len(bad) > 1 else ''} "
            f"with a fraction (first: {bad[0]}); class labels must be whole numbers, booleans or strings"
        )
    return whole


def _key_array(s: pl.Series) -> np.ndarray | None:
    """The integer array :func:`encode_key` reads a key column as, or None for the other paths."""
    if s.null_count() or not len(s) or not integer_like(s.dtype):
        return None
    phys = s.to_physical()
    if phys.dtype == pl.UInt64 and int(phys.max()) >= 1 << 63:  # type: ignore[arg-type]
        return None
    return _numpy(phys)


def _class_arrays(label: pl.Series, prediction: pl.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """The label and prediction arrays :func:`encode_classes` scans for their range, when both
    are integer columns without nulls (the other kinds are checked and cast there)."""
    pair = (label, prediction)
    if any(not s.dtype.is_integer() or s.dtype == pl.UInt64 or s.null_count() for s in pair):
        return None
    if not len(label):
        return None
    return _numpy(label), _numpy(prediction)


def sample_range(arrays: Sequence[np.ndarray], n: int = CLASS_SAMPLE) -> tuple[int, int]:
    """Min and max over about ``n`` evenly spaced rows (and the last) of each non-empty array.

    Examples
    --------
    >>> import numpy as np
    >>> sample_range([np.arange(10, dtype=np.int64), np.array([3, -2, 5, 1], np.int8)], n=4)
    (-2, 9)
    """
    lo: int | None = None
    hi: int | None = None
    for a in arrays:
        step = max(1, len(a) // n)
        # the last row too, so that both ends of sorted labels are in the sample
        picks = (a[::step], a[-1:])
        a_lo, a_hi = min(int(p.min()) for p in picks), max(int(p.max()) for p in picks)
        lo = a_lo if lo is None else min(lo, a_lo)
        hi = a_hi if hi is None else max(hi, a_hi)
    assert lo is not None and hi is not None
    return lo, hi


def guess_key_range(arr: np.ndarray, n: int = CLASS_SAMPLE) -> tuple[int, int]:
    """A key column's range from :func:`sample_range`, widened at each end by
    ``_KEY_PAD_GAPS · span // n`` (that many mean gaps between sampled rows' values), within
    the dtype.

    Evenly spaced rows of shuffled dense ids rarely hold the lowest or highest id (20,000 run
    ids in 4,096 rows: the sample misses id 0 four times in five), but seldom by more than a few
    gaps; with rows sorted by key the sample holds the exact range (the first and last rows are
    sampled), padded all the same. A
    value beyond the padding is caught while counting (``core/counting.count_encoded``).

    Examples
    --------
    >>> import numpy as np
    >>> guess_key_range(np.arange(100_000, dtype=np.int32)[::-1].copy(), n=1000)
    (-1600, 101599)
    >>> guess_key_range(np.array([3, 0, 4, 1, 2], np.uint8), n=8)  # 10 below 0: the dtype's 0
    (0, 14)
    """
    lo, hi = sample_range([arr], n)
    pad = (hi - lo + 1) * _KEY_PAD_GAPS // n
    bounds = np.iinfo(arr.dtype)
    return max(lo - pad, int(bounds.min)), min(hi + pad, int(bounds.max))


def encode_columns(
    df: pl.DataFrame,
    by: Sequence[str],
    label: str,
    prediction: str,
    classes: Sequence[Any] | None,
    also: Sequence[np.ndarray] = (),
    guess: bool = False,
    guess_keys: bool = False,
) -> tuple[ClassCoding, list[KeyColumn], list[tuple[int, int]]]:
    """:func:`encode_classes` and :func:`encode_key` of a frame's columns, their range scans fused.

    The min and max of every integer key column and of integer label and prediction columns
    come from one pass over the rows (:func:`column_ranges`) instead of one per column. None
    is needed where the dtype bounds the values: a boolean key spans 0..1, and 8-bit classes
    with ``classes=`` given are looked up over the dtype's 256 values. ``also``: further
    non-empty integer arrays of the frame's length (a paired leaderboard's example column),
    scanned in the same pass; their ranges are the third value returned.

    ``guess``: integer classes found in the data (no ``classes=``) take their range from
    :data:`CLASS_SAMPLE` evenly spaced rows instead of a scan, when that range is narrow
    enough to be counted as is. The coding then covers the values seen, and
    :attr:`ClassCoding.exact` makes the scanned one. Only a counter that checks every row's
    codes against the range may take such a coding (``core/counting.count_checked``).

    ``guess_keys``: integer key columns of frames of :data:`KEY_GUESS_ROWS` rows or more take
    their range from a sample too (:func:`guess_key_range`), so the pass over the rows scans
    no key column; such a column has :attr:`KeyColumn.exact`, and only ``count_encoded``
    (which checks every row's key codes while counting) may take it.
    """
    keys = [df.get_column(name) for name in by]
    lab = narrow_integers(df.get_column(label), "label")
    pred = narrow_integers(df.get_column(prediction), "prediction")
    n_rows = df.height
    scan: list[np.ndarray] = []
    key_bounds: list[Any] = []
    guessed_keys: set[int] = set()
    for s in keys:
        arr = _key_array(s)
        if arr is not None and s.dtype == pl.Boolean:
            key_bounds.append((0, 1))
        elif arr is not None and guess_keys and n_rows >= KEY_GUESS_ROWS:
            lo, hi = guess_key_range(arr)
            if hi - lo + 1 <= _dense_key_limit(n_rows):
                guessed_keys.add(len(key_bounds))
                key_bounds.append((lo, hi))
            else:  # a guess this wide would take the dictionary path: scan for the exact range
                key_bounds.append(len(scan))
                scan.append(arr)
        elif arr is not None:
            key_bounds.append(len(scan))
            scan.append(arr)
        else:
            key_bounds.append(None)
    class_bounds: Any = None
    guessed: tuple[int, int] | None = None
    pair = _class_arrays(lab, pred)
    if pair is not None and guess and classes is None:
        lo, hi = sample_range(pair)
        if hi - lo < _COUNT_RANGE_LIMIT:
            guessed = lo, hi
    if pair is not None and guessed is None:
        if classes is not None and all(a.dtype in _BYTE_BOUNDS for a in pair):
            spans = [_BYTE_BOUNDS[a.dtype] for a in pair]
            class_bounds = (min(b[0] for b in spans), max(b[1] for b in spans))
        else:
            class_bounds = len(scan)
            scan.extend(pair)
    first_also = len(scan)
    scan.extend(also)
    found = column_ranges(scan) if scan else []
    if isinstance(class_bounds, int):
        (lmin, lmax), (pmin, pmax) = found[class_bounds], found[class_bounds + 1]
        class_bounds = (min(lmin, pmin), max(lmax, pmax))
    if guessed is not None and pair is not None:
        coding = encode_classes(lab, pred, None, bounds=guessed)
        scanned = pair

        def exact() -> ClassCoding:
            (lmin, lmax), (pmin, pmax) = column_ranges(scanned)
            return encode_classes(lab, pred, None, bounds=(min(lmin, pmin), max(lmax, pmax)))

        coding.exact = exact
    else:
        coding = encode_classes(lab, pred, classes, bounds=class_bounds)
    key_cols = [
        encode_key(s, n_rows, bounds=found[b] if isinstance(b, int) else b)
        for s, b in zip(keys, key_bounds, strict=True)
    ]
    for i in guessed_keys:
        key_cols[i].exact = _exact_key(keys[i], n_rows)
    return coding, key_cols, found[first_also:]


def _exact_key(s: pl.Series, n_rows: int) -> Callable[[tuple[int, int]], KeyColumn]:
    def exact(bounds: tuple[int, int]) -> KeyColumn:
        return encode_key(s, n_rows, bounds=bounds)

    return exact


def _dense_key_limit(n_rows: int) -> int:
    """The widest integer key range :func:`encode_key` counts by ``value - min`` (wider ranges
    are dictionary-encoded)."""
    return max(4 * n_rows, 1 << 16)


def check_key_dtype(name: str, dtype: pl.DataType) -> None:
    """Raise :class:`~batcheval.errors.InvalidArgumentError` if a column of ``dtype`` cannot be a
    key (nested, object or extension columns): for keys, and for ``example=`` and ``cluster=``
    ids, which are coded as keys are.

    Examples
    --------
    >>> check_key_dtype("run", pl.Int64)
    >>> check_key_dtype("ex", pl.List(pl.Int64))
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: key column 'ex' has dtype List(Int64), which cannot be a key; ...
    """
    # polars before 2 has no Extension type (nor can pl.from_pandas make one)
    if isinstance(dtype, getattr(pl, "Extension", ())):
        # pl.from_pandas of a Period or Interval column; no kernel and no cast reads these
        raise InvalidArgumentError(
            f"key column {name!r} has the extension dtype {dtype}, which cannot be a key; convert "
            f"it before polars, e.g. df[{name!r}].astype('string') in pandas, or pass the pandas "
            "frame itself, whose Period and Interval columns batcheval reads as text"
        )
    if dtype.is_nested() or dtype == pl.Object:
        raise InvalidArgumentError(
            f"key column {name!r} has dtype {dtype}, which cannot be a key; keys must be integer, "
            "float, decimal, string, categorical, boolean or temporal columns"
        )


def encode_key(s: pl.Series, n_rows: int, bounds: tuple[int, int] | None = None) -> KeyColumn:
    """Encode one key column; see the module docstring for the three paths.

    ``bounds``: the min and max of an integer-like column when the caller has them
    (:func:`encode_columns`), or bounds the values are known to lie within.
    """
    dtype = s.dtype
    check_key_dtype(s.name, dtype)
    if dtype in WIDE_INTEGERS:
        return _encode_wide(s, n_rows)
    if dtype == pl.Categorical or isinstance(dtype, pl.Enum):
        # pyarrow reads these as dictionary arrays, whose nulls its dictionary_encode leaves as
        # null indices: the categorical path gives nulls a code of their own
        return _encode_categorical(s)
    if s.null_count() == 0 and len(s) > 0:
        if integer_like(dtype):
            values = _key_array(s) if bounds is None else _numpy(s.to_physical())
            if values is not None:
                lo, hi = value_range(values) if bounds is None else bounds
                if hi - lo + 1 <= _dense_key_limit(n_rows):
                    return KeyColumn(s.name, values, lo, hi - lo + 1, _int_decoder(s.name, dtype, lo))
        elif dtype == pl.String:
            return _encode_categorical(s)
    return _encode_dictionary(s)


def _encode_wide(s: pl.Series, n_rows: int) -> KeyColumn:
    """A 128-bit integer key: as Int64 when its values fit, else by the rank of its values
    (pyarrow, which the dictionary path uses, cannot read 128-bit integers)."""
    if _fits_int64(s):
        key = encode_key(s.cast(pl.Int64), n_rows)
        narrow = key.decode
        key.decode = lambda c: narrow(c).cast(s.dtype)
        return key
    values = s.unique().sort(nulls_last=True)
    # dense ranks count from 1 and leave nulls null; nulls sort last, as the dictionary path's
    codes = (s.rank("dense").cast(pl.Int64) - 1).fill_null(len(values) - 1).to_numpy()

    def decode(c: np.ndarray) -> pl.Series:
        return values.gather(c)

    return KeyColumn(s.name, codes, 0, len(values), decode)


def _int_decoder(name: str, dtype: pl.DataType, offset: int) -> Callable[[np.ndarray], pl.Series]:
    def decode(codes: np.ndarray) -> pl.Series:
        out = pl.Series(name, codes + offset, dtype=pl.Int64)
        if dtype == pl.Boolean:
            return out.cast(pl.Boolean)
        return out.cast(dtype)

    return decode


def _encode_categorical(s: pl.Series) -> KeyColumn:
    """Physical codes of a categorical, remapped so that code order is value order, nulls last
    (as :func:`_encode_dictionary` places them for other dtypes)."""
    dtype = s.dtype
    cat = s if dtype == pl.Categorical or isinstance(dtype, pl.Enum) else s.cast(pl.Categorical)
    phys = cat.to_physical()
    distinct = cat.unique().drop_nulls()
    if isinstance(dtype, pl.Enum):
        distinct = distinct.sort()  # enum order
    else:
        distinct = distinct.cast(pl.String).sort().cast(cat.dtype)
    dphys = distinct.to_physical().to_numpy().astype(np.int64)
    nulls = cat.null_count()
    values = distinct if dtype != pl.String else distinct.cast(pl.String)
    if nulls:
        values = pl.concat([values, pl.Series([None], dtype=values.dtype)])
    if len(dphys) == 1 and not nulls:
        codes = np.zeros(len(s), np.int32)
    else:
        lo = int(dphys.min()) if len(dphys) else 0
        hi = int(dphys.max()) if len(dphys) else -1
        # one slot past the physical codes for nulls, which take the last code
        lut = np.full(hi - lo + 2, len(dphys), dtype=np.int32)
        lut[dphys - lo] = np.arange(len(dphys), dtype=np.int32)
        filled = phys.fill_null(hi + 1) if nulls else phys
        codes = lut[filled.to_numpy().astype(np.int64) - lo]

    def decode(c: np.ndarray) -> pl.Series:
        return values.gather(c).alias(s.name)

    return KeyColumn(s.name, codes, 0, len(values), decode)


def _encode_dictionary(s: pl.Series) -> KeyColumn:
    """Hash-based dictionary codes (pyarrow), sorted, nulls last."""
    import pyarrow.compute as pc

    arr = s.rechunk().to_arrow()
    if arr.type.num_fields == 0 and len(s) == 0:
        return KeyColumn(s.name, np.zeros(0, np.int32), 0, 0, s.gather)
    enc = pc.dictionary_encode(arr, null_encoding="encode")
    dictionary = enc.dictionary
    if s.dtype.is_float():
        # normalised in the dictionary, a few entries, rather than in every row before hashing
        dictionary = _float_key(pl.Series(s.name, dictionary)).to_arrow()
    order = np.asarray(pc.array_sort_indices(dictionary, null_placement="at_end"))
    values = pl.Series(s.name, dictionary.take(order), dtype=s.dtype)
    group = np.arange(len(order), dtype=np.int32)
    if s.dtype.is_float():  # the entries that hashed apart are equal now, and adjacent once sorted
        group = values.rle_id().to_numpy().astype(np.int32)
        values = values.gather(np.flatnonzero(np.diff(group, prepend=-1)))
    rank = np.empty(len(order), dtype=np.int32)
    rank[order] = group
    codes = rank[np.asarray(enc.indices).astype(np.int64)]

    def decode(c: np.ndarray) -> pl.Series:
        return values.gather(c)

    return KeyColumn(s.name, codes, 0, len(values), decode)


def _float_key(s: pl.Series) -> pl.Series:
    """``s`` with -0.0 as 0.0 and every NaN as one NaN: pyarrow's dictionary_encode hashes bit
    patterns, so it splits what ``==`` (and polars' group_by) takes as one value."""
    zero, col = pl.lit(0.0, s.dtype), pl.col("v")
    same = pl.when(col == zero).then(zero).otherwise(col).fill_nan(float("nan"))
    return s.alias("v").to_frame().select(same.alias(s.name)).to_series()


@dataclass
class ClassCoding:
    """Label and prediction arrays plus the lookup table that makes them class codes.

    ``n_codes`` is the K the kernel counts with. When ``trim`` is true the
    codes span a value range, and the class axis is trimmed afterwards to the
    values that occur (so the class set is the union over the whole input).
    """

    label: np.ndarray
    prediction: np.ndarray
    vmin: int
    lut: np.ndarray
    classes: pl.Series
    trim: bool
    seen: np.ndarray | None = None  # with ``trim``: which values of the range occur, when known
    names: tuple[str, str] = ("label", "prediction")  # the two columns, for error messages
    # set when the range was guessed from a sample (see :func:`encode_columns`): makes the
    # scanned coding, which covers every value; None for a coding that does
    exact: Callable[[], ClassCoding] | None = None
    # the label and prediction columns, when the arrays hold codes or another type than their
    # values (booleans as bytes, wide integers as indices): error messages show the values
    sources: tuple[pl.Series, pl.Series] | None = None

    def __post_init__(self) -> None:
        self.label, self.prediction = kernel_input(self.label), kernel_input(self.prediction)
        self.lut = readonly(self.lut)

    @property
    def n_codes(self) -> int:
        return len(self.classes)


def check_nulls(s: pl.Series, role: str) -> None:
    nulls = s.null_count()
    if nulls:
        raise NullValuesError(
            f"{role} column {s.name!r} has {nulls} null value{'s' if nulls > 1 else ''} "
            f"out of {len(s)}; pass drop_nulls=True to skip those rows"
        )


def not_whole(s: pl.Series) -> pl.Series:
    """The values of a float Series that are no whole number (NaN and infinities included)."""
    return s.filter(~s.is_finite() | (s != s.floor()))


def as_integers(s: pl.Series, role: str) -> pl.Series:
    """Floats and Decimals holding whole numbers within int64 become Int64; anything else is an error.

    Examples
    --------
    >>> as_integers(pl.Series("label", [1.0, -2.0**63]), "label").to_list()
    [1, -9223372036854775808]
    >>> as_integers(pl.Series("label", [1.0, 1e30]), "label")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidLabelError: label column 'label' (Float64) holds 1e+30, which does not fit ...
    """
    if isinstance(s.dtype, pl.Decimal):
        return decimal_integers(s, role)
    if not s.dtype.is_float():
        return s
    bad = not_whole(s)
    if len(bad):
        # fractional predictions are mostly scores: the message left a newcomer to find be.sweep
        scores = "; scores or probabilities take be.sweep or be.auc" if "pred" in role else ""
        raise InvalidLabelError(
            f"{role} column {s.name!r} is float and holds {len(bad)} non-integer "
            f"value{'s' if len(bad) > 1 else ''} (first: {bad[0]!r}); class labels must be "
            f"integers, booleans or strings{scores}"
        )
    wide = s.filter((s >= 2.0**63) | (s < -(2.0**63)))  # whole, but a strict cast would raise
    if len(wide):
        raise InvalidLabelError(
            f"{role} column {s.name!r} ({s.dtype}) holds {wide[0]!r}, which does not fit in int64; "
            "class labels must fit in int64, or be strings"
        )
    return s.cast(pl.Int64)


def label_kind(s: pl.Series, role: str) -> str:
    dtype = s.dtype
    if dtype == pl.Boolean:
        return "bool"
    # a Decimal (SQL NUMERIC) column holds class codes as an integer column does: as_integers
    # reads its whole values and refuses the others
    if dtype.is_integer() or dtype.is_float() or isinstance(dtype, pl.Decimal):
        return "int"
    if dtype in (pl.String, pl.Categorical) or isinstance(dtype, pl.Enum):
        return "str"
    raise InvalidLabelError(
        f"{role} column {s.name!r} has dtype {dtype}; labels and predictions must be "
        "integer, boolean, string or categorical"
    )


_KIND_NAMES = {"int": "integer", "bool": "boolean", "str": "string"}


def check_classes(classes: Any, kind: str, label: str) -> list[Any] | None:
    """``classes=`` as a list of values of the label column's kind (``"int"``, ``"bool"``, ``"str"``).

    Examples
    --------
    >>> check_classes([0, 1, 2.0], "int", "label")
    [0, 1, 2.0]
    >>> check_classes("ab", "str", "label")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: classes= takes a list of class values, got the string 'ab'
    >>> check_classes({0: "neg"}, "int", "label")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: classes= takes a list of class values, got a mapping {0: 'neg'}
    >>> check_classes([0, 1, "x"], "int", "label")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidLabelError: classes= holds 'x' (str), but label column 'label' holds integer ...
    >>> check_classes([0, 2**64], "int", "label")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidLabelError: classes= holds 18446744073709551616, which does not fit in int64; ...
    """
    if classes is None:
        return None
    if isinstance(classes, str | bytes):
        raise InvalidArgumentError(f"classes= takes a list of class values, got the string {classes!r}")
    if isinstance(classes, Mapping):
        # list() of a mapping is its keys: {0: "neg", 1: "pos"} would drop the names unsaid
        raise InvalidArgumentError(f"classes= takes a list of class values, got a mapping {classes!r}")
    try:
        values = list(classes)
    except TypeError:
        raise InvalidArgumentError(f"classes= takes a list of class values, got {classes!r}") from None
    for v in values:
        if kind == "int":
            fits = isinstance(v, int | np.integer) or is_whole_number(v)
            if fits and not -(1 << 63) <= int(v) < 1 << 63:
                raise InvalidLabelError(
                    f"classes= holds {v!r}, which does not fit in int64; class labels must fit in "
                    "int64, or be strings"
                )
        elif kind == "bool":
            fits = isinstance(v, bool | np.bool_) or (isinstance(v, int | np.integer) and v in (0, 1))
        else:
            fits = isinstance(v, str)
        if not fits:
            raise InvalidLabelError(
                f"classes= holds {v!r} ({type(v).__name__}), but label column {label!r} holds "
                f"{_KIND_NAMES[kind]} values"
            )
    if kind == "bool":  # 0 and 1 name False and True, in the labels' own type
        return [bool(v) for v in values]
    return values


def class_values(label: pl.Series, classes: Sequence[Any] | None) -> list[Any]:
    """Sorted class values of one label column, plus any named in ``classes``.

    Checked as :func:`encode_classes` checks labels (nulls, dtype, integral floats).
    """
    check_nulls(label, "label")
    kind = label_kind(label, "label")
    classes = check_classes(classes, kind, str(label.name))
    if kind == "int":
        label = as_integers(label, "label")
    return sorted(set(label.unique().to_list()) | set(classes or []))


def typed_nulls(label: pl.Series, prediction: pl.Series) -> tuple[pl.Series, pl.Series]:
    """A Null-dtype label or prediction column (all null, or empty) in the other's dtype, or
    Int64 if both are Null: it holds no values, so its dtype is no kind to refuse.

    Examples
    --------
    >>> typed_nulls(pl.Series("label", []), pl.Series("prediction", [], dtype=pl.String))[0].dtype
    String
    """
    if label.dtype == pl.Null:
        label = label.cast(pl.Int64 if prediction.dtype == pl.Null else prediction.dtype)
    if prediction.dtype == pl.Null:
        prediction = prediction.cast(label.dtype)
    return label, prediction


def encode_classes(
    label: pl.Series,
    prediction: pl.Series,
    classes: Sequence[Any] | None,
    bounds: tuple[int, int] | None = None,
) -> ClassCoding:
    """Build the class coding shared by the label and prediction columns.

    ``bounds``: for integer columns, the min and max over both when the caller has them
    (:func:`encode_columns`), or bounds they lie within when ``classes`` is given; the
    coding then has no ``seen`` mask.
    """
    label, prediction = typed_nulls(label, prediction)
    check_nulls(label, "label")
    check_nulls(prediction, "prediction")
    label, prediction = narrow_integers(label, "label"), narrow_integers(prediction, "prediction")
    kinds = {label_kind(label, "label"), label_kind(prediction, "prediction")}
    if len(kinds) == 1 or kinds == {"int", "bool"}:  # other pairs are refused below
        classes = check_classes(classes, "int" if "int" in kinds else min(kinds), str(label.name))
    coding = None
    if kinds == {"bool"}:
        coding = _bool_classes(label, prediction, classes)
    elif kinds <= {"int", "bool"}:
        as_int = [as_integers(s.cast(pl.Int64) if s.dtype == pl.Boolean else s, role)
                  for s, role in ((label, "label"), (prediction, "prediction"))]  # fmt: skip
        coding = _int_classes(*as_int, classes, bounds)
    elif kinds == {"str"}:
        coding = _str_classes(label, prediction, classes)
    if coding is not None:
        coding.names = (label.name, prediction.name)
        return coding
    raise InvalidLabelError(
        f"label column {label.name!r} ({label.dtype}) and prediction column "
        f"{prediction.name!r} ({prediction.dtype}) hold different kinds of values; "
        "cast them to one type"
    )


def _bool_classes(label: pl.Series, prediction: pl.Series, classes: Sequence[Any] | None) -> ClassCoding:
    values = [False, True] if classes is None else sorted(set(classes))
    if not set(values) <= {False, True}:
        raise InvalidLabelError(f"classes={list(classes or [])} do not fit boolean label columns")
    lut = np.full(2, -1, dtype=np.int64)
    for code, v in enumerate(values):
        lut[int(v)] = code
    return ClassCoding(
        _numpy(label),
        _numpy(prediction),
        0,
        lut,
        pl.Series("class", values, dtype=pl.Boolean),
        False,
        sources=(label, prediction),
    )


def _int_classes(
    label: pl.Series,
    prediction: pl.Series,
    classes: Sequence[Any] | None,
    bounds: tuple[int, int] | None = None,
) -> ClassCoding:
    lab, pred = kernel_input(_numpy(label)), kernel_input(_numpy(prediction))
    for s, role in ((label, "label"), (prediction, "prediction")):
        top = s.max() if s.dtype == pl.UInt64 else None
        if top is not None and top >= 1 << 63:  # type: ignore[operator]
            raise InvalidLabelError(
                f"{role} column {s.name!r} (UInt64) holds {top}, which does not fit in int64; "
                "class labels must fit in int64, or be strings"
            )
    dtype = label.dtype if label.dtype == prediction.dtype else pl.Int64
    if len(label) == 0:  # the classes keep the labels' dtype, as they do with rows
        values = sorted({int(c) for c in classes or []})
        return ClassCoding(lab, pred, 0, np.zeros(1, np.int64), typed_classes(values, dtype), False)
    from ..kernels.jit import n_threads
    from ..kernels.ranges import minmax

    bits = None
    if bounds is not None:
        vmin, vmax = bounds
    else:
        lmin, lmax, bits = minmax(lab, n_threads())
        if prediction is not label:  # one column for sweeps
            pmin, pmax, pbits = minmax(pred, n_threads())
            bits |= pbits
        else:
            pmin, pmax = lmin, lmax
        vmin, vmax = int(min(lmin, pmin)), int(max(lmax, pmax))
    span = vmax - vmin + 1

    if classes is not None:
        values = sorted({int(c) for c in classes})
        if span > _LUT_RANGE_LIMIT:
            return _searchsorted_classes(label, prediction, values, dtype)
        lut = np.full(span, -1, dtype=np.int64)
        for code, v in enumerate(values):
            if vmin <= v <= vmax:
                lut[v - vmin] = code
        return ClassCoding(lab, pred, vmin, lut, typed_classes(values, dtype), False)

    if span <= _COUNT_RANGE_LIMIT:
        values = list(range(vmin, vmax + 1))
        seen = None
        if bits is not None and 0 <= vmin and vmax < 64:  # the same pass saw which values occur
            shifts = np.arange(vmin, vmax + 1, dtype=np.uint64)
            seen = ((np.uint64(bits) >> shifts) & np.uint64(1)).astype(np.bool_)
        lut = np.arange(span, dtype=np.int64)
        return ClassCoding(lab, pred, vmin, lut, typed_classes(values, dtype), True, seen)
    if span <= _LUT_RANGE_LIMIT:
        from ..kernels.count import mark_present

        present = np.zeros(span, dtype=np.bool_)
        mark_present(lab, vmin, present)
        if prediction is not label:
            mark_present(pred, vmin, present)
        found = np.flatnonzero(present)
        lut = np.full(span, -1, dtype=np.int64)
        lut[found] = np.arange(len(found))
        return ClassCoding(lab, pred, vmin, lut, pl.Series("class", found + vmin).cast(dtype), False)
    both = [s.unique().cast(dtype) for s in (label, prediction)]  # concat refuses columns of two dtypes
    values = pl.concat(both).unique().sort().to_list()
    return _searchsorted_classes(label, prediction, values, dtype)


def typed_classes(values: Sequence[int], dtype: pl.DataType) -> pl.Series:
    """Integer classes in the labels' dtype, or Int64 when ``classes=`` names a value that dtype
    cannot hold (-1 or 300 beside UInt8 labels), as :meth:`ContingencyTable.from_long` widens them.

    Examples
    --------
    >>> typed_classes([0, 1], pl.UInt8).dtype, typed_classes([-1, 0, 300], pl.UInt8).dtype
    (UInt8, Int64)
    """
    try:
        return pl.Series("class", values).cast(dtype, strict=True)
    except pl.exceptions.InvalidOperationError:
        return pl.Series("class", values, dtype=pl.Int64)


def _searchsorted_classes(
    label: pl.Series, prediction: pl.Series, values: list[int], dtype: pl.DataType
) -> ClassCoding:
    """Wide-range integer classes: materialise codes by binary search (rare path)."""
    sorted_values = np.asarray(values, dtype=np.int64)

    def codes(s: pl.Series) -> np.ndarray:
        v = s.cast(pl.Int64).to_numpy()
        idx = np.searchsorted(sorted_values, v)
        idx_clipped = np.minimum(idx, len(sorted_values) - 1)
        hit = sorted_values[idx_clipped] == v if len(sorted_values) else np.zeros(len(v), bool)
        return np.where(hit, idx_clipped, len(sorted_values)).astype(np.int64)

    k = len(sorted_values)
    lut = np.append(np.arange(k, dtype=np.int64), -1)
    return ClassCoding(
        codes(label),
        codes(prediction),
        0,
        lut,
        typed_classes(values, dtype),
        False,
        sources=(label, prediction),
    )


def _str_classes(label: pl.Series, prediction: pl.Series, classes: Sequence[Any] | None) -> ClassCoding:
    lab_s, pred_s = label.cast(pl.String), prediction.cast(pl.String)
    if classes is None:
        values = pl.concat([lab_s.unique(), pred_s.unique()]).unique().sort().to_list()
    else:
        values = sorted({str(c) for c in classes})
    enum = pl.Enum(values)
    arrays = []
    for s, role in ((lab_s, "label"), (pred_s, "prediction")):
        outside = s.filter(~s.is_in(values))
        if len(outside):
            shown = outside.unique().sort().head(5).to_list()
            raise InvalidLabelError(
                f"{role} column {s.name!r} has {len(outside)} value{'s' if len(outside) > 1 else ''} "
                f"outside classes={values}: {shown}"
            )
        arrays.append(s.cast(enum).to_physical().to_numpy())
    lut = np.arange(len(values), dtype=np.int64)
    return ClassCoding(arrays[0], arrays[1], 0, lut, pl.Series("class", values, dtype=pl.String), False)
