"""Kernel edges of issue 21: counts beyond int64 products, exact signs, Fisher precision.

Every expectation comes from exact arithmetic in ``tests/reference/exact.py``
(Python integers, fractions, 40-digit decimals), scikit-learn or scipy.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
from fractions import Fraction

import numba
import numpy as np
import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.stats import fisher_exact
from sklearn.metrics import roc_auc_score

import batcheval as be
from batcheval.kernels import exact as _exact
from batcheval.kernels import fisher as _fisher
from batcheval.kernels import multiclass as _multiclass
from tests.reference.exact import (
    fisher_tail_decimal,
    fisher_tail_exact,
    multiclass_exact,
    multiclass_means_exact,
)

MULTI = ("informedness", "markedness", "correlation", "mcc", "kappa_cohen")


def _kernel(counts: np.ndarray, names=MULTI) -> dict[str, np.ndarray]:
    """The multiclass kernel itself, for any K (``compute`` sends K = 2 to the binary one)."""
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    slots = np.full(len(_multiclass.NAMES), -1, np.int64)
    for i, name in enumerate(names):
        slots[_multiclass.NAMES.index(name)] = i
    out = np.full((len(names), counts.shape[0]), np.nan)
    _multiclass.multiclass_measures(counts, slots, out)
    return dict(zip(names, out, strict=True))


def _rel(got: float, want: Fraction | float) -> float:
    want = Fraction(want)
    return float(abs(Fraction(got) - want) / abs(want)) if want != 0 else abs(got)


# --- item 1: products of counts beyond int64 -------------------------------------------------

# a 3-class table of 11.5e9 examples; scaled down, the same shares stay near the limit
_BIG = [
    [3_000_000_000, 500_000_000, 300_000_000],
    [400_000_000, 2_900_000_000, 600_000_000],
    [200_000_000, 300_000_000, 3_300_000_000],
]


@pytest.mark.parametrize(
    "scale",
    [
        Fraction(1, 4),  # 2.875e9 examples: int64 still holds n² (below the limit)
        Fraction(27, 100),  # 3.105e9: just past floor(sqrt(2^63)) ≈ 3.037e9
        Fraction(1),  # 1.15e10, the size
        Fraction(1000),  # 1.15e13
        Fraction(700_000),  # 8.05e15: cells near 2^53
    ],
)
def test_multiclass_beyond_int64_matches_fractions(scale: Fraction) -> None:
    table = [[int(v * scale) + i + 2 * j for j, v in enumerate(row)] for i, row in enumerate(_BIG)]
    want = multiclass_exact(table)
    got = _kernel(np.array([table]))
    for name in MULTI:
        assert _rel(got[name][0], want[name]) < 1e-14, (name, got[name][0], float(want[name]))


def test_multiclass_near_cancellation_beyond_int64() -> None:
    """Large tables whose informedness nearly cancels: the exact determinants decide it."""
    n3 = 4_000_000_000
    # independent margins (informedness exactly 0), then one example moved onto the diagonal
    indep = [[n3, n3, 2 * n3], [n3, n3, 2 * n3], [2 * n3, 2 * n3, 4 * n3]]
    nudged = [row[:] for row in indep]
    nudged[0][1] -= 1
    nudged[0][0] += 1
    for table in (indep, nudged):
        want = multiclass_exact(table)
        got = _kernel(np.array([table]))
        for name in ("informedness", "markedness", "mcc", "kappa_cohen"):
            if want[name] == 0:
                assert got[name][0] == 0.0, (name, got[name][0])
            else:
                assert _rel(got[name][0], want[name]) < 1e-12, (name, got[name][0], float(want[name]))


def test_multiclass_from_long_public_path() -> None:
    """The issue's route: ``ContingencyTable.from_long`` of a pooled 1.15e10-example table."""
    rows = [(i, j, v) for i, row in enumerate(_BIG) for j, v in enumerate(row)]
    frame = pl.DataFrame(rows, schema=["real", "predicted", "count"], orient="row")
    got = be.ContingencyTable.from_long(frame).measures(list(MULTI))
    want = multiclass_exact(_BIG)
    assert abs(float(want["informedness"]) - 0.6999316473000684) < 1e-15
    for name in MULTI:
        assert _rel(got[name][0], want[name]) < 1e-14, (name, got[name][0], float(want[name]))


