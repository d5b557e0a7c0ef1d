"""be.leaderboard against per-run references, scipy's binomial test, and Holm."""

from __future__ import annotations

import itertools
import math
import re
import warnings
from collections.abc import Callable

import numpy as np
import polars as pl
import pytest
from scipy import stats

import batcheval as be
from batcheval.core import memory
from batcheval.inference.comparisons import RepeatedExampleError
from batcheval.inference.paired_se import bootstrap_se, delta_se, sign_flip_p, swap_p
from tests.reference import intervals as ref_iv
from tests.reference import leaderboard as ref
from tests.reference import score_diff as ref_score


def shared_test_set(n_runs: int = 12, n_examples: int = 400, seed: int = 0, k: int = 2) -> pl.DataFrame:
    """Runs of different skill predicting the same examples (5 folds of one test set)."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, k, n_examples)
    skill = np.linspace(0.7, 0.1, n_runs)
    frames = []
    for r in range(n_runs):
        guess = rng.integers(0, k, n_examples)
        prediction = np.where(rng.random(n_examples) < skill[r], label, guess)
        frames.append(pl.DataFrame({
            "run": r, "fold": np.arange(n_examples) % 5, "example_id": np.arange(n_examples),
            "label": label, "prediction": prediction,
        }))  # fmt: skip
    return pl.concat(frames)


def _arrays(df: pl.DataFrame, run: int) -> tuple[np.ndarray, np.ndarray]:
    part = df.filter(pl.col("run") == run).sort("example_id")
    return part["label"].to_numpy(), part["prediction"].to_numpy()


def test_ranking_measure_intervals_and_chance_p_values_match_evaluate():
    df = shared_test_set()
    board = be.leaderboard(df, run="run", pool="fold")
    measures = ["informedness", "p_informedness"]
    ev = be.evaluate(df, by=["run", "fold"], pool="fold", measures=measures, ci=0.95)
    joined = board.join(ev, on="run", suffix="_ev")
    for col in ("informedness", "informedness_ci_low", "informedness_ci_high", "p_informedness"):
        np.testing.assert_array_equal(joined[col].to_numpy(), joined[f"{col}_ev"].to_numpy())
    expect_rank = ev.select("run", pl.col("informedness").rank("min", descending=True).alias("r"))
    assert board.join(expect_rank, on="run").select((pl.col("rank") == pl.col("r")).all()).item()
    assert board["informedness"].is_sorted(descending=True)


def test_unpaired_p_values_and_holm_ties():
    df = shared_test_set()
    board = be.leaderboard(df, run="run")
    leader = board.row(0, named=True)
    lead_t = ref.table(*_arrays(df, leader["run"]))
    tp, fp, fn, tn = lead_t[1, 1], lead_t[0, 1], lead_t[1, 0], lead_t[0, 0]
    # Agresti-Caffo: Youden's variance of the table with one more example in every cell
    var_lead = ref_iv.youden_variance(tp + 1, fp + 1, fn + 1, tn + 1)
    expect = []
    for row in board.iter_rows(named=True):
        if row["run"] == leader["run"]:
            expect.append(math.nan)
            continue
        t = ref.table(*_arrays(df, row["run"]))
        diff = ref.informedness(t) - ref.informedness(lead_t)
        var = ref_iv.youden_variance(t[1, 1] + 1, t[0, 1] + 1, t[1, 0] + 1, t[0, 0] + 1) + var_lead
        assert row["diff_vs_leader"] == pytest.approx(diff, rel=1e-12)
        # where both tables' margins hold 10 examples, the score test of equal informedness (the
        # variance at the four rates of most likelihood under the null, by scipy's SLSQP) ...
        if (
            min(t.sum(axis=0).min(), t.sum(axis=1).min(), lead_t.sum(axis=0).min(), lead_t.sum(axis=1).min())
            >= 10
        ):
            expect.append(ref_score.equal_difference_p(np.stack([t, lead_t])))
            continue
        # ... else the difference of the adjusted tables' values (inverting the Agresti-Caffo interval)
        adjusted = ref.informedness(t + 1) - ref.informedness(lead_t + 1)
        expect.append(2 * stats.norm.sf(abs(adjusted) / math.sqrt(var)))
    np.testing.assert_allclose(board["p_vs_leader"].to_numpy(), expect, rtol=1e-6)
    holm = ref_iv.holm(expect)
    np.testing.assert_allclose(board["p_vs_leader_holm"].to_numpy(), holm, rtol=1e-6)
    # tied_with_leader is now could_be_best (tests/test_selection.py checks it against its reference)
    assert board["tied_with_leader"].to_list() == board["could_be_best"].to_list()
    tied = board["tied_with_leader"].to_list()
    assert tied[0] and tied[1] and not tied[-1]  # the board separates the runs it should


@pytest.mark.parametrize("coded", ["as 0/1", "as 1/2", "as 0/3"])
def test_paired_mcnemar_matches_binomial_test_and_counts(coded):
    df = shared_test_set()
    shift, scale = {"as 0/1": (0, 1), "as 1/2": (1, 1), "as 0/3": (0, 3)}[coded]
    # the joint-table kernel looks classes up unless they are already 0..K-1
    recoded = df.with_columns(pl.col("label", "prediction") * scale + shift)
    board = be.leaderboard(recoded, run="run", pool="fold", example="example_id")
    real, lead = _arrays(df, board["run"][0])
    for row in board.iter_rows(named=True):
        _, pred = _arrays(df, row["run"])
        b, c = ref.discordant(real, lead, pred)
        assert (row["n_leader_only"], row["n_run_only"], row["n_paired"]) == (b, c, len(real))
        if row["rank"] == 1:
            assert math.isnan(row["p_mcnemar"])
        else:
            assert row["p_mcnemar"] == pytest.approx(stats.binomtest(c, b + c, 0.5).pvalue, rel=1e-9)
        diff = ref.informedness(ref.table(real, pred)) - ref.informedness(ref.table(real, lead))
        assert row["diff_vs_leader"] == pytest.approx(diff, abs=1e-12)


def test_paired_bootstrap_se_agrees_with_resampling_examples():
    df = shared_test_set(n_runs=4, n_examples=600)
    board = be.leaderboard(df, run="run", example="example_id", n_boot=4000, seed=1)
    real, lead = _arrays(df, board["run"][0])
    rng = np.random.default_rng(2)
    for row in board.iter_rows(named=True):
        if row["rank"] == 1:
            continue
        _, pred = _arrays(df, row["run"])
        se = ref.paired_bootstrap_se(real, lead, pred, 4000, rng)
        # informedness's p_vs_leader is the mid-p sign-flip test (tests/test_midp_score_tests.py),
        # so the paired bootstrap's standard error is checked where it is computed
        joint = np.zeros((1, 2, 2, 2), dtype=np.int64)
        np.add.at(joint, (0, real, lead, pred), 1)
        ours = bootstrap_se(joint, "informedness", 1, 4000, 1, np.array([row["diff_vs_leader"]]))[0]
        # both standard errors are Monte Carlo estimates from 4000 replicates: ~1.1% each
        assert ours == pytest.approx(se, rel=0.06)
        assert row["p_vs_leader"] == sign_flip_p(joint, "informedness", mid_p=True)[0]


def test_pairing_tightens_the_comparison_of_correlated_runs():
    """Two runs that agree on most examples: only the paired test sees their small difference."""
    rng = np.random.default_rng(5)
    n = 2000
    label = rng.integers(0, 2, n)
    a = np.where(rng.random(n) < 0.6, label, rng.integers(0, 2, n))
    b = a.copy()
    flip = np.flatnonzero(a == label)[:30]  # b errs on 30 examples a gets right
    b[flip] = 1 - b[flip]
    df = pl.DataFrame({"run": np.repeat(["a", "b"], n), "example_id": np.tile(np.arange(n), 2),
                       "label": np.tile(label, 2), "prediction": np.concatenate([a, b])})  # fmt: skip
    paired = be.leaderboard(df, example="example_id")
    unpaired = be.leaderboard(df)
    assert paired["p_vs_leader"][1] < 1e-6
    assert unpaired["p_vs_leader"][1] > 0.05
    assert paired["p_mcnemar"][1] == pytest.approx(stats.binomtest(0, 30, 0.5).pvalue)


def test_example_lookup_paths_agree_and_missing_examples_are_left_out():
    df = shared_test_set(n_runs=5)
    by_int = be.leaderboard(df, example="example_id", seed=3)
    by_str = be.leaderboard(
        df.with_columns(pl.col("example_id").cast(pl.String)), example="example_id", seed=3
    )
    by_two = be.leaderboard(df, example=["fold", "example_id"], seed=3)
    # the best set's and rank intervals' Gaussian draws run over the examples in their coded
    # order, which the lookup path changes: those columns agree up to Monte-Carlo error only
    draws = ["tied_with_leader", "could_be_best", "p_best", "rank_ci_low", "rank_ci_high"]
    assert by_int.drop(draws).equals(by_str.drop(draws)) and by_int.drop(draws).equals(by_two.drop(draws))
    m = 2000  # selection.N_DRAWS
    p = by_int["p_best"].to_numpy()
    for other in (by_str, by_two):
        assert np.all(np.abs(other["p_best"].to_numpy() - p) <= 4 * np.sqrt(p * (1 - p) / m) + 2 / m)
    leader = by_int["run"][0]
    fewer = df.filter((pl.col("run") != leader) | (pl.col("example_id") >= 50))
    board = be.leaderboard(fewer, example="example_id")
    assert board.filter(pl.col("run") != leader)["n_paired"].to_list() == [350] * 4


def test_multiclass_and_bootstrap_interval_board():
    df = shared_test_set(n_runs=6, k=3)
    board = be.leaderboard(df, measure="kappa_cohen", ci_method="bootstrap", n_boot=300, example="example_id")
    assert board.height == 6 and board["kappa_cohen"].is_sorted(descending=True)
    expect = be.evaluate(df, by="run", measures=["kappa_cohen"])
    assert dict(expect.select("run", "kappa_cohen").iter_rows()) == dict(
        board.select("run", "kappa_cohen").iter_rows()
    )
    assert (board["kappa_cohen_ci_low"] <= board["kappa_cohen"]).all()
    real, lead = _arrays(df, board["run"][0])
    _, second = _arrays(df, board["run"][1])
    b, c = ref.discordant(real, lead, second)
    assert board["p_mcnemar"][1] == pytest.approx(stats.binomtest(c, b + c, 0.5).pvalue)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"measure": "p_chi2"}, be.UnknownMeasureError, r"measure 'p_chi2' cannot rank runs"),
        ({"measure": "nope"}, be.UnknownMeasureError, r"unknown measure 'nope'"),
        ({"significance": "chi3"}, be.InvalidArgumentError, r"unknown significance 'chi3'"),
        ({"ci": 1.5}, be.InvalidArgumentError, r"ci must be .* got 1\.5"),
        ({"example": "fold"}, be.InvalidArgumentError, r"example=\['fold'\] does not identify one row"),
        ({"pool": "seed"}, be.ColumnNotFoundError, r"pool column 'seed' not found"),
        # one column in two roles: every run was perfect ('a' 1.0, 'b' 1.0 for true 0.84 and -0.11)
        ({"prediction": "label"}, be.DuplicateColumnError, r"'label' is named twice: as label and as pre"),
        ({"label": "prediction"}, be.DuplicateColumnError, r"'prediction' is named twice"),
        ({"pool": "label"}, be.DuplicateColumnError, r"'label' is named twice: as key and as label"),
        ({"run": ["run", "run"]}, be.DuplicateColumnError, r"'run' is named twice"),
        ({"example": "label"}, be.DuplicateColumnError, r"'label' is named twice: as example and as label"),
    ],
)
def test_bad_input(kwargs: dict, error: type, message: str):
    with pytest.raises(error, match=message):
        be.leaderboard(shared_test_set(n_runs=3), **kwargs)


def test_forest_plot_of_the_top_runs(tmp_path):
    board = be.leaderboard(shared_test_set(), pool="fold")
    fig = be.plot(board, top=5, path=tmp_path / "board.png")
    ax = fig.axes[0]
    expected = [str(r) for r in board["run"].head(5)]
    expected[0] += " (leader)"
    assert [t.get_text() for t in ax.get_yticklabels()] == expected
    assert ax.get_xlabel() == "informedness" and (tmp_path / "board.png").stat().st_size > 0
    segments = ax.collections[0].get_segments()  # one interval bar per run, best at the top
    lows = [min(s[:, 0]) for s in segments]
    np.testing.assert_allclose(lows, board["informedness_ci_low"].head(5).to_numpy())
    with pytest.raises(be.InvalidArgumentError, match=r"top must be a positive integer, got 0"):
        be.plot(board, top=0)


def test_cli_leaderboard(tmp_path):
    from batcheval.cli import main

    src = tmp_path / "preds.parquet"
    shared_test_set(n_runs=4).write_parquet(src)
    out = tmp_path / "board.csv"
    assert main(["leaderboard", str(src), "--pool", "fold", "--example", "example_id", "-o", str(out)]) == 0
    expect = be.leaderboard(shared_test_set(n_runs=4), pool="fold", example="example_id")
    got = pl.read_csv(out)
    np.testing.assert_allclose(got["p_vs_leader"].to_numpy(), expect["p_vs_leader"].to_numpy())
    args = ["leaderboard", str(src), "--example", "example_id", "--paired", "delta", "--adjacent"]
    assert main([*args, "-o", str(out)]) == 0
    expect = be.leaderboard(shared_test_set(n_runs=4), example="example_id", paired="delta", adjacent=True)
    got = pl.read_csv(out)
    for col in ("p_vs_leader", "p_vs_above"):
        np.testing.assert_allclose(got[col].to_numpy(), expect[col].to_numpy(), rtol=1e-12)
    assert main(["leaderboard", str(src), "--measure", "p_chi2"]) == 2


def test_paired_delta_matches_numerical_derivative_and_bootstrap():
    df = shared_test_set(n_runs=5, n_examples=600)
    # informedness's paired p-value is the exact sign-flip test (tests/test_calibration_intervals.py),
    # kappa's the larger of the mid-p swap test (tests/test_swap_test.py) and the normal p-value
    delta = be.leaderboard(df, example="example_id", paired="delta", measure="kappa_cohen")
    boot = be.leaderboard(df, example="example_id", n_boot=4000, seed=4, measure="kappa_cohen")
    real, lead = _arrays(df, delta["run"][0])
    for i, row in enumerate(delta.iter_rows(named=True)):
        if i == 0:
            continue
        _, pred = _arrays(df, row["run"])
        joint = np.zeros((2, 2, 2))
        np.add.at(joint, (real, lead, pred), 1)

        def difference(p: np.ndarray) -> float:
            return ref_iv.kappa_cohen(p.sum(axis=1)) - ref_iv.kappa_cohen(p.sum(axis=2))

        se = math.sqrt(ref_iv.delta_variance_of(joint, difference))
        counts = joint[None].astype(np.int64)
        assert delta_se(counts, "kappa_cohen", 1)[0] == pytest.approx(se, rel=1e-6)
        # the delta method is the bootstrap's large-sample limit
        diff = np.array([row["diff_vs_leader"]])
        assert bootstrap_se(counts, "kappa_cohen", 1, 4000, 4, diff)[0] == pytest.approx(se, rel=0.1)
        # the larger of the mid-p swap test and the normal p-value with the method's se
        swap = swap_p(joint[None], "kappa_cohen", mid_p=True)[0][0]
        normal = 2 * stats.norm.sf(abs(row["diff_vs_leader"]) / se)
        assert row["p_vs_leader"] == pytest.approx(max(swap, normal), rel=1e-6)
        assert boot["p_vs_leader"][i] >= swap
        # at 600 examples the two agree closely
        assert swap == pytest.approx(normal, rel=0.1, abs=0.005)
    with pytest.raises(be.InvalidArgumentError, match=r"unknown paired method 'jackknife'"):
        be.leaderboard(df, example="example_id", paired="jackknife")


@pytest.mark.parametrize("mode", ["unpaired", "paired delta", "paired bootstrap"])
def test_adjacent_comparison_is_the_leader_comparison_of_a_two_run_board(mode):
    """Each run against the one ranked above it must equal the board of just those
    two runs, where the one above leads; the second run's neighbour is the leader."""
    df = shared_test_set(n_runs=7)
    # a run missing some examples: paired tests use the examples both runs predicted
    df = df.filter((pl.col("run") != 3) | (pl.col("example_id") % 7 != 0))
    kwargs = {"unpaired": {}, "paired delta": {"example": "example_id", "paired": "delta"},
              "paired bootstrap": {"example": "example_id", "seed": 5}}[mode]  # fmt: skip
    board = be.leaderboard(df, run="run", adjacent=True, **kwargs)
    assert math.isnan(board["diff_vs_above"][0]) and math.isnan(board["p_vs_above"][0])
    assert ("p_mcnemar_vs_above" in board.columns) == (mode != "unpaired")
    if mode != "unpaired":
        assert math.isnan(board["p_mcnemar_vs_above"][0])
    assert board["p_vs_above"][1] == board["p_vs_leader"][1]
    assert board["diff_vs_above"][1] == board["diff_vs_leader"][1]
    runs = board["run"].to_list()
    for upper, lower in itertools.pairwise(runs):
        pair = be.leaderboard(df.filter(pl.col("run").is_in([upper, lower])), run="run", **kwargs)
        assert pair["run"].to_list() == [upper, lower]
        row = board.filter(pl.col("run") == lower)
        assert row["diff_vs_above"].item() == pytest.approx(pair["diff_vs_leader"][1], abs=1e-15)
        if mode != "paired bootstrap":  # the bootstrap seeds follow the group's place on the board
            assert row["p_vs_above"].item() == pytest.approx(pair["p_vs_leader"][1], rel=1e-12)
        if mode != "unpaired":  # exact McNemar on the examples both runs predicted
            assert row["p_mcnemar_vs_above"].item() == pair["p_mcnemar"][1]
            both = df.filter(pl.col("run") == upper).join(
                df.filter(pl.col("run") == lower), on="example_id", suffix="_low"
            )
            columns = ("label", "prediction", "prediction_low")
            b, c = ref.discordant(*(both[col].to_numpy() for col in columns))
            expected = stats.binomtest(c, b + c, 0.5).pvalue
            assert row["p_mcnemar_vs_above"].item() == pytest.approx(expected, rel=1e-12)


