"""Exact integer arithmetic beyond int64 for products of counts.

A table of more than about 3.04e9 examples makes products such as ``n·tp``
pass 2^63, and an exact sign or zero test of a sum of ratios of counts needs
a common denominator of many counts. Both are done here on non-negative
integers held as little-endian arrays of 30-bit limbs in int64 (a limb times
a 30-bit digit, plus the two neighbouring columns, stays below 2^62), and
turned into a float only at the end, with one correct rounding.

Callers size the arrays: :func:`mul_int` needs three free limbs above the
highest non-zero one.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import jit, jit_inline

BITS = 30
_MASK = (1 << BITS) - 1
# limbs that hold a product of two counts (< 2^126) with room for mul_int
PAIR_LIMBS = 8


@jit_inline
def _top(x):
    """Index of the highest non-zero limb, -1 for zero."""
    i = x.shape[0] - 1
    while i >= 0 and x[i] == 0:
        i -= 1
    return i


@jit_inline
def copy_into(dst, src):
    """``dst[:] = src`` for arrays of one size, as a loop: numba's slice copy compiles its shape-error
    message (about 1.9 s of CPU on the first call on an empty cache)."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@jit
def set_int(x, v):
    """``x = v`` for an int64 ``v >= 0``."""
    x[:] = 0
    i = 0
    while v > 0:
        x[i] = v & _MASK
        v >>= BITS
        i += 1


@jit
def _normalize(x):
    carry = 0
    for k in range(x.shape[0]):
        s = x[k] + carry
        x[k] = s & _MASK
        carry = s >> BITS


@jit
def mul_int(x, v):
    """``x *= v`` for an int64 ``v >= 0``, in place."""
    top = _top(x)
    if top < 0:
        return
    v0 = v & _MASK
    v1 = (v >> BITS) & _MASK
    v2 = v >> (2 * BITS)
    # columns from the top down, so each reads limbs not yet overwritten
    for k in range(top + 2, -1, -1):
        s = 0
        if k <= top:
            s += x[k] * v0
        if 1 <= k <= top + 1:
            s += x[k - 1] * v1
        if k >= 2:
            s += x[k - 2] * v2
        x[k] = s
    _normalize(x)


@jit
def add(x, y):
    """``x += y``."""
    for k in range(x.shape[0]):
        x[k] += y[k]
    _normalize(x)


@jit
def compare(x, y):
    """-1, 0 or 1 as ``x`` is below, equal to or above ``y``."""
    for k in range(x.shape[0] - 1, -1, -1):
        if x[k] != y[k]:
            return 1 if x[k] > y[k] else -1
    return 0


@jit
def sub(x, y):
    """``x -= y`` for ``x >= y``."""
    borrow = 0
    for k in range(x.shape[0]):
        s = x[k] - y[k] - borrow
        borrow = np.int64(s < 0)
        x[k] = s + (borrow << BITS)


@jit
def frexp(x):
    """``(m, e)`` with ``x = m·2^e`` rounded once to the nearest float ``m``
    (ties to even); the exponent stays an int, so numbers beyond the float
    range keep their ratios."""
    top = _top(x)
    if top < 0:
        return 0.0, 0
    if top <= 1:
        return float((x[1] << BITS) | x[0]), 0
    h = (x[top] << BITS) | x[top - 1]
    bits = BITS
    while (x[top] >> (bits - BITS)) > 1:
        bits += 1
    # 61 significant bits, and a sticky bit for whatever lies below them,
    # so int → float rounds as the whole number would
    shift = 61 - (bits + 1)
    h = (h << shift) | (x[top - 2] >> (BITS - shift))
    sticky = x[top - 2] & ((1 << (BITS - shift)) - 1)
    for k in range(top - 2):
        sticky |= x[k]
    if sticky != 0:
        h |= 1
    return float(h), BITS * (top - 1) - shift


@jit
def to_float(x):
    """``x`` rounded once to the nearest float (inf beyond the float range)."""
    m, e = frexp(x)
    return math.ldexp(m, e)


@jit
def ratio(x, y):
    """``x / y`` as a float, exact up to three roundings; NaN when ``y`` is 0."""
    mx, ex = frexp(x)
    my, ey = frexp(y)
    if my == 0.0:
        return np.nan
    return math.ldexp(mx / my, ex - ey)


@jit
def difference(x, y, scratch):
    """``x - y`` as a float, rounded once; ``scratch`` has the arrays' size."""
    c = compare(x, y)
    if c == 0:
        return 0.0
    if c > 0:
        copy_into(scratch, x)
        sub(scratch, y)
        return to_float(scratch)
    copy_into(scratch, y)
    sub(scratch, x)
    return -to_float(scratch)


