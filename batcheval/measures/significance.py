"""Tail probabilities and their calibration: χ² upper tails via :mod:`scipy.special`, alpha_sbb,
and the one check of a confidence level that every ``ci=`` goes through."""

from __future__ import annotations

import itertools
import math
import numbers
import os
import reprlib
import threading
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InvalidArgumentError

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

__all__ = ["alpha_sbb", "calibrate_sbb", "check_level", "chi2_upper_tail"]


def check_level(ci: object, name: str = "ci") -> float:
    """``ci`` as a float, or an :class:`~batcheval.errors.InvalidArgumentError` unless it is a number in
    (0, 1); ``name`` is the argument the message names. Callers use the float, not ``ci``: a
    float16 level took 100 * level in float16 (overflowing to "nan%"), and a Fraction formatted as
    ``:g`` raised TypeError.

    Examples
    --------
    >>> check_level(0.95)
    0.95
    >>> from fractions import Fraction
    >>> check_level(Fraction(9, 10)), check_level(np.float16(0.5))
    (0.9, 0.5)
    >>> check_level(True)
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: ci must be a confidence level strictly between 0 and 1, got True
    >>> check_level(1.5, "level")
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: level must be a confidence level strictly between 0 and 1, got 1.5
    >>> check_level(95)
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: ci must be ... between 0 and 1, got 95; for 95 % give ci=0.95
    """
    try:  # an integer beyond the largest float is a numbers.Real that float() refuses
        level = float(ci) if isinstance(ci, numbers.Real) and not isinstance(ci, bool) else math.nan
    except OverflowError:
        level = math.nan
    if not 0.0 < level < 1.0:
        # ci=95 is the commonest slip (a percentage, as R's conf.level is not): say the level meant
        meant = f"; for {level:g} % give {name}={level / 100:g}" if 50.0 <= level < 100.0 else ""
        raise InvalidArgumentError(
            f"{name} must be a confidence level strictly between 0 and 1, got {reprlib.repr(ci)}{meant}"
        )
    return level


def alpha_sbb(p: np.ndarray | float) -> np.ndarray:
    """Sellke–Bayarri–Berger calibration of a p-value (Powers 2011, eqs. 36–38; docs/references.md).

    ``alpha = 1 / (1 + 1/L(p))`` with ``L(p) = -e·p·ln p`` for ``p < 1/e``; for
    ``p >= 1/e`` the bound gives no evidence either way and alpha is 1/2, which
    keeps the calibration continuous at ``p = 1/e``.

    Parameters
    ----------
    p
        p-values in [0, 1], any shape; NaN stays NaN.

    Returns
    -------
    numpy.ndarray
        The calibrated alpha, a lower bound on the posterior probability of
        the null hypothesis at even prior odds.

    Raises
    ------
    InvalidArgumentError
        When ``p`` holds anything but numbers in [0, 1] or NaN (a bool, a string, None, 1.5).

    Examples
    --------
    >>> import batcheval as be
    >>> be.alpha_sbb([0.05, 0.01, 0.5]).round(4).tolist()
    [0.2893, 0.1113, 0.5]
    >>> be.alpha_sbb(1.5)
    Traceback (most recent call last):
    ...
    batcheval.errors.InvalidArgumentError: p must be p-values in [0, 1], got 1.5
    """
    # numpy would read True as 1, None as NaN and "0.05" as 0.05: each a silent answer; a list's
    # items are looked at one by one, as numpy reads [True, 0.1] as floats
    values = np.asarray(p, dtype=object) if isinstance(p, list | tuple) else np.asarray(p)
    if values.dtype.kind == "O":
        bad = [v for v in values.flat if isinstance(v, bool) or not isinstance(v, numbers.Real)]
    elif values.dtype.kind not in "iuf":
        bad = [values.flat[0].item()] if values.size else []
    else:
        bad = []
    if not bad:
        values = values.astype(np.float64, copy=False)
        outside = (values < 0.0) | (values > 1.0)  # NaN is neither
        bad = [float(values[outside].flat[0])] if outside.any() else []
    if bad:
        raise InvalidArgumentError(f"p must be p-values in [0, 1], got {p if values.ndim == 0 else bad[0]!r}")
    return calibrate_sbb(values)