def test_adjacent_paired_lookup_paths_agree_and_bad_examples_are_named(monkeypatch):
    import sys

    df = shared_test_set(n_runs=5)
    by_int = be.leaderboard(df, example="example_id", paired="delta", adjacent=True)
    generic = be.leaderboard(
        df.with_columns(pl.col("run", "example_id", "label", "prediction").cast(pl.String)),
        example=["fold", "example_id"], paired="delta", adjacent=True,
    )  # fmt: skip
    # UInt64 ids beyond int64's range take the hash-join paths instead of overflowing
    huge = be.leaderboard(
        df.with_columns(pl.col("run", "example_id").cast(pl.UInt64) + (1 << 63)),
        example="example_id", paired="delta", adjacent=True,
    )  # fmt: skip
    for col in ("diff_vs_above", "p_vs_above", "p_vs_leader", "p_mcnemar"):
        np.testing.assert_array_equal(by_int[col].to_numpy(), generic[col].to_numpy())
        np.testing.assert_array_equal(by_int[col].to_numpy(), huge[col].to_numpy())
    # a run scoring one example twice: the last-ranked one, and the leader, whose
    # repeat (appended at the end) falls to another thread than its first row
    for repeated in (by_int["run"][-1], by_int["run"][0]):
        again = df.filter((pl.col("run") == repeated) & (pl.col("example_id") == 0))
        dup = pl.concat([df, again])
        named = rf"one row per example in run \{{'run': {repeated}\}}"
        with pytest.raises(be.InvalidArgumentError, match=named):
            be.leaderboard(dup, example="example_id", adjacent=True)
    last = by_int["run"][-1]
    dup = pl.concat([df, df.filter((pl.col("run") == last) & (pl.col("example_id") == 0))])
    # ... found as well on the two-pass path, which holds only the leader, by
    # a bitmap of every run × example or, when that is too large, a hash of the keys
    module = sys.modules["batcheval.inference.comparisons"]
    for adjacent_cells in (1 << 30, 100):
        with monkeypatch.context() as patched:
            patched.setattr(module, "_CELLS_PER_ROW", 0)
            patched.setattr(module, "_ADJACENT_CELLS", adjacent_cells)
            named = rf"one row per example in run \{{'run': {last}\}}"
            with pytest.raises(be.InvalidArgumentError, match=named):
                be.leaderboard(dup, example="example_id")
            if adjacent_cells > 400:  # else too large to hold even the leader
                assert be.leaderboard(df, example="example_id", paired="delta").equals(
                    by_int.drop("diff_vs_above", "p_vs_above", "p_mcnemar_vs_above")
                )
    # joint tables too large for a private copy per thread are counted by one thread
    monkeypatch.setattr(sys.modules["batcheval.inference.comparisons"], "_PRIVATE_CELLS", 1)
    assert be.leaderboard(df, example="example_id", paired="delta", adjacent=True).equals(by_int)
    monkeypatch.setattr(sys.modules["batcheval.inference.comparisons"], "_ADJACENT_CELLS", 1000)
    over = r"4 runs × 400 example ids \(the span of the example column\) is over 1,000 cells"
    with pytest.raises(be.InvalidArgumentError, match=over):
        be.leaderboard(df, example="example_id", adjacent=True)