def _roc_points(y: np.ndarray, s: np.ndarray) -> tuple[list[int], list[int]]:
    """Cumulative (fp, tp) at each distinct score from the top, in Python ints."""
    fps, tps = [], []
    for t in sorted(set(s.tolist()), reverse=True):
        above = s >= t
        tps.append(int((above & (y == 1)).sum()))
        fps.append(int((above & (y == 0)).sum()))
    return fps, tps


def _hull_area_twice(fps: list[int], tps: list[int]) -> int:
    """Twice the area under the upper convex hull of (0,0) and the points, in ints."""
    pts = [(0, 0), *zip(fps, tps, strict=True)]
    hull: list[tuple[int, int]] = []
    for p in pts:
        while len(hull) >= 2:
            (ax, ay), (bx, by) = hull[-2], hull[-1]
            if (bx - ax) * (p[1] - ay) - (by - ay) * (p[0] - ax) >= 0:
                hull.pop()
            else:
                break
        hull.append(p)
    return sum((b[0] - a[0]) * (b[1] + a[1]) for a, b in itertools.pairwise(hull))


@pytest.mark.parametrize("seed", range(4))
def test_exact_auc_walk_beyond_int64(seed: int) -> None:
    """The walk of a group of ~6e10 scores, on its ROC points (no need to hold the scores).

    Each point of a small ROC stands for ``s`` times its counts; AUC, hull area
    and the Youden point are scale-free, so the small curve is the reference.
    """
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 60)
    s = np.round(rng.normal(y * 0.8, 1.0), 1)
    fps, tps = _roc_points(y, s)
    big_n, big_p = fps[-1], tps[-1]
    scale = 1_000_000_003
    m = scale * (big_n + big_p)
    tp_at = np.array([scale * t for t in tps], np.int64)
    row_at = np.array([m - scale * (t + f) for t, f in zip(tps, fps, strict=True)], np.int64)
    p_tot, n_tot = scale * big_p, scale * big_n
    assert m > _exact.NARROW_ROWS  # walk_into sends such a group to the wide walk
    area, hull, _ap, top, best = _exact.walk_points_wide(tp_at, row_at, len(tps), m, p_tot, n_tot)
    den = 2.0 * float(p_tot) * float(n_tot)
    assert area / den == pytest.approx(roc_auc_score(y, s), rel=1e-15, abs=0)
    assert hull / den == pytest.approx(_hull_area_twice(fps, tps) / (2 * big_p * big_n), rel=1e-15, abs=0)
    inf = [Fraction(t, big_p) - Fraction(f, big_n) for t, f in zip(tps, fps, strict=True)]
    assert best == inf.index(max(inf))
    assert top / (float(p_tot) * float(n_tot)) == pytest.approx(float(max(inf)), rel=1e-15)


def test_exact_auc_walk_narrow_and_wide_agree() -> None:
    """On groups of real scores both walks give the same (exact) results."""
    rng = np.random.default_rng(7)
    for _ in range(20):
        y = rng.integers(0, 2, 500)
        s = np.round(rng.normal(y * 0.5, 1.0), 1)
        fps, tps = _roc_points(y, s)
        m = len(y)
        tp_at = np.array(tps, np.int64)
        row_at = np.array([m - t - f for t, f in zip(tps, fps, strict=True)], np.int64)
        args = (tp_at, row_at, len(tps), m, int(y.sum()), m - int(y.sum()))
        narrow = _exact.walk_points(*args)
        wide = _exact.walk_points_wide(*args)
        assert narrow[0] == wide[0] and narrow[1] == wide[1] and narrow[3] == wide[3] and narrow[4] == wide[4]
        assert narrow[2] == pytest.approx(wide[2], rel=1e-14)


def test_bucket_index_is_int64_and_capped() -> None:
    """The bucket index of a group of more than 2^30 scores, without allocating one."""
    n_buckets = 3 * 2**31  # what two buckets a row would give 3·2^30 rows
    lo, hi = -1.0, 2.0
    scale = n_buckets / (hi - lo)
    assert _exact.bucket_of(hi, lo, scale, n_buckets) == n_buckets - 1
    assert _exact.bucket_of(0.5, lo, scale, n_buckets) == n_buckets // 2
    assert _exact.bucket_count(3 * 2**30) == _exact.MAX_BUCKETS < 2**31 - 1


