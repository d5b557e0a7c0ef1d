"""Binary measures for every group at once, from the four cell counts.

:func:`binary_measures` computes the measures of docs/measures.md, binary measures and the chi-squared
family of §3 that are asked for: ``slots[m]`` is the output row of measure
``m`` (its index in :data:`NAMES`) or -1 to skip it. The formulas are traced
into one program of column operations (sharing the margins, the determinant
and the coefficients several measures use) that :func:`run_program` executes
over blocks of tables. :func:`measure_value` gives one measure of one table,
with the same bits, to numba kernels that measure tables one at a time.

Determinants are formed in exact integer arithmetic (``tp*tn - fp*fn``, in int64,
or in the limbs of :mod:`.wide` for tables of :data:`EXACT_LIMIT` examples or more)
so that coefficients close to zero are not lost to cancellation; floats appear only
in the final divisions.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy as np

from . import wide as _wide
from .jit import jit, jit_inline, jit_parallel, prange

NAMES = (
    "prevalence",
    "bias",
    "recall",
    "precision",
    "inverse_recall",
    "inverse_precision",
    "fallout",
    "miss_rate",
    "accuracy",
    "jaccard",
    "f1",
    "f_beta",
    "g_measure",
    "informedness",
    "markedness",
    "correlation",
    "bookmark",
    "dtp",
    "evenness_real",
    "evenness_predicted",
    "evenness_global",
    "kappa_cohen",
    "kappa_fleiss",
    "wracc",
    "auc_single",
    "lift",
    "lr_plus",
    "lr_minus",
    "odds_ratio",
    "chi2",
    "g2",
    "chi2_pos_pred",
    "chi2_pos_real",
    "chi2_kb",
    "chi2_km",
    "chi2_kbm",
)

# counts above this may make tp*tn overflow int64; the determinant is then formed in limbs
EXACT_LIMIT = 3_000_000_000


@jit
def safe_ratio(num, den):
    """A plain ratio: NaN when the denominator is 0 (docs/measures.md, degenerate tables)."""
    return num / den if den != 0 else np.nan


@jit
def deviance(o, e, diff):
    """One cell's term ``o ln(o/e) + e − o`` of G²/2, for an observed count ``o``, its expected
    count ``e = r·p/n`` and ``diff = o − e``, which the caller forms from an exact ``n·o − r·p``
    divided by n: never negative, and 0 exactly when ``diff`` is 0.

    The terms ``o ln(o/e)`` alone cancel: their sum over a table is G²/2, but each is of the order of
    ``o − e``, which sums to 0, so a large table near independence kept only their rounding (G² of
    -2e-6 at n = 3e10, 6 where it is 4e-16 at n = 2^53). Near ``e`` (|v| < 0.1) the term is
    Loader's (2000) series of ``bd0`` (:mod:`.fisher`) in ``v = diff/(o + e)``,
    ``diff·v + 2o·Σ v^(2j+1)/(2j+1)``, to j = 8 (the rest below 1e-17 of it); farther,
    ``o ln(o/e) − diff``, which cancels by a factor 60 at most. Both are formed and one is
    selected, without a branch (a cell of 0 gives ``−diff = e``; a cell whose class is absent from
    both margins, 0).
    """
    if o == 0.0:
        return e
    v = diff / (o + e)
    if abs(v) >= 0.1:
        return o * math.log(o / e) - diff
    w = v * v
    return diff * v + 2.0 * o * v * w * series_tail(w)


@jit_inline
def series_tail(w):
    """``Σ_{j=1..8} w^(j−1)/(2j+1)`` by Horner's rule: the series of :func:`deviance` over its first
    term, for ``w = v²`` < 0.01 (the terms left out are below 1e-17 of the sum)."""
    t = 1.0 / 17.0
    t = t * w + 1.0 / 15.0
    t = t * w + 1.0 / 13.0
    t = t * w + 1.0 / 11.0
    t = t * w + 1.0 / 9.0
    t = t * w + 1.0 / 7.0
    t = t * w + 1.0 / 5.0
    return t * w + 1.0 / 3.0


@jit
def unit(x):
    """``x`` clipped to [−1, 1], NaN kept: a correlation that rounding put a unit in the last
    place beyond ±1."""
    return -1.0 if x < -1.0 else (1.0 if x > 1.0 else x)


@jit
def margin_coef(num, den):
    """A chance-corrected coefficient: 0 when its margin is 0, because dtp is too."""
    return num / den if den != 0 else 0.0


# -- every group at once: a small program of column operations ---------------------------------
# The point measures are a few IEEE operations each (+ − × ÷ √, rounded alike wherever they run
# without fastmath). Written as 36 numba loops they took some 9 s of a first evaluate's 15 to
# compile, numba's typing and lowering growing with every statement; as numpy expressions over
# whole columns, twice the run time of those loops. So the formulas below are traced once into a
# list of column operations (shared intermediates computed once), and one small numba kernel,
# :func:`run_program`, executes it block by block: eight vectorised loops to compile, whatever
# the measures asked for, and each block's columns stay in cache.

# opcodes of run_program, rows (op, dst, x, y, z) of registers (z: the fill of _DIV_OR, o − e of _DEVIANCE)
_ADD, _SUB, _MUL, _DIV, _DIV_OR, _SQRT, _DEVIANCE, _IF_POS, _UNIT, _STORE = range(10)
_TWO_OPERANDS = frozenset({_ADD, _SUB, _MUL, _DIV, _DIV_OR, _DEVIANCE, _IF_POS})
_THREE_OPERANDS = frozenset({_DIV_OR, _DEVIANCE})
# registers 0-4 hold the block's a, b, c, d as floats and its determinant, the constants follow
_LOADED = 5
# the trace's names of constants and of computed columns, before registers are assigned
_CONST, _COMPUTED = 1_000, 1_000_000
#: Tables per block of :func:`run_block`: the program's live columns stay in L1/L2.
BLOCK = 512
_BLOCK = BLOCK


class _Trace:
    """Records column operations; equal operations on equal operands are recorded once."""

    def __init__(self) -> None:
        self.ops: list[tuple[int, int, int, int, int]] = []
        self.consts: list[float] = []
        self._const_at: dict[str, int] = {}  # by float.hex(): NaN is a constant too
        self._seen: dict[tuple, _Col] = {}

    def op(self, code: int, x: int, y: int = -1, z: int = -1) -> _Col:
        key = (code, x, y, z)
        if key not in self._seen:
            self.ops.append((code, _COMPUTED + len(self.ops), x, y, z))
            self._seen[key] = _Col(self, self.ops[-1][1])
        return self._seen[key]

    def const(self, value: float) -> int:
        key = float(value).hex()
        if key not in self._const_at:
            self._const_at[key] = len(self.consts)
            self.consts.append(float(value))
        return _CONST + self._const_at[key]


class _Col:
    """A column of the trace: arithmetic on it records an operation, in the order written."""

    def __init__(self, trace: _Trace, reg: int) -> None:
        self.trace, self.reg = trace, reg

    def __add__(self, other: _Col) -> _Col:
        return self.trace.op(_ADD, self.reg, other.reg)

    def __sub__(self, other: _Col) -> _Col:
        return self.trace.op(_SUB, self.reg, other.reg)

    def __rsub__(self, c: float) -> _Col:
        return self.trace.op(_SUB, self.trace.const(c), self.reg)

    def __mul__(self, other: _Col) -> _Col:
        return self.trace.op(_MUL, self.reg, other.reg)

    def __rmul__(self, c: float) -> _Col:  # c * x = x * c exactly: IEEE products commute
        return self.trace.op(_MUL, self.reg, self.trace.const(c))

    def __truediv__(self, other: _Col) -> _Col:
        return self.trace.op(_DIV, self.reg, other.reg)


def _ratio(x: _Col, y: _Col) -> _Col:
    """``safe_ratio``: NaN where the denominator is 0."""
    return x.trace.op(_DIV_OR, x.reg, y.reg, x.trace.const(np.nan))


def _coef(x: _Col, y: _Col) -> _Col:
    """``margin_coef``: 0 where the denominator is 0."""
    return x.trace.op(_DIV_OR, x.reg, y.reg, x.trace.const(0.0))


def _sqrt(x: _Col) -> _Col:
    return x.trace.op(_SQRT, x.reg)


def _deviance(o: _Col, e: _Col, diff: _Col) -> _Col:
    """``deviance(o, e, diff)``: one cell of G²/2 (``e`` expected, ``diff`` = o − e)."""
    return o.trace.op(_DEVIANCE, o.reg, e.reg, diff.reg)


def _if_pos(x: _Col, y: _Col) -> _Col:
    """``x`` where ``y > 0``, else 0."""
    return x.trace.op(_IF_POS, x.reg, y.reg)


def _unit(x: _Col) -> _Col:
    """``x`` clipped to [−1, 1] (NaN stays NaN)."""
    return x.trace.op(_UNIT, x.reg)


def _formulas(t: _Trace, b2: float) -> dict[str, _Col]:
    """Every measure of NAMES (docs/measures.md, binary measures and significance), in the
    operations and order of :func:`measure_value`, so that each value has the same bits."""
    a, b, c, d, det = (_Col(t, r) for r in range(_LOADED))
    n = a + b + c + d
    rp, rn, pp, pn = a + c, b + d, a + b, c + d
    recall, precision, inverse_recall = _ratio(a, rp), _ratio(a, pp), _ratio(d, rn)
    fallout, miss_rate = _ratio(b, rn), _ratio(c, rp)
    # clipped to [−1, 1] as correlation is: above 2^53 examples rp·rn rounds below det (a perfect
    # table's informedness 1.0000000000000002, bookmark 1.0000000000000004)
    bm, mk = _unit(_coef(det, rp * rn)), _unit(_coef(det, pp * pn))
    prevalence, bias = rp / n, pp / n
    # prevalence·(1 − prevalence) as rp·rn/n², from the margins: 1 − rp/n cancels when one class
    # holds nearly all of n (6e-17 came out 0 at n = 1e17), and either class positive gives these bits
    nn = n * n
    even_r, even_p = rp * rn / nn, pp * pn / nn
    even_g = _sqrt(even_r * even_p)
    r = _coef(det, _sqrt(rp * rn) * _sqrt(pp * pn))
    dtp = det / nn
    # observed less expected: det/n in cells a and d, −det/n in b and c (n·a − rp·pp = det)
    dn = det / n
    nd = 0.0 - dn
    cells = (
        _deviance(a, rp * pp / n, dn)
        + _deviance(b, rn * pp / n, nd)
        + _deviance(c, rp * pn / n, nd)
        + _deviance(d, rn * pn / n, dn)
    )
    return {
        "prevalence": prevalence,
        "bias": bias,
        "recall": recall,
        "precision": precision,
        "inverse_recall": inverse_recall,
        "inverse_precision": _ratio(d, pn),
        "fallout": fallout,
        "miss_rate": miss_rate,
        "accuracy": (a + d) / n,
        "jaccard": _ratio(a, a + b + c),
        "f1": _ratio(2.0 * a, 2.0 * a + b + c),
        "f_beta": _ratio((1.0 + b2) * a, (1.0 + b2) * a + b2 * c + b),
        "g_measure": _sqrt(recall * precision),
        "informedness": bm,
        "markedness": mk,
        # det/(√(rp·rn)·√(pp·pn)) rounds to 1.0000000000000002 for y = ŷ = [1, 0, 0, 0]; χ² keeps r
        "correlation": _unit(r),
        "bookmark": bm * mk,
        "dtp": dtp,
        "evenness_real": even_r,
        "evenness_predicted": even_p,
        "evenness_global": even_g,
        "kappa_cohen": _unit(_coef(2.0 * det, rp * pn + pp * rn)),
        # Scott/Fleiss (accuracy − e)/(1 − e), both scaled by 2n²: (4·det − (fn − fp)²)/((rp + pp)(rn + pn)),
        # the identity of docs/measures.md, not 4n(tp + tn) − (rp + pp)² − (rn + pn)² over 4n² − …,
        # whose terms of 4n² cancel with one class nearly all of n (0.5 came out 1.0 at n = 1e17)
        "kappa_fleiss": _unit(_coef(4.0 * det - (c - b) * (c - b), (rp + pp) * (rn + pn))),
        "wracc": 4.0 * dtp,
        # (recall + inverse_recall)/2: NaN with one class absent, like any ROC AUC
        "auc_single": 0.5 * (recall + inverse_recall),
        "lift": _ratio(a * n, pp * rp),
        "lr_plus": _ratio(recall, fallout),
        "lr_minus": _ratio(miss_rate, inverse_recall),
        "odds_ratio": _ratio(a * d, b * c),
        "chi2": n * r * r,
        # 0 unless every margin is positive
        "g2": _if_pos(_if_pos(_if_pos(_if_pos(2.0 * cells, rp), rn), pp), pn),
        # the +P row and +R column statistics are 0 when that row/column is empty
        "chi2_pos_pred": _coef(bm * bm * rp * rn, pp),
        "chi2_pos_real": _coef(mk * mk * pp * pn, rp),
        "chi2_kb": 2.0 * n * bm * bm * even_r,
        "chi2_km": 2.0 * n * mk * mk * even_p,
        "chi2_kbm": 2.0 * n * bm * mk * even_g,
    }


@functools.lru_cache(maxsize=64)
def _program(rows: tuple[tuple[str, int], ...], b2: float) -> tuple[np.ndarray, np.ndarray, int]:
    """``(ops, consts, n_registers)`` that store measure ``name`` into output row ``row`` for
    each of ``rows``: only the operations they need, registers reused once a column is dead."""
    trace = _Trace()
    formulas = _formulas(trace, b2)
    stores = [(_STORE, row, formulas[name].reg, -1, -1) for name, row in rows]
    # keep the operations the stores need, walking back from them
    needed = {x for _, _, x, _, _ in stores}
    kept = []
    for code, dst, x, y, z in reversed(trace.ops):
        if dst in needed:
            kept.append((code, dst, x, y, z))
            needed.update((x, y, z) if code in _THREE_OPERANDS else (x, y) if code in _TWO_OPERANDS else (x,))
    # each store right after the operation it stores, so that its column need not stay live
    program = [st for st in stores if st[2] < _COMPUTED]  # a loaded column stored as it is
    for op in kept[::-1]:
        program.append(op)
        program.extend(st for st in stores if st[2] == op[1])
    last = {}
    for k, (code, _, x, y, z) in enumerate(program):
        last[x] = k
        if code in _TWO_OPERANDS:
            last[y] = k
        if code in _THREE_OPERANDS:
            last[z] = k
    # only the constants the kept operations use are filled in, each block
    used = sorted({v for op in kept for v in op[2:] if _CONST <= v < _COMPUTED})
    reg = {r: r for r in range(_LOADED)}
    reg.update({v: _LOADED + i for i, v in enumerate(used)})
    free: list[int] = []
    top = _LOADED + len(used)
    final = []
    for k, (code, dst, x, y, z) in enumerate(program):
        two, three = code in _TWO_OPERANDS, code in _THREE_OPERANDS
        operands = (reg[x], reg[y] if two else -1, reg[z] if three else -1)
        if code == _STORE:
            final.append((code, dst, *operands))
        else:
            # the result's register is taken before the operands' are freed: a loop whose
            # output overlaps an input would not vectorise
            reg[dst] = free.pop() if free else top
            top += reg[dst] == top
            final.append((code, reg[dst], *operands))
        for col in (x, y, z) if three else (x, y) if two else (x,):  # dead after its last use
            if last.get(col) == k and col >= _COMPUTED and col in reg:
                free.append(reg.pop(col))
    consts = np.array([trace.consts[v - _CONST] for v in used], dtype=np.float64)
    return np.array(final, dtype=np.int64).reshape(-1, 5), consts, top


@jit_parallel
def run_program(tp, fp, fn, tn, ops, consts, n_regs, out, wide):
    """Execute a program of :func:`_program` on G tables, a block of tables at a time:
    ``out[row, g]`` for its stores, NaN for an empty table. ``wide`` as :func:`run_block`'s;
    returns the count of tables it left undone (none unless ``wide`` is None)."""
    n_groups = tp.shape[0]
    n_blocks = (n_groups + _BLOCK - 1) // _BLOCK
    missed = 0
    for i in prange(n_blocks):
        lo = i * _BLOCK
        missed += run_block(
            tp, fp, fn, tn, lo, min(n_groups, lo + _BLOCK) - lo, ops, consts, n_regs, out, lo, wide
        )
    return missed


# a plain function, not inlined: run_program and the distinct tables' pass share one compiled copy
# (with an empty cache, compute() of 100 tables then of 100k: inlined into both, 4.6-4.8 then
# 8.1-8.3 s of CPU; this way 4.9-5.3 then 7.1-7.7 s; before the block was a function, 4.7 then 6.9-7.1)
@jit
def run_block(tp, fp, fn, tn, lo, m, ops, consts, n_regs, out, at, wide):
    """:func:`run_program` on the ``m`` ≤ :data:`BLOCK` tables from ``lo`` of the cell columns,
    writing ``out[row, at + j]`` for table ``lo + j``: one block, for kernels that run the program
    inside a pass of their own (the distinct tables' tests, :mod:`~batcheval.kernels.pvalues`).

    ``wide=None`` compiles the block without the limbs of :func:`~.wide.mul_sub` (numba prunes the
    branch of an argument that is None: about 1.5 s of CPU of a first call on an empty cache); a
    table of :data:`EXACT_LIMIT` examples or more then has a wrong determinant, and the block
    returns how many it holds, for the caller to run again with ``wide=True``, which returns 0."""
    s = np.empty((n_regs, _BLOCK))
    a, b, c, d, det = s[0], s[1], s[2], s[3], s[4]
    n_empty = n_wide = 0
    for j in range(m):
        g = lo + j
        a[j], b[j], c[j], d[j] = float(tp[g]), float(fp[g]), float(fn[g]), float(tn[g])
        # tp·tn − fp·fn in exact int64 arithmetic while it fits (no cancellation near 0)
        det[j] = float(tp[g] * tn[g] - fp[g] * fn[g])
        n_empty += a[j] + b[j] + c[j] + d[j] == 0
        n_wide += tp[g] + fp[g] + fn[g] + tn[g] >= EXACT_LIMIT
    missed = 0
    if n_wide:
        if wide is None:  # numba keeps one branch of the two, by wide's type
            missed = n_wide
        else:
            # exactly in limbs beyond, rounded once, where a float a·d − b·c lost it (a determinant
            # of 1 came out 0); in a loop of its own, as a call in the loop above slowed every table
            for j in range(m):
                g = lo + j
                if tp[g] + fp[g] + fn[g] + tn[g] >= EXACT_LIMIT:
                    det[j] = _wide.mul_sub(tp[g], tn[g], fp[g], fn[g])
    for k in range(consts.shape[0]):
        r, v = s[_LOADED + k], consts[k]
        for j in range(m):
            r[j] = v
    for k in range(ops.shape[0]):
        code, x = ops[k, 0], s[ops[k, 2]]
        if code == _STORE:
            o = out[ops[k, 1]]
            if n_empty == 0:
                for j in range(m):
                    o[at + j] = x[j]
            else:
                for j in range(m):
                    o[at + j] = x[j] if a[j] + b[j] + c[j] + d[j] != 0 else np.nan
            continue
        r, y = s[ops[k, 1]], s[max(ops[k, 3], 0)]
        if code == _ADD:
            for j in range(m):
                r[j] = x[j] + y[j]
        elif code == _SUB:
            for j in range(m):
                r[j] = x[j] - y[j]
        elif code == _MUL:
            for j in range(m):
                r[j] = x[j] * y[j]
        elif code == _DIV:
            for j in range(m):
                r[j] = x[j] / y[j]
        elif code == _DIV_OR:
            z = s[ops[k, 4]]
            for j in range(m):
                r[j] = x[j] / y[j] if y[j] != 0 else z[j]
        elif code == _SQRT:
            for j in range(m):
                r[j] = math.sqrt(x[j])
        elif code == _DEVIANCE:
            z = s[ops[k, 4]]
            for j in range(m):
                r[j] = deviance(x[j], y[j], z[j])
        elif code == _UNIT:
            for j in range(m):
                r[j] = unit(x[j])
        else:  # _IF_POS
            for j in range(m):
                r[j] = x[j] if y[j] > 0 else 0.0
    return missed


def limbs_if_needed(kernel: Callable, *args: object) -> None:
    """``kernel(*args, wide)`` for a kernel whose last argument ``wide`` is None or True and which
    returns how many tables of :data:`EXACT_LIMIT` examples it left undone (:func:`run_block`):
    first with None, the version compiled without the limbs of :func:`~.wide.mul_sub` that most
    processes never need (about 1.5 s of a first binary call, 3.5 s multiclass), and again with
    True only if it met such a table (or, in the distinct tables' pass, a table whose chance test
    needs :func:`~.chance.midp_cell`'s tail of 2^31 examples or more)."""
    if kernel(*args, None):
        kernel(*args, True)


def binary_measures(
    tp: np.ndarray,
    fp: np.ndarray,
    fn: np.ndarray,
    tn: np.ndarray,
    beta: float,
    slots: np.ndarray,
    out: np.ndarray,
) -> None:
    """Write the measures selected by ``slots`` into ``out[slot, group]``.

    ``tp fp fn tn`` are the int64 cell columns of G tables; ``slots[m]`` is the
    output row of measure ``NAMES[m]``, or -1 to skip it. NaN for an empty table.

    Examples
    --------
    >>> import numpy as np
    >>> cells = [np.array([30, 0]), np.array([12, 0]), np.array([30, 0]), np.array([28, 0])]
    >>> slots = np.full(len(NAMES), -1)
    >>> slots[NAMES.index("informedness")] = 0
    >>> out = np.empty((1, 2))
    >>> binary_measures(*cells, 1.0, slots, out)
    >>> out.round(4).tolist()
    [[0.2, nan]]
    """
    prog = program(slots, beta)
    if prog is not None and tp.shape[0]:
        limbs_if_needed(run_program, tp, fp, fn, tn, *prog, out)


def program(slots: np.ndarray, beta: float) -> tuple[np.ndarray, np.ndarray, int] | None:
    """``(ops, consts, n_registers)`` of the program that :func:`run_program` and :func:`run_block`
    execute to store measure ``NAMES[m]`` into output row ``slots[m]`` (-1: skipped); None when no
    measure is asked for.

    Examples
    --------
    >>> slots = np.full(len(NAMES), -1)
    >>> slots[NAMES.index("informedness")] = 0
    >>> ops, consts, n_regs = program(slots, 1.0)
    >>> int(ops[-1, 0]) == _STORE, program(np.full(len(NAMES), -1), 1.0)
    (True, None)
    """
    rows = tuple((NAMES[m], int(row)) for m, row in enumerate(slots) if row >= 0)
    return _program(rows, float(beta) * float(beta)) if rows else None


@jit
def measure_value(m, tp, fp, fn, tn, b2):
    """Measure ``NAMES[m]`` of one table, with the bits :func:`binary_measures` gives it: for
    kernels that measure tables one at a time (a branch per measure, which the CPU predicts
    when ``m`` is the same for every call). The formulas are written out, not calls of jitted
    helpers: each helper is compiled (typed, lowered, optimised) on its own, some 0.15 s apiece."""
    a, b, c, d = float(tp), float(fp), float(fn), float(tn)
    n = a + b + c + d
    if n == 0:
        return np.nan
    nan = np.nan
    rp, rn, pp, pn = a + c, b + d, a + b, c + d
    exact = float(tp * tn - fp * fn)
    det = exact if tp + fp + fn + tn < EXACT_LIMIT else _wide.mul_sub(tp, tn, fp, fn)
    # the margin coefficients informedness and markedness, which many measures share, clipped to
    # [−1, 1] as _formulas clips them
    bm_den = rp * rn
    bm = unit(det / bm_den if bm_den != 0 else 0.0)
    mk_den = pp * pn
    mk = unit(det / mk_den if mk_den != 0 else 0.0)
    if m == 0:
        return rp / n
    elif m == 1:
        return pp / n
    elif m == 2:
        return a / rp if rp != 0 else nan
    elif m == 3:
        return a / pp if pp != 0 else nan
    elif m == 4:
        return d / rn if rn != 0 else nan
    elif m == 5:
        return d / pn if pn != 0 else nan
    elif m == 6:
        return b / rn if rn != 0 else nan
    elif m == 7:
        return c / rp if rp != 0 else nan
    elif m == 8:
        return (a + d) / n
    elif m == 9:
        den = a + b + c
        return a / den if den != 0 else nan
    elif m == 10:
        den = 2.0 * a + b + c
        return 2.0 * a / den if den != 0 else nan
    elif m == 11:
        den = (1.0 + b2) * a + b2 * c + b
        return (1.0 + b2) * a / den if den != 0 else nan
    elif m == 12:
        return math.sqrt((a / rp if rp != 0 else nan) * (a / pp if pp != 0 else nan))
    elif m == 13:
        return bm
    elif m == 14:
        return mk
    elif m == 15 or m == 29:  # noqa: PLR1714 (a set would cost numba a typed set)
        den = math.sqrt(rp * rn) * math.sqrt(pp * pn)
        r = det / den if den != 0 else 0.0
        return unit(r) if m == 15 else n * r * r
    elif m == 16:
        return bm * mk
    elif m == 17:
        return det / (n * n)
    elif m == 18:
        return rp * rn / (n * n)
    elif m == 19:
        return pp * pn / (n * n)
    elif m == 20:
        return math.sqrt(rp * rn / (n * n) * (pp * pn / (n * n)))
    elif m == 21:
        den = rp * pn + pp * rn
        return unit(2.0 * det / den if den != 0 else 0.0)
    elif m == 22:
        # Scott/Fleiss: (accuracy - e)/(1 - e), both scaled by 2n², as _formulas forms it
        den = (rp + pp) * (rn + pn)
        return unit((4.0 * det - (c - b) * (c - b)) / den if den != 0 else 0.0)
    elif m == 23:
        return 4.0 * (det / (n * n))
    elif m == 24:
        # (recall + inverse_recall)/2: NaN with one class absent, like any ROC AUC
        return 0.5 * ((a / rp if rp != 0 else nan) + (d / rn if rn != 0 else nan))
    elif m == 25:
        den = pp * rp
        return a * n / den if den != 0 else nan
    elif m == 26:
        den = b / rn if rn != 0 else nan
        return (a / rp if rp != 0 else nan) / den if den != 0 else nan
    elif m == 27:
        den = d / rn if rn != 0 else nan
        return (c / rp if rp != 0 else nan) / den if den != 0 else nan
    elif m == 28:
        den = b * c
        return a * d / den if den != 0 else nan
    elif m == 30:
        if not (rp > 0 and rn > 0 and pp > 0 and pn > 0):
            return 0.0
        # observed less expected: det/n in cells a and d, −det/n in b and c (n·a − rp·pp = det)
        dn = det / n
        nd = 0.0 - dn
        return 2.0 * (
            deviance(a, rp * pp / n, dn)
            + deviance(b, rn * pp / n, nd)
            + deviance(c, rp * pn / n, nd)
            + deviance(d, rn * pn / n, dn)
        )
    # the +P row and +R column statistics are 0 when that row/column is empty
    elif m == 31:
        return bm * bm * rp * rn / pp if pp != 0 else 0.0
    elif m == 32:
        return mk * mk * pp * pn / rp if rp != 0 else 0.0
    elif m == 33:
        return 2.0 * n * bm * bm * (rp * rn / (n * n))
    elif m == 34:
        return 2.0 * n * mk * mk * (pp * pn / (n * n))
    elif m == 35:
        return 2.0 * n * bm * mk * math.sqrt(rp * rn / (n * n) * (pp * pn / (n * n)))
    return nan