@pytest.mark.parametrize(
    "shape", ["binary", "three classes", "trimmed classes", "string runs with a null", "two example columns"]
)
def test_one_pass_paired_board_equals_the_two_pass_board(monkeypatch, shape):
    """Dense paired boards count and fill a runs × examples table in one pass;
    forcing the two-pass path (count, then every row against the leader) must
    give the identical board, and the one-pass path must really be taken."""
    import sys

    module = sys.modules["batcheval.inference.comparisons"]
    df = shared_test_set(n_runs=6, k=3 if shape == "three classes" else 2, seed=4)
    df = df.filter((pl.col("run") != 2) | (pl.col("example_id") % 5 != 0))  # a run missing examples
    kwargs = {"example": "example_id", "adjacent": True, "paired": "delta"}
    if shape == "three classes":
        kwargs |= {"measure": "kappa_cohen", "paired": "bootstrap", "seed": 2}
    elif shape == "trimmed classes":  # codes span 1..4, the board keeps two of them
        df = df.with_columns(pl.col("label", "prediction") * 3 + 1)
    elif shape == "string runs with a null":
        run = pl.when(pl.col("run") == 5).then(None).otherwise(pl.col("run").cast(pl.String))
        df = df.with_columns(run.alias("run"))
    elif shape == "two example columns":
        kwargs["example"] = ["fold", "example_id"]
    taken = []
    one_pass = module.count_with_cells
    monkeypatch.setattr(module, "count_with_cells", lambda *a: taken.append(one_pass(*a)) or taken[-1])
    board = be.leaderboard(df, **kwargs)
    assert taken and taken[0] is not None
    monkeypatch.setattr(memory, "POPULATE_BYTES", 0)  # the table mapped up front, as large ones are
    assert be.leaderboard(df, **kwargs).equals(board)
    monkeypatch.setattr(module, "_CELLS_PER_ROW", 0)
    assert be.leaderboard(df, **kwargs).equals(board)
    short = (board["run"].cast(pl.String) == "2").to_list()  # the run missing 80 examples
    assert board["n_paired"].to_list()[1:] == [320 if short[0] or s else 400 for s in short[1:]]


def test_a_sign_flip_board_draws_no_paired_standard_error(monkeypatch):
    """Informedness's p_vs_leader is the sign-flip test and its best set reads the sign-flip
    p-values, so the board computes no paired standard error; markedness's reads it."""
    from batcheval.inference import paired_se

    df = shared_test_set(n_runs=12)
    for method in ("bootstrap_se", "delta_se"):
        monkeypatch.setattr(paired_se, method, lambda *a, _n=method: pytest.fail(f"{_n} was called"))
    for paired in ("bootstrap", "delta"):
        board = be.leaderboard(df, pool="fold", example="example_id", paired=paired, adjacent=True)
        assert board.height == 12
        with pytest.raises(pytest.fail.Exception):
            be.leaderboard(df, pool="fold", example="example_id", paired=paired, measure="markedness")


