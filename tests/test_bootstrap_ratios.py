"""Bootstrap intervals of the unbounded binary ratios (odds_ratio, lr_plus, lr_minus) count a
resample whose denominator is 0 as +inf, the ratio's limit, not as undefined.

They were NaN in the resamples and dropped before the percentiles, so the interval of the odds
ratio of tp, fn, fp, tn = 20, 1, 1, 20 (400) ended at the estimate (about 40 % of its resamples
have fp·fn = 0), where Fisher's exact conditional interval (scipy) is [18.7, 17299] and the Katz
log interval of lr_plus 20 is [2.9, 135.8]. The oracle here is plain numpy on batcheval's own
replicate tables (``bootstrap_replicates``, the same generators): each ratio written from the
cells, where IEEE division gives +inf for x/0 and NaN for 0/0, and numpy's linear percentile
with +inf as a finite stand-in far above every value (numpy's own interpolation takes inf − inf
for NaN).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy.stats.contingency import odds_ratio as scipy_odds_ratio

import batcheval as be
from batcheval.inference.intervals import bootstrap_pseudo_count, bootstrap_replicates, intervals
from batcheval.kernels import bootstrap as _boot

RATIOS = ("odds_ratio", "lr_plus", "lr_minus")
LEVEL = 0.95
N_BOOT = 2000


def _table(tp: int, fn: int, fp: int, tn: int) -> np.ndarray:
    """One 2×2 table, real × predicted, class 1 positive."""
    return np.array([[[tn, fp], [fn, tp]]], dtype=np.int64)


def _ratio(reps: np.ndarray, name: str) -> np.ndarray:
    """``name`` of each replicate ``reps[R, 2, 2]`` in plain numpy (x/0 = +inf, 0/0 = NaN)."""
    tn, fp, fn, tp = (reps[:, i, j].astype(np.float64) for i, j in ((0, 0), (0, 1), (1, 0), (1, 1)))
    with np.errstate(divide="ignore", invalid="ignore"):
        if name == "odds_ratio":
            return (tp * tn) / (fp * fn)
        if name == "lr_plus":
            return (tp / (tp + fn)) / (fp / (fp + tn))
        return (fn / (tp + fn)) / (tn / (fp + tn))


def _percentiles(values: np.ndarray, level: float = LEVEL) -> tuple[float, float]:
    """numpy's linear percentiles of the defined values, +inf ranked above every finite one."""
    v = values[~np.isnan(values)]
    big = 1e300
    ends = np.percentile(np.where(np.isinf(v), big, v), [50 * (1 - level), 50 * (1 + level)])
    return tuple(float(np.inf) if e > 1e200 else float(e) for e in ends)


def _oracle(counts: np.ndarray, name: str, seed: int, pseudo: float = 0.0, n_boot: int = N_BOOT):
    reps = bootstrap_replicates(counts, n_boot, seed=seed, pseudo=pseudo)[0]
    values = _ratio(reps, name)
    return values, _percentiles(values)


# (tp, fn, fp, tn): the report's table (many resamples infinite for odds_ratio and lr_plus), one
# where about 1 % of the odds ratio's resamples are (its upper end a finite order statistic that
# dropping them had moved), and one with 2 true negatives, where lr_minus's resamples are +inf
TABLES = [(20, 1, 1, 20), (95, 5, 5, 95), (60, 10, 30, 2)]


@pytest.mark.parametrize("cells", TABLES)
@pytest.mark.parametrize("name", RATIOS)
def test_plain_bootstrap_interval_is_the_numpy_percentile_with_infinite_resamples(cells, name):
    counts = _table(*cells)
    values, (low, high) = _oracle(counts, name, seed=3)
    got_low, got_high = intervals(counts, [name], LEVEL, "bootstrap", n_boot=N_BOOT, seed=3)[name]
    np.testing.assert_allclose([got_low[0], got_high[0]], [low, high], rtol=1e-12)
    estimate = float(_ratio(counts, name)[0])
    # the raw percentile interval holds the estimate, before evaluate widens anything
    assert got_low[0] <= estimate <= got_high[0]
    share = np.isinf(values).mean()
    assert (got_high[0] == np.inf) == (share > (1 - LEVEL) / 2)


def test_a_table_resampled_in_parts_counts_them_too(monkeypatch):
    # a group whose replicates fill more than a chunk is measured a part at a time (_replicate_values)
    from batcheval.inference import intervals as module

    monkeypatch.setattr(module, "_CHUNK_CELLS", 64)
    counts = _table(20, 1, 1, 20)
    got = intervals(counts, list(RATIOS), LEVEL, "bootstrap", n_boot=N_BOOT, seed=3)
    for name in RATIOS:
        np.testing.assert_allclose([got[name][0][0], got[name][1][0]], _oracle(counts, name, seed=3)[1],
                                   rtol=1e-12)  # fmt: skip


