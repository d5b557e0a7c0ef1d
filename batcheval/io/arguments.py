"""Numeric arguments as the user gives them: a float, an int, a numpy scalar, a Decimal, a Fraction."""

from __future__ import annotations

import reprlib
from collections.abc import Iterable, Mapping, Set
from typing import Any

import numpy as np

from ..errors import InvalidArgumentError

__all__ = ["as_count", "as_flag", "as_one_value", "as_real", "is_real", "is_text_or_truth", "is_value_list"]


def is_text_or_truth(value: Any) -> bool:
    """Whether ``value`` is text or a truth value (a bool, a numpy bool, or a 0-d array of either):
    what ``float()`` and numpy read as a number ("0.5" as 0.5, True as 1.0) but is not one.

    Examples
    --------
    >>> [is_text_or_truth(v) for v in ("0.5", b"1", True, np.bool_(False), np.array("2"), np.array(True))]
    [True, True, True, True, True, True]
    >>> [is_text_or_truth(v) for v in (0.5, 2, np.float32(1), np.int64(3), np.array(0.2), None)]
    [False, False, False, False, False, False]
    """
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "bSU"
    return isinstance(value, bool | np.bool_ | str | bytes)


def is_real(value: Any) -> bool:
    """Whether ``value`` is one real number a float can hold: anything ``float()`` reads but text, a
    bool, None or an array (an integer beyond the largest float, which ``float()`` refuses with an
    OverflowError, is not one).

    Examples
    --------
    >>> from decimal import Decimal
    >>> [is_real(v) for v in (0.5, 2, Decimal("0.1"), np.float32(1), np.array(0.2), True, "0.5", None, [1])]
    [True, True, True, True, True, False, False, False, False]
    >>> is_real(10**400)
    False
    """
    if value is None or is_text_or_truth(value) or np.ndim(value) != 0:
        return False
    try:
        float(value)
    except (TypeError, ValueError, OverflowError):
        return False
    return True


def is_value_list(value: Any, ordered: bool = False) -> bool:
    """Whether ``value`` is a list of values as an argument takes one: an iterable (a list, a tuple,
    a 1-d array, a generator), but not text or bytes-like (bytes, a bytearray, a memoryview, which
    iterate as characters or byte values: ``b"x"`` as 120), a mapping (which iterates as its keys
    alone), a 0-d array (which does not iterate), nor, where the order of the values counts
    (``ordered=True``), a set.

    Examples
    --------
    >>> [is_value_list(v) for v in ([0.5], (1, 2), np.array([0.5]), {0.5}, range(3))]
    [True, True, True, True, True]
    >>> [is_value_list(v) for v in ("ab", b"x", bytearray(b"x"), memoryview(b"x"), {0.5: 1}, np.array(1), 3)]
    [False, False, False, False, False, False, False]
    >>> is_value_list({0.5, 1.0}, ordered=True)
    False
    """
    if isinstance(value, str | bytes | bytearray | memoryview | Mapping):
        return False
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return False
    return isinstance(value, Iterable) and not (ordered and isinstance(value, Set))


def as_real(value: Any, name: str) -> float:
    """``value`` as a float, or an :class:`InvalidArgumentError` naming ``name`` for anything that is
    not one real number.

    Examples
    --------
    >>> as_real(0.25, "test_fraction=")
    0.25
    >>> as_real("a", "test_fraction=")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: test_fraction= must be a number, got 'a'
    """
    if not is_real(value):
        raise InvalidArgumentError(f"{name} must be a number, got {reprlib.repr(value)}")
    return float(value)


def as_count(value: Any, name: str, least: int = 1, most: int | None = None) -> int:
    """``value`` as an int of at least ``least`` (and at most ``most``, if given), or an
    :class:`InvalidArgumentError` naming ``name`` for anything else: a float (``2.0`` or ``1.5``), a
    bool, or a smaller or larger number.

    Examples
    --------
    >>> as_count(np.int64(4096), "batch_rows=")
    4096
    >>> as_count(0, "batch_rows=")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: batch_rows= must be an integer of at least 1, got 0
    >>> as_count(10**6, "batch_rows=", most=10**5)
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: batch_rows= must be an integer of at most 100000, got 1000000
    """
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer) or value < least:
        raise InvalidArgumentError(f"{name} must be an integer of at least {least}, got {value!r}")
    if most is not None and value > most:
        raise InvalidArgumentError(f"{name} must be an integer of at most {most}, got {value!r}")
    return int(value)


def as_flag(value: Any, name: str) -> bool:
    """``value`` as a bool: True, False, a numpy bool, or the integers 0 and 1; an
    :class:`InvalidArgumentError` naming ``name`` for anything else (None, text, 2).

    Examples
    --------
    >>> as_flag(np.True_, "per_class=")
    True
    >>> as_flag(None, "per_class=")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: per_class= takes True or False, got None
    """
    if isinstance(value, bool | np.bool_) or (isinstance(value, int | np.integer) and value in (0, 1)):
        return bool(value)
    raise InvalidArgumentError(f"{name} takes True or False, got {value!r}")


def as_one_value(value: Any, name: str, such: str = "1 or 'yes'") -> Any:
    """``value`` as one value (a class such as ``positive=``, or an option such as ``mean_weights=``):
    a numpy 0-d array or a pyarrow scalar as its element; anything holding several values (a
    list, tuple or set, a numpy, pandas or pyarrow array, a polars Series, frame or expression)
    refused with an :class:`InvalidArgumentError` naming ``name``. ``positive=np.array([1])``
    passed ``in`` checks element by element and met numpy's "inhomogeneous shape" error further
    on, and a Series met polars' "the truth value of a Series is ambiguous". ``such`` is the
    example of one value that the message gives.

    Examples
    --------
    >>> as_one_value(np.array(1), "positive=")
    1
    >>> as_one_value([1], "positive=")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: positive= takes one value, such as 1 or 'yes', got a list: [1]
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value.item()
    if hasattr(value, "as_py") and not hasattr(value, "__len__"):  # a pyarrow scalar
        return value.as_py()
    # anything holding several values: a list, set, tuple, range or mapping, a numpy, pandas or
    # pyarrow array, a polars Series, frame or expression (a string or numpy scalar is one value)
    lazy = type(value).__name__ in ("Expr", "LazyFrame")  # neither iterates
    several = isinstance(value, np.ndarray) or (
        not isinstance(value, str | bytes | np.generic)
        and (hasattr(value, "__iter__") or hasattr(value, "__array__") or lazy)
    )
    if several:
        what = "array" if isinstance(value, np.ndarray) else type(value).__name__
        kind = f"{'an' if what[0].lower() in 'aeiou' else 'a'} {what}"
        if type(value).__name__ in ("DataFrame", "LazyFrame", "Expr"):
            # a LazyFrame's .columns resolves its schema with a PerformanceWarning
            names = value.collect_schema().names() if hasattr(value, "collect_schema") else None
            shown = reprlib.repr(names if names is not None else str(value))
        else:
            for method in ("to_list", "tolist"):  # a Series or array: its values, on one line
                if callable(getattr(value, method, None)):
                    value = getattr(value, method)()
                    break
            shown = reprlib.repr(value)
        shown = shown.replace("\n", " ")
        raise InvalidArgumentError(f"{name} takes one value, such as {such}, got {kind}: {shown}")
    return value
