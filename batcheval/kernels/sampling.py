"""Random draws for the bootstrap kernels: a small per-group generator, and
exact binomial and Poisson samplers.

numba compiles only numpy's legacy ``np.random`` API, whose binomial redoes
its BTPE setup on every call because every call of a multinomial chain has
new parameters: about 80-95 ns a draw here. The sampler below takes 30-50 ns
(:func:`binomial`), and its generator state lives with the group being drawn,
not with the thread, so a group's draws do not depend on how groups are
spread over threads.

* Generator: xoshiro256** (Blackman & Vigna 2018), its four words seeded by
  splitmix64 (Steele, Lea & Flood 2014) from the group's seed. The state is
  a tuple that every draw takes and returns (``k, state = poisson(...)``).
* Binomial, with ``p <= 1/2`` by symmetry: inversion (Devroye 1986, X.4) when
  ``n·p < 10``, else Hörmann's (1993) transformed rejection with squeeze,
  BTRS, both exact. Log-factorials come from a table below 4,096.
* Poisson, for the Poisson bootstrap, whose every draw of a group has the same
  mean: :func:`poisson_setup` computes a mean's constants once, so a draw
  (:func:`poisson`) costs two uniforms and a comparison most of the time.
  Inversion below a mean of 10, else Hörmann's (1993) transformed rejection
  with squeeze, PTRS, both exact.
* Poisson by inversion of a table of the cdf (:func:`poisson_tables`,
  :func:`poisson_inverted`) with a guide table (Chen & Asau 1974; Devroye 1986,
  III.2.4): one uniform and about one comparison a draw, for means that many
  groups share. The cdf is scipy's to 5e-15; the tails left out hold at most
  3.4e-20 each.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import jit, jit_inline

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53: the top 53 bits as a double in [0, 1)

# numba freezes a global array into the compiled kernel as a constant
_LOG_FACTORIAL = np.array([math.lgamma(k + 1.0) for k in range(4096)])


@jit_inline
def splitmix64(x):
    """Steele, Lea & Flood's bijective 64-bit mixer: inputs that differ by one
    bit give unrelated outputs."""
    z = x + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@jit_inline
def seed_state(seed):
    """The four-word xoshiro state for a 64-bit ``seed``.

    The state is a tuple, passed in and returned by every draw, so that it
    stays in registers: an array held it in memory, and each draw's
    loads and stores cost a tenth of a Poisson draw.
    """
    z0 = np.uint64(seed) + _GOLDEN
    z1 = z0 + _GOLDEN
    z2 = z1 + _GOLDEN
    z3 = z2 + _GOLDEN
    return (splitmix64(z0), splitmix64(z1), splitmix64(z2), splitmix64(z3))


@jit_inline
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@jit_inline
def uniform(state):
    """``(u, state)``: a double in [0, 1) from the next xoshiro256** output, and the next state."""
    s0, s1, s2, s3 = state
    out = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return np.float64(out >> np.uint64(11)) * _TO_UNIT, (s0, s1, s2, s3)


@jit_inline
def _log_factorial(k):
    if k < _LOG_FACTORIAL.shape[0]:
        return _LOG_FACTORIAL[k]
    return math.lgamma(k + 1.0)


@jit_inline
def _inversion(n, p, state):
    # sequential search up the pmf; n·p < 10 keeps the expected steps small.
    # Rounding can leave the summed pmf short of u: then draw again
    ratio = p / (1.0 - p)
    step = (n + 1) * ratio
    first = math.exp(n * math.log1p(-p))
    while True:
        u, state = uniform(state)
        r = first
        x = 0
        while u > r and x <= n:
            u -= r
            x += 1
            r *= step / x - ratio
        if x <= n:
            return x, state


@jit_inline
def _btrs(n, p, state):
    q = 1.0 - p
    spq = math.sqrt(n * p * q)
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    squeeze = 0.92 * b - 4.2  # v <= 0.92 - 4.2/b, times b, to spare a division
    while True:
        u, state = uniform(state)
        v, state = uniform(state)
        u -= 0.5
        us = 0.5 - abs(u)
        kf = math.floor((2.0 * a / us + b) * u + c)
        if kf < 0.0 or kf > n:
            continue
        k = np.int64(kf)
        if us >= 0.07 and v * b <= squeeze:
            return k, state
        # the exact test, about a third of the draws
        alpha = (2.83 + 5.1 / b) * spq
        m = np.int64(math.floor((n + 1) * p))
        lhs = math.log(v * alpha / (a / (us * us) + b))
        rhs = (
            _log_factorial(m)
            + _log_factorial(n - m)
            - _log_factorial(k)
            - _log_factorial(n - k)
            + (k - m) * math.log(p / q)
        )
        if lhs <= rhs:
            return k, state


@jit_inline
def binomial(n, p, state):
    """``(k, state)``: one exact Binomial(n, p) draw, ``n >= 1`` and ``0 < p < 1``."""
    flip = p > 0.5
    small = 1.0 - p if flip else p
    if n * small < 10.0:
        k, state = _inversion(n, small, state)
    else:
        k, state = _btrs(n, small, state)
    return (n - k if flip else k), state


@jit_inline
def multinomial(counts, g, pseudo, total, state, out_row):
    """One Multinomial(total, (counts[g] + pseudo) / (total + C·pseudo)) draw into
    ``out_row`` (``C`` cells): a chain of conditional binomials, each cell given the mass
    left after the cells before it, which is exact. With ``pseudo = 0`` the weights are
    the integer counts, exact as doubles: the plain bootstrap's draw. Returns the next state."""
    n_cells = counts.shape[1]
    left = total  # examples still to place
    mass = total + n_cells * pseudo  # smoothed weights of the cells not yet drawn
    for c in range(n_cells - 1):
        cell = counts[g, c] + pseudo
        if left == 0 or cell == 0.0:
            x = 0
        elif cell >= mass:  # also where rounding of the running mass left p >= 1
            x = left
        else:
            x, state = binomial(left, cell / mass, state)
        out_row[c] = x
        left -= x
        mass -= cell
    out_row[n_cells - 1] = left
    return state


