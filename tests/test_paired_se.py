"""The paired standard errors (batcheval.paired_se) against plain numpy bootstraps,
scipy's Poisson distribution, and the generic multinomial replicates."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from scipy import stats

from batcheval import measures
from batcheval.inference import intervals, paired_se
from batcheval.kernels import binary, bootstrap, sampling
from batcheval.kernels.jit import jit, n_threads


def _informedness(t: np.ndarray) -> np.ndarray:
    """``t[..., real, predicted]``, class 1 positive."""
    tp, fn, fp, tn = t[..., 1, 1], t[..., 1, 0], t[..., 0, 1], t[..., 0, 0]
    return tp / (tp + fn) - fp / (fp + tn)


def _f1(t: np.ndarray) -> np.ndarray:
    tp, fn, fp = t[..., 1, 1], t[..., 1, 0], t[..., 0, 1]
    return 2 * tp / (2 * tp + fp + fn)


_REFERENCE = {"informedness": _informedness, "f1": _f1}


def _joint(n: int, lead_skill: float, run_skill: float, seed: int) -> np.ndarray:
    """``joint[real, leader, run]`` of two runs of the informed-plus-chance model on one test set."""
    rng = np.random.default_rng(seed)
    real = (rng.random(n) < 0.3).astype(int)
    lead = np.where(rng.random(n) < lead_skill, real, rng.random(n) < 0.5).astype(int)
    run = np.where(rng.random(n) < run_skill, real, rng.random(n) < 0.4).astype(int)
    joint = np.zeros((2, 2, 2), dtype=np.int64)
    np.add.at(joint, (real, lead, run), 1)
    return joint


def _numpy_bootstrap_se(joint: np.ndarray, measure: str, n_boot: int, seed: int) -> float:
    """Resample the examples (a multinomial draw of the joint table) and take the SD of the difference."""
    f = _REFERENCE[measure]
    n = int(joint.sum())
    reps = np.random.default_rng(seed).multinomial(n, joint.ravel() / n, size=n_boot).reshape(-1, 2, 2, 2)
    diff = f(reps.sum(axis=2)) - f(reps.sum(axis=3))  # [B, real, leader, run]
    return float(np.nanstd(diff, ddof=1))


def _difference(joint: np.ndarray, measure: str) -> np.ndarray:
    return _REFERENCE[measure](joint.sum(axis=2)) - _REFERENCE[measure](joint.sum(axis=3))


@jit
def _poisson_draws(mean, seed, out):
    params = np.empty((1, sampling.POISSON_PARAMS))
    sampling.poisson_setup(mean, params, 0)
    state = sampling.seed_state(seed)
    for i in range(out.shape[0]):
        k, state = sampling.poisson(params, 0, state)
        out[i] = k


@pytest.mark.parametrize("mean", [1, 3, 9, 10, 37, 125, 5_000])
def test_poisson_sampler_draws_the_poisson_distribution(mean: int):
    """A chi-squared goodness of fit against scipy's pmf, and the two moments.
    Inversion below 10, transformed rejection from 10, log-factorials beyond
    their table at 5,000."""
    size = 1_000_000
    draws = np.empty(size, dtype=np.int64)
    _poisson_draws(float(mean), np.uint64(intervals.seeds_for(3, 0, 1)[0]), draws)
    values, observed = np.unique(draws, return_counts=True)
    top = int(values.max()) + 1
    seen = np.zeros(top + 1)
    seen[values] = observed
    expected = stats.poisson.pmf(np.arange(top + 1), mean) * size
    expected[-1] += stats.poisson.sf(top, mean) * size
    big = np.flatnonzero(expected >= 20)  # pool the tails so every bin expects at least 20
    lo, hi = big[0], big[-1]
    obs = np.concatenate([[seen[: lo + 1].sum()], seen[lo + 1 : hi], [seen[hi:].sum()]])
    exp = np.concatenate([[expected[: lo + 1].sum()], expected[lo + 1 : hi], [expected[hi:].sum()]])
    assert stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue > 1e-4
    assert draws.mean() == pytest.approx(mean, abs=5 * np.sqrt(mean / size))
    assert draws.var() == pytest.approx(mean, rel=0.01)


@jit
def _inverted_draws(low, start, size, cdf, guide, seed, out):
    state = sampling.seed_state(seed)
    for i in range(out.shape[0]):
        k, state = sampling.poisson_inverted(start, size, low, cdf, guide, state)
        out[i] = k


def test_poisson_inversion_tables_are_scipys_cdf():
    """Every table of every mean from 1 to 2,000 and a few up to 16,383: scipy's cdf at each
    entry to 5e-15 (worst measured 2.3e-15, near 10 units in the last place of 1), the tails
    left out below 1e-19, and the guide's start never past the answer."""
    means = np.concatenate([np.arange(1, 2001), [5_000, 9_999, 16_383]])
    joint = np.zeros((means.shape[0], 8), dtype=np.int64)
    joint[:, 0] = means
    tables, cdf, guide = paired_se.poisson_tables(joint, np.arange(8))
    for m in means:
        low, start, size = tables[m]
        k = np.arange(low, low + size)
        np.testing.assert_allclose(cdf[start : start + size], stats.poisson.cdf(k, m), rtol=0, atol=5e-15)
        assert stats.poisson.cdf(low - 1, m) < 1e-19 and stats.poisson.sf(low + size - 1, m) < 1e-19
        # guide[j] starts the search of every u in [j/L, (j+1)/L): at or below its answer
        answer = np.searchsorted(cdf[start : start + size], np.arange(size) / size, side="right")
        assert (guide[start : start + size] - start <= answer).all()


