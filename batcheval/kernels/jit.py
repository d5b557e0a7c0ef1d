"""The one place that sets numba's compilation flags.

Kernels import :data:`jit` and :data:`jit_parallel` from here so that caching,
fastmath and the error model are decided once for the whole library.
"""

from __future__ import annotations

import os
import sys

import numba
from numba.core import event

# fastmath stays off: batcheval promises results equal to the reference to
# the last digit, and reassociation would change sums of floats.
_FLAGS = {"cache": True, "nogil": True, "error_model": "numpy"}

jit = numba.njit(**_FLAGS)
jit_parallel = numba.njit(parallel=True, **_FLAGS)
jit_inline = numba.njit(inline="always", **_FLAGS)
prange = numba.prange


def n_threads() -> int:
    """Threads a parallel kernel will use (honours ``NUMBA_NUM_THREADS``)."""
    return int(numba.get_num_threads())


# -- the one-time compile notice ---------------------------------------------------------------
# A kernel missing from numba's on-disk cache compiles on its first call, which takes seconds to a
# minute and looks like a hang. numba announces every compile after a cache miss as a
# "numba:compile" event (a cache hit raises none), so the first such event for a batcheval kernel
# says, once per process, what is being compiled and where the result is kept.
_told: list[bool] = []  # non-empty once the notice was printed


def cache_dir(dispatcher: object = None) -> str:
    """Where numba keeps batcheval's compiled kernels (``NUMBA_CACHE_DIR``, else ``__pycache__``)."""
    path = getattr(getattr(dispatcher, "_cache", None), "_cache_path", None)
    if path:
        return str(path)
    return os.environ.get("NUMBA_CACHE_DIR") or os.path.join(os.path.dirname(__file__), "__pycache__")


class _CompileNotice(event.Listener):
    def on_start(self, ev: event.Event) -> None:
        if _told or os.environ.get("BATCHEVAL_QUIET_COMPILE"):
            return
        dispatcher = ev.data.get("dispatcher") if isinstance(ev.data, dict) else None
        func = getattr(dispatcher, "py_func", None)
        module = getattr(func, "__module__", "") or ""
        if not module.startswith("batcheval."):
            return
        _told.append(True)
        print(
            f"batcheval: compiling numba kernels for this machine (first: {module}.{func.__name__}); "
            "this can take a minute and happens once per machine and input type: the compiled code is "
            f"cached in {cache_dir(dispatcher)}",
            file=sys.stderr,
        )

    def on_end(self, ev: event.Event) -> None:
        pass


event.register("numba:compile", _CompileNotice())