@pytest.mark.parametrize("paired", ["delta", "bootstrap"])
@pytest.mark.parametrize(
    "n_runs", [8, 40, 300, "40, three classes", "40, near the budget", "40, two passes near the budget"]
)
def test_the_board_does_not_depend_on_how_the_examples_are_numbered(monkeypatch, paired: str, n_runs) -> None:
    """Example ids with gaps between them (every third id, from 5) lay out runs × examples cells
    with examples no run scored; those take no draws of the best set's normal max-t (at 40 runs
    its set and p_best changed with the numbering before) and do not count towards the
    influence matrix's budget (set here between the examples' and the gaps' runs² × examples),
    so the board is the same."""
    if isinstance(n_runs, str):
        from batcheval.inference import comparisons, floors

        if "two passes" in n_runs:  # the runs × examples class pairs held from the rows
            monkeypatch.setattr(comparisons, "_CELLS_PER_ROW", 0)
        if "budget" in n_runs:  # both limits just over the 400 examples' board
            monkeypatch.setattr(floors, "INFLUENCE_CELLS", 40 * 400 + 1)
            monkeypatch.setattr(floors, "INFLUENCE_FLOPS", 40 * 40 * 400 + 1)
        classes, n_runs = (3 if "three" in n_runs else 2), 40
    else:
        classes = 2
    df = shared_test_set(n_runs=n_runs, k=classes)
    kwargs = {"pool": "fold", "example": "example_id", "paired": paired, "seed": 3}
    board = be.leaderboard(df, **kwargs)
    gaps = be.leaderboard(df.with_columns(pl.col("example_id") * 3 + 5), **kwargs)
    assert board.equals(gaps) and board["rank_ci_low"].is_not_null().all()
    # and on a board with the gaps' own examples left out of one run
    holes = df.filter((pl.col("run") != 1) | (pl.col("example_id") % 7 != 0))
    assert be.leaderboard(holes, **kwargs).equals(
        be.leaderboard(holes.with_columns(pl.col("example_id") * 3 + 5), **kwargs)
    )


@pytest.mark.parametrize("design", ["unpaired", "paired", "clustered", "adjacent"])
def test_the_board_does_not_depend_on_the_order_of_the_rows(design: str) -> None:
    """Shuffled rows give the same board, draws included: counts and cells are laid out by key."""
    df = shared_test_set(n_runs=40, k=3 if design == "clustered" else 2)
    kwargs: dict = {"pool": "fold", "seed": 3}
    if design != "unpaired":
        kwargs["example"] = "example_id"
    if design == "adjacent":
        kwargs |= {"adjacent": True, "paired": "delta"}
    if design == "clustered":  # every example scored under three seeds that keep 90 % of its predictions
        rng = np.random.default_rng(1)
        noisy = [
            df.with_columns(
                pl.lit(s).alias("seed"),
                pl.when(pl.Series(rng.random(df.height) < 0.1))
                .then(pl.Series(rng.integers(0, 3, df.height)))
                .otherwise(pl.col("prediction"))
                .cast(df["prediction"].dtype)
                .alias("prediction"),
            )
            for s in range(3)
        ]
        df, kwargs["pool"] = pl.concat(noisy), ["seed", "fold"]
    board = be.leaderboard(df, **kwargs)
    assert board.equals(be.leaderboard(df.sample(fraction=1.0, shuffle=True, seed=9), **kwargs))


@pytest.mark.parametrize(
    "measure", ["mcc", "balanced_accuracy", "macro_f1", "weighted_f1", "mutual_information"]
)
def test_paired_boards_rank_by_the_measures_of_any_number_of_classes(measure):
    # measures defined for any K (mcc, the macro and weighted averages, mutual information)
    # ranked a binary board unpaired, but a paired one failed in the bootstrap with a numpy
    # error (stop 43); the values are scikit-learn's, and the paired board's equal the unpaired
    from sklearn import metrics

    sk = {
        "mcc": metrics.matthews_corrcoef,
        "balanced_accuracy": metrics.balanced_accuracy_score,
        "macro_f1": lambda y, p: metrics.f1_score(y, p, average="macro"),
        "weighted_f1": lambda y, p: metrics.f1_score(y, p, average="weighted"),
        "mutual_information": lambda y, p: metrics.mutual_info_score(y, p) / math.log(2),
    }[measure]
    rng = np.random.default_rng(7)
    n = 80
    y = rng.integers(0, 2, n)
    preds = [np.where(rng.random(n) < s, y, rng.integers(0, 2, n)) for s in (0.9, 0.6, 0.1)]
    df = pl.concat(
        pl.DataFrame({"run": r, "example_id": np.arange(n), "label": y, "prediction": p})
        for r, p in enumerate(preds)
    )
    column = measure
    unpaired = be.leaderboard(df, measure=measure).sort("run")
    paired = be.leaderboard(df, measure=measure, example="example_id").sort("run")
    expected = [sk(y, p) for p in preds]
    np.testing.assert_allclose(paired[column].to_numpy(), expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(paired[column].to_numpy(), unpaired[column].to_numpy())
    p = paired.sort(column, descending=True)["p_vs_leader"].to_list()
    assert math.isnan(p[0]) and 0 <= p[1] <= 1 and p[2] < 1e-3


def test_a_paired_board_without_rank_intervals_says_why():
    rng = np.random.default_rng(7)
    n = 80
    y = rng.integers(0, 2, n)
    df = pl.concat(
        pl.DataFrame(
            {"run": r, "example_id": np.arange(n), "label": y, "prediction": y ^ (rng.random(n) < e)}
        )
        for r, e in enumerate((0.1, 0.3))
    )
    with pytest.warns(be.BatchevalWarning, match="'macro_f1' has no delta-method influence") as record:
        board = be.leaderboard(df, measure="macro_f1", example="example_id")
    assert "too large" not in str(record[0].message)
    assert board["rank_ci_low"].null_count() == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # informedness has one: rank intervals, no warning
        board = be.leaderboard(df, example="example_id")
    assert board["rank_ci_low"].null_count() == 0


def test_a_run_whose_measure_is_undefined_has_no_rank():
    # precision of a run that never predicts the positive class is undefined (0/0): it was ranked
    # after every other run with a rank of its own, and on a board of such runs 1, 2, 3 (stop 43)
    never = [0, 0, 0, 0]
    df = pl.DataFrame({"run": [0] * 4 + [1] * 4 + [2] * 4, "label": [0, 1, 0, 1] * 3,
                       "prediction": [0, 1, 1, 1, 0, 1, 0, 0, *never]})  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", be.BatchevalWarning)
        board = be.leaderboard(df, measure="precision")
        lone = df.filter(pl.col("run") == 2)
        both = pl.concat([lone, lone.with_columns(run=pl.lit(3, pl.Int64))])
        empty = be.leaderboard(both, measure="precision")
    assert board.select("run", "rank").rows() == [(1, 1), (0, 2), (2, None)]
    assert empty["rank"].null_count() == 2


def _pair_board(label: list[int], lead: list[int], run: list[int]) -> pl.DataFrame:
    ids = range(len(label))
    return pl.concat([
        pl.DataFrame({"run": "lead", "example": ids, "label": label, "prediction": lead}),
        pl.DataFrame({"run": "run", "example": ids, "label": label, "prediction": run}),
    ])  # fmt: skip


def _swap_mid_p(
    stat: Callable[[np.ndarray, np.ndarray], float], label: np.ndarray, a: np.ndarray, b: np.ndarray
) -> float:
    """The two-sided mid-p value of the paired swap test, over all 2^d swaps of the d examples
    whose predictions differ (plain enumeration)."""
    observed = abs(stat(label, b) - stat(label, a))
    where = np.flatnonzero(a != b)
    above = same = 0
    for mask in itertools.product([False, True], repeat=len(where)):
        x, y = a.copy(), b.copy()
        flip = where[list(mask)]
        x[flip], y[flip] = b[flip], a[flip]
        d = abs(stat(label, y) - stat(label, x))
        above += d > observed + 1e-12
        same += abs(d - observed) <= 1e-12
    return (above + 0.5 * same) / 2.0 ** len(where)


def _kappa(label: np.ndarray, pred: np.ndarray) -> float:
    c = np.zeros((3, 3))
    np.add.at(c, (label, pred), 1)
    c /= c.sum()
    chance = c.sum(axis=1) @ c.sum(axis=0)
    return (np.trace(c) - chance) / (1.0 - chance)


def _phi(label: np.ndarray, pred: np.ndarray) -> float:
    if pred.std() == 0:
        return 0.0
    return float(np.corrcoef(label, pred)[0, 1])


@pytest.mark.parametrize(
    ("measure", "kwargs"),
    [("mcc", {}), ("mcc", {"ci_method": "bootstrap"}), ("correlation", {"ci_method": "bootstrap"})],
)
def test_p_vs_leader_is_not_zero_where_the_spread_is_float_noise(measure: str, kwargs: dict) -> None:
    # a perfect and an inverted run: each bootstrap spread is 3.4e-16, float noise that passed
    # the se > 0 guard, and p_vs_leader was exactly 0 on ten examples
    label = [1, 0] * 5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        board = be.leaderboard(_pair_board(label, label, [1 - x for x in label]), measure=measure, **kwargs)
        paired = be.leaderboard(
            _pair_board(label, label, [1 - x for x in label]), measure=measure, example="example", **kwargs
        )
    # no split of the 20 pooled examples is rarer than 1 in C(20, 10)
    assert board["p_vs_leader"][1] >= 1.0 / math.comb(20, 10) - 1e-18
    exact = _swap_mid_p(_phi, np.array(label), np.array(label), 1 - np.array(label))
    assert paired["p_vs_leader"][1] >= exact - 1e-15


@pytest.mark.parametrize("kwargs", [{"paired": "delta"}, {"ci_method": "bootstrap"}, {}])
def test_multiclass_paired_p_vs_leader_is_never_below_the_swap_test(kwargs: dict) -> None:
    # 12 examples of 3 classes, every one discordant: the normal p-value of z ≈ 48 was 0
    label = np.array([0, 1, 2] * 4)
    shifted = (label + 1) % 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        board = be.leaderboard(
            _pair_board(label.tolist(), label.tolist(), shifted.tolist()),
            measure="kappa_cohen", example="example", **kwargs,
        )  # fmt: skip
    exact = _swap_mid_p(_kappa, label, label, shifted)
    assert exact > 0.0
    assert board["p_vs_leader"][1] >= exact - 1e-15


@pytest.mark.parametrize(
    ("measure", "same"),
    [("macro_informedness", "informedness"), ("mcc", "correlation"), ("macro_markedness", "markedness"),
     ("weighted_recall", "accuracy")],
)  # fmt: skip
def test_binary_equivalents_take_the_same_paired_test(measure: str, same: str) -> None:
    # balanced_accuracy went to the normal p-value alone, 0.0003 where informedness's exact
    # test (and auc_single's) gives 1/32 on five discordant examples
    label = np.array([1, 0] * 5)
    rng = np.random.default_rng(3)
    for run in (np.ones(10, dtype=np.int64), np.where(rng.random(10) < 0.3, 1 - label, label)):
        df = _pair_board(label.tolist(), label.tolist(), run.tolist())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = be.leaderboard(df, measure=measure, example="example")["p_vs_leader"][1]
            want = be.leaderboard(df, measure=same, example="example")["p_vs_leader"][1]
        assert got == pytest.approx(want, rel=1e-12)
        assert got >= 2.0 ** -int((run != label).sum()) - 1e-15


def _skill_board(n_runs: int = 6, n: int = 300, seed: int = 1) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, n)
    return pl.concat([
        pl.DataFrame({
            "run": r, "ex": np.arange(n), "label": label,
            "prediction": np.where(rng.random(n) < 0.3 + 0.08 * r, label, rng.integers(0, 2, n)),
        })
        for r in range(n_runs)
    ])  # fmt: skip


