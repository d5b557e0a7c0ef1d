"""The grid points where the default intervals stay outside [0.935, 0.965], and why no fix was
taken (the section "Points outside the band" of docs/calibration_intervals.md): exact coverage
over every table where it can be enumerated (scipy's multinomial and binomial probabilities,
truths from the plain reference measures), seeded simulations elsewhere with tolerances of 4
binomial standard errors of the simulated rate, and the benchmark's helpers checked against
direct recomputation."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from batcheval.inference.intervals import (
    SE_PSEUDO_SHARE,
    cells_last,
    chance_interval,
    chance_values,
    modified_wilson,
)
from batcheval.inference.intervals import intervals as default_intervals
from tests.reference import intervals as ref

NAMES = ("informedness", "markedness", "correlation", "kappa_cohen")


def _load_benchmark():
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "calibration_intervals.py"
    spec = importlib.util.spec_from_file_location("calibration_intervals", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


bench = _load_benchmark()


def _population(k: int, prevalence: float, informed: float) -> np.ndarray:
    """benchmarks/calibration_intervals.py's model, written again."""
    r = np.full(k, (1.0 - prevalence) / (k - 1))
    r[-1] = prevalence
    return r[:, None] * (informed * np.eye(k) + (1.0 - informed) * r[None, :])


def _all_tables(n: int) -> np.ndarray:
    cells = [
        (a, b, c, n - a - b - c) for a in range(n + 1) for b in range(n + 1 - a) for c in range(n + 1 - a - b)
    ]
    return np.array(cells).reshape(-1, 2, 2)


def _scaled_coverage(n: int, prevalence: float, informed: float, name: str, scales: np.ndarray) -> np.ndarray:
    """Exact coverage of ``(e − s·(e − low), e + s·(high − e))`` for each scale, recomputed
    directly for every table (no sorting or thresholds as in the benchmark's helper)."""
    tables = _all_tables(n)
    pop = _population(2, prevalence, informed)
    truth = ref.MEASURES[name](pop)
    mass = stats.multinomial.pmf(tables.reshape(-1, 4), n, pop.ravel())
    low, high = chance_interval(tables, name)
    e = chance_values(cells_last(tables))[name]
    ok = np.isfinite(low) & np.isfinite(high) & np.isfinite(e)
    out = []
    for s in scales:
        lo, hi = e - s * (e - low), e + s * (high - e)
        out.append(mass[ok & (lo <= truth + 1e-12) & (truth - 1e-12 <= hi)].sum() / mass[ok].sum())
    return np.array(out)


SCALES = np.round(np.arange(0.80, 1.2001, 0.005), 3)
BALANCED = [(20, 0.5, 0.95), (30, 0.5, 0.8)]


@pytest.mark.parametrize("name", NAMES)
def test_no_common_scale_puts_both_balanced_points_in_the_band(name: str):
    """n = 20, informedness 0.95 and n = 30, informedness 0.8, balanced (expected margins 10 and
    15): the default is outside the band at both, exactly (the first below, the second above),
    and no scale of its half-widths from 0.8 to 1.2 puts both in it."""
    cov = {p: _scaled_coverage(*p, name, SCALES) for p in BALANCED}
    at_one = SCALES == 1.0
    assert cov[BALANCED[0]][at_one][0] < 0.935 and cov[BALANCED[1]][at_one][0] > 0.965
    band = {p: (c >= 0.935) & (c <= 0.965) for p, c in cov.items()}
    assert band[BALANCED[0]].any() and band[BALANCED[1]].any()  # each alone can be reached
    assert not np.any(band[BALANCED[0]] & band[BALANCED[1]])
    # the first needs wider intervals, the second narrower ones
    assert SCALES[band[BALANCED[0]]].min() > 1.0 > SCALES[band[BALANCED[1]]].max()