@pytest.mark.parametrize("mean", [1, 3, 9, 10, 37, 125, 700, 5_000])
def test_poisson_inversion_draws_the_poisson_distribution(mean: int):
    """The inversion tables' draws: a chi-squared goodness of fit against scipy's pmf, and the
    two moments, as for the transformed rejection above."""
    joint = np.zeros((1, 8), dtype=np.int64)
    joint[0, 0] = mean
    tables, cdf, guide = paired_se.poisson_tables(joint, np.arange(8))
    size = 1_000_000
    draws = np.empty(size, dtype=np.int64)
    low, start, n = tables[mean]
    _inverted_draws(low, start, n, cdf, guide, np.uint64(intervals.seeds_for(3, 0, 1)[0]), draws)
    values, observed = np.unique(draws, return_counts=True)
    top = int(values.max()) + 1
    seen = np.zeros(top + 1)
    seen[values] = observed
    expected = stats.poisson.pmf(np.arange(top + 1), mean) * size
    expected[-1] += stats.poisson.sf(top, mean) * size
    big = np.flatnonzero(expected >= 20)
    lo, hi = big[0], big[-1]
    obs = np.concatenate([[seen[: lo + 1].sum()], seen[lo + 1 : hi], [seen[hi:].sum()]])
    exp = np.concatenate([[expected[: lo + 1].sum()], expected[lo + 1 : hi], [expected[hi:].sum()]])
    assert stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue > 1e-4
    assert draws.mean() == pytest.approx(mean, abs=5 * np.sqrt(mean / size))
    assert draws.var() == pytest.approx(mean, rel=0.01)