def test_the_cases_are_what_they_are_meant_to_be():
    # the parametrised tables above cover both an infinite and a finite upper end shaped by +inf
    shares = {
        (cells, name): np.isinf(_oracle(_table(*cells), name, seed=3)[0]).mean()
        for cells in TABLES
        for name in RATIOS
    }
    assert shares[(TABLES[0], "odds_ratio")] > 0.3 and shares[(TABLES[0], "lr_plus")] > 0.3
    assert 0.005 < shares[(TABLES[1], "odds_ratio")] < 0.02
    assert shares[(TABLES[2], "lr_minus")] > 0.05


def test_odds_ratio_and_lr_plus_reach_past_the_exact_and_katz_intervals():
    tp, fn, fp, tn = 20, 1, 1, 20
    counts = _table(tp, fn, fp, tn)
    exact = scipy_odds_ratio([[tp, fn], [fp, tn]]).confidence_interval(LEVEL)
    assert 18 < exact.low < 19 and 17000 < exact.high < 17500
    lr = (tp / (tp + fn)) / (fp / (fp + tn))
    se = np.sqrt(1 / tp - 1 / (tp + fn) + 1 / fp - 1 / (fp + tn))
    katz_high = lr * np.exp(1.959964 * se)
    got = intervals(counts, ["odds_ratio", "lr_plus"], LEVEL, "bootstrap", n_boot=N_BOOT, seed=1)
    assert got["odds_ratio"][1][0] >= exact.high and got["lr_plus"][1][0] >= katz_high


def _frame(tp: int, fn: int, fp: int, tn: int, run: str = "a") -> pl.DataFrame:
    y = [1] * (tp + fn) + [0] * (fp + tn)
    p = [1] * tp + [0] * fn + [1] * fp + [0] * tn
    return pl.DataFrame({"run": run, "label": y, "prediction": p})


@pytest.mark.parametrize("method", ["wilson_delta", "bootstrap"])
def test_evaluate_intervals_of_the_ratios(method):
    # wilson_delta gives these measures the smoothed bootstrap (the table plus 1/2 per cell),
    # ci_method="bootstrap" the plain one; both from group 0's generator
    cells = (20, 1, 1, 20)
    df = _frame(*cells)
    out = be.evaluate(df, label="label", prediction="prediction", measures=list(RATIOS), ci=LEVEL,
                      ci_method=method, n_boot=1000, seed=1)  # fmt: skip
    pseudo = bootstrap_pseudo_count(2) if method == "wilson_delta" else 0.0
    for name in RATIOS:
        estimate, low, high = out.select(name, f"{name}_ci_low", f"{name}_ci_high").row(0)
        _, (want_low, want_high) = _oracle(_table(*cells), name, seed=1, pseudo=pseudo, n_boot=1000)
        # evaluate widens to the estimate (hold_estimate): lr_minus's lower end is 0 either way
        np.testing.assert_allclose([low, high], [min(want_low, estimate), max(want_high, estimate)],
                                   rtol=1e-12)  # fmt: skip
        assert low <= estimate <= high
    assert out["odds_ratio_ci_high"][0] == np.inf and out["lr_plus_ci_high"][0] == np.inf
    assert out["odds_ratio_ci_low"][0] < 400 and out["lr_plus_ci_low"][0] < 20


def test_leaderboard_interval_columns_and_forest_plot(tmp_path):
    pytest.importorskip("matplotlib")
    df = pl.concat([_frame(20, 1, 1, 20, "a"), _frame(15, 6, 5, 16, "b")])
    for method in ("wilson_delta", "bootstrap"):
        board = be.leaderboard(df, measure="odds_ratio", ci_method=method, seed=1)
        row = board.filter(pl.col("run") == "a")
        estimate, low, high = row.select("odds_ratio", "odds_ratio_ci_low", "odds_ratio_ci_high").row(0)
        assert estimate == 400.0 and low < estimate and high == np.inf
    ax = be.plot(board, path=tmp_path / "forest.png").axes[0]
    # the leader's bar, to +inf, runs from its lower end to the right edge of the axes, with an arrow
    right = ax.get_xlim()[1]
    segments = [s for c in ax.collections for s in c.get_segments()]
    assert any(np.allclose(s[:, 0], [low, right]) for s in segments)
    assert "interval to +inf" in ax.get_legend_handles_labels()[1]
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.mark.parametrize("q", [0.0, 0.25, 0.5, 0.6, 0.9, 1.0])
def test_percentiles_kernel_ranks_inf_above_finite_values(q):
    rows = np.array(
        [
            [3.0, 1.0, np.inf, 2.0, np.nan, np.inf],
            [np.inf, np.inf, np.nan, np.nan, np.nan, np.nan],
            [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
            [2.0, np.inf, np.nan, 2.0, 2.0, np.nan],
        ]
    )
    want = np.array([_percentiles(r, level=1 - 2 * q)[0] for r in rows])
    low, high = np.empty(len(rows)), np.empty(len(rows))
    _boot.percentiles(rows.copy(), q, 1.0 - q, low, high)
    np.testing.assert_allclose(low, want, rtol=1e-15)