@jit
def mul_sub(a, b, c, d):
    """``a·b − c·d`` for int64 counts ``>= 0``, rounded once to a float.

    In int64 while both products fit, exactly in limbs otherwise.

    Examples
    --------
    >>> mul_sub(4_000_000_001, 4_000_000_001, 4_000_000_000, 4_000_000_002)  # int64 would wrap
    1.0
    """
    if float(a) * float(b) < 4.0e18 and float(c) * float(d) < 4.0e18:
        return float(a * b - c * d)
    x = np.zeros(PAIR_LIMBS, np.int64)
    y = np.zeros(PAIR_LIMBS, np.int64)
    set_int(x, a)
    mul_int(x, b)
    set_int(y, c)
    mul_int(y, d)
    return difference(x, y, np.empty(PAIR_LIMBS, np.int64))


@jit
def ratio_sum_sign(n, c, real, pred, weight):
    """Exact sign of ``Σ_k det_k / (n·(n − weight_k))`` with
    ``det_k = n·c[k, k] − real_k·pred_k``, over the classes with ``weight_k < n``
    (the others have ``det_k = 0``: docs/measures.md: a term of a zero margin is 0).

    It is :func:`quotient_sum` with ``w_k = den_k = weight_k``, divided by n: exact for any K
    and any counts, in int64 while the numbers fit. Returns ``(sign, sum)``: -1, 0 or 1, and
    the sum as a float.

    Examples
    --------
    >>> import numpy as np
    >>> c = np.array([[2, 2, 0], [2, 0, 0], [2, 0, 2]])  # markedness exactly 0
    >>> ratio_sum_sign(10, c, c.sum(axis=1), c.sum(axis=0), c.sum(axis=0))
    (0, 0.0)
    """
    # a bool, not the literal True: one compiled quotient_sum for this and multiclass._exact_mean
    sign, value = quotient_sum(n, c, real, pred, weight, np.bool_(True), weight)
    return sign, value / n


# a product or sum below this fits int64 exactly, whatever the rounding of its float estimate
_INT_ROOM = 4.0e18


@jit
def _small_quotient_sum(n, c, real, pred, weight, use_weight, den):
    """:func:`quotient_sum` in int64, as a fraction reduced after each class: exact for tables
    whose reduced numbers stay below 2^62 (the small and middling ones), ``(2, 0.0)`` as soon as
    one would not."""
    num = 0
    total_den = 1
    for i in range(c.shape[0]):
        a = den[i]
        b = n - a
        if a <= 0 or b <= 0:
            continue
        if float(n) * float(c[i, i]) >= _INT_ROOM or float(real[i]) * float(pred[i]) >= _INT_ROOM:
            return 2, 0.0
        d = n * c[i, i] - real[i] * pred[i]
        if d == 0 or (use_weight and weight[i] == 0):
            continue
        if float(a) * float(b) >= _INT_ROOM:
            return 2, 0.0
        q = a * b
        g = math.gcd(abs(d), q)
        d //= g
        q //= g
        if use_weight:
            w = weight[i]
            g = math.gcd(w, q)
            w //= g
            q //= g
            if float(abs(d)) * float(w) >= _INT_ROOM:
                return 2, 0.0
            d *= w
        # num/total_den + d/q over the least common denominator
        g = math.gcd(total_den, q)
        up = q // g
        d_up = total_den // g
        if float(abs(num)) * float(up) + float(abs(d)) * float(d_up) >= _INT_ROOM:
            return 2, 0.0
        if float(total_den) * float(up) >= _INT_ROOM:
            return 2, 0.0
        num = num * up + d * d_up
        total_den *= up
        g = math.gcd(abs(num), total_den)
        num //= g
        total_den //= g
    if num == 0:
        return 0, 0.0
    return (1 if num > 0 else -1), num / total_den


@jit
def quotient_sum(n, c, real, pred, weight, use_weight, den):
    """Exact sign of ``Σ_k w_k·det_k / (den_k·(n − den_k))`` with
    ``det_k = n·c[k, k] − real_k·pred_k`` and ``w_k = weight[k]`` (1 unless ``use_weight``), over
    the classes with ``0 < den_k < n``: a sum of one-vs-rest informedness (``den = real``) or
    markedness (``den = pred``) values, the others 0 (their det_k is 0 too).

    In int64 over reduced fractions while the numbers fit, else over
    the common denominator ``Π den_j·(n − den_j)`` in limbs. Returns ``(sign, sum)``: -1, 0 or 1,
    and the sum as a float.

    Examples
    --------
    >>> import numpy as np
    >>> c = np.array([[2, 0, 0, 0], [2, 0, 0, 0], [0, 0, 0, 1], [0, 2, 0, 0]])  # 3/5 − 2/5 + 0 − 1/5
    >>> r, p = c.sum(axis=1), c.sum(axis=0)
    >>> quotient_sum(7, c, r, p, r, False, r)
    (0, 0.0)
    >>> quotient_sum(7, c, r, p, p, True, r)  # 4·3/5 − 2·2/5 + 0 − 1·1/5: weighted by pred
    (1, 1.4)
    >>> quotient_sum(7 * 2**40, c * 2**40, r * 2**40, p * 2**40, r, False, r)  # in limbs
    (0, 0.0)
    """
    sign, value = _small_quotient_sum(n, c, real, pred, weight, use_weight, den)
    if sign != 2:
        return sign, value
    return _limb_quotient_sum(n, c, real, pred, weight, use_weight, den)