@pytest.mark.parametrize("table_means", [1, 100, 1 << 14])
@pytest.mark.parametrize("measure", ["informedness", "f1"])
def test_all_replicates_agree_with_a_numpy_bootstrap_of_the_examples(monkeypatch, measure: str, table_means):
    """With no early stop, n_boot Poisson replicates: the standard error of a plain
    multinomial bootstrap of the examples, within their Monte Carlo error.
    (informedness draws 6 cells, the agreeing pairs summed; f1 all 8.) Every cell by
    transformed rejection (no inversion tables), the means below 100 from tables and
    the others by rejection, and every cell from tables (the default)."""
    monkeypatch.setattr(paired_se, "tolerance", lambda n_boot: 0.0)
    monkeypatch.setattr(paired_se, "_TABLE_MEANS", table_means)
    joints = np.stack([_joint(600, 0.6, s, seed) for seed, s in enumerate((0.55, 0.4, 0.6, 0.2))])
    got = paired_se.bootstrap_se(joints, measure, 1, 6_000, 5, _difference(joints, measure))
    expect = [_numpy_bootstrap_se(j, measure, 20_000, 9) for j in joints]
    # Monte Carlo: ~0.9% (6,000 replicates) and ~0.5% (20,000); Poisson against multinomial: ~1/n
    np.testing.assert_allclose(got, expect, rtol=0.04)


def _over_seeds(joint: np.ndarray, measure: str, n_boot: int, seeds: int) -> tuple[np.ndarray, np.ndarray]:
    """One table's standard error and replicate count under each of ``seeds`` seeds: a group's
    replicates depend on its table and the seed, so equal tables in one call would agree."""
    diff = _difference_at(joint[None], measure, 1)
    out = [paired_se.poisson_se(joint[None], measure, 1, n_boot, s, diff) for s in range(seeds)]
    return np.array([se[0] for se, _ in out]), np.array([drawn[0] for _, drawn in out])


def test_control_variate_makes_ten_replicates_better_than_two_hundred_plain_ones():
    """The same table under 400 seeds (1,000 for 10 replicates): its standard errors average
    to the numpy bootstrap's, and spread far less than 10 plain replicates would (1/√18 ≈ 24%),
    less even than 200 plain ones (5%). (With 10 replicates the spread is 3.7% over 10,000
    seeds, the estimate's standard error over 1,000 seeds 0.08%.)"""
    joint = _joint(1_000, 0.6, 0.5, 1)
    expect = _numpy_bootstrap_se(joint, "informedness", 200_000, 3)
    ten = _over_seeds(joint, "informedness", 10, 1000)[0]
    assert ten.mean() == pytest.approx(expect, rel=0.01)
    assert ten.std() / ten.mean() < 0.04
    # with n_boot=200 a group stops once it is as precise as 200 plain replicates
    adaptive = _over_seeds(joint, "informedness", 200, 400)[0]
    assert adaptive.mean() == pytest.approx(expect, rel=0.01)
    assert adaptive.std() / adaptive.mean() < paired_se.tolerance(200)
    # a 60-example table needs more replicates for that precision, and gets them
    small = _joint(60, 0.5, 0.3, 2)
    adaptive = _over_seeds(small, "informedness", 200, 400)[0]
    expect = _numpy_bootstrap_se(small, "informedness", 200_000, 3)
    assert adaptive.mean() == pytest.approx(expect, rel=0.02)
    assert adaptive.std() / adaptive.mean() < 1.2 * paired_se.tolerance(200)


def test_groups_that_need_more_replicates_draw_more():
    """A 40-example table is far from linear, so its first round of replicates seldom reaches
    the tolerance and it draws more rounds; a 1,000-example table mostly stops within 16
    replicates. Neither draws more than n_boot. (Medians over 101 seeds: the 40-example table
    drew 64 or more under 82% of 300 seeds before the shared draws and 87% after.)"""
    large = _over_seeds(_joint(1_000, 0.6, 0.5, 1), "informedness", 200, 101)[1]
    small = _over_seeds(_joint(40, 0.5, 0.3, 4), "informedness", 200, 101)[1]
    assert np.median(large) <= 16 and np.median(small) >= 64
    assert large.max() <= 200 and small.max() <= 200