@pytest.mark.parametrize("max_buckets", [1, 3, 64, 10_000])
def test_sort_segment_with_fewer_buckets_than_rows(max_buckets: int) -> None:
    """A capped bucket count (as groups above 2^29 rows get) still sorts, labels carried."""
    rng = np.random.default_rng(max_buckets)
    m = 5000
    v = np.concatenate([rng.normal(size=m - 1000), np.full(1000, 0.25)])
    rng.shuffle(v)
    lab = (v > 0.1).astype(np.uint8) ^ (rng.random(m) < 0.1).astype(np.uint8)
    tmp = np.empty(m)
    tmp_lab = np.empty(m, np.uint8)
    ends = np.empty(_exact.bucket_count(m, max_buckets) + 1, np.int64)
    assert _exact.sort_segment(v, lab, tmp, tmp_lab, ends, np.empty(m, np.int32), max_buckets)
    order = np.lexsort((lab, v))
    assert np.array_equal(tmp, v[order])
    # the same (score, label) pairs: labels within ties may come in any order
    assert np.array_equal(tmp_lab[np.lexsort((tmp_lab, tmp))], lab[order])


# --- item 2: exact signs decide multiclass correlation ---------------------------------------


def _check_table(table: list[list[int]], got: dict[str, float]) -> None:
    want = multiclass_exact(table)
    if sum(map(sum, table)) == 0:  # an empty group: NaN for every measure
        assert all(math.isnan(v) for v in got.values()), (table, got)
        return
    for name in ("informedness", "markedness"):
        if want[name] == 0:
            assert got[name] == 0.0, (table, name, got[name])
        else:
            assert got[name] == pytest.approx(float(want[name]), rel=1e-13), (table, name)
    corr = want["correlation"]
    if math.isnan(corr):
        assert math.isnan(got["correlation"]), (table, got["correlation"])
    else:
        assert got["correlation"] == pytest.approx(corr, rel=1e-13, abs=0), (table, got["correlation"])


@settings(max_examples=2000, deadline=None)
@given(
    st.integers(2, 4).flatmap(
        lambda k: st.lists(st.lists(st.integers(0, 3), min_size=k, max_size=k), min_size=k, max_size=k)
    )
)
@example([[2, 2, 0], [2, 0, 0], [2, 0, 2]])
def test_multiclass_correlation_signs_exact(table: list[list[int]]) -> None:
    # one thread: waking a pool for a single table dominates 2000 examples on a
    # busy machine (results are bit-identical at any thread count)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        got = {k: v[0] for k, v in _kernel(np.array([table])).items()}
    finally:
        numba.set_num_threads(threads)
    _check_table(table, got)


def test_multiclass_correlation_random_small_tables() -> None:
    """20,000 random 3×3 tables with cells 0..3 in one kernel call, against fractions."""
    rng = np.random.default_rng(21)
    counts = rng.integers(0, 4, (20_000, 3, 3))
    got = _kernel(counts)
    bad = []
    for g, table in enumerate(counts.tolist()):
        try:
            _check_table(table, {k: v[g] for k, v in got.items()})
        except AssertionError:
            bad.append(table)
    assert not bad, (len(bad), bad[:3])


# --- the means of the one-vs-rest values: exact zeros and signs ------------------------------

MEANS = (
    "macro_informedness",
    "bias_weighted_informedness",
    "macro_markedness",
    "prevalence_weighted_markedness",
)


def _cancels(table: list[list[int]]) -> bool:
    """Whether some one-vs-rest determinant n·tp_k − real_k·pred_k is not 0, so that a mean of 0
    is a cancellation, not a sum of zeros."""
    n = sum(map(sum, table))
    real = [sum(row) for row in table]
    pred = [sum(col) for col in zip(*table, strict=True)]
    return any(n * table[i][i] != real[i] * pred[i] for i in range(len(table)))


