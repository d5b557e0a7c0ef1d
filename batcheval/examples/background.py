"""A second Python process that compiles kernels while this one works: ``batcheval demo`` and
``batcheval warmup`` start one where the machine has a core to spare, because numba compiles on one
core. The two processes take the same work from opposite ends, and each loads from numba's cache
what the other has compiled."""

from __future__ import annotations

import os
import subprocess
import sys


def start_python(code: str) -> subprocess.Popen | None:
    """``python -c code`` in the background, silent and with the compile notice off, or None on a
    machine of one core or where no process can be started.

    Examples
    --------
    >>> helper = start_python("pass")
    >>> helper is None or helper.wait(timeout=60) == 0
    True
    """
    if (os.cpu_count() or 1) < 2:
        return None
    env = {**os.environ, "BATCHEVAL_QUIET_COMPILE": "1"}
    try:
        return subprocess.Popen(
            [sys.executable, "-c", code], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
    except OSError:  # an embedded interpreter's sys.executable may start nothing: compile here only
        return None


def stop(helper: subprocess.Popen | None) -> None:
    """End ``helper`` if it still runs: whatever it has not compiled yet, the caller already has.

    Examples
    --------
    >>> helper = start_python("import time; time.sleep(60)")
    >>> stop(helper)
    >>> helper is None or helper.poll() is not None
    True
    """
    if helper is None or helper.poll() is not None:
        return
    helper.terminate()  # numba writes a cache entry whole (a temporary file, then a rename)
    try:
        helper.wait(timeout=10)
    except subprocess.TimeoutExpired:
        helper.kill()
        helper.wait()