# poisson_setup's row: the mean, then inversion's exp(-mean), or PTRS's constants
POISSON_PARAMS = 7


@jit_inline
def poisson_setup(mean, params, i):
    """Fill ``params[i]`` (:data:`POISSON_PARAMS` floats) with what :func:`poisson` needs for ``mean``."""
    params[i, 0] = mean
    if mean < 10.0:
        params[i, 1] = math.exp(-mean)
        return
    s = math.sqrt(mean)
    b = 0.931 + 2.53 * s
    params[i, 1] = b
    params[i, 2] = -0.059 + 0.02483 * b  # a
    params[i, 3] = math.log(1.1239 + 1.1328 / (b - 3.4))  # log(1/alpha)
    params[i, 4] = 0.9277 - 3.6224 / (b - 2.0)  # squeeze: accept v <= this unless |u| is near 1/2
    params[i, 5] = math.log(mean)
    params[i, 6] = mean + 0.43


@jit_inline
def poisson(params, i, state):
    """``(k, state)``: one exact Poisson draw with the mean set up in ``params[i]``
    by :func:`poisson_setup`.

    (A row index rather than a row: slicing a view in the inner loop costs
    more than the draw.)
    """
    mean = params[i, 0]
    if mean <= 0.0:
        return 0, state
    if mean < 10.0:
        # sequential search up the pmf; rounding can leave it short of u: draw again
        while True:
            u, state = uniform(state)
            p = params[i, 1]
            k = 0
            while u > p and k < 200:
                u -= p
                k += 1
                p *= mean / k
            if k < 200:
                return k, state
    b = params[i, 1]
    a = params[i, 2]
    while True:
        u, state = uniform(state)
        v, state = uniform(state)
        u -= 0.5
        us = 0.5 - abs(u)
        kf = math.floor((2.0 * a / us + b) * u + params[i, 6])
        if us >= 0.07 and v <= params[i, 4]:
            return np.int64(kf), state
        if kf < 0.0 or (us < 0.013 and v > us):
            continue
        k = np.int64(kf)
        # log(v·(1/alpha) / (a/us² + b)), one log rather than three
        lhs = math.log(v / (a / (us * us) + b)) + params[i, 3]
        if lhs <= -mean + kf * params[i, 5] - _log_factorial(k):
            return k, state