def test_often_undefined_replicates_take_the_plain_spread_of_all_n_boot():
    """Run and leader each predict two positives: precision is undefined in about a
    quarter of the replicates. The control variate's V_L is over all replicates, so
    such a group takes the plain spread of the defined ones, and keeps drawing
    (it neither stops on its first round nor returns NaN for want of two)."""
    joint = np.zeros((1, 2, 2, 2), dtype=np.int64)
    joint[0, 1, 1, 0] = 1  # real 1: the leader's one right positive
    joint[0, 1, 0, 1] = 1  # and the run's
    joint[0, 0, 1, 0] = 1  # real 0: the leader's one wrong positive
    joint[0, 0, 0, 1] = 1  # and the run's
    joint[0, 1, 0, 0] = 5
    joint[0, 0, 0, 0] = 50
    se, drawn = paired_se.poisson_se(joint, "precision", 1, 200, 3, np.zeros(1))
    assert drawn[0] == 200 and np.isfinite(se[0]) and se[0] > 0


def test_results_do_not_depend_on_threads_position_or_other_groups():
    """A group's standard error depends on its table and the seed alone: the same with one
    thread, for a slice of the groups, in another order, and for equal tables."""
    rng = np.random.default_rng(4)
    joints = rng.integers(0, 80, size=(300, 2, 2, 2))
    joints[-1] = joints[7]
    diff = _difference(joints.astype(float), "informedness")
    whole = paired_se.bootstrap_se(joints, "informedness", 1, 200, 8, diff)
    threads = n_threads()
    numba.set_num_threads(1)
    try:
        one_thread = paired_se.bootstrap_se(joints, "informedness", 1, 200, 8, diff)
    finally:
        numba.set_num_threads(threads)
    np.testing.assert_array_equal(whole, one_thread)
    np.testing.assert_array_equal(
        whole[:50], paired_se.bootstrap_se(joints[:50], "informedness", 1, 200, 8, diff[:50])
    )
    order = rng.permutation(300)
    np.testing.assert_array_equal(
        whole[order], paired_se.bootstrap_se(joints[order], "informedness", 1, 200, 8, diff[order])
    )
    assert whole[-1] == whole[7]
    other = paired_se.bootstrap_se(joints, "informedness", 1, 200, 9, diff)
    assert not np.array_equal(whole, other)


def test_groups_that_share_means_share_few_draws():
    """Two different tables drawing the same means in five of their six cells take their
    first replicates from the same pools, each in its own order: over 300 seeds their
    standard errors' Monte Carlo errors are about as correlated as the share of draws they
    have in common (about 1/4 at 8 replicates of a pool of 32; 1 if they drew the same
    replicates), and each averages to its numpy bootstrap."""
    a = _joint(1_000, 0.6, 0.5, 1)
    b = a.copy()
    b[1, 0, 1] += 7  # the real positives' discordant cell where the leader is right
    joints = np.stack([a, b])
    diff = _difference(joints, "informedness")
    se = np.array([paired_se.bootstrap_se(joints, "informedness", 1, 200, s, diff) for s in range(300)])
    expect = [_numpy_bootstrap_se(j, "informedness", 200_000, 3) for j in joints]
    np.testing.assert_allclose(se.mean(axis=0), expect, rtol=0.01)
    # the correlation's standard error over 300 seeds is about 0.06
    assert np.corrcoef(se[:, 0], se[:, 1])[0, 1] < 0.5


def test_degenerate_tables():
    joints = np.zeros((4, 2, 2, 2), dtype=np.int64)
    joints[1] = [[[30, 5], [4, 20]], [[0, 0], [0, 0]]]  # no positives
    joints[2] = [[[40, 0], [0, 30]], [[0, 0], [0, 50]]]  # the run predicts as the leader does
    joints[3] = [[[3, 0], [0, 0]], [[0, 0], [0, 2]]]  # five examples, no disagreement
    zero = np.zeros(4)
    se = paired_se.bootstrap_se(joints, "informedness", 1, 200, 1, zero)
    assert np.isnan(se[0])  # no examples
    # informedness is 0 without positives (spec §2), in every replicate: no spread
    assert se[1] == 0.0 and se[2] == 0.0 and se[3] == 0.0
    recall = paired_se.bootstrap_se(joints, "recall", 1, 200, 1, zero)
    assert np.isnan(recall[0]) and np.isnan(recall[1])  # recall is undefined without positives
    assert recall[2] == 0.0 and recall[3] == 0.0