def _check_means(counts: np.ndarray, rel: float = 1e-12) -> int:
    """Every mean of every table of ``counts`` against fractions: an exact 0 is 0.0, any other
    value has its sign and is within ``rel`` (or 1e-13, the float sum's rounding near 0).
    Returns how many exact zeros were cancellations of nonzero one-vs-rest values."""
    got = _kernel(counts, MEANS)
    bad, zeros = [], 0
    for g, table in enumerate(counts.tolist()):
        if sum(map(sum, table)) == 0:
            continue
        for name, want in multiclass_means_exact(table).items():
            value = got[name][g]
            if want == 0:
                zeros += _cancels(table)
                ok = value == 0.0
            else:
                sign = 1 if want > 0 else -1
                ok = np.sign(value) == sign and abs(value - float(want)) <= rel * abs(float(want)) + 1e-13
            if not ok:
                bad.append((table, name, value, float(want)))
    assert not bad, (len(bad), bad[:3])
    return zeros


def _sparse(rng: np.random.Generator, size: int, k: int) -> np.ndarray:
    """Tables of about K examples (cells of 1 or 2 at density 1/K), where the K one-vs-rest
    values often cancel to an exact 0 (the report's table is one)."""
    return (rng.random((size, k, k)) < 1 / k) * rng.integers(1, 3, (size, k, k))


def test_macro_informedness_of_a_chance_level_table_is_zero() -> None:
    """The report's table: per class 3/5, −2/5, 0 and −1/5, whose mean is 0 (the fifth class has
    no example); before, −1.4e-17, a chance-level classifier below chance."""
    table = np.array([[2, 0, 0, 0, 0], [2, 0, 0, 0, 0], [0, 0, 0, 1, 0], [0, 2, 0, 0, 0], [0, 0, 0, 0, 0]])
    assert multiclass_means_exact(table.tolist())["macro_informedness"] == 0
    got = be.ContingencyTable(pl.DataFrame({"g": [0]}), list(range(5)), table[None]).measures(
        ["informedness_macro", "informedness"]
    )
    assert got["informedness_macro"].to_list() == [0.0]
    assert got["informedness"].to_list() == [0.0]


@pytest.mark.parametrize("k", [3, 5, 8])
def test_means_of_one_vs_rest_values_random_small_tables(k: int) -> None:
    """Random tables with cells 0..1, 0..2 or 0..4, a third with a class absent from the real
    margin and half of those from the predicted one too, and sparse tables of about K examples:
    before, 12, 27 and 8 exact zeros of the four means (K = 3, 5, 8) came out ±1e-17."""
    rng = np.random.default_rng(40 + k)
    counts = np.concatenate([rng.integers(0, hi, (1000, k, k)) for hi in (2, 3, 5)])
    for g in range(0, len(counts), 3):
        absent = rng.integers(0, k)
        counts[g, absent, :] = 0
        if g % 2:
            counts[g, :, absent] = 0
    counts = np.concatenate([counts, _sparse(rng, 3000, k)])
    assert _check_means(counts) >= 15