def _same_board(got: pl.DataFrame, want: pl.DataFrame, measure: str, same: str, skip: set[str]) -> None:
    """``got`` (ranked by ``measure``) is ``want`` (by ``same``) with the measure's columns renamed,
    floats to their last bits (mcc and correlation are two formulas), and the same metadata."""
    assert got.metadata == want.metadata  # type: ignore[attr-defined]
    named = {c: measure + c.removeprefix(same) if c.startswith(same) else c for c in want.columns}
    assert got.columns == list(named.values())
    for name in want.columns:
        if name in skip:
            continue
        a, b = got[named[name]], want[name]
        if b.dtype == pl.Float64:
            np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), rtol=1e-12, atol=1e-15, err_msg=name)
        else:
            assert a.to_list() == b.to_list(), name


#: paired (bootstrap; delta with adjacent), unpaired, unpaired with bootstrap standard errors
_BOARD_KINDS = [
    {"example": "ex"}, {"example": "ex", "paired": "delta", "adjacent": True}, {}, {"ci_method": "bootstrap"},
]  # fmt: skip


@pytest.mark.parametrize("kwargs", _BOARD_KINDS)
def test_binary_mcc_board_is_the_correlation_board(kwargs: dict) -> None:
    # mcc equals correlation on every binary table (scikit-learn's matthews_corrcoef), so its board
    # is correlation's: mcc's paired p-values read the multinomial bootstrap (p_best 0.39 against
    # 0.20), it had no rank intervals, and paired="delta" refused it
    from sklearn.metrics import matthews_corrcoef

    df = _skill_board()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = be.leaderboard(df, measure="mcc", **kwargs)
        want = be.leaderboard(df, measure="correlation", **kwargs)
    _same_board(got, want, "mcc", "correlation", set())
    by_run = {r: df.filter(pl.col("run") == r) for r in range(6)}
    sk = [matthews_corrcoef(by_run[r]["label"], by_run[r]["prediction"]) for r in got["run"]]
    np.testing.assert_allclose(got["mcc"].to_numpy(), sk, rtol=1e-12)
    if "example" in kwargs:
        assert got["rank_ci_high"].null_count() == 0


@pytest.mark.parametrize(
    ("measure", "same"),
    [("macro_markedness", "markedness"), ("macro_informedness", "informedness"),
     ("weighted_recall", "accuracy")],
)  # fmt: skip
@pytest.mark.parametrize("kwargs", _BOARD_KINDS[:3])
def test_binary_equivalents_take_every_test_of_their_measure(measure: str, same: str, kwargs: dict) -> None:
    # p_vs_leader, p_best and the rank intervals of the equivalent: macro_markedness's paired
    # p-values were its own multinomial bootstrap's, and its rank intervals null; the interval
    # columns stay the measure's own (the bootstrap for these, a closed form for their equivalents)
    df = _skill_board()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = be.leaderboard(df, measure=measure, **kwargs)
        want = be.leaderboard(df, measure=same, **kwargs)
    _same_board(got, want, measure, same, {f"{same}_ci_low", f"{same}_ci_high"})


