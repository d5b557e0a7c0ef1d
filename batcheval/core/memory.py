"""Memory guards: an allocation that would not fit is refused before it is made, with its size."""

from __future__ import annotations

import os

import numpy as np

from ..errors import MemoryBudgetError

__all__ = ["POPULATE_BYTES", "available_bytes", "check_allocation", "format_bytes", "zeroed_int8"]

#: An array of zeros at least this large is mapped up front (:func:`zeroed_int8`).
POPULATE_BYTES = 1 << 26
# madvise's "fault every page in, writable" (Linux 5.14), which Python's mmap does not name
_MADV_POPULATE_WRITE = 23


#: Where the limits of :func:`available_bytes` are read (module names, so that tests can point
#: them at files of their own): the system's free memory, and this process's cgroup v2 and v1 limit
#: and usage.
MEMINFO = "/proc/meminfo"
CGROUP_LIMITS = (
    ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
    ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
)
#: The address space this process already maps, for ``RLIMIT_AS`` (``/proc/self/statm``'s first
#: field, in pages).
STATM = "/proc/self/statm"


def _read_int(path: str) -> int | None:
    try:
        with open(path) as fh:
            return int(fh.read().split()[0])
    except (OSError, ValueError, IndexError):  # absent, or "max": no limit
        return None


def _system_bytes() -> int:
    try:
        with open(MEMINFO) as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):  # no sysconf (Windows): do not guess
        return 1 << 62


def _address_space_bytes() -> int | None:
    """What ``RLIMIT_AS`` (``ulimit -v``) leaves this process, or None without such a limit."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    pages = _read_int(STATM)
    return soft - (pages or 0) * os.sysconf("SC_PAGE_SIZE")


def available_bytes() -> int:
    """Memory this process can take without swapping or being killed: the least of the system's
    ``MemAvailable`` (or its physical size), what its cgroup's limit leaves (a container's
    ``--memory``) and what ``RLIMIT_AS`` leaves.

    In a container ``MemAvailable`` is the host's: an allocation the guards let through there
    was killed by the cgroup's limit instead of refused with its size.
    """
    free = _system_bytes()
    for limit_path, usage_path in CGROUP_LIMITS:
        limit = _read_int(limit_path)
        if limit is not None and limit < 1 << 62:  # cgroup v1 writes "no limit" as about 2^63
            free = min(free, limit - (_read_int(usage_path) or 0))
            break
    left = _address_space_bytes()
    if left is not None:
        free = min(free, left)
    return max(free, 0)


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


def zeroed_int8(size: int) -> np.ndarray:
    """``np.zeros(size, int8)``, its pages mapped up front when it is large.

    A fresh mapping's pages fault in one by one as the fill pass first
    writes them, at a cost that swings with the machine's memory state
    (0.0-0.2 s for 100 MB on the benchmark VM); mapping them in one call takes a
    steady ~15-45 ms. Where the kernel allows, they are huge pages
    (``MADV_HUGEPAGE``, then ``MADV_POPULATE_WRITE``, Linux 5.14): the joint
    tables read a reference run's row at random, and with 4 KiB pages each such
    row missed the TLB (both joint tables of the benchmark's adjacent board:
    0.12-0.13 s against 0.14-0.16 s); else ``MAP_POPULATE`` maps 4 KiB pages.
    Elsewhere (no ``MAP_POPULATE``: macOS, Windows) it is ``np.zeros``.

    Examples
    --------
    >>> a = zeroed_int8(POPULATE_BYTES)
    >>> a.dtype, a.size == POPULATE_BYTES, int(a.max()), a.flags.writeable
    (dtype('int8'), True, 0, True)
    """
    import mmap

    if size < POPULATE_BYTES or not hasattr(mmap, "MAP_POPULATE"):
        return np.zeros(size, dtype=np.int8)
    flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
    buf = mmap.mmap(-1, size, flags=flags)
    try:
        buf.madvise(mmap.MADV_HUGEPAGE)
        buf.madvise(_MADV_POPULATE_WRITE)
    except (AttributeError, OSError, ValueError):  # an older kernel, or no transparent huge pages
        buf.close()
        buf = mmap.mmap(-1, size, flags=flags | mmap.MAP_POPULATE)
    return np.frombuffer(buf, dtype=np.int8)
