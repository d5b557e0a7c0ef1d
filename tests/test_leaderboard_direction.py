"""Measures a better classifier has less of (fallout, miss_rate, lr_minus, conditional_entropy) rank
lowest first on a leaderboard.

The oracle is algebra: ``fallout = 1 − inverse_recall`` and ``miss_rate = 1 − recall`` on every
table, so a board of fallout ranked lowest first must be the board of inverse_recall ranked highest
first, run for run: the same order, best set, ``p_best``, rank intervals and two-sided p-values,
with the values, interval ends and differences reflected. On a paired board every run's real
classes are the same, so ``conditional_entropy = H(real) − mutual_information`` differs from
``−mutual_information`` by one constant, in every joint resample too.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

import batcheval as be
from batcheval.inference import selection
from batcheval.kernels import selection as kernels
from batcheval.measures import BINARY_MEASURES, LOWER_IS_BETTER, higher_is_better
from tests.cli_run import run_cli

SAME = ["run", "rank", "could_be_best", "tied_with_leader", "rank_ci_low", "rank_ci_high"]


SKILLS = (0.9, 0.6, 0.3, 0.85, 0.8, 0.88)


def _runs(seed: int, n: int = 80, skills=SKILLS, same_examples=True) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    frames = []
    for i, s in enumerate(skills):
        label = y if same_examples else rng.integers(0, 2, n)
        guess = rng.integers(0, 2, n)
        frames.append(pl.DataFrame({
            "run": f"r{i}", "example": np.arange(n), "passage": np.arange(n) // 4, "label": label,
            "prediction": np.where(rng.random(n) < s, label, guess),
        }))  # fmt: skip
    return pl.concat(frames)


def _boards(df: pl.DataFrame, low: str, high: str, **kw) -> tuple[pl.DataFrame, pl.DataFrame]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return be.leaderboard(df, measure=low, **kw), be.leaderboard(df, measure=high, **kw)


def _close(a: pl.Series, b: pl.Series, atol: float = 1e-12) -> None:
    np.testing.assert_allclose(a.to_numpy().astype(float), b.to_numpy().astype(float), rtol=1e-9, atol=atol)


def _same_p(a: pl.Series, b: pl.Series) -> None:
    """p_best to 1e-12: the studentized bootstrap's replicates that tie a run's statistic in exact
    arithmetic count as at or above it whatever their last bits (selection._step_down); they
    fell either side of it by rounding (1 − x), up to 175 counts of N_BOOT + 1 apart."""
    np.testing.assert_allclose(a.to_numpy().astype(float), b.to_numpy().astype(float), rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "low, high", [("fallout", "inverse_recall"), ("miss_rate", "recall"), ("fpr", "tnr")]
)
@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"adjacent": True},
        {"ci_method": "bootstrap"},
        {"example": "example"},
        {"example": "example", "paired": "delta", "adjacent": True},
        {"example": "example", "cluster": "passage"},
        {"cluster": "passage"},
        {"example": "example", "leader_only": True},
        {"leader_only": True},
    ],
    ids=[
        "unpaired",
        "unpaired-adjacent",
        "unpaired-bootstrap",
        "paired",
        "paired-delta",
        "paired-clustered",
        "clustered",
        "paired-leader-only",
        "unpaired-frontier",
    ],
)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lowest_first_is_the_complement_ranked_highest_first(low, high, kw, seed, monkeypatch):
    kw = dict(kw)
    if kw.pop("leader_only", False):
        # the paths of boards over RANK_LIMIT runs: paired runs compared with the leader only, and
        # the unpaired frontier of each run's largest gap
        monkeypatch.setattr(selection, "RANK_LIMIT", 3)
    df = _runs(seed, same_examples="example" in kw)
    a, b = _boards(df, low, high, **kw)
    for c in SAME:
        assert a[c].to_list() == b[c].to_list(), c
    _close(a[low], 1.0 - b[high])
    _close(a[f"{low}_ci_low"], 1.0 - b[f"{high}_ci_high"])
    _close(a[f"{low}_ci_high"], 1.0 - b[f"{high}_ci_low"])
    _close(a["diff_vs_leader"], -b["diff_vs_leader"])
    for c in ["p_vs_leader", "p_vs_leader_holm", "p_mcnemar", "diff_vs_above", "p_vs_above"]:
        if c in a.columns:
            _close(a[c], b[c] if c != "diff_vs_above" else -b[c])
    _same_p(a["p_best"], b["p_best"])
    # the leader has the lowest value, and it is the leader as the board says
    assert a[low][0] == a[low].min()


def _tables_board(tables: list[tuple[int, int, int, int]]) -> pl.DataFrame:
    """A board of runs on test sets of their own, each given as (tp, fp, fn, tn)."""
    rows = []
    for run, (tp, fp, fn, tn) in enumerate(tables):
        rows += [(run, 1, 1)] * tp + [(run, 0, 1)] * fp + [(run, 1, 0)] * fn + [(run, 0, 0)] * tn
    return pl.DataFrame(rows, schema=["run", "label", "prediction"], orient="row")


def _assert_mirror(a: pl.DataFrame, b: pl.DataFrame, tag: object) -> None:
    a, b = a.sort("run"), b.sort("run")
    for c in ("could_be_best", "rank_ci_low", "rank_ci_high"):
        assert a[c].to_list() == b[c].to_list(), (tag, c)
    _same_p(a["p_best"], b["p_best"])


@pytest.mark.parametrize(
    "tables",
    [
        [(0, 0, 5, 49), (2, 9, 3, 40), (3, 12, 2, 37), (4, 3, 1, 46), (4, 1, 1, 48)],
        [(3, 1, 1, 1), (4, 1, 0, 1), (1, 2, 3, 0)],
    ],
)
def test_a_bootstrap_replicate_that_ties_a_statistic_does_not_depend_on_its_last_bit(tables):
    """The studentized bootstrap of small tables reproduces an observed statistic exactly, and the
    last bit of ``−miss_rate`` against ``recall − 1`` decided the comparisons. The first board: run
    0's largest gap 3.70405184 equals the rank intervals' critical value, one ulp above it on the
    recall board, so there run 0 left the best set (p_best 0.0410 against 0.0529) and ranked
    [3, 5] against [1, 5]. The second: 175 replicates equal run 0's statistic, counted on the
    miss_rate board and not on the recall board (p_best 0.735 against 0.642). A tie counts as at
    least as extreme (the side that keeps the level), so both boards give the miss_rate board's."""
    df = _tables_board(tables)
    a, b = _boards(df, "miss_rate", "recall")
    _assert_mirror(a, b, "miss_rate")
    run0 = b.filter(pl.col("run") == 0).row(0, named=True)
    assert run0["could_be_best"] is True and (run0["rank_ci_low"], run0["rank_ci_high"]) == (1, len(tables))
    if len(tables) == 5:  # the tie at the critical value: not beyond it, on either board
        assert b["rank_ci_high"].to_list() == [len(tables)] * len(tables)
    # the same tables as false positives among the negatives: fallout against inverse_recall
    swapped = df.with_columns(label=1 - pl.col("label"), prediction=1 - pl.col("prediction"))
    _assert_mirror(*_boards(swapped, "fallout", "inverse_recall"), "fallout")