@jit
def _limb_quotient_sum(n, c, real, pred, weight, use_weight, den):
    """:func:`quotient_sum` in limbs, for any counts."""
    k = c.shape[0]
    # the product of K pairs of counts (< 2^126 each), a term's n·c·w on top, and mul_int's room
    size = 5 * k + 10
    pos = np.zeros(size, np.int64)  # Σ w_k·n·c[k, k]·Π_{j≠k} den_j·(n − den_j), classes so far
    neg = np.zeros(size, np.int64)  # Σ w_k·real_k·pred_k·Π_{j≠k} den_j·(n − den_j)
    prod = np.zeros(size, np.int64)  # Π den_j·(n − den_j), classes so far
    term = np.zeros(size, np.int64)
    prod[0] = 1  # the limbs of 1 (set_int(prod, 1) compiled set_int again for a literal 1)
    for i in range(k):
        a = den[i]
        b = n - a
        if a <= 0 or b <= 0:
            continue
        mul_int(pos, a)
        mul_int(pos, b)
        mul_int(neg, a)
        mul_int(neg, b)
        copy_into(term, prod)
        mul_int(term, n)
        mul_int(term, c[i, i])
        if use_weight:
            mul_int(term, weight[i])
        add(pos, term)
        copy_into(term, prod)
        mul_int(term, real[i])
        mul_int(term, pred[i])
        if use_weight:
            mul_int(term, weight[i])
        add(neg, term)
        mul_int(prod, a)
        mul_int(prod, b)
    sign = compare(pos, neg)
    if sign == 0:
        return 0, 0.0
    if sign > 0:
        sub(pos, neg)
        return 1, ratio(pos, prod)
    sub(neg, pos)
    return -1, -ratio(neg, prod)


# Pairs: a signed integer ``hi·2^62 + lo`` with ``0 <= lo < 2^62``, in two
# int64 scalars, for hot loops where limb arrays would cost too much. Factors
# of :func:`mul_pair` are below 2^62, which any count of rows held in memory is.
_LOW = 62
_LOW_MASK = (1 << _LOW) - 1
_HALF = 31
_HALF_MASK = (1 << _HALF) - 1


@jit_inline
def mul_pair(a, b):
    """``a·b`` as a pair, for ``0 <= a, b < 2^62``."""
    a1 = a >> _HALF
    a0 = a & _HALF_MASK
    b1 = b >> _HALF
    b0 = b & _HALF_MASK
    mid = a1 * b0 + a0 * b1  # < 2^63
    lo = a0 * b0 + ((mid & _HALF_MASK) << _HALF)  # < 2^63
    hi = a1 * b1 + (mid >> _HALF) + (lo >> _LOW)
    return hi, lo & _LOW_MASK


@jit_inline
def add_pair(h1, l1, h2, l2):
    lo = l1 + l2
    return h1 + h2 + (lo >> _LOW), lo & _LOW_MASK


@jit_inline
def sub_pair(h1, l1, h2, l2):
    lo = l1 - l2
    borrow = np.int64(lo < 0)
    return h1 - h2 - borrow, lo + (borrow << _LOW)


@jit_inline
def less_pair(h1, l1, h2, l2):
    """``(h1, l1) < (h2, l2)``."""
    return h1 < h2 or (h1 == h2 and l1 < l2)


@jit
def pair_to_float(hi, lo):
    """``hi·2^62 + lo`` rounded once to the nearest float (ties to even)."""
    neg = hi < 0
    if neg:
        hi, lo = sub_pair(0, 0, hi, lo)
    if hi == 0:
        f = float(lo)
    else:
        bits = 0
        t = hi
        while t > 0:
            t >>= 1
            bits += 1
        # 61 significant bits and a sticky bit for the rest, as in frexp
        if bits <= 61:
            shift = bits + 1
            top = (hi << (61 - bits)) | (lo >> shift)
            sticky = lo & ((1 << shift) - 1)
        else:
            shift = 63
            top = hi >> 1
            sticky = (hi & 1) | lo
        if sticky != 0:
            top |= 1
        f = math.ldexp(float(top), shift)
    return -f if neg else f