def _chi2(t: np.ndarray) -> np.ndarray:
    """Pearson's chi2 of ``t[..., 2, 2]``: N·(ad − bc)²/(r0·r1·c0·c1), whichever class is positive."""
    t = t.astype(np.float64)
    n = t.sum(axis=(-2, -1))
    det = t[..., 0, 0] * t[..., 1, 1] - t[..., 0, 1] * t[..., 1, 0]
    margins = t.sum(axis=-1).prod(axis=-1) * t.sum(axis=-2).prod(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(margins > 0, n * det**2 / margins, 0.0)


def _mcc(t: np.ndarray) -> np.ndarray:
    tp, fn, fp, tn = (t[..., 1, 1], t[..., 1, 0], t[..., 0, 1], t[..., 0, 0])
    return (tp * tn - fp * fn) / np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))


def _macro_recall(t: np.ndarray) -> np.ndarray:
    return (t[..., 1, 1] / t[..., 1, :].sum(axis=-1) + t[..., 0, 0] / t[..., 0, :].sum(axis=-1)) / 2


@pytest.mark.parametrize(
    ("measure", "f", "positive"),
    [("chi2", _chi2, 0), ("chi2", _chi2, 1), ("mcc", _mcc, 1), ("macro_recall", _macro_recall, 1)],
)
def test_measures_off_the_poisson_kernel_take_the_multinomial_replicates(measure, f, positive: int):
    """chi2 grows with the table, so its replicates keep the table's size (a multinomial draw
    of the examples, not Poisson counts). mcc, macro_recall and the other measures of any K are
    not in the binary kernel's list: their binary joint tables went to the Poisson kernel, which
    looked them up there and failed (stop 43). Their standard errors equal those of a numpy
    multinomial bootstrap of the examples, within its Monte Carlo error."""
    rng = np.random.default_rng(3)
    joint = rng.integers(5, 60, size=(6, 2, 2, 2))
    got = paired_se.bootstrap_se(joint, measure, positive, 3_000, 11, np.zeros(6))
    expected = []
    for j in joint:
        n = int(j.sum())
        reps = rng.multinomial(n, j.ravel() / n, size=30_000).reshape(-1, 2, 2, 2)
        expected.append(np.nanstd(f(reps.sum(axis=2)) - f(reps.sum(axis=3)), ddof=1))
    # the SD of 3,000 replicates is precise to about 1/sqrt(2·3,000) = 1.3 %; 4 of those
    np.testing.assert_allclose(got, expected, rtol=0.052 + 0.01)
    empty = np.zeros((1, 2, 2, 2), dtype=np.int64)
    assert np.isnan(paired_se.bootstrap_se(empty, measure, positive, 50, 11, np.zeros(1))[0])


def _difference_at(joints: np.ndarray, measure: str, pos: int) -> np.ndarray:
    run = measures.compute(joints.sum(axis=2), [measure], positive=pos)[measure]
    return run - measures.compute(joints.sum(axis=3), [measure], positive=pos)[measure]


@pytest.mark.parametrize("measure", sorted(paired_se._AGREEMENT_SUMMED))
def test_measures_that_draw_six_cells_see_agreement_only_through_its_sum(measure: str):
    """The 6-draw bootstrap's premise: moving examples between the two cells where
    run and leader agree (both right, both wrong) within a real class leaves the
    run's difference from the leader unchanged."""
    rng = np.random.default_rng(5)
    joints = rng.integers(0, 50, size=(200, 2, 2, 2))
    moved = joints.copy()
    for y in range(2):
        share = rng.integers(0, joints[:, y, 0, 0] + joints[:, y, 1, 1] + 1)
        moved[:, y, 0, 0] = share
        moved[:, y, 1, 1] = joints[:, y, 0, 0] + joints[:, y, 1, 1] - share
    for pos in (0, 1):
        np.testing.assert_allclose(
            _difference_at(moved, measure, pos), _difference_at(joints, measure, pos), rtol=1e-12, atol=1e-14
        )