@pytest.mark.parametrize("k", [3, 5, 8])
@pytest.mark.parametrize("scale", [2**20, 2**33, 2**45])
def test_means_of_one_vs_rest_values_large_tables(k: int, scale: int) -> None:
    """Small tables whose means cancel to 0, scaled up (the same exact zeros), and the same nudged
    by one example (tiny values of either sign): exact in int64 fractions while they fit, in limbs
    beyond (the scaled tables pass 3e9 examples from 2^33 on)."""
    rng = np.random.default_rng(k * 1000 + scale.bit_length())
    tables = _sparse(rng, 4000, k).tolist()
    small = [t for t in tables if 0 in multiclass_means_exact(t).values() and _cancels(t)]
    counts = np.array(small[:60], np.int64) * (scale // k)
    nudged = counts.copy()
    for g in range(len(nudged)):
        i, j = rng.integers(0, k, 2)
        nudged[g, i, j] += 1
    assert _check_means(np.concatenate([counts, nudged]), rel=1e-9) >= 15


# --- item 3: Fisher's exact test to ~1e-12 at every n ----------------------------------------


def _fisher_p(tables: list[tuple[int, int, int, int]]) -> np.ndarray:
    cells = [np.array(c, np.int64) for c in zip(*tables, strict=True)]
    out = np.empty(len(tables))
    _fisher.fisher_greater(*cells, out)
    return out


def _balanced(n: int, z: float) -> tuple[int, int, int, int]:
    """Margins n/2 both ways, tp ``z`` null standard deviations (sqrt(n)/4) above n/4."""
    tp = n // 4 + int(z * math.sqrt(n) / 4)
    return tp, n // 2 - tp, n // 2 - tp, tp


def _fisher_cases(n: int) -> list[tuple[int, int, int, int]]:
    rare = (9, 3, n // 2 - 9, n - n // 2 - 3)  # 12 predicted positives, strongly associated
    tp = n // 100 + int(2.0 * 0.09 * math.sqrt(n))  # margins n/10: null sd ≈ 0.09·sqrt(n)
    skewed = (tp, n // 10 - tp, n // 10 - tp, n - 2 * (n // 10) + tp)
    return [_balanced(n, z) for z in (-1.0, 0.3, 2.0, 6.0)] + [rare, skewed]


@pytest.mark.parametrize("n", [200, 200_000, 2_000_000, 20_000_000])
def test_fisher_precision_at_every_n(n: int) -> None:
    tables = _fisher_cases(n)
    got = _fisher_p(tables)
    for table, p in zip(tables, got, strict=True):
        want = fisher_tail_decimal(*table)
        assert _rel(p, Fraction(want)) < 1e-12, (table, p, want)


def _fisher_child(tables, queue) -> None:
    queue.put(_fisher_p(tables).tolist())


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork here")
def test_fisher_of_billions_far_from_independence_returns():
    """Tables of 3·10⁹ whose first tail term underflows: the tail is 0 (or 1), found at once.

    Before, a term of 0 never fell below ``total · 1e-17`` (also 0), so the sum stepped through
    the whole support, a billion terms a table. A forked child computes them so that a hang
    fails the test instead of stalling the suite. The lower tail's reference comes from the
    symmetry of X ~ Hypergeometric(n, n/2, n/2): P(X <= x - 1) = P(X >= n/2 - x + 1).
    """
    n = 3_000_000_000
    half = n // 2
    # each about 3 s on the old code: 40 of them overrun the minute. (Not much further out: past
    # z ≈ 2,000 the first term's exponent leaves Decimal's range and the reference underflows.)
    far = [_balanced(n, z) for z in np.linspace(1000.0, 1400.0, 20)]
    far += [_balanced(n, -z) for z in np.linspace(1000.0, 1400.0, 20)]
    near = _balanced(n, 6.0)
    _fisher_p([near])  # compiled in the parent, so the child's minute is all computing
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_fisher_child, args=([*far, near], queue))
    child.start()
    child.join(timeout=60)
    if child.is_alive():
        child.kill()
        pytest.fail("Fisher's tail of 41 tables of 3e9 took over a minute")
    got = queue.get(timeout=5)
    want = []
    for tp, fp, _, _ in far:
        if tp > n // 4:
            want.append(float(fisher_tail_decimal(tp, fp, fp, tp)))
        else:
            mirror = half - tp + 1
            want.append(float(1 - fisher_tail_decimal(mirror, half - mirror, half - mirror, mirror)))
    assert want == [0.0] * 20 + [1.0] * 20  # the far tails do round to 0 and 1 in doubles
    assert got[:40] == want
    want_near = fisher_tail_decimal(*near)
    assert _rel(got[40], Fraction(want_near)) < 1e-12, (near, got[40], want_near)


def _random_table(rng: np.random.Generator, max_n: int) -> tuple[int, ...]:
    return tuple(int(c) for c in rng.multinomial(int(rng.integers(1, max_n)), rng.dirichlet([1] * 4)))


def test_fisher_matches_exact_fractions() -> None:
    rng = np.random.default_rng(3)
    tables = [_random_table(rng, 300) for _ in range(300)]
    got = _fisher_p(tables)
    for table, p in zip(tables, got, strict=True):
        assert _rel(p, fisher_tail_exact(*table)) < 1e-12, (table, p)


def test_fisher_matches_scipy() -> None:
    rng = np.random.default_rng(5)
    tables = [_random_table(rng, 2000) for _ in range(1000)]
    got = _fisher_p(tables)
    for (tp, fp, fn, tn), p in zip(tables, got, strict=True):
        want = fisher_exact([[tp, fp], [fn, tn]], alternative="greater").pvalue
        assert p == pytest.approx(want, rel=1e-12, abs=0), ((tp, fp, fn, tn), p, want)
