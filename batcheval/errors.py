"""The batcheval error hierarchy.

Every error batcheval raises on bad input derives from :class:`BatchevalError`,
and every message names the column (or file) and shows the offending value, so
that a user can fix the input without reading a traceback.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = [
    "BatchevalError",
    "BatchevalWarning",
    "ClassMismatchError",
    "ColumnNotFoundError",
    "CountOverflowError",
    "DuplicateColumnError",
    "InvalidArgumentError",
    "InvalidLabelError",
    "InvalidScoreError",
    "MemoryBudgetError",
    "MergeError",
    "NullValuesError",
    "SourceError",
    "UnknownMeasureError",
    "quiet",
    "user_stacklevel",
    "warn",
]


class BatchevalError(Exception):
    """Base class of every batcheval error."""


class ColumnNotFoundError(BatchevalError, KeyError):
    """A column named by the caller is not in the input frame."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class DuplicateColumnError(BatchevalError, ValueError):
    """The same column is named twice among keys, label and prediction."""


class NullValuesError(BatchevalError, ValueError):
    """A label or prediction column holds nulls (see ``drop_nulls=``)."""


class InvalidArgumentError(BatchevalError, ValueError):
    """An option has a value batcheval cannot use (a level outside (0, 1), an unknown method, ...)."""


class InvalidLabelError(BatchevalError, ValueError):
    """A label or prediction value is unusable: not integral, not in ``classes=``, ..."""


class InvalidScoreError(BatchevalError, ValueError):
    """A score value or column is unusable: NaN or infinite, not numeric, ..."""


class MergeError(BatchevalError, ValueError):
    """Two accumulators cannot be merged (different keys, classes or positive class)."""


class ClassMismatchError(MergeError):
    """Two accumulators were built over different class sets (a :class:`MergeError`, so that
    ``except MergeError`` catches every merge refused for its keys or classes; a merge whose
    counts would pass the int64 range raises :class:`CountOverflowError` instead)."""


class CountOverflowError(BatchevalError, OverflowError):
    """A count would exceed the int64 range, in a merge too (an :class:`OverflowError`, not a
    :class:`MergeError`: ``except MergeError`` does not catch it)."""


class UnknownMeasureError(BatchevalError, ValueError):
    """A measure name is not known, or does not apply to this table."""


class MemoryBudgetError(BatchevalError, MemoryError):
    """An allocation would not fit in the memory available; raised before allocating."""


class SourceError(BatchevalError, OSError):
    """A file or fragment of a streamed source cannot be read; the message names it."""


class BatchevalWarning(UserWarning):
    """Something was skipped or dropped on the caller's request, and how much."""


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def user_stacklevel() -> int:
    """The ``stacklevel`` that attributes a warning issued by the caller of this function's
    caller to the first line outside batcheval: the user's own call, however deep inside the
    package the warning arises (Python 3.12's ``skip_file_prefixes``, for 3.11 too).
    """
    frame = sys._getframe(2)
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    return level


#: The message prefixes :func:`warn` passes over in this thread or task (see :func:`quiet`).
_QUIET: ContextVar[tuple[str, ...]] = ContextVar("batcheval_quiet", default=())


@contextmanager
def quiet(*prefixes: str) -> Iterator[None]:
    """Within the block, :func:`warn` passes over messages starting with any of ``prefixes``, in
    this thread or task only: ``warnings.catch_warnings`` swaps the process's filters, so a
    warning another thread issued meanwhile was lost, or a filter it set was undone.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     with quiet("dropped "):
    ...         warn("dropped 2 of 10 rows with a null 'label'")
    ...     warn("dropped 1 of 10 rows with a null 'label'")
    >>> [str(w.message) for w in caught]
    ["dropped 1 of 10 rows with a null 'label'"]
    """
    token = _QUIET.set(_QUIET.get() + prefixes)
    try:
        yield
    finally:
        _QUIET.reset(token)


def warn(message: str) -> None:
    """Issue a :class:`BatchevalWarning` attributed to the user's line that led to it, so that
    the warning shows that line and not batcheval's source (and Python's default filter shows it
    once per calling line).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("dropped 2 of 10 rows with a null 'label'")
    >>> str(caught[0].message), caught[0].category.__name__, caught[0].filename.startswith("<doctest")
    ("dropped 2 of 10 rows with a null 'label'", 'BatchevalWarning', True)
    """
    if message.startswith(_QUIET.get()):
        return
    warnings.warn(message, BatchevalWarning, stacklevel=user_stacklevel())