def _small_board(seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    r, n = int(rng.integers(2, 7)), int(rng.integers(5, 60))
    label = (rng.random(n) < rng.uniform(0.05, 0.5)).astype(np.int64)
    frames = []
    for run in range(r):
        guess = np.where(rng.random(n) < rng.uniform(0.3, 0.95), label, rng.integers(0, 2, n))
        frames.append(
            pl.DataFrame({"run": run, "example": np.arange(n), "label": label, "prediction": guess})
        )
    return pl.concat(frames)


@pytest.mark.parametrize("kw", [{}, {"example": "example"}], ids=["unpaired", "paired"])
def test_small_random_boards_ranked_lowest_first_are_their_mirrors(kw):
    """Fifty small boards (2-6 runs, 5-59 examples, 5-50 % positives): on every one, fallout's and
    miss_rate's boards have inverse_recall's and recall's best set, p_best and rank intervals.
    Before, 2 unpaired and 25 paired of these 100 pairs of boards differed."""
    for seed in range(50):
        df = _small_board(seed)
        for low, high in (("miss_rate", "recall"), ("fallout", "inverse_recall")):
            _assert_mirror(*_boards(df, low, high, **kw), (seed, low))


def test_a_statistic_within_a_few_ulps_of_the_critical_value_is_a_tie():
    """The kernel's counts (rank intervals) and the step-down's p-values (best set) read a value
    within TIE_RTOL of the other as equal to it: not beyond a critical value, and a replicate at
    or above a statistic."""
    theta, var = np.array([0.0, 1.0]), np.array([0.5, 0.5])  # z of the pair: exactly 1
    for c in (np.nextafter(1.0, 0.0), 1.0, np.nextafter(1.0, 2.0), 1.0 - 1e-13):
        above, below, tmax = np.empty(2, np.int64), np.empty(2, np.int64), np.empty(2)
        kernels.pair_counts(theta, var, np.zeros((1, 1)), False, c, above, below, tmax)
        assert above.tolist() == [0, 0] and below.tolist() == [0, 0], c
    kernels.pair_counts(theta, var, np.zeros((1, 1)), False, 1.0 - 1e-9, above, below, tmax)
    assert above.tolist() == [1, 0] and below.tolist() == [0, 1]
    # a replicate one ulp below t counts as reaching it: p = (1 + 2)/(1 + 3), as for one equal to t
    stat = np.array([[np.nextafter(2.0, 0.0)], [3.0], [1.0]])
    t = np.array([2.0, np.nextafter(2.0, 3.0), 2.0 * (1 + 1e-9)])
    assert selection._step_down(stat, np.array([0]), t, 0.05).tolist() == [0.75, 0.75, 0.5]


@pytest.mark.parametrize("seed", [0, 1])
def test_conditional_entropy_is_mutual_information_reversed_on_shared_examples(seed):
    rng = np.random.default_rng(seed)
    n = 150
    y = rng.integers(0, 3, n)
    df = pl.concat(
        pl.DataFrame({"run": f"r{i}", "example": np.arange(n), "label": y,
                      "prediction": np.where(rng.random(n) < s, y, rng.integers(0, 3, n))})
        for i, s in enumerate([0.9, 0.6, 0.3, 0.85])
    )  # fmt: skip
    a, b = _boards(df, "conditional_entropy", "mutual_information", example="example")
    assert a["run"].to_list() == b["run"].to_list()
    assert a["could_be_best"].to_list() == b["could_be_best"].to_list()
    _close(a["p_best"], b["p_best"], atol=1e-9)
    _close(a["p_vs_leader"], b["p_vs_leader"], atol=1e-9)
    _close(a["diff_vs_leader"], -b["diff_vs_leader"], atol=1e-12)
    assert np.all(np.diff(a["conditional_entropy"].to_numpy()) >= 0)


@pytest.mark.parametrize("kw", [{}, {"example": "example"}, {"example": "example", "leader_only": True}])
def test_lr_minus_ranks_as_lr_plus_of_the_other_class(kw, monkeypatch):
    """``lr_minus`` with class 1 positive is ``1/lr_plus`` with class 0 positive, and the board
    compares both on the log scale of the table plus a half a cell: boards of tables without an
    empty cell agree, unpaired and paired (the paired p-values' swap tests reach tables where one
    ratio is undefined and the other is not, so only the selection is compared there)."""
    kw = dict(kw)
    if kw.pop("leader_only", False):
        monkeypatch.setattr(selection, "RANK_LIMIT", 3)
    df = _runs(4, n=150, same_examples="example" in kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = be.leaderboard(df, measure="lr_minus", positive=1, **kw)
        b = be.leaderboard(df, measure="lr_plus", positive=0, **kw)
    assert a["lr_minus"].is_finite().all() and b["lr_plus"].is_finite().all()  # no empty cell
    for c in SAME:
        assert a[c].to_list() == b[c].to_list(), c
    _close(a["lr_minus"], 1.0 / b["lr_plus"])
    _same_p(a["p_best"], b["p_best"])
    if "example" not in kw:
        _close(a["p_vs_leader"], b["p_vs_leader"], atol=1e-12)
    # the worst run is out of the best set, where it would be the leader ranked highest first
    assert a["could_be_best"][-1] is False


def test_direction_defaults_and_override():
    df = _runs(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        default = be.leaderboard(df, measure="fnr")  # an alias of miss_rate
        highest = be.leaderboard(df, measure="fnr", higher_is_better=True)
        informed = be.leaderboard(df, measure="informedness", higher_is_better=False)
    assert default["fnr"].to_list() == sorted(default["fnr"].to_list())
    assert highest["fnr"].to_list() == sorted(highest["fnr"].to_list(), reverse=True)
    assert informed["informedness"].to_list() == sorted(informed["informedness"].to_list())
    assert default.metadata["higher_is_better"] is False  # type: ignore[attr-defined]
    assert highest.metadata["higher_is_better"] is True  # type: ignore[attr-defined]
    assert {"fallout", "miss_rate", "lr_minus", "conditional_entropy", "alpha_sbb"} <= LOWER_IS_BETTER
    assert {n for n in BINARY_MEASURES if n.startswith("p_")} <= LOWER_IS_BETTER
    assert higher_is_better("kappa_cohen") and not higher_is_better("lr_minus")
    with pytest.raises(be.InvalidArgumentError, match=r"higher_is_better=.*'no'"):
        be.leaderboard(df, measure="fallout", higher_is_better="no")


def test_one_class_and_versus_rest_boards_keep_the_direction():
    """The boards leaderboard builds again (one class seen; a positive class of three) rank as asked."""
    rng = np.random.default_rng(7)
    n = 90
    y = rng.integers(0, 3, n)
    df = pl.concat(
        pl.DataFrame({"run": f"r{i}", "label": y,
                      "prediction": np.where(rng.random(n) < s, y, rng.integers(0, 3, n))})
        for i, s in enumerate([0.9, 0.5, 0.2])
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        board = be.leaderboard(df, measure="fallout", positive=2)
        again = be.leaderboard(df, measure="fallout", positive=2, higher_is_better=True)
    assert board["fallout"].to_list() == sorted(board["fallout"].to_list())
    assert again["fallout"].to_list() == sorted(again["fallout"].to_list(), reverse=True)


def test_forest_plot_says_lower_is_better():
    df = _runs(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        low = be.leaderboard(df, measure="fallout")
        high = be.leaderboard(df, measure="inverse_recall")
    assert be.plot(low).axes[0].get_xlabel() == "fallout (lower is better)"
    assert be.plot(high).axes[0].get_xlabel() == "inverse_recall"
    # a board that lost its metadata (sorted, filtered or read back) is read from its order
    assert be.plot(low.sort("rank")).axes[0].get_xlabel() == "fallout (lower is better)"
    assert be.plot(high.sort("rank")).axes[0].get_xlabel() == "inverse_recall"


def test_cli_direction_flags(tmp_path):
    path = tmp_path / "runs.parquet"
    _runs(0).write_parquet(path)

    def order(*flags: str) -> list[str]:
        out = tmp_path / "board.csv"
        done = run_cli("leaderboard", str(path), "--measure", "fallout", *flags, "-o", str(out))
        assert done.returncode == 0, done.stderr
        return pl.read_csv(out)["fallout"].to_list()

    assert order() == sorted(order())
    assert order("--higher-is-better") == sorted(order(), reverse=True)
    assert order("--lower-is-better") == order()


# --- compare and rank_methods take the measure's direction too ---------------------------------


def _scores(seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    skill = {"a": 0.8, "b": 0.7, "c": 0.75, "d": 0.6}
    rows = [
        {
            "method": m,
            "dataset": f"d{d}",
            "fold": d % 5,
            "run": m,
            "recall": float(np.clip(s + rng.normal(0, 0.05), 0, 1)),
        }
        for d in range(12)
        for m, s in skill.items()
    ]
    return pl.DataFrame(rows).with_columns(miss_rate=1.0 - pl.col("recall"))


def _mirror_ranks(df: pl.DataFrame, low: str, high: str):
    """rank_methods by ``low`` (1 − ``high``, lowest first by its name) is the ranking by ``high``,
    and the reverse of it when told to rank ``low`` highest first."""
    lowest = be.rank_methods(df, measure=low)
    highest = be.rank_methods(df, measure=high)
    assert lowest.ranks["method"].to_list() == highest.ranks["method"].to_list()
    _close(lowest.ranks["mean_rank"], highest.ranks["mean_rank"])
    assert (lowest.friedman_chi2, lowest.friedman_p) == pytest.approx(
        (highest.friedman_chi2, highest.friedman_p), rel=1e-12
    )
    reversed_ = be.rank_methods(df, measure=low, higher_is_better=True)
    assert reversed_.ranks["method"].to_list() == highest.ranks["method"].to_list()[::-1]
    return lowest


@pytest.mark.parametrize("seed", [0, 1])
def test_rank_methods_ranks_a_rate_of_error_lowest_first(seed):
    _mirror_ranks(_scores(seed), "miss_rate", "recall")


@pytest.mark.parametrize("seed", [0, 1])
def test_compare_takes_the_lowest_mean_of_a_rate_of_error_as_reference(seed):
    df = _scores(seed).filter(pl.col("dataset").is_in([f"d{d}" for d in range(5)]))
    low = be.compare(df, fold="fold", measure="miss_rate")
    high = be.compare(df, fold="fold", measure="recall")
    assert low["reference_run"].to_list() == high["reference_run"].to_list()
    _close(low["p_value"], high["p_value"])
    _close(low["mean_diff"], -high["mean_diff"])
    worst = be.compare(df, fold="fold", measure="miss_rate", higher_is_better=True)
    assert worst["reference_run"][0] != low["reference_run"][0]


def test_cli_ranks_and_compare_take_the_measure_direction(tmp_path):
    path = tmp_path / "scores.parquet"
    _scores(0).write_parquet(path)

    def run(*args: str) -> pl.DataFrame:
        out = tmp_path / "out.csv"
        done = run_cli(*args, str(path), "-o", str(out))
        assert done.returncode == 0, done.stderr
        return pl.read_csv(out)

    api = be.rank_methods(_scores(0), measure="miss_rate").ranks["method"].to_list()
    assert run("ranks", "--measure", "miss_rate")["method"].to_list() == api
    assert run("ranks", "--measure", "miss_rate", "--higher-is-better")["method"].to_list() == api[::-1]
    folds = _scores(0).filter(pl.col("dataset").is_in([f"d{d}" for d in range(5)]))
    folds.write_parquet(path)
    best = be.compare(folds, fold="fold", measure="miss_rate")["reference_run"][0]
    assert run("compare", "--fold", "fold", "--measure", "miss_rate")["reference_run"][0] == best
    assert (
        run("compare", "--fold", "fold", "--measure", "miss_rate", "--higher-is-better")["reference_run"][0]
        == be.compare(folds, fold="fold", measure="recall", higher_is_better=False)["reference_run"][0]
    )


def _pooled_means(seed: int, keys: list[str], pool: str) -> pl.DataFrame:
    """evaluate's fallout_mean and inverse_recall_mean per ``keys``, pooled over ``pool``: the
    columns a pooled evaluate gives, fallout = 1 − inverse_recall on every table."""
    rng = np.random.default_rng(seed)
    skill = {"a": 0.85, "b": 0.7, "c": 0.78, "d": 0.6, "e": 0.72}
    n = 40  # rows of each (method, dataset, part)
    frames = [
        pl.DataFrame({"method": m, "dataset": d, "part": p, "label": (y := rng.integers(0, 2, n)),
                      "prediction": np.where(rng.random(n) < s, y, rng.integers(0, 2, n))})
        for d in range(8) for p in range(3) for m, s in skill.items()
    ]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = be.evaluate(pl.concat(frames), [*keys, pool], pool=pool, measures=["fallout", "inverse_recall"])
    np.testing.assert_allclose(out["fallout_mean"], 1.0 - out["inverse_recall_mean"], rtol=0, atol=1e-12)
    return out


def test_direction_is_read_in_any_case_and_from_a_pooled_mean():
    # "FPR", "Fallout" and "fallout_mean" (a pooled evaluate's column) ranked highest first
    for name in ("FPR", "Fallout", "FALLOUT", "fallout_mean", "FPR_Mean", "P_Informedness", "miss_rate_mean"):
        assert higher_is_better(name) is False, name
    # a spread, the ends of an interval and names of one's own rank highest first, as before
    for name in ("fallout_std", "fallout_ci_low", "fallout_ci_high", "inverse_recall_mean", "my_loss_mean"):
        assert higher_is_better(name) is True, name


@pytest.mark.parametrize("seed", [0, 1])
def test_rank_methods_ranks_a_pooled_fallout_mean_as_the_mirror_of_inverse_recall_mean(seed):
    df = _pooled_means(seed, ["method", "dataset"], "part")
    low = _mirror_ranks(df, "fallout_mean", "inverse_recall_mean")
    for name in ("FPR", "Fallout"):
        renamed = be.rank_methods(df.rename({"fallout_mean": name}), measure=name)
        assert renamed.ranks.equals(low.ranks)


@pytest.mark.parametrize("seed", [0, 1])
def test_compare_takes_the_lowest_pooled_fallout_mean_as_reference(seed, tmp_path):
    df = _pooled_means(seed, ["method", "dataset"], "part").rename({"method": "run", "dataset": "fold"})
    low = be.compare(df, fold="fold", measure="fallout_mean")
    high = be.compare(df, fold="fold", measure="inverse_recall_mean")
    assert low["reference_run"].to_list() == high["reference_run"].to_list()
    assert low["run"].to_list() == high["run"].to_list()
    _close(low["p_value"], high["p_value"])
    _close(low["mean_diff"], -high["mean_diff"])
    upper = be.compare(df.rename({"fallout_mean": "Fallout_Mean"}), fold="fold", measure="Fallout_Mean")
    assert upper["reference_run"].to_list() == low["reference_run"].to_list()
    path = tmp_path / "folds.parquet"
    df.write_parquet(path)
    out = tmp_path / "out.csv"
    assert (
        run_cli(
            "compare", str(path), "--fold", "fold", "--measure", "fallout_mean", "-o", str(out)
        ).returncode
        == 0
    )
    assert pl.read_csv(out)["reference_run"].to_list() == low["reference_run"].to_list()


# --- auc's best threshold minimises a rate of error ---------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_auc_best_threshold_minimises_a_rate_of_error(seed):
    from sklearn.metrics import confusion_matrix

    rng = np.random.default_rng(seed)
    n = 120
    y = rng.integers(0, 2, n)
    s = np.round(0.5 * y + rng.random(n), 2)
    df = pl.DataFrame({"label": y, "score": s})
    reference = {
        "miss_rate": lambda tn, fp, fn, tp: fn / (fn + tp),
        "lr_minus": lambda tn, fp, fn, tp: (fn / (fn + tp)) / (tn / (tn + fp)) if tn else np.nan,
        "recall": lambda tn, fp, fn, tp: tp / (tp + fn),
    }
    for name, f in reference.items():
        points = []
        for t in np.unique(s):  # predicted positive at score >= t, as the sweep's thresholds
            tn, fp, fn, tp = confusion_matrix(y, (s >= t).astype(int), labels=[0, 1]).ravel()
            points.append((t, f(tn, fp, fn, tp)))
        finite = [(t, v) for t, v in points if np.isfinite(v)]
        best = (min if name != "recall" else max)(v for _, v in finite)
        threshold = max(t for t, v in finite if abs(v - best) <= 1e-12)  # the highest on ties
        got = be.auc(df, measure=name).row(0, named=True)
        assert got[f"best_{name}"] == pytest.approx(best, abs=1e-12)
        assert got["best_threshold"] == threshold


@pytest.mark.parametrize("name", ["p_informedness", "alpha_sbb"])
def test_auc_best_threshold_of_a_p_value_is_its_least(name):
    """A p-value is best at its least: the threshold whose predictions are the most significant,
    found from evaluate's value at every distinct threshold (not the all-positive end, p = 1)."""
    rng = np.random.default_rng(3)
    n = 80
    y = rng.integers(0, 2, n)
    s = np.round(0.6 * y + rng.random(n), 2)
    values = []
    for t in np.unique(s):  # predicted positive at score >= t, as the sweep's thresholds
        frame = pl.DataFrame({"label": y, "prediction": (s >= t).astype(np.int64)})
        values.append((t, be.evaluate(frame, measures=[name], classes=[0, 1])[name][0]))
    best = min(v for _, v in values)
    threshold = max(t for t, v in values if v == best)
    got = be.auc(pl.DataFrame({"label": y, "score": s}), measure=name).row(0, named=True)
    assert got[f"best_{name}"] == pytest.approx(best, rel=1e-12)
    assert got["best_threshold"] == threshold
    assert best < 1e-3  # the most significant threshold, far from the ends


def test_compare_takes_the_most_significant_run_as_reference():
    rng = np.random.default_rng(0)
    frames = []
    for run, skill in [("weak", 0.1), ("strong", 0.8), ("middle", 0.4)]:
        y = rng.integers(0, 2, 500)
        pred = np.where(rng.random(500) < skill, y, rng.integers(0, 2, 500))
        frames.append(pl.DataFrame({"run": run, "fold": np.arange(500) % 5, "label": y, "prediction": pred}))
    df = pl.concat(frames)
    by_p = be.compare(df, measure="p_informedness")
    by_informedness = be.compare(df, measure="informedness")
    assert by_p["reference_run"][0] == by_informedness["reference_run"][0] == "strong"


def test_measures_of_association_pick_either_direction_as_the_chi2_statistics_do():
    """A two-sided p-value is as small for a table far below chance as for one far above it, as
    chi2 is as large: auc's best threshold by p_informedness is chi2's (the most association
    either way, here where the scores rank the classes the wrong way round), and informedness's
    never falls below chance (here the trivial threshold, informedness 0)."""
    y = np.array([0] * 30 + [1] * 30 + [0] * 3)
    s = np.concatenate([np.linspace(0.6, 1.0, 30), np.linspace(0.0, 0.5, 30), [0.1, 0.2, 0.3]])
    df = pl.DataFrame({"label": y, "score": s})
    by_p = be.auc(df, measure="p_informedness").row(0, named=True)
    by_chi2 = be.auc(df, measure="chi2").row(0, named=True)
    youden = be.auc(df, measure="informedness").row(0, named=True)
    assert by_p["best_threshold"] == by_chi2["best_threshold"]
    below = pl.DataFrame({"label": y, "prediction": (s >= by_p["best_threshold"]).astype(np.int64)})
    assert be.evaluate(below, measures=["informedness"])["informedness"][0] < 0
    assert youden["best_informedness"] == 0.0
