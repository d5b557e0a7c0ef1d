"""Two-sided mid-p of a hypergeometric cell in mpmath, sharing nothing with batcheval: every table
with its margins whose cell is at least as far from the mean ``r·p/n`` as the observed one (compared
in integers, ``|n·x − r·p|``), the observed distance counted half. The pmf of the first term of each
tail from ``mpmath.loggamma`` at working precision, the tail summed outward term by term with the
exact ratio ``pmf(k + 1)/pmf(k)`` until a term falls below 1e-30 of the sum; so it costs the tail's
length (some 10⁵ terms at n = 10⁹ near the mean), and suits the grid of a test, not a sweep."""

from __future__ import annotations

import mpmath


def _log_pmf(k: int, n: int, r: int, p: int):
    lg = mpmath.loggamma
    return (lg(r + 1) - lg(k + 1) - lg(r - k + 1) + lg(n - r + 1) - lg(p - k + 1) - lg(n - r - p + k + 1)
            - lg(n + 1) + lg(p + 1) + lg(n - p + 1))  # fmt: skip


def _tail(start: int, n: int, r: int, p: int, step: int) -> tuple:
    """``(pmf(start), Σ pmf beyond start)`` in the direction ``step`` (+1 up, −1 down)."""
    lo, hi = max(0, p - (n - r)), min(r, p)
    if not lo <= start <= hi:
        return mpmath.mpf(0), mpmath.mpf(0)
    first = mpmath.exp(_log_pmf(start, n, r, p))
    term, rest, k = first, mpmath.mpf(0), start
    eps = mpmath.mpf(10) ** -30
    while lo <= k + step <= hi:
        if step > 0:
            term *= mpmath.mpf((r - k) * (p - k)) / ((k + 1) * (n - r - p + k + 1))
        else:
            term *= mpmath.mpf(k * (n - r - p + k)) / ((r - k + 1) * (p - k + 1))
        k += step
        rest += term
        if term < eps * (first + rest):
            break
    return first, rest


def midp(x: int, n: int, r: int, p: int, dps: int = 40) -> float:
    """Two-sided mid-p of cell ``x`` (n examples, r real and p predicted positives)."""
    if n == 0:
        return float("nan")
    if r in (0, n) or p in (0, n):
        return 1.0
    with mpmath.workdps(dps):
        d = abs(n * x - r * p)
        # the cells at the observed distance or beyond: up from ceil((rp + d)/n), down from floor((rp − d)/n)
        up = -(-(r * p + d) // n)
        down = (r * p - d) // n
        first, rest = _tail(up, n, r, p, 1)
        total = rest + (first / 2 if n * up - r * p == d else first)
        first, rest = _tail(down, n, r, p, -1)
        total += rest
        if down != up:  # else x is the mean itself, counted above
            total += first / 2 if r * p - n * down == d else first
        return float(min(mpmath.mpf(1), total))