@jit
def poisson_tables(means, lows, starts, cdf, guide):
    """Inversion tables of the Poisson means ``means[i]``, for :func:`poisson_inverted`.

    Mean ``means[i]``'s table holds, at ``starts[i] .. starts[i + 1] - 1`` of ``cdf``, the
    cumulative probabilities ``P(X <= k)`` for ``k = lows[i], lows[i] + 1, ...``: the
    probabilities come from the mode's, ``exp(k·ln m − m − ln k!)``, by the ratios
    ``m/k`` up and ``k/m`` down, divided by their sum; the tails outside the table
    (at most 3.4e-20 each for a table of ``m − 9√m − 5`` to ``m + 9.5√m + 10`` and
    a mean below 2^14, by scipy) are left out,
    below a double uniform's resolution of 1.1e-16. ``guide[j]`` (Chen & Asau's indexed search) is the
    first index whose cumulative probability exceeds ``(j' − 1/2) / L`` for the table's
    ``L`` entries and its ``j' = j − starts[i]``: the search for a uniform ``u`` with
    ``⌊u·L⌋ = j'`` starts there and steps about once.
    """
    for i in range(means.shape[0]):
        m = np.float64(means[i])
        lo = lows[i]
        start = starts[i]
        size = starts[i + 1] - start
        mode = np.int64(math.floor(m))
        pm = math.exp(mode * math.log(m) - m - _log_factorial(mode)) if m > 0.0 else 1.0
        # probabilities first, in cdf's place, from the mode out
        p = pm
        cdf[start + mode - lo] = pm
        inverse = 1.0 / m if m > 0.0 else 0.0
        for k in range(mode - 1, lo - 1, -1):
            p *= (k + 1) * inverse
            cdf[start + k - lo] = p
        p = pm
        for k in range(mode + 1, lo + size):
            p *= m / k
            cdf[start + k - lo] = p
        total = 0.0
        for j in range(start, start + size):
            total += cdf[j]
            cdf[j] = total
        # the mode's probability carries exp's rounding of a large exponent (5e-13 at a mean of
        # 700), which scales the whole table; the sum, 1 less the tails, corrects it
        scale = 1.0 / total
        for j in range(start, start + size):
            cdf[j] *= scale
        # a guide entry per table entry: a coarser guide (one per 4 or 8 entries) made the search's
        # exit a branch the CPU mispredicted, 134 -> 169 and 201 ms for the leaderboard benchmark
        j = start
        for g in range(size):
            threshold = (g - 0.5) / size
            while j < start + size - 1 and cdf[j] <= threshold:
                j += 1
            guide[start + g] = j


@jit_inline
def poisson_inverted(start, size, low, cdf, guide, state):
    """``(k, state)``: one Poisson draw by inversion of the table at ``start`` (of ``size``
    entries, for ``k`` from ``low``) made by :func:`poisson_tables`, from one uniform.
    A uniform past the table's last cumulative probability (its upper tail, below 4e-20,
    and the sum's rounding) draws again, as :func:`poisson`'s inversion does."""
    last = start + size - 1
    while True:
        u, state = uniform(state)
        # u <= 1 - 2^-53, so u·size rounds below size: the guide entry is the table's own
        j = guide[start + np.int64(u * size)]
        if j + 1 < last:
            # the search's first two steps without a branch (the cdf does not decrease, so the
            # second comparison holds only if the first does): a loop exit after 0, 1 or 2
            # steps, as the guide leaves it, was a branch the CPU mispredicted
            j += np.int64(cdf[j] <= u) + np.int64(cdf[j + 1] <= u)
        while cdf[j] <= u and j < last:
            j += 1
        if cdf[j] > u:
            return j - start + low, state
