"""Memory guards: an allocation that would not fit is refused before it is made, with its size."""

from __future__ import annotations

import os

from ..errors import MemoryBudgetError

__all__ = ["available_bytes", "check_allocation", "format_bytes"]


def available_bytes() -> int:
    """Memory the system can give without swapping (``MemAvailable``), or the physical size."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # no sysconf (Windows): do not guess
        return 1 << 62


def format_bytes(n: float) -> str:
    """``n`` bytes in the largest binary unit that keeps a number ≥ 1.

    Examples
    --------
    >>> format_bytes(13 * 2**30), format_bytes(512)
    ('13.0 GiB', '512 B')
    """
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def check_allocation(nbytes: int, what: str, hint: str = "", *, available: int | None = None) -> None:
    """Raise :class:`~batcheval.errors.MemoryBudgetError` if ``nbytes`` exceeds what is available.

    Examples
    --------
    >>> check_allocation(10, "a table", available=100)
    >>> check_allocation(3 * 2**30, "a histogram", "use fewer thresholds", available=2**30)
    Traceback (most recent call last):
    ...
    batcheval.errors.MemoryBudgetError: a histogram needs 3.0 GiB, more than the 1.0 GiB ... fewer thresholds
    """
    free = available_bytes() if available is None else available
    if nbytes > free:
        tail = f"; {hint}" if hint else ""
        raise MemoryBudgetError(
            f"{what} needs {format_bytes(nbytes)}, more than the {format_bytes(free)} available{tail}"
        )