def test_benchmark_scale_coverage_is_the_direct_recomputation():
    """benchmarks/calibration_intervals.py's scale_coverage (sorted thresholds) against the
    coverage of the rescaled intervals recomputed table by table."""
    for n, prevalence, informed in [*BALANCED, (60, 0.1, 0.6)]:
        tables = _all_tables(n)
        pop = _population(2, prevalence, informed)
        mass = stats.multinomial.pmf(tables.reshape(-1, 4), n, pop.ravel())
        est = chance_values(cells_last(tables))
        for name in ("informedness", "kappa_cohen"):
            truth = ref.MEASURES[name](pop)
            got = bench.scale_coverage(*chance_interval(tables, name), est[name], truth, mass)
            want = _scaled_coverage(n, prevalence, informed, name, bench.SCALES)
            np.testing.assert_allclose(got, want, atol=1e-12)


def test_benchmark_share_interval_is_the_default_at_the_default_share():
    rng = np.random.default_rng(3)
    for k in (3, 5):
        counts = rng.multinomial(40, np.full(k * k, 1 / (k * k)), size=300).reshape(-1, k, k)
        counts[:20] = np.eye(k, dtype=np.int64) * 8  # perfect tables
        for name in NAMES:
            got = bench.share_interval(counts, name, SE_PSEUDO_SHARE)
            np.testing.assert_allclose(got, chance_interval(counts, name), atol=1e-12)


def test_three_classes_n100_cover_by_the_number_of_errors():
    """K = 3, n = 100, a class of 10, informedness 0.95 (margin 10): on 20,000 seeded tables every
    table with at most 5 errors is covered and none with 8 or more, by all four intervals; the
    number of errors is binomial (scipy) with P(≤ 5) below the band and P(≤ 6) above it, and the
    simulated coverage is above the band by more than 4 standard errors."""
    reps = 20_000
    pop = _population(3, 0.1, 0.95)
    counts = np.random.default_rng(1003).multinomial(100, pop.ravel(), size=reps).reshape(reps, 3, 3)
    errors = 100 - np.trace(counts, axis1=1, axis2=2)
    out = default_intervals(counts, list(NAMES))
    for name in NAMES:
        truth = ref.MEASURES[name](pop)
        low, high = out[name]
        covered = (low <= truth + 1e-12) & (truth - 1e-12 <= high)
        assert covered[errors <= 5].all() and not covered[errors >= 8].any(), name
        if name != "kappa_cohen":  # kappa's 6-error tables are covered a little less often
            cov = covered.mean()
            assert cov - 4 * math.sqrt(cov * (1 - cov) / reps) > 0.965, (name, cov)
    p_error = 1 - np.trace(pop)
    assert stats.binom.cdf(5, 100, p_error) < 0.935 and stats.binom.cdf(6, 100, p_error) > 0.965


def test_no_share_of_the_pseudo_count_puts_both_few_error_points_in_the_band():
    """Informedness of three classes, informedness 0.95: at n = 30 with three classes of 10
    (exact over the tables with at most 8 errors) shares up to 0.5 cover below the band; at
    every share where n = 30 is in the band, n = 100 with a class of 10 (20,000 seeded tables)
    covers above it by more than 4 binomial standard errors."""
    reps = 20_000
    exact_pop = _population(3, 1 / 3, 0.95)
    tables = bench.three_class_tables(30, 8)
    mass = stats.multinomial.pmf(tables.reshape(-1, 9), 30, exact_pop.ravel())
    tables, mass = tables[mass > 1e-10], mass[mass > 1e-10]
    sim_pop = _population(3, 0.1, 0.95)
    counts = np.random.default_rng(1004).multinomial(100, sim_pop.ravel(), size=reps).reshape(reps, 3, 3)
    in_band_at_30 = []
    for share in (0.3, 0.5, 0.6, SE_PSEUDO_SHARE, 0.7, 0.75):
        low, high = bench.share_interval(tables, "informedness", share)
        truth = ref.MEASURES["informedness"](exact_pop)
        ok = np.isfinite(low)
        exact = mass[ok & (low <= truth + 1e-12) & (truth - 1e-12 <= high)].sum() / mass[ok].sum()
        if share <= 0.5:
            assert exact < 0.935, (share, exact)
        if 0.935 <= exact <= 0.965:
            in_band_at_30.append(share)
            low, high = bench.share_interval(counts, "informedness", share)
            truth = ref.MEASURES["informedness"](sim_pop)
            cov = np.mean((low <= truth + 1e-12) & (truth - 1e-12 <= high))
            assert cov - 4 * math.sqrt(cov * (1 - cov) / reps) > 0.965, (share, cov)
    assert SE_PSEUDO_SHARE in in_band_at_30


