"""Binary kappa_cohen and correlation from the score intervals of informedness and markedness,
and the modified Wilson interval of accuracy: plain references for the formulas (tests/reference/),
exact coverage (every 2×2 table, or the binomial) and seeded simulations for the levels at grid
points of benchmarks/calibration_intervals.py where the intervals before them missed
[0.935, 0.965] (simulation tolerances: 4 binomial standard errors of the simulated rate)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from batcheval.errors import InvalidArgumentError
from batcheval.inference.intervals import chance_interval, from_scores, intervals, modified_wilson
from tests.reference import from_scores as ref

LEVELS = [0.9, 0.95, 0.99]


def two_sided_z(level: float) -> float:
    return float(stats.norm.ppf(0.5 + level / 2))


def _population(k: int, prevalence: float, informed: float) -> np.ndarray:
    """benchmarks/calibration_intervals.py's model, written again."""
    r = np.full(k, (1.0 - prevalence) / (k - 1))
    r[-1] = prevalence
    return r[:, None] * (informed * np.eye(k) + (1.0 - informed) * r[None, :])


def _truth(pop: np.ndarray, name: str) -> float:
    return ref.value(pop, name)


def _random_binary(rng: np.random.Generator, g: int) -> np.ndarray:
    counts = rng.integers(0, 40, (g, 2, 2))
    counts[: g // 3] *= rng.integers(0, 2, (g // 3, 2, 2))  # zero cells: perfect, constant, one class
    counts[g // 3 : g // 3 + 10] = [[25, 0], [0, 8]]
    counts[g // 3 + 10 : g // 3 + 20] = [[0, 6], [9, 0]]  # inverted
    return counts


def _all_tables(n: int) -> np.ndarray:
    cells = [
        (a, b, c, n - a - b - c) for a in range(n + 1) for b in range(n + 1 - a) for c in range(n + 1 - a - b)
    ]
    return np.array(cells).reshape(-1, 2, 2)


def _exact_coverage(n: int, prevalence: float, informed: float, name: str, binary: str) -> float:
    """Coverage summed over every table of ``n`` examples with its multinomial probability."""
    tables = _all_tables(n)
    pop = _population(2, prevalence, informed)
    truth = _truth(pop, name)
    mass = stats.multinomial.pmf(tables.reshape(-1, 4), n, pop.ravel())
    low, high = chance_interval(tables, name, binary=binary)
    ok = np.isfinite(low) & np.isfinite(high)
    return float(mass[ok & (low <= truth + 1e-12) & (truth - 1e-12 <= high)].sum() / mass[ok].sum())


# -- formulas against the references ------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", ["kappa_cohen", "correlation"])
def test_from_scores_is_the_reference(level: float, name: str):
    counts = _random_binary(np.random.default_rng(int(level * 100)), 160)
    low, high = from_scores(counts, name, level)
    default_low, default_high = chance_interval(counts, name, level)
    # intervals() computes the score intervals of informedness and markedness once for all four
    shared = intervals(counts, ["informedness", name, "markedness"], level)[name]
    assert np.array_equal(shared[0], low, equal_nan=True) and np.array_equal(shared[1], high, equal_nan=True)
    assert np.array_equal(low, default_low, equal_nan=True) and np.array_equal(
        high, default_high, equal_nan=True
    )
    for g, t in enumerate(counts):
        expect = ref.from_scores(t, name, two_sided_z(level))
        if math.isnan(expect[0]):
            assert np.isnan(low[g]) and np.isnan(high[g])
            continue
        assert (low[g], high[g]) == pytest.approx(expect, abs=1e-8), t.tolist()
        assert (
            low[g] - 1e-12 <= ref.value(t, name) <= high[g] + 1e-12 and low[g] < high[g]
        )  # never zero width


@pytest.mark.parametrize("name", ["kappa_cohen", "correlation"])
def test_agresti_caffo_is_kept_and_is_the_reference(name: str):
    counts = _random_binary(np.random.default_rng(3), 120)
    low, high = chance_interval(counts, name, binary="agresti_caffo")
    for g, t in enumerate(counts):
        expect = ref.agresti_caffo(t, name, two_sided_z(0.95))
        if math.isnan(expect[0]):
            assert np.isnan(low[g]) and np.isnan(high[g])
        else:
            assert (low[g], high[g]) == pytest.approx(expect, abs=1e-8)
    old = intervals(counts, [name], binary="agresti_caffo")[name]
    assert np.array_equal(old[0], low, equal_nan=True)


def test_from_scores_rejects_what_it_cannot_do():
    with pytest.raises(InvalidArgumentError, match="'informedness'"):
        from_scores(np.ones((1, 2, 2), dtype=int), "informedness")
    with pytest.raises(InvalidArgumentError, match=r"\(1, 3, 3\)"):
        from_scores(np.ones((1, 3, 3), dtype=int), "kappa_cohen")
    with pytest.raises(InvalidArgumentError, match="'clopper'"):
        intervals(np.ones((1, 2, 2), dtype=int), ["accuracy"], accuracy="clopper")


@pytest.mark.parametrize("level", LEVELS)
def test_modified_wilson_is_wilson_with_poisson_ends(level: float):
    """statsmodels' Wilson interval, with the ends at 1..x* successes (or failures) replaced by
    Brown, Cai & DasGupta's one-sided Poisson bound ½χ²_{2x,α}/m from scipy's chi2."""
    alpha = 1.0 - level
    for m in (1, 2, 5, 30, 50, 51, 60, 100, 1000):
        x = np.arange(m + 1)
        low, high = modified_wilson(x, np.full(m + 1, m), level)
        wl, wh = proportion_confint(x, m, alpha, method="wilson")
        x_star = 2 if m <= 50 else 3
        for xi in range(m + 1):
            el = 0.5 * stats.chi2.ppf(alpha, 2 * xi) / m if 1 <= xi <= x_star else wl[xi]
            eh = 1 - 0.5 * stats.chi2.ppf(alpha, 2 * (m - xi)) / m if 1 <= m - xi <= x_star else wh[xi]
            assert (low[xi], high[xi]) == pytest.approx((el, eh), abs=1e-8), (m, xi)
    low, high = modified_wilson(np.array([0]), np.array([0]), level)
    assert np.isnan(low[0]) and np.isnan(high[0])


def test_accuracy_uses_the_modified_wilson_interval_and_keeps_the_plain_one():
    counts = np.array([[[29, 0], [1, 30]], [[20, 10], [5, 25]], [[10, 0, 1], [0, 10, 0], [1, 0, 10]]][:2])
    new = intervals(counts, ["accuracy"])["accuracy"]
    old = intervals(counts, ["accuracy"], accuracy="wilson")["accuracy"]
    ref_low = 0.5 * stats.chi2.ppf(0.05, 2) / 60  # one error of 60: the upper end is Poisson's
    assert new[1][0] == pytest.approx(1 - ref_low, abs=1e-12)
    wl, wh = proportion_confint(np.array([59, 45]), 60, 0.05, method="wilson")
    assert old[0] == pytest.approx(wl, abs=1e-12) and old[1] == pytest.approx(wh, abs=1e-12)
    assert new[0] == pytest.approx(wl, abs=1e-12) and new[1][1] == pytest.approx(wh[1], abs=1e-12)
    three = np.array([[[10, 0, 1], [0, 10, 0], [1, 0, 10]]])  # 2 errors of 32: x* = 2
    _, high = intervals(three, ["accuracy"])["accuracy"]
    assert high[0] == pytest.approx(1 - 0.5 * stats.chi2.ppf(0.05, 4) / 32, abs=1e-12)


@pytest.mark.parametrize("level", LEVELS)
def test_modified_wilson_x_star_takes_poisson_ends_up_to_it(level: float):
    """An explicit x_star replaces the Wilson ends at 1..x_star successes (failures) by scipy's
    ½χ²_{2x,α}/m whatever m; 0 is statsmodels' Wilson interval."""
    alpha = 1.0 - level
    for m in (1, 2, 5, 30, 60):
        x = np.arange(m + 1)
        wl, wh = proportion_confint(x, m, alpha, method="wilson")
        for x_star in (0, 1, 3):
            low, high = modified_wilson(x, np.full(m + 1, m), level, x_star=x_star)
            for xi in range(m + 1):
                el = 0.5 * stats.chi2.ppf(alpha, 2 * xi) / m if 1 <= xi <= x_star else wl[xi]
                eh = 1 - 0.5 * stats.chi2.ppf(alpha, 2 * (m - xi)) / m if 1 <= m - xi <= x_star else wh[xi]
                assert (low[xi], high[xi]) == pytest.approx((el, eh), abs=1e-8), (m, xi, x_star)
    for bad in (-1, 1.5, True, "1"):
        with pytest.raises(InvalidArgumentError, match="x_star"):
            modified_wilson(np.array([1]), np.array([5]), x_star=bad)


PROPORTIONS = ("recall", "precision", "inverse_recall", "inverse_precision", "fallout", "miss_rate")


def test_binary_proportions_get_a_poisson_end_for_one_and_keep_the_plain_wilson():
    """Every 2×2 table of 8 examples: each proportion but accuracy (and prevalence and bias, also
    of n) is statsmodels' Wilson with Poisson ends for 1 success or failure
    (tests/reference/intervals.py) by default, statsmodels' Wilson with proportions="wilson";
    accuracy keeps Brown et al.'s x* = 2."""
    from tests.reference.intervals import wilson_poisson_one

    n = 8
    cells = [
        (a, b, c, n - a - b - c) for a in range(n + 1) for b in range(n + 1 - a) for c in range(n + 1 - a - b)
    ]
    counts = np.array(cells).reshape(-1, 2, 2)
    names = [*PROPORTIONS, "prevalence", "bias", "accuracy"]
    new = intervals(counts, names)
    old = intervals(counts, names, proportions="wilson")
    tn, fp, fn, tp = counts.reshape(-1, 4).T
    pairs = {
        "recall": (tp, tp + fn), "precision": (tp, tp + fp), "inverse_recall": (tn, tn + fp),
        "inverse_precision": (tn, tn + fn), "fallout": (fp, fp + tn), "miss_rate": (fn, fn + tp),
        "prevalence": (tp + fn, np.full_like(tp, n)), "bias": (tp + fp, np.full_like(tp, n)),
    }  # fmt: skip
    for name, (x, m) in pairs.items():
        want = np.array([wilson_poisson_one(int(a), int(b)) for a, b in zip(x, m, strict=True)])
        np.testing.assert_allclose(np.stack(new[name]).T, want, atol=1e-12, err_msg=name)
        ok = m > 0
        plain = np.array(proportion_confint(x[ok], m[ok], 0.05, method="wilson")).T
        np.testing.assert_allclose(np.stack(old[name]).T[ok], plain, atol=1e-12, err_msg=name)
        assert np.isnan(np.stack(old[name])[:, ~ok]).all()
    np.testing.assert_array_equal(np.stack(new["accuracy"]), np.stack(old["accuracy"]))
    x = tp + tn
    np.testing.assert_allclose(new["accuracy"][0], modified_wilson(x, np.full_like(x, n))[0], atol=0)
    assert new["accuracy"][0][x == 2] == pytest.approx(0.5 * stats.chi2.ppf(0.05, 4) / n, abs=1e-12)
    with pytest.raises(InvalidArgumentError, match="'clopper'"):
        intervals(counts, ["recall"], proportions="clopper")


# -- levels -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "prevalence", "informed", "name"),
    [
        (60, 0.3, 0.95, "kappa_cohen"),  # Agresti–Caffo 0.9716 (exact)
        (60, 0.5, 0.95, "correlation"),  # Agresti–Caffo 0.9823
        (60, 0.5, 0.95, "kappa_cohen"),  # Agresti–Caffo 0.9825
    ],
)
def test_exact_coverage_is_in_the_band_where_agresti_caffo_missed_it(
    n: int, prevalence: float, informed: float, name: str
):
    """No Monte-Carlo error: every 2×2 table of n examples, weighted by its probability."""
    new = _exact_coverage(n, prevalence, informed, name, "score")
    old = _exact_coverage(n, prevalence, informed, name, "agresti_caffo")
    assert 0.935 <= new <= 0.965, new
    assert old > 0.965, old


@pytest.mark.parametrize("name", ["kappa_cohen", "correlation"])
def test_seeded_coverage_with_a_rare_class_at_informedness_zero(name: str):
    """n = 1000, prevalence 0.02, informedness 0 (margin 20): Agresti–Caffo covered 0.998 in
    docs/calibration_intervals.md (its pseudo-counts in a class of 20); the score-based interval
    covers 0.95 within 4 binomial standard errors of the simulated rate."""
    reps = 3000
    pop = _population(2, 0.02, 0.0)
    counts = np.random.default_rng(20).multinomial(1000, pop.ravel(), size=reps).reshape(reps, 2, 2)
    truth = _truth(pop, name)
    tol = 4 * math.sqrt(0.95 * 0.05 / reps)
    for binary, inside in (("score", True), ("agresti_caffo", False)):
        low, high = chance_interval(counts, name, binary=binary)
        ok = np.isfinite(low)
        cov = np.mean((low[ok] <= truth + 1e-12) & (truth - 1e-12 <= high[ok]))
        assert bool(abs(cov - 0.95) <= tol) is inside, (binary, cov)


def test_accuracy_exact_coverage_reaches_the_floor_where_wilson_missed_it():
    """n = 60, prevalence 0.1, informedness 0.95 (margin 6): the number correct is binomial
    (60, 0.991); Wilson covers 0.898 there, below the floor of 0.92, the modified interval not.
    A seeded simulation through ``intervals`` agrees with the exact figure."""
    pop = _population(2, 0.1, 0.95)
    p = float(np.trace(pop))
    x = np.arange(61)
    mass = stats.binom.pmf(x, 60, p)
    cover = {}
    for method in ("modified_wilson", "wilson"):
        tables = np.zeros((61, 2, 2), dtype=np.int64)
        tables[:, 0, 0], tables[:, 0, 1] = x, 60 - x
        low, high = intervals(tables, ["accuracy"], accuracy=method)["accuracy"]
        cover[method] = float(mass[(low <= p) & (p <= high)].sum())
    assert cover["modified_wilson"] >= 0.92 > cover["wilson"], cover
    reps = 4000
    counts = np.random.default_rng(60).multinomial(60, pop.ravel(), size=reps).reshape(reps, 2, 2)
    low, high = intervals(counts, ["accuracy"])["accuracy"]
    c = cover["modified_wilson"]
    assert abs(np.mean((low <= p) & (p <= high)) - c) <= 4 * math.sqrt(c * (1 - c) / reps)


def test_band_unreachable_for_accuracy_at_n20_informedness_095():
    """Why no accuracy interval is in [0.935, 0.965] at n = 20, balanced, informedness 0.95
    (margin 10): accuracy 0.975, and no run of consecutive counts of Binomial(20, 0.975) has a
    probability in the band (an interval covers the truth for such a run)."""
    mass = stats.binom.pmf(np.arange(21), 20, 0.975)
    cum = np.concatenate([[0.0], np.cumsum(mass)])
    runs = np.array([cum[j + 1] - cum[i] for i in range(21) for j in range(i, 21)])
    assert not np.any((runs >= 0.935) & (runs <= 0.965))
    assert np.any(runs > 0.965) and np.any((runs > 0.9) & (runs < 0.935))