def _seeded_board(n_classes: int = 2, n_runs: int = 4, n: int = 60, seed: int = 29) -> pl.DataFrame:
    """Runs scoring the same ``n`` examples (in clusters of 3, ``cl``) under two seeds."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, n_classes, n)
    return pl.concat([
        pl.DataFrame({
            "run": r, "seed": s, "ex": np.arange(n), "cl": np.arange(n) // 3, "label": label,
            "prediction": np.where(rng.random(n) < 0.5 + 0.1 * r, label, rng.integers(0, n_classes, n)),
        })
        for r in range(n_runs)
        for s in range(2)
    ])  # fmt: skip


#: clustered boards: examples repeated over seeds, and examples in clusters
_CLUSTERED_KINDS = [{"pool": "seed", "example": "ex"}, {"example": "ex", "cluster": "cl", "adjacent": True}]


@pytest.mark.parametrize(
    ("measure", "same"),
    [("mcc", "correlation"), ("macro_informedness", "informedness"), ("macro_markedness", "markedness"),
     ("weighted_recall", "accuracy")],
)  # fmt: skip
@pytest.mark.parametrize("kwargs", _CLUSTERED_KINDS)
def test_binary_equivalents_rank_a_clustered_board_as_their_measure(
    measure: str, same: str, kwargs: dict
) -> None:
    # the clustered board refused them ("measure 'mcc' cannot rank runs whose examples repeat or come
    # in clusters"), checking the measure asked for rather than the one tested, while the paired and
    # unpaired boards take the equivalent's tests; its interval is the equivalent's cluster-robust
    # one, which evaluate gives binary mcc (binary mcc is correlation: scikit-learn's matthews_corrcoef)
    from sklearn import metrics

    df = _seeded_board()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = be.leaderboard(df, run="run", measure=measure, **kwargs)
        want = be.leaderboard(df, run="run", measure=same, **kwargs)
        units = {k: v for k, v in kwargs.items() if k != "adjacent"}
        shown = be.evaluate(df, by="run", ci=0.95, measures=["mcc"], **units).sort("run")
    _same_board(got, want, measure, same, set())
    assert got["p_vs_leader"].drop_nans().len() == 3 and got["rank_ci_high"].null_count() == 0
    score = {
        "mcc": metrics.matthews_corrcoef,
        "macro_informedness": lambda y, p: 2 * metrics.balanced_accuracy_score(y, p) - 1,
        "macro_markedness": lambda y, p: metrics.precision_score(y, p, average="macro") * 2 - 1,
        "weighted_recall": lambda y, p: metrics.recall_score(y, p, average="weighted"),
    }[measure]
    rows = {r: df.filter(pl.col("run") == r) for r in range(4)}
    np.testing.assert_allclose(
        got[measure].to_numpy(),
        [score(rows[r]["label"], rows[r]["prediction"]) for r in got["run"]],
        rtol=1e-12,
    )
    if measure == "mcc":  # the board's interval is evaluate's
        board = got.sort("run")
        for end in ("ci_low", "ci_high"):
            np.testing.assert_allclose(
                board[f"mcc_{end}"].to_numpy(), shown[f"mcc_{end}"].to_numpy(), rtol=1e-12
            )


@pytest.mark.parametrize("measure", ["mcc", "macro_informedness"])
@pytest.mark.parametrize("kwargs", _CLUSTERED_KINDS)
def test_a_clustered_board_of_three_classes_still_refuses_mcc(measure: str, kwargs: dict) -> None:
    # with three classes they are their own measures, with no cluster-robust comparison
    df = _seeded_board(n_classes=3)
    message = (
        f"measure '{measure}' cannot rank runs whose examples repeat or come in clusters: it has no "
        "cluster-robust comparison for 3 classes; measures with one: "
        "['accuracy', 'informedness', 'markedness', 'correlation', 'kappa_cohen']"
    )
    with pytest.raises(be.UnknownMeasureError, match=f"^{re.escape(message)}$"):
        be.leaderboard(df, run="run", measure=measure, **kwargs)


@pytest.mark.parametrize("measure", ["balanced_accuracy", "macro_recall", "macro_precision"])
def test_macro_recall_and_precision_are_not_taken_for_informedness_or_markedness(measure: str) -> None:
    # (1 + markedness)/2 is macro_precision only where both classes are predicted: a majority
    # baseline (markedness 0, macro_precision 0.87) against a coin (0.48) got markedness's p 0.53
    from sklearn import metrics

    rng = np.random.default_rng(5)
    label = (rng.random(300) < 0.13).astype(np.int64)
    coin = rng.integers(0, 2, 300)
    df = _pair_board(label.tolist(), np.zeros(300, dtype=np.int64).tolist(), coin.tolist())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        board = be.leaderboard(df, measure=measure, example="example").sort("run")

    def score(y: np.ndarray, p: np.ndarray) -> float:
        if measure == "macro_precision":
            return float(metrics.precision_score(y, p, average="macro", zero_division=np.nan))
        return float(metrics.balanced_accuracy_score(y, p))

    base, other = score(label, np.zeros(300, dtype=np.int64)), score(label, coin)
    # the sign-flip (swap) test of the pair, by Monte Carlo: swap each example's two predictions
    swaps = rng.random((400, 300)) < 0.5
    observed = abs(other - base)
    diffs = [
        abs(score(label, np.where(w, 0, coin)) - score(label, np.where(w, coin, 0))) for w in swaps[:400]
    ]
    p_mc = (1 + sum(d >= observed - 1e-12 for d in diffs)) / (1 + len(diffs))
    p = board.filter(pl.col("diff_vs_leader") != 0)["p_vs_leader"][0]
    if measure == "macro_precision":  # the baseline leads; the coin is far below it
        assert base > other + 0.3 and p_mc <= 0.0025 and p < 0.01
    assert p >= 2.0 ** -int((coin != 0).sum())


@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_binary_f1_averages_are_never_below_the_swap_test(average: str) -> None:
    from sklearn import metrics

    label = np.array([1, 0] * 5)
    run = np.ones(10, dtype=np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        board = be.leaderboard(_pair_board(label.tolist(), label.tolist(), run.tolist()),
                               measure=f"{average}_f1", example="example")  # fmt: skip

    def f1(y: np.ndarray, p: np.ndarray) -> float:
        return float(metrics.f1_score(y, p, average=average, zero_division=0.0))

    assert board["p_vs_leader"][1] >= _swap_mid_p(f1, label, label, run) - 1e-15


def test_labels_that_differ_between_runs_are_refused() -> None:
    # the same ids, ten labels changed in run b's file: the board compared the two as if on one
    # test set (a difference of 0 and p 1 next to accuracies of 0.875 and 0.725)
    n = 40
    label = np.array([0, 1] * 20)
    pred = np.where(np.random.default_rng(0).random(n) < 0.9, label, 1 - label)
    other = label.copy()
    other[[3, 17]] = 1 - other[[3, 17]]
    df = pl.concat([
        pl.DataFrame({"run": "a", "example": np.arange(n), "label": label, "prediction": pred}),
        pl.DataFrame({"run": "b", "example": np.arange(n), "label": other, "prediction": pred}),
    ])  # fmt: skip
    with pytest.raises(
        be.errors.InvalidLabelError, match=r"label column 'label' differs between runs for 2 examples: 3, 17;"
    ):
        be.leaderboard(df, example="example")
    be.leaderboard(df)  # unpaired, each run is scored against its own labels


@pytest.mark.parametrize("seed", range(12))
def test_label_check_of_the_cells_equals_a_check_of_every_pair(seed) -> None:
    from batcheval.kernels.leaderboard import binary_labels_differ, binary_planes, labels_differ

    # cells as the dense board fills them: real * k + predicted + 1, 0 where a run lacks the example
    rng = np.random.default_rng(seed)
    k, runs, n_ex = 2 + seed % 3, int(rng.integers(1, 6)), int(rng.integers(1, 200))
    real = np.tile(rng.integers(0, k, n_ex), (runs, 1))
    if seed % 2:
        real[rng.integers(runs), rng.integers(n_ex)] = rng.integers(0, k)  # maybe a different label
    held = rng.random((runs, n_ex)) < 0.8
    cells = np.where(held, real * k + rng.integers(0, k, (runs, n_ex)) + 1, 0).astype(np.int8)
    differs = any(len(set(real[held[:, e], e])) > 1 for e in range(n_ex))
    assert labels_differ(cells.ravel(), n_ex, k) == differs
    if k == 2:  # the binary boards' bit planes, 64 examples a word
        planes = np.empty((runs, 3, (n_ex + 63) // 64), dtype=np.uint64)
        binary_planes(cells.ravel(), n_ex, 1, np.empty((runs, 5), dtype=np.int64), planes)
        assert binary_labels_differ(planes) == differs


def test_three_class_board_with_agreeing_labels_passes_the_label_check() -> None:
    rng = np.random.default_rng(4)
    label = rng.integers(0, 3, 60)
    frames = [pl.DataFrame({"run": r, "example": np.arange(60), "label": label,
                            "prediction": np.where(rng.random(60) < 0.7, label, rng.integers(0, 3, 60))})
              for r in "abc"]  # fmt: skip
    board = be.leaderboard(pl.concat(frames), example="example")
    assert board["n"].to_list() == [60, 60, 60]
    changed = pl.concat(frames).with_columns(
        pl.when((pl.col("run") == "c") & (pl.col("example") == 7)).then((pl.col("label") + 1) % 3)
        .otherwise(pl.col("label")).alias("label")
    )  # fmt: skip
    with pytest.raises(be.errors.InvalidLabelError, match="differs between runs for 1 example: 7;"):
        be.leaderboard(changed, example="example")


def test_null_example_ids_are_refused() -> None:
    # every null id was paired as one example
    df = pl.DataFrame({
        "run": ["a"] * 4 + ["b"] * 4, "example": [0, 1, None, 3] * 2, "label": [1, 0] * 4,
        "prediction": [1, 0, 1, 1, 1, 0, 1, 0],
    })  # fmt: skip
    with pytest.raises(
        be.errors.InvalidArgumentError, match=r"example column 'example' holds 2 null\(s\) \(first at row 2\)"
    ):
        be.leaderboard(df, example="example")


def test_a_single_cluster_excludes_no_run() -> None:
    # 12 questions about one passage: one independent unit, so no spread and no p_vs_leader; the
    # variance floor alone left the second run out of the best set (p_best 0.01)
    label = [0, 1] * 6
    df = pl.DataFrame({"passage": ["p1"] * 12, "question": range(12), "label": label, "prediction": label})
    board = pl.concat([
        df.with_columns(run=pl.lit("x")),
        df.with_columns(run=pl.lit("y"), prediction=pl.lit(1).cast(pl.Int64)),
    ])  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = be.leaderboard(board, example="question", cluster="passage")
    assert out["p_vs_leader"].is_nan().all()
    assert out["could_be_best"].to_list() == [True, True]
    assert out["rank_ci_low"].to_list() == [1, 1] and out["rank_ci_high"].to_list() == [2, 2]


def test_measure_must_be_one_name() -> None:
    df = pl.DataFrame({"run": [1, 1, 2, 2], "label": [0, 1, 0, 1], "prediction": [0, 1, 1, 1]})
    with pytest.raises(
        be.errors.InvalidArgumentError, match=r"measure= takes one measure name, got \['informedness'\]"
    ):
        be.leaderboard(df, measure=["informedness"])


def test_unpaired_multiclass_p_vs_leader_is_never_below_a_permutation_test() -> None:
    # 12 examples of 3 classes each, a perfect and a shifted run: the bootstrap gave 0 (z of 10)
    label = [0, 1, 2] * 4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        board = be.leaderboard(
            _pair_board(label, label, [(x + 1) % 3 for x in label]),
            measure="informedness",
            ci_method="bootstrap",
        )
    assert board["p_vs_leader"][1] >= 1.0 / math.comb(24, 12) - 1e-18


@pytest.mark.parametrize("measure", ["f1", "jaccard", "mcc", "g_measure", "auc_single"])
def test_a_perfect_run_gets_evaluates_interval_not_a_point(measure) -> None:
    # the plain bootstrap of a perfect run's table is that table every time: f1 got [1, 1] and mcc
    # [0.9999999999999998, 1.0000000000000002] on ten examples, where evaluate gives [0.72, 1]
    label = [1, 0] * 5
    off = [0, 1, *label[2:]]
    df = pl.concat([
        pl.DataFrame({"run": "perfect", "example": range(10), "label": label, "prediction": label}),
        pl.DataFrame({"run": "two_off", "example": range(10), "label": label, "prediction": off}),
    ])  # fmt: skip
    board = be.leaderboard(df, measure=measure).sort("run")
    low, high = board[f"{measure}_ci_low"].to_list(), board[f"{measure}_ci_high"].to_list()
    assert low[0] < 0.9 and high[0] == 1.0  # not determined by ten examples
    assert all(lo <= v <= hi for lo, v, hi in zip(low, board[measure], high, strict=True))
    if measure in ("f1", "jaccard", "mcc"):  # closed forms: evaluate's to the last digit
        ev = be.evaluate(df, by="run", measures=[measure], ci=0.95).sort("run")
        assert low == ev[f"{measure}_ci_low"].to_list() and high == ev[f"{measure}_ci_high"].to_list()


def test_labels_that_differ_between_folds_say_to_name_the_fold_with_the_example() -> None:
    # ids restarting in each fold read as one example whose label changes: the message blamed the runs
    rng = np.random.default_rng(8)
    fold = np.repeat([0, 1], 20)
    df = pl.DataFrame({"fold": fold, "ex": np.tile(np.arange(20), 2), "label": rng.integers(0, 2, 40)})
    df = pl.concat([df.with_columns(run=pl.lit(r), prediction=pl.col("label")) for r in "ab"])
    with pytest.raises(be.errors.InvalidLabelError, match=re.escape(
        "differs between runs or pooled groups (pool=['fold'])"
    )) as caught:  # fmt: skip
        be.leaderboard(df, pool="fold", example="ex")
    assert "name both: example=['fold', 'ex']" in str(caught.value)
    board = be.leaderboard(df, pool="fold", example=["fold", "ex"])
    assert board["informedness"].to_list() == [1.0, 1.0]


@pytest.mark.parametrize("positive", [0, 2])
def test_positive_of_a_multiclass_board_ranks_that_class_against_the_rest(positive: int) -> None:
    # positive= was ignored with more than two classes (0, 2 and even 99 gave the multiclass
    # informedness): the board is of class `positive` against the rest, as evaluate's measures are
    from sklearn import metrics

    df = shared_test_set(n_runs=3, n_examples=120, seed=12, k=3)
    board = be.leaderboard(df, run="run", positive=positive, example="example_id")
    leader = board["run"][0]
    board = board.sort("run")
    lead_y, lead_p = (a == positive for a in _arrays(df, leader))
    recall = be.leaderboard(df, run="run", positive=positive, measure="recall").sort("run")
    ev = be.evaluate(df, by="run", measures=["informedness", "recall"], positive=positive, ci=0.95)
    for r in range(3):
        y, p = (a == positive for a in _arrays(df, r))
        # binary informedness is the adjusted balanced accuracy
        want = metrics.balanced_accuracy_score(y, p, adjusted=True)
        assert board["informedness"][r] == pytest.approx(want, rel=1e-12)
        assert recall["recall"][r] == pytest.approx(metrics.recall_score(y, p), rel=1e-12)
        if r != leader:  # McNemar's test of correctness at telling the class from the rest
            b = int(np.sum((lead_p == lead_y) & (p != y)))  # the leader alone right
            c = int(np.sum((lead_p != lead_y) & (p == y)))
            want_p = stats.binomtest(c, b + c, 0.5).pvalue
            assert board["p_mcnemar"][r] == pytest.approx(want_p, rel=1e-9)
    # the interval is evaluate's (the docs say the two share it)
    for name, frame in (("informedness", board), ("recall", recall)):
        for end in ("low", "high"):
            col = f"{name}_ci_{end}"
            np.testing.assert_array_equal(frame[col].to_numpy(), ev[col].to_numpy())
    unknown = re.escape("positive=99 is not one of the classes [0, 1, 2]")
    with pytest.raises(be.InvalidLabelError, match=unknown):
        be.leaderboard(df, run="run", positive=99)


def test_a_constant_run_s_best_set_membership_is_as_documented() -> None:
    # the Returns section said such a run is in the best set "with p_best 1"; exclude_loose
    # (paired) and the unpaired floors test it: the docstring now says what the board does
    rng = np.random.default_rng(4)
    n = 400
    label = rng.integers(0, 2, n)
    preds = [np.where(rng.random(n) < 0.95, label, 1 - label), np.zeros(n, dtype=np.int64),
             np.where(rng.random(n) < 0.6, label, 1 - label)]  # fmt: skip
    df = pl.concat([
        pl.DataFrame({"run": r, "ex": np.arange(n), "label": label, "prediction": p,
                      "passage": np.zeros(n, dtype=np.int64) if r == 1 else np.arange(n) // 20})
        for r, p in enumerate(preds)
    ])  # fmt: skip
    doc = " ".join(be.leaderboard.__doc__.split())
    assert "True, with ``p_best`` 1, where the measure is defined but its spread is not" not in doc
    assert "(R − 1)·p_vs_leader ≤ 1 − ci" in doc
    for measure in ("markedness", "correlation"):
        # paired: out where (R − 1)·p_vs_leader ≤ 1 − ci, p_best that product (R = 3)
        paired = be.leaderboard(df, run="run", measure=measure, example="ex").filter(pl.col("run") == 1)
        assert paired[measure].item() == 0.0
        p = paired["p_vs_leader"].item()
        assert 2 * p <= 0.05
        assert paired["p_best"].item() == pytest.approx(2 * p, rel=1e-12)
        assert paired["could_be_best"].item() is False
        # unpaired: tested through its floor as any other run, not given p_best 1
        unpaired = be.leaderboard(df, run="run", measure=measure).filter(pl.col("run") == 1)
        assert unpaired["p_best"].item() < 0.1
        # clustered, the run in one cluster: no spread to read, it stays with p_best 1
        one = be.leaderboard(df, run="run", measure=measure, cluster="passage").filter(pl.col("run") == 1)
        assert (one["could_be_best"].item(), one["p_best"].item()) == (True, 1.0)


@pytest.mark.parametrize("bad", ["no", None, 2, "False"])
def test_adjacent_takes_true_or_false(bad: object) -> None:
    # adjacent="no" was read as True (diff_vs_above and p_vs_above added): refused as drop_nulls= is
    df = shared_test_set(n_runs=2, n_examples=40)
    message = re.escape(f"adjacent= takes True or False, got {bad!r}")
    with pytest.raises(be.InvalidArgumentError, match=message):
        be.leaderboard(df, run="run", adjacent=bad)
    columns = be.leaderboard(df, run="run", adjacent=np.False_).columns
    assert columns == be.leaderboard(df, run="run").columns
    assert {"diff_vs_above", "p_vs_above"} <= set(be.leaderboard(df, run="run", adjacent=1).columns)


@pytest.mark.parametrize("k", [2, 3])
def test_p_mcnemar_is_nan_for_runs_that_share_no_example(k: int) -> None:
    # a run that shares no example with the leader (n_paired 0) had p_mcnemar 1.0 where its
    # p_vs_leader is NaN; both are NaN, and so is p_mcnemar_vs_above against a run above it
    # that shares none. Runs that share examples keep scipy's exact binomial test.
    rng = np.random.default_rng(13)
    label = rng.integers(0, k, 60)
    keep = {0: np.arange(30), 1: np.arange(60), 2: np.arange(30, 60)}  # runs 0 and 2 share nothing
    df = pl.concat([
        pl.DataFrame({"run": r, "ex": keep[r], "label": label[keep[r]],
                      "prediction": np.where(rng.random(len(keep[r])) < q, label[keep[r]],
                                             rng.integers(0, k, len(keep[r])))})
        for r, q in ((0, 0.95), (1, 0.3), (2, 0.8))
    ])  # fmt: skip
    board = be.leaderboard(df, run="run", example="ex", adjacent=True)
    assert board["run"].to_list() == [0, 2, 1]
    right = {}  # each run's prediction per example id
    for r in range(3):
        part = df.filter(pl.col("run") == r)
        right[r] = dict(zip(part["ex"].to_list(), part["prediction"].to_list(), strict=True))

    def exact(ref: int, run: int) -> float:
        shared = sorted(set(right[ref]) & set(right[run]))
        b = sum(right[ref][e] == label[e] and right[run][e] != label[e] for e in shared)
        c = sum(right[ref][e] != label[e] and right[run][e] == label[e] for e in shared)
        return stats.binomtest(c, b + c, 0.5).pvalue

    row = {r: board.filter(pl.col("run") == r) for r in range(3)}
    assert row[2]["n_paired"].item() == 0
    assert math.isnan(row[2]["p_vs_leader"].item())
    assert math.isnan(row[2]["p_mcnemar"].item())
    assert math.isnan(row[2]["p_mcnemar_vs_above"].item())  # run 0 is above it
    assert row[1]["n_paired"].item() == 30
    assert row[1]["p_mcnemar"].item() == pytest.approx(exact(0, 1), rel=1e-9)
    assert row[1]["p_mcnemar_vs_above"].item() == pytest.approx(exact(2, 1), rel=1e-9)


def test_of_runs_tied_for_the_top_the_first_by_key_is_the_leader_the_others_compare_with():
    # documented since a hunt found that swapping two tied leaders' names changed a third run's
    # p_vs_leader (0.5 against 0.81): the leader is the first of them in key order, and the exact
    # McNemar p-value is that of the third run against it (scipy's binomial test)
    y = np.array([1] * 20 + [0] * 20)
    a = y.copy()
    a[:4], a[20:24] = 0, 1  # informedness 0.6
    b = y.copy()
    b[4:8], b[24:28] = 0, 1  # informedness 0.6, erring on other examples
    c = a.copy()
    c[8] = 0  # a with one more error: 0.55
    for names in (["A", "B", "C"], ["B", "A", "C"]):
        df = pl.concat([pl.DataFrame({"run": n, "example": np.arange(40), "label": y, "prediction": p})
                        for n, p in zip(names, (a, b, c), strict=True)])  # fmt: skip
        board = be.leaderboard(df, example="example", adjacent=True)
        assert board["run"].to_list() == ["A", "B", "C"]
        leader = a if names[0] == "A" else b
        third = board.row(2, named=True)
        only_leader = int(((leader == y) & (c != y)).sum())
        only_third = int(((leader != y) & (c == y)).sum())
        assert (third["n_leader_only"], third["n_run_only"]) == (only_leader, only_third)
        want = stats.binomtest(only_third, only_leader + only_third).pvalue
        assert third["p_mcnemar"] == pytest.approx(want, abs=1e-12)


def test_a_run_whose_measure_is_undefined_is_left_out_of_the_others_rank_intervals():
    # the docstring said every other run's interval reached one place lower for it; it is not
    # ranked, and the other runs' columns are those of the board without it
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 40)
    preds = {0: np.where(rng.random(40) < 0.95, y, 1 - y), 1: np.where(rng.random(40) < 0.5, y, 1 - y),
             2: np.where(rng.random(40) < 0.1, y, 1 - y), 3: np.zeros(40, int)}  # fmt: skip
    df = pl.concat([pl.DataFrame({"run": r, "example": np.arange(40), "label": y, "prediction": p})
                    for r, p in preds.items()])  # fmt: skip
    cols = ["run", "rank", "precision", "could_be_best", "rank_ci_low", "rank_ci_high"]
    board = be.leaderboard(df, measure="precision", seed=0).select(cols)
    without = be.leaderboard(df.filter(pl.col("run") != 3), measure="precision", seed=0).select(cols)
    last = board.row(3, named=True)
    assert last["run"] == 3 and math.isnan(last["precision"])
    assert [last[c] for c in ("rank", "could_be_best", "rank_ci_low", "rank_ci_high")] == [None] * 4
    assert board.head(3).equals(without)


def test_null_run_keys_that_repeat_examples_are_named():
    """Rows of several runs with a null run key form one run, whose repeated examples were blamed
    on fold-restarting ids; the error now names the null key."""
    lab = [0, 1] * 6
    df = pl.DataFrame({"run": np.repeat(["a", "b", "c"], 12), "example": np.tile(np.arange(12), 3),
                       "label": np.tile(lab, 3), "prediction": np.tile(lab, 3)})  # fmt: skip
    holes = df.with_columns(pl.when(pl.col("example") < 3).then(None).otherwise(pl.col("run")).alias("run"))
    with pytest.raises(RepeatedExampleError, match=r"run \{'run': None\}.*the run key 'run' is null.*fold"):
        be.leaderboard(holes, measure="accuracy", example="example")
    # one of two run keys null: the null hint, and the fold hint beside it (the rows may repeat
    # for that reason instead)
    two = holes.with_columns(pl.lit("m").alias("model"))
    with pytest.raises(RepeatedExampleError, match=r"the run key 'run' is null .*; or if ids restart"):
        be.leaderboard(two, run=["model", "run"], measure="accuracy", example="example")
    with pytest.raises(RepeatedExampleError, match="include the fold"):
        be.leaderboard(pl.concat([df, df.head(1)]), measure="accuracy", example="example")


def test_examples_repeated_over_seeds_are_told_to_name_the_seed_in_pool():
    # the only hint was to include the fold, which a user following it got again with the fold in
    # the example key; the cause was the seeds, which pool= makes one cluster per example
    lab = [0, 1] * 10
    one = pl.DataFrame(
        {"fold": np.repeat([0, 1], 10), "example": np.arange(20), "label": lab, "prediction": lab}
    )
    df = pl.concat(
        one.with_columns(run=pl.lit(r), seed=pl.lit(s)) for r in ("a", "b") for s in range(3)
    )  # fmt: skip
    with pytest.raises(RepeatedExampleError, match=r"60 of its 60 rows .*include the fold.*pool=\['seed'\]"):
        be.leaderboard(df, measure="accuracy", example="example")
    with pytest.raises(RepeatedExampleError) as caught:
        be.leaderboard(df, measure="accuracy", example=["fold", "example"])
    assert "include the fold" not in str(caught.value) and "pool=['seed']" in str(caught.value)
    board = be.leaderboard(df, measure="accuracy", pool="seed", example="example")
    assert board["n"].to_list() == [60, 60] and board["accuracy"].to_list() == [1.0, 1.0]
