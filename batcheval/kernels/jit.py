"""The one place that sets numba's compilation flags.

Kernels import :data:`jit` and :data:`jit_parallel` from here so that caching,
fastmath and the error model are decided once for the whole library.
"""

from __future__ import annotations

import numba

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