@pytest.mark.parametrize("measure", ["f1", "markedness", "kappa_cohen", "precision"])
def test_every_measure_gets_the_control_variate(measure: str):
    """The linear part is a secant of the measure itself, so measures without a
    delta-method gradient (f1, precision) stop early too, and their standard errors
    match the plain numpy bootstrap."""
    joint = _joint(1_000, 0.6, 0.5, 1)
    se, drawn = _over_seeds(joint, measure, 200, 200)
    assert drawn.mean() < 12
    rng = np.random.default_rng(6)
    reps = rng.multinomial(1_000, joint.ravel() / 1_000, size=100_000).reshape(-1, 2, 2, 2)
    m = [measure]
    plain = measures.compute(reps.sum(axis=2), m)[measure] - measures.compute(reps.sum(axis=3), m)[measure]
    assert se.mean() == pytest.approx(np.nanstd(plain, ddof=1), rel=0.015)
    assert se.std() / se.mean() < paired_se.tolerance(200)


def test_binary_informedness_delta_se_kernel_gives_the_numpy_bits():
    """The kernel behind delta_se for binary informedness repeats the generic numpy
    path (gradients of both tables, their difference, the delta variance) per table:
    the same bits, NaN where a table has one real class, on random and degenerate tables."""
    rng = np.random.default_rng(5)
    joints = [np.zeros((3, 2, 2, 2), dtype=np.int64)]
    for n in (1, 2, 4, 30, 1000, 10**6):
        joints.append(rng.multinomial(n, rng.dirichlet(np.full(8, 0.3)), 2000).reshape(-1, 2, 2, 2))
    joint = np.concatenate(joints)
    joint[:40, 0] = 0  # the first real class absent
    joint[40:80, 1] = 0
    c = intervals.cells_last(joint)  # [real, reference, run, G]
    g_run, bad_run = intervals.gradient_cells_last(c.sum(axis=1), "informedness")
    g_ref, bad_ref = intervals.gradient_cells_last(c.sum(axis=2), "informedness")
    with np.errstate(invalid="ignore", divide="ignore"):
        var = intervals.gradient_variance(c, g_run[:, None] - g_ref[:, :, None])
        expected = np.where(bad_run | bad_ref, np.nan, np.sqrt(var))
    got = paired_se.delta_se(joint, "informedness", 1)
    assert np.isnan(got[:80]).all()
    np.testing.assert_array_equal(got.view(np.int64), expected.view(np.int64))


@jit
def _informedness_paths(x, p, diff, slopes, ok):
    """The paired bootstrap's informedness shortcuts per joint table ``x[g]``: the difference
    (``_difference_of``) and the run's and leader's secant slopes (``_linear_part``'s tables)."""
    tables = np.empty((2, 4), np.int64)
    for g in range(x.shape[0]):
        diff[g] = bootstrap._difference_of(x[g], p, bootstrap.NAMES.index("informedness"))
        bootstrap._split(x[g], p, tables)
        for t in range(2):
            ok[g, t] = bootstrap._table_slopes(tables[t], bootstrap.NAMES.index("informedness"), slopes[g, t])


def _slopes_by_measure_value(table: list[int]) -> tuple[list[float], bool]:
    """Secant slopes of informedness over one count either side, by ``binary.measure_value``."""
    m = binary.NAMES.index("informedness")
    out = []
    for i in range(4):
        up, down = list(table), list(table)
        up[i] += 1
        if table[i] > 0:
            down[i] -= 1
            out.append(0.5 * (binary.measure_value(m, *up, 1.0) - binary.measure_value(m, *down, 1.0)))
        else:
            out.append(binary.measure_value(m, *up, 1.0) - binary.measure_value(m, *table, 1.0))
    return out, not np.isnan(out).any()