def test_fewer_poisson_ends_would_drop_accuracy_coverage_below_the_floor():
    """Accuracy at n = 100: at the grid point 0.991 (K = 2, prevalence 0.1, informedness 0.95)
    the modified Wilson interval covers exactly the tables with at most 3 errors, 0.9870
    (binomial, scipy), above the band, and Wilson's upper end for 3 errors would give 0.9380;
    but with Poisson ends for at most 2 errors (as up to n = 50) the coverage falls below the
    floor of 0.92 at accuracy 0.9898, where the library's interval keeps it above."""
    n = 100
    x = np.arange(n + 1).astype(np.float64)
    m = np.full_like(x, n)
    low, high = modified_wilson(x, m)
    np.testing.assert_allclose(np.stack(bench.modified_wilson_xstar(x, m, 3)), np.stack((low, high)))

    def coverage(lo: np.ndarray, hi: np.ndarray, p: float) -> float:
        return float(stats.binom.pmf(x, n, p)[(lo <= p + 1e-12) & (p - 1e-12 <= hi)].sum())

    p = float(np.trace(_population(2, 0.1, 0.95)))
    assert coverage(low, high, p) == pytest.approx(stats.binom.cdf(3, n, 1 - p), abs=1e-12)
    assert coverage(low, high, p) > 0.965
    two = bench.modified_wilson_xstar(x, m, 2)
    assert 0.935 <= coverage(*two, p) <= 0.965
    assert coverage(*two, 0.9898) < 0.92 <= coverage(low, high, 0.9898)


_ENDS: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}


