"""The one place that sets numba's compilation flags.

Kernels import :data:`jit` and :data:`jit_parallel` from here so that caching,
fastmath and the error model are decided once for the whole library.

Every kernel is cached on disk (numba's ``cache=True``), with one change: numba checks a cached
kernel against its own source file only, so a kernel that calls or inlines a jitted function of
another module (``pvalues`` calls ``chance.midp_cell``, ``leaderboard`` calls
``delta.informedness_gradient``, ``ranks`` inlines ``sampling.uniform``) kept running the old
callee's code, silently, after only the callee's file changed (an editable install, a git pull or
checkout). Here each kernel's cache entry is stamped with its file's stamp and
:data:`KERNELS_FINGERPRINT`, a hash of every ``batcheval/kernels/*.py`` read once at import
(under a millisecond), so a change to any kernel source recompiles every batcheval kernel on
its next call, and an unchanged source loads the cached code as before. numba's own locators still
choose the directory (``NUMBA_CACHE_DIR``, ``__pycache__`` beside the kernels, the user-wide cache):
nothing is deleted, a stale entry is overwritten when its kernel compiles again.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import sys
import types
from collections.abc import Callable, Iterator

import numba
import numpy as np
from numba.core import caching, event
from numba.core.dispatcher import Dispatcher

# fastmath stays off: batcheval promises results equal to the reference to
# the last digit, and reassociation would change sums of floats. Caching is on for every kernel,
# through _njit (see the module's notes).
_FLAGS = {"nogil": True, "error_model": "numpy"}


def kernels_fingerprint() -> str:
    """sha256 of the names and bytes of every ``*.py`` of this directory, in name order ("" where the
    sources cannot be read, as in a zip: numba's own per-file stamp is then the only check)."""
    digest = hashlib.sha256()
    try:
        here = os.path.dirname(os.path.abspath(__file__))
        for name in sorted(n for n in os.listdir(here) if n.endswith(".py")):
            with open(os.path.join(here, name), "rb") as f:
                data = f.read()
            digest.update(b"%d:%s:%d:" % (len(name), name.encode(), len(data)))
            digest.update(data)
    except OSError:
        return ""
    return digest.hexdigest()


#: The source of every kernel module at import: part of each kernel's on-disk cache stamp.
KERNELS_FINGERPRINT = kernels_fingerprint()


class _FingerprintedLocator:
    """numba's cache locator of a kernel (whichever numba chose), its source stamp extended with
    :data:`KERNELS_FINGERPRINT`: an index written under other kernel sources reads as stale."""

    def __init__(self, inner: object) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> object:
        return getattr(self._inner, name)

    def get_source_stamp(self) -> object:
        return (self._inner.get_source_stamp(), KERNELS_FINGERPRINT)


class _KernelCacheImpl(caching.CompileResultCacheImpl):
    def __init__(self, py_func: types.FunctionType) -> None:
        super().__init__(py_func)
        self._locator = _FingerprintedLocator(self._locator)


@contextlib.contextmanager
def cache_lock(path: str, exclusive: bool) -> Iterator[None]:
    """Hold an advisory lock on ``path`` (created if missing): exclusive to write a kernel's cache
    entry, shared to read it. Without a lock (no ``fcntl``, as on Windows, or a read-only cache
    directory, or a file system that refuses locks) it is numba's own unlocked cache.

    numba saves an entry as two files, the index of a function's signatures and one data file, each
    replaced atomically but not together. Two processes compiling two signatures of one function at
    once (pytest-xdist workers, Dask workers, ``batcheval demo``'s warm-up) can both take data file 1,
    and the index can then name one signature while the file holds the other's code, which a later
    process would run on the wrong types (numba issue 10128 reports such crashes).

    Examples
    --------
    >>> import tempfile, os
    >>> with cache_lock(os.path.join(tempfile.mkdtemp(), "f.nbi.lock"), exclusive=True):
    ...     pass
    """
    try:
        import fcntl
    except ImportError:
        yield
        return
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        except OSError:  # a file system without locks (ENOLCK, EOPNOTSUPP): numba's own cache
            pass
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


class _KernelCache(caching.FunctionCache):
    """numba's on-disk cache of one function (``cache=True``), stamped with every kernel's source,
    with its index and data files written and read under one lock (:func:`cache_lock`)."""

    _impl_class = _KernelCacheImpl

    def _lock_path(self) -> str:
        return self._cache_file._index_path + ".lock"

    def save_overload(self, sig: object, data: object) -> None:
        try:
            self._impl.locator.ensure_cache_path()
        except OSError:  # numba's own save says so (a warning) and caches nothing
            return super().save_overload(sig, data)
        with cache_lock(self._lock_path(), exclusive=True):
            super().save_overload(sig, data)

    def load_overload(self, sig: object, target_context: object) -> object:
        if not os.path.isdir(self._cache_path):
            return super().load_overload(sig, target_context)
        with cache_lock(self._lock_path(), exclusive=False):
            return super().load_overload(sig, target_context)


def _njit(**options: object) -> Callable[[types.FunctionType], Dispatcher]:
    """``numba.njit(**_FLAGS, **options)`` with :class:`_KernelCache` as its disk cache (what
    ``cache=True`` does, with numba's cache class)."""
    compile_ = numba.njit(**_FLAGS, **options)

    def decorate(func: types.FunctionType) -> Dispatcher:
        dispatcher = compile_(func)
        if isinstance(dispatcher, Dispatcher):  # not under NUMBA_DISABLE_JIT
            dispatcher._cache = _KernelCache(dispatcher.py_func)
        return dispatcher

    return decorate


jit = _njit()
# For helpers of per-row hot loops (counting, sampling): numba's IR-level inlining. Without it the
# counting loop calls row_group and _cell per row and runs 3x slower. Its price is compile time (every
# body re-typed at every call site), so helpers called once per table, not per row, use plain `jit`
# (the 36 binary measure formulas, when they were helpers: first evaluate 40 -> 31 s of CPU).
jit_inline = _njit(inline="always")
prange = numba.prange

#: Inputs below this many elements (every array argument) run a parallel kernel's serial twin.
SERIAL_BELOW = 1 << 16


class ParallelKernel:
    """A ``parallel=True`` kernel with a serial twin that small inputs run instead.

    numba's parallel lowering (parfors, gufunc wrappers) costs about as much compile time again as
    the kernel itself, and buys nothing below some ten thousand elements; on a busy machine waking
    the worker threads even costs more than the work. So a call whose array arguments all have
    fewer than :data:`SERIAL_BELOW` elements runs the same source compiled without ``parallel``
    (where ``prange`` is ``range``), and the parallel version compiles only when an input is large
    enough to use it. The kernels write per-thread or per-block partial results indexed by the
    ``prange`` variable, so both versions give the same answers.

    The twin has its own qualified name, so the two keep separate entries in numba's disk cache.
    """

    def __init__(self, func: types.FunctionType, serial_below: int = SERIAL_BELOW) -> None:
        self.serial_below = serial_below
        self.parallel = _njit(parallel=True)(func)
        twin = types.FunctionType(
            func.__code__, func.__globals__, func.__name__ + "_serial", func.__defaults__, func.__closure__
        )
        twin.__qualname__ = func.__qualname__ + "_serial"
        twin.__module__ = func.__module__
        twin.__doc__ = func.__doc__
        self.serial = jit(twin)
        functools.update_wrapper(self, func)

    def __call__(self, *args):
        for a in args:
            if isinstance(a, np.ndarray) and a.size >= self.serial_below:
                return self.parallel(*args)
        return self.serial(*args)

    def by_work(self, work: int) -> Callable:
        """The version for a call whose work is ``work`` elements, whatever its arrays' sizes: for
        kernels whose scratch tables can be far larger than their input (a per-thread table of
        every runs × examples cell filled by a few thousand rows), which :meth:`__call__` would
        send to the parallel version and its compile.

        Examples
        --------
        >>> from batcheval.kernels.count import count_private
        >>> count_private.by_work(10) is count_private.serial
        True
        >>> count_private.by_work(SERIAL_BELOW) is count_private.parallel
        True
        """
        return self.serial if work < self.serial_below else self.parallel

    @property
    def signatures(self) -> list:
        """Every argument-type signature compiled so far, by either version."""
        return [*self.serial.signatures, *self.parallel.signatures]


def jit_parallel(
    func: types.FunctionType | None = None, *, serial_below: int = SERIAL_BELOW
) -> ParallelKernel | Callable[[types.FunctionType], ParallelKernel]:
    """Compile ``func`` as a parallel kernel with a serial twin for small inputs (see
    :class:`ParallelKernel`). A kernel that another jitted function calls must use :data:`jit`.

    ``@jit_parallel(serial_below=n)`` moves the switch for a kernel whose work per element is
    large (an exact test of each table): threads pay from a few thousand such elements.
    """
    if func is None:
        return functools.partial(ParallelKernel, serial_below=serial_below)
    return ParallelKernel(func, serial_below)


def readonly(arr: np.ndarray) -> np.ndarray:
    """A read-only view of ``arr``, so every kernel sees one flavour of input array.

    numba compiles a kernel once per argument type, and a read-only array (what
    polars hands out without copying) is a different type from a writable one
    (what a cast or a lookup makes). Freezing the inputs halves the variants a
    cold start compiles, a few seconds each. Callers freeze what a kernel only reads at the
    kernel's boundary: the inputs of one kernel can come from several paths.

    Examples
    --------
    >>> a = np.arange(3)
    >>> readonly(a).flags.writeable, a.flags.writeable
    (False, True)
    """
    if not arr.flags.writeable:
        return arr
    view = arr.view()
    view.flags.writeable = False
    return view


def n_threads() -> int:
    """Threads a parallel kernel will use (honours ``NUMBA_NUM_THREADS``)."""
    return int(numba.get_num_threads())


# -- the one-time compile notice ---------------------------------------------------------------
# A kernel missing from numba's on-disk cache compiles on its first call, which takes seconds to a
# minute and looks like a hang. numba announces every compile after a cache miss as a
# "numba:compile" event (a cache hit raises none), so the first such event for a batcheval kernel
# says, once per process, what is being compiled and where the result is kept.
_told: list[bool] = []  # non-empty once the notice was printed
_on_compile: list[Callable[[], object]] = []  # hooks for the next compile (call_on_first_compile)


def call_on_first_compile(hook: Callable[[], object]) -> Callable[[], None]:
    """Call ``hook()`` once, when a batcheval kernel next compiles in this process (a cache miss);
    returns a function that cancels it if it has not run.

    ``batcheval demo`` starts its warm-up process so: a compile means the kernel cache is cold, as
    after an upgrade, which nothing cheaper tells.

    Examples
    --------
    >>> cancel = call_on_first_compile(lambda: print("compiling"))
    >>> cancel()  # nothing compiled: the hook never runs
    """
    _on_compile.append(hook)

    def cancel() -> None:
        if hook in _on_compile:
            _on_compile.remove(hook)

    return cancel


def cache_dir(dispatcher: object = None) -> str:
    """Where numba keeps batcheval's compiled kernels (``NUMBA_CACHE_DIR``, else ``__pycache__``)."""
    path = getattr(getattr(dispatcher, "_cache", None), "_cache_path", None)
    if path:
        return str(path)
    return os.environ.get("NUMBA_CACHE_DIR") or os.path.join(os.path.dirname(__file__), "__pycache__")


class _CompileNotice(event.Listener):
    def on_start(self, ev: event.Event) -> None:
        quiet = bool(_told or os.environ.get("BATCHEVAL_QUIET_COMPILE"))
        if quiet and not _on_compile:
            return
        dispatcher = ev.data.get("dispatcher") if isinstance(ev.data, dict) else None
        func = getattr(dispatcher, "py_func", None)
        module = getattr(func, "__module__", "") or ""
        if not module.startswith("batcheval."):
            return
        while _on_compile:
            _on_compile.pop(0)()
        if quiet:
            return
        _told.append(True)
        print(
            f"batcheval: compiling numba kernels for this machine (first: {module}.{func.__name__}); "
            "this takes seconds (up to a minute for large inputs) and happens once per machine and "
            f"input type: the compiled code is cached in {cache_dir(dispatcher)}",
            file=sys.stderr,
        )

    def on_end(self, ev: event.Event) -> None:
        pass


event.register("numba:compile", _CompileNotice())