@pytest.mark.parametrize("positive", [0, 1])
def test_bootstrap_informedness_shortcuts_give_measure_values_bits(positive: int):
    """The bootstrap's own informedness (one divisor for the run and the leader, the slopes'
    neighbouring tables in registers) against ``binary.measure_value`` on the two tables that
    the joint cells sum to (indexed here by real class and prediction): the same bits, on
    random, empty, one-class and huge tables (past the exact determinant's limit)."""
    rng = np.random.default_rng(11)
    x = np.concatenate([
        rng.poisson(rng.uniform(0, 30, (3000, 1)), (3000, 8)),
        rng.integers(0, 3, (600, 8)),
        rng.integers(0, 2**31, (200, 8)),  # totals past EXACT_LIMIT
    ]).astype(np.int64)  # fmt: skip
    x[:50] = 0
    x[50:100, :4] = 0  # one real class
    x[100:150, 4:] = 0
    diff, slopes = np.empty(x.shape[0]), np.empty((x.shape[0], 2, 4))
    ok = np.empty((x.shape[0], 2), dtype=np.bool_)
    _informedness_paths(x, positive, diff, slopes, ok)
    m = binary.NAMES.index("informedness")
    for g, cells in enumerate(x):
        joint = cells.reshape(2, 2, 2)  # [real, leader, run]
        values = []
        for table in (joint.sum(axis=1), joint.sum(axis=2)):  # the run's, the leader's [real, predicted]
            pos, neg = positive, 1 - positive
            t = [int(table[pos, pos]), int(table[neg, pos]), int(table[pos, neg]), int(table[neg, neg])]
            values.append(binary.measure_value(m, *t, 1.0))
            expect, expect_ok = _slopes_by_measure_value(t)
            got = slopes[g, len(values) - 1]
            assert ok[g, len(values) - 1] == expect_ok
            np.testing.assert_array_equal(np.array(got).view(np.int64), np.array(expect).view(np.int64))
        expected = np.float64(values[0] - values[1])
        assert np.array_equal(diff[g], expected, equal_nan=True), (g, diff[g], expected)


@pytest.mark.parametrize("method", ["bootstrap", "delta"])
def test_paired_columns_without_se_skip_only_what_no_p_value_reads(monkeypatch, method: str):
    """``with_se=False`` (the leaderboard's call) leaves out a sign-flip measure's standard error,
    whose p-value does not read it, and keeps every other column to the bit; a measure without a
    sign-flip test still gets its standard error, which its p-value reads."""
    from batcheval.inference import comparisons

    joint = np.stack([_joint(300, 0.6, s, seed) for seed, s in enumerate(np.linspace(0.2, 0.7, 40))])
    calls: list[str] = []
    for name in ("bootstrap_se", "delta_se"):
        real = getattr(paired_se, name)
        monkeypatch.setattr(paired_se, name, lambda *a, _f=real, _n=name: calls.append(_n) or _f(*a))
    for measure, sign_flip in (("informedness", True), ("accuracy", True), ("markedness", False)):
        calls.clear()
        full = comparisons.paired_columns(joint, measure, 1, 200, 3, method)
        assert len(calls) == 1
        calls.clear()
        lean = comparisons.paired_columns(joint, measure, 1, 200, 3, method, with_se=False)
        assert ("se_vs_leader" in lean) is not sign_flip
        assert len(calls) == (0 if sign_flip else 1)
        assert set(full) - set(lean) == ({"se_vs_leader"} if sign_flip else set())
        for name, values in lean.items():
            np.testing.assert_array_equal(values, full[name])


def _paired_joints(rng: np.random.Generator, g: int, k: int, n: int) -> np.ndarray:
    """``joint[G, real, leader, run]`` of two noisy runs per group, its first class empty in group 0."""
    label = rng.integers(0, k, (g, n))
    lead = np.where(rng.random((g, n)) < 0.7, label, rng.integers(0, k, (g, n)))
    run = np.where(rng.random((g, n)) < 0.6, label, rng.integers(0, k, (g, n)))
    joint = np.zeros((g, k, k, k), dtype=np.int64)
    for i in range(g):
        np.add.at(joint[i], (label[i], lead[i], run[i]), 1)
    joint[0, 0] = 0  # NaN replicates of macro_f1 and kappa, left out of the spread
    return joint