def calibrate_sbb(p: np.ndarray) -> np.ndarray:
    """:func:`alpha_sbb` of float64 p-values the caller knows to be in [0, 1] or NaN (the chance
    tests' columns): unchecked, as the measures of many groups compute it."""
    with np.errstate(divide="ignore", invalid="ignore"):
        like = -math.e * p * np.log(p)
        like = np.where(p == 0.0, 0.0, like)
        alpha = like / (1.0 + like)
    return np.where(p >= 1.0 / math.e, 0.5, alpha)


def chi2_upper_tail(statistic: np.ndarray, dof: int) -> np.ndarray:
    """P(X >= statistic) for X ~ χ²(dof), via :mod:`scipy.special`.

    A negative statistic (``chi2_kbm`` when informedness and markedness
    disagree in sign) gives 1, and so does every statistic with ``dof = 0``
    (one class: nothing to test); NaN stays NaN (an empty group).

    For one degree of freedom this is ``erfc(sqrt(x/2))`` exactly, which
    scipy evaluates an order of magnitude faster than the incomplete gamma
    function at a = 1/2 (the two agree to a few ulp).

    Examples
    --------
    >>> chi2_upper_tail(np.array([3.841458820694124, 0.0]), 1).round(6).tolist()
    [0.05, 1.0]
    >>> round(float(chi2_upper_tail(np.array([9.487729036781154]), 4)[0]), 6)
    0.05
    >>> chi2_upper_tail(np.array([-2.0, np.nan]), 1).tolist(), chi2_upper_tail(np.array([0.0]), 0).tolist()
    ([1.0, nan], [1.0])
    """
    from scipy import special  # heavy; imported only when p-values are asked for

    statistic = np.asarray(statistic, dtype=np.float64)
    if dof == 0:
        return np.where(np.isnan(statistic), np.nan, 1.0)
    # P(X >= x) = 1 for x <= 0; clipping also keeps sqrt of a negative out of erfc
    clipped = np.maximum(statistic, 0.0)  # NaN stays NaN
    if dof == 1:
        return _threaded(lambda x, out: special.erfc(np.sqrt(x / 2.0), out=out), clipped)
    return _threaded(lambda x, out: special.chdtrc(float(dof), x, out=out), clipped)


_pools: dict[int, ThreadPoolExecutor] = {}  # one pool of threads for the process, by size
_pools_lock = threading.Lock()
# a forked child inherits the pools without their threads, and its map() would wait forever
os.register_at_fork(after_in_child=_pools.clear)


def _threaded(ufunc, x: np.ndarray, min_size: int = 1 << 15) -> np.ndarray:
    """Apply a GIL-releasing scipy ufunc over halves of ``x`` in parallel threads.

    The incomplete gamma function costs ~1 µs a value for large statistics, so
    for many groups the tails are worth splitting across the kernels' threads.
    The pool is made once: starting its threads on every call cost a tenth of a
    millisecond, some 5 % of 100k groups' tails.
    """
    from concurrent.futures import ThreadPoolExecutor

    from ..kernels.jit import n_threads

    out = np.empty_like(x)
    threads = n_threads()
    if threads == 1 or x.size < min_size:
        ufunc(x, out)
        return out
    with _pools_lock:  # two threads asking at once would each start a pool
        pool = _pools.get(threads)
        if pool is None:
            pool = _pools[threads] = ThreadPoolExecutor(threads, thread_name_prefix="batcheval-tails")
    bounds = np.linspace(0, x.size, threads + 1).astype(int)
    halves = itertools.pairwise(bounds)
    list(pool.map(lambda ab: ufunc(x[ab[0] : ab[1]], out[ab[0] : ab[1]]), halves))
    return out