def _ends(interval, m: int) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of ``interval(x, m)`` for x = 0..m, computed once per interval and m."""
    key = (interval.__name__, m)
    if key not in _ENDS:
        _ENDS[key] = tuple(np.array(v) for v in zip(*(interval(x, m) for x in range(m + 1)), strict=True))
    return _ENDS[key]


def _double_sum(n: int, share: float, p: float, interval) -> float:
    """Coverage of ``p`` by ``interval(x, m)`` when the trials are binomial (n, share) and the
    successes binomial (m, p) given them, over the tables with m > 0."""
    total = 0.0
    for trials in range(1, n + 1):
        low, high = _ends(interval, trials)
        inside = (low <= p + 1e-12) & (p - 1e-12 <= high)
        total += (
            stats.binom.pmf(trials, n, share)
            * stats.binom.pmf(np.arange(trials + 1), trials, p)[inside].sum()
        )
    return total / (1 - stats.binom.pmf(0, n, share))


def _statsmodels_wilson(x: int, m: int) -> tuple[float, float]:
    low, high = proportion_confint(x, m, alpha=0.05, method="wilson")
    return float(low), float(high)


def test_recall_meets_the_floor_at_margin_five_with_a_poisson_end_for_one():
    """n = 10, balanced, informedness 0.95 (margin 5): the positives are binomial (10, 0.5) and
    the true positives binomial (m, 0.975) given them. Recall's default interval (Wilson with a
    Poisson end for 1 success or failure), summed over every table, covers 0.9910, the double sum
    with statsmodels' Wilson and scipy's gamma quantile for the Poisson ends; plain Wilson (the
    default before, proportions="wilson") covered 0.8910, below the floor of 0.92."""
    n, tpr = 10, 0.975
    pop = _population(2, 0.5, 0.95)
    assert pop[1, 1] / pop[1].sum() == pytest.approx(tpr)
    tables = _all_tables(n)
    mass = stats.multinomial.pmf(tables.reshape(-1, 4), n, pop.ravel())
    ok = tables[:, 1].sum(axis=1) > 0
    cover = {}
    for method in ("modified_wilson", "wilson"):
        low, high = default_intervals(tables, ["recall"], proportions=method)["recall"]
        cover[method] = mass[ok & (low <= tpr) & (tpr <= high)].sum() / mass[ok].sum()
    assert cover["modified_wilson"] == pytest.approx(
        _double_sum(n, 0.5, tpr, ref.wilson_poisson_one), abs=1e-12
    )
    assert cover["wilson"] == pytest.approx(_double_sum(n, 0.5, tpr, _statsmodels_wilson), abs=1e-12)
    assert cover["wilson"] < 0.92 < cover["modified_wilson"]
    assert round(cover["modified_wilson"], 4) == 0.9910 and round(cover["wilson"], 4) == 0.8910


def test_recall_and_precision_exact_coverage_on_the_grid():
    """Every binary grid point with n ≤ 100 and an expected smallest margin of 5 or more: the
    benchmark's exact table (default, Wilson before) is the double sum with statsmodels' Wilson
    and scipy's gamma quantiles; the default covers at least 0.92 everywhere (so from margin 5),
    and at margin ≥ 10 it is in [0.935, 0.965] except n = 20, balanced, informedness 0.6 and
    0.95 (above it); plain Wilson was in it except at informedness 0.6 and below 0.92 at n = 10,
    balanced, informedness 0.95. The grid's population is symmetric, so precision = recall."""
    rows = {}
    for r in bench.exact_proportions(100):
        parts = [c.strip() for c in r.strip("|").split("|")]
        if r.startswith("| ") and parts[0].isdigit():
            rows[(int(parts[0]), float(parts[1]), float(parts[2]))] = [float(c.split()[0]) for c in parts[4:]]
    points = [
        (n, prev, b)
        for n in bench.NS
        if n <= 100
        for prev in bench.PREVALENCES[2]
        for b in bench.INFORMEDNESS
        if n * min(_population(2, prev, b).sum(axis=0).min(), _population(2, prev, b).sum(axis=1).min())
        >= 5 - 1e-9
    ]
    assert set(rows) == {(n, float(f"{p:.3g}"), b) for n, p, b in points}
    above, below = {"default": set(), "wilson": set()}, {"default": set(), "wilson": set()}
    for n, prev, b in points:
        pop = _population(2, prev, b)
        margin = n * min(pop.sum(axis=0).min(), pop.sum(axis=1).min())
        share, tpr = pop[1].sum(), pop[1, 1] / pop[1].sum()
        new = _double_sum(n, share, tpr, ref.wilson_poisson_one)
        old = _double_sum(n, share, tpr, _statsmodels_wilson)
        # benchmark columns: recall default, Wilson, accuracy's; precision the same three
        got = rows[(n, float(f"{prev:.3g}"), b)]
        assert got[0] == pytest.approx(new, abs=5e-5) and got[3] == pytest.approx(new, abs=5e-5)
        assert got[1] == pytest.approx(old, abs=5e-5) and got[4] == pytest.approx(old, abs=5e-5)
        for key, cov in (("default", new), ("wilson", old)):
            if margin >= 10 - 1e-9 and cov > 0.965:
                above[key].add((n, prev, b))
            if cov < (0.935 if margin >= 10 - 1e-9 else 0.92):
                below[key].add((n, prev, b))
    assert below == {"default": set(), "wilson": {(10, 0.5, 0.95)}}
    assert above == {"default": {(20, 0.5, 0.6), (20, 0.5, 0.95)}, "wilson": {(20, 0.5, 0.6)}}