@pytest.mark.parametrize("chunk", [1, 7, 64, 500])
def test_replicate_spread_past_a_chunk_draws_parts_with_the_unchunked_bits(monkeypatch, chunk: int):
    """A group's n_boot replicates of its joint table were allocated whole however far past
    _CHUNK_CELLS (781 MiB for 200 of 80 classes); now a group past a chunk draws them a chunk at
    a time from its one generator: the statistic never sees more than a chunk of cells (or one
    table), and the standard errors are the unchunked ones bit for bit, which are the plain numpy
    spread of the same seeded replicates."""
    rng = np.random.default_rng(chunk)
    for k in (2, 3, 5):
        joint = _paired_joints(rng, 3, k, 40 * k)
        for measure in ("macro_f1", "kappa_cohen") if k > 2 else ("mcc", "chi2"):

            def difference(reps: np.ndarray, measure: str = measure) -> np.ndarray:
                return _difference_at(reps, measure, 1)

            for n_boot, seed in ((2, 4), (33, 5), (200, 6)):
                whole = paired_se.replicate_spread(joint, n_boot, seed, difference)
                reps = intervals.bootstrap_replicates(joint, n_boot, seed)
                values = difference(reps.reshape(-1, k, k, k)).reshape(3, n_boot)
                np.testing.assert_allclose(whole, np.nanstd(values, axis=1, ddof=1), rtol=1e-12)
                assert np.isfinite(whole[1:]).all()

                seen: list[int] = []

                def spy(reps: np.ndarray, difference=difference, seen=seen) -> np.ndarray:
                    seen.append(reps.size)
                    return difference(reps)

                monkeypatch.setattr(paired_se, "_CHUNK_CELLS", chunk)
                parts = paired_se.replicate_spread(joint, n_boot, seed, spy)
                via_bootstrap_se = paired_se.bootstrap_se(joint, measure, 1, n_boot, seed, np.zeros(3))
                monkeypatch.undo()
                assert max(seen) <= max(chunk, k**3), (k, n_boot, chunk, seen)
                np.testing.assert_array_equal(parts, whole, err_msg=f"{k} {measure} {n_boot}")
                np.testing.assert_array_equal(via_bootstrap_se, whole, err_msg=f"{k} {measure} {n_boot}")


def test_paired_bootstrap_of_many_classes_holds_a_chunk_of_replicates_not_all_of_them():
    """200 paired replicates of a 72-class joint table are 570 MiB, which the paired bootstrap
    allocated at once (a 4-run board of 80 classes and 3,000 examples peaked at 1.9 GB, and
    raised MemoryBudgetError where less was free); a chunk is 128 MiB."""
    import tracemalloc

    k, n = 72, 3_000
    rng = np.random.default_rng(72)
    label = rng.integers(0, k, n)
    lead = np.where(rng.random(n) < 0.7, label, rng.integers(0, k, n))
    run = np.where(rng.random(n) < 0.6, label, rng.integers(0, k, n))
    joint = np.zeros((1, k, k, k), dtype=np.int64)
    np.add.at(joint[0], (label, lead, run), 1)
    paired_se.bootstrap_se(joint[:, :3, :3, :3], "accuracy", 1, 3, 1, np.zeros(1))  # compiled outside
    tracemalloc.start()
    try:
        se = paired_se.bootstrap_se(joint, "accuracy", 1, 200, 1, np.zeros(1))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200 * 2**20, peak  # all of them: 578 MiB
    # the multinomial bootstrap of a mean difference of per-example d ∈ {−1, 0, 1} has variance
    # var(d)/n (ddof 0); 200 replicates estimate its square root within about 5 %
    d = (run == label).astype(float) - (lead == label)
    assert se[0] == pytest.approx(np.sqrt(d.var() / n), rel=0.15)
