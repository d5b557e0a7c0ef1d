"""Paired boards whose run key and class ranges come from a sample (``comparisons.count_board``):
a value outside the sampled range at a row the sample skips must give the board of the exact
ranges (the fill runs again), checked against the same rows in another order and numpy counts."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import batcheval as be
from batcheval.core.encode import CLASS_SAMPLE, KEY_GUESS_ROWS
from batcheval.errors import InvalidLabelError
from batcheval.inference import comparisons
from batcheval.inference.comparisons import RepeatedExampleError
from batcheval.inference.leaderboard import MAX_RANKED_CLASSES

# 1,050,000 rows: over KEY_GUESS_ROWS, so the run key's range is guessed (few runs of many examples:
# the board's pairwise selection, not what is tested here, costs little)
RUNS, EXAMPLES = 210, 5000
#: a row the evenly spaced sample skips (rows at multiples of n // CLASS_SAMPLE, and the last)
ODD_ROW = 100 * EXAMPLES + 7


def _frame() -> pl.DataFrame:
    rng = np.random.default_rng(5)
    label = (rng.random(EXAMPLES) < 0.4).astype(np.int8)
    skill = rng.uniform(0.0, 0.8, RUNS)[:, None]
    pred = np.where(rng.random((RUNS, EXAMPLES)) < skill, label, rng.integers(0, 2, (RUNS, EXAMPLES)))
    return pl.DataFrame({
        "run": np.repeat(np.arange(RUNS, dtype=np.int32), EXAMPLES),
        "example_id": np.tile(np.arange(EXAMPLES, dtype=np.int32), RUNS),
        "label": np.tile(label, RUNS),
        "prediction": pred.ravel().astype(np.int8),
    })  # fmt: skip


def _set(df: pl.DataFrame, column: str, value: int) -> pl.DataFrame:
    at = pl.int_range(pl.len()) == ODD_ROW
    return df.with_columns(
        pl.when(at).then(value).otherwise(pl.col(column)).cast(df[column].dtype).alias(column)
    )


def _first(df: pl.DataFrame) -> pl.DataFrame:
    """The odd row moved to row 0, which the sample always reads."""
    return pl.concat([df[ODD_ROW : ODD_ROW + 1], df[:ODD_ROW], df[ODD_ROW + 1 :]])


def _fills(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    fill = comparisons._lb.fill_cells

    def counted(*args):
        calls.append(1)
        return fill(*args)

    monkeypatch.setattr(comparisons._lb, "fill_cells", counted)
    return calls


def test_the_sample_skips_the_odd_row() -> None:
    n = RUNS * EXAMPLES
    assert n >= KEY_GUESS_ROWS
    assert ODD_ROW % max(1, n // CLASS_SAMPLE) != 0 and ODD_ROW != n - 1


OUTSIDE = [
    ("run", 500),
    ("run", -40),
    ("prediction", 2),
    ("label", -3),
    ("example_id", 9000),
    ("example_id", -700),
]


@pytest.mark.parametrize(("column", "value"), OUTSIDE)
def test_a_value_outside_the_sampled_range_gives_the_exact_board(
    monkeypatch: pytest.MonkeyPatch, column: str, value: int
) -> None:
    df = _set(_frame(), column, value)
    if column == "label":  # one run's label for an example differs from the others'
        with pytest.raises(InvalidLabelError, match=r"differs between runs for 1 example: 7;"):
            be.leaderboard(df, example="example_id", paired="delta", adjacent=True)
        column = "prediction"  # the same third class, where one run may hold it
        df = _set(_frame(), column, value)
    calls = _fills(monkeypatch)
    board = be.leaderboard(df, example="example_id", paired="delta", adjacent=True)
    assert len(calls) == 2  # the guessed fill left a row out, so the board was filled again
    calls.clear()
    moved = be.leaderboard(_first(df), example="example_id", paired="delta", adjacent=True)
    assert len(calls) == 1  # the sample held the value: one fill
    assert board.equals(moved)
    # each run's n against numpy's count of its rows
    runs, sizes = np.unique(df["run"].to_numpy(), return_counts=True)
    got = dict(zip(board["run"].to_list(), board["n"].to_list(), strict=True))
    assert got == dict(zip(runs.tolist(), sizes.tolist(), strict=True))
    if column in ("label", "prediction"):  # a third class: one run holds it once
        assert sorted(set(df[column].unique().to_list())) == sorted({0, 1, value})
    if column == "example_id":  # run 100 scored a new example for its example 7: one fewer paired
        paired = dict(zip(board["run"].to_list(), board["n_paired"].to_list(), strict=True))
        leader = board["run"][0]
        assert paired[100] == (EXAMPLES if leader == 100 else EXAMPLES - 1)


def test_a_repeated_example_at_an_unsampled_row_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    df = _set(_frame(), "example_id", 6)  # run 100's example 7 becomes a second example 6
    with pytest.raises(RepeatedExampleError, match=r"'run': 100\b"):
        be.leaderboard(df, example="example_id", paired="delta")


@pytest.mark.parametrize("key", [2**62, -(2**62), -(2**63)])
def test_a_far_key_cannot_wrap_onto_another_runs_empty_cell(key: int) -> None:
    # int64 keys that are multiples of 2⁶⁴ / gcd(E, 2⁶⁴): scaled by E before clamping they wrap
    # onto run 0's cells. Run 0 lacks the stray row's example, so the wrapped row would fill an
    # empty cell and every row would seem to have filled one: the board must still count it apart.
    df = _frame().with_columns(pl.col("run").cast(pl.Int64))
    hole = (pl.col("run") == 0) & (pl.col("example_id") == 300)
    df = df.filter(~hole)
    stray = pl.int_range(pl.len()) == ODD_ROW
    df = df.with_columns(
        pl.when(stray).then(key).otherwise(pl.col("run")).alias("run"),
        pl.when(stray).then(300).otherwise(pl.col("example_id")).cast(pl.Int32).alias("example_id"),
    )
    table, _ = comparisons.count_board(df, ["run"], ["example_id"], "label", "prediction", None)
    got = dict(zip(table.keys["run"].to_list(), table.counts.sum(axis=(1, 2)).tolist(), strict=True))
    runs, sizes = np.unique(df["run"].to_numpy(), return_counts=True)
    assert got == dict(zip(runs.tolist(), sizes.tolist(), strict=True))
    assert got[key] == 1 and got[0] == EXAMPLES - 1


def test_a_guessed_example_range_gives_the_board_of_the_scanned_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """The example column's range comes from a sample, widened at each end (``guess_key_range``):
    runs × examples cells with empty examples at the ends, one fill, and the board of the range
    the column's scan gives (here forced by a guess that is the scanned range itself)."""
    df = _set(_frame(), "example_id", EXAMPLES + 3)  # inside the guess's widening: no second fill
    calls = _fills(monkeypatch)
    widths: list[int] = []
    coding = comparisons._example_coding

    def recorded(*args):
        out = coding(*args)
        widths.append(out[2])
        return out

    monkeypatch.setattr(comparisons, "_example_coding", recorded)
    kwargs = {"example": "example_id", "paired": "delta", "adjacent": True}
    board = be.leaderboard(df, **kwargs)
    assert len(calls) == 1 and widths[0] > EXAMPLES + 4  # the guess, widened past the values
    per_row = comparisons._CELLS_PER_ROW
    monkeypatch.setattr(comparisons, "_CELLS_PER_ROW", 0)  # no cells: the two passes, on the scanned range
    calls.clear(), widths.clear()
    two_pass = be.leaderboard(df, **kwargs)
    assert not calls and widths[0] > EXAMPLES + 4 and widths[-1] == EXAMPLES + 4
    monkeypatch.setattr(comparisons, "_CELLS_PER_ROW", per_row)
    calls.clear(), widths.clear()
    monkeypatch.setattr(comparisons, "guess_key_range", comparisons.value_range)
    exact = be.leaderboard(df, **kwargs)
    assert len(calls) == 1 and widths[0] == EXAMPLES + 4
    assert board.equals(exact) and board.equals(two_pass)
    small = df.filter(pl.col("run") < 100)  # under KEY_GUESS_ROWS rows: the range is scanned
    calls.clear(), widths.clear()
    be.leaderboard(small, **kwargs)
    assert len(calls) == 1 and widths == [EXAMPLES]


def test_the_guess_does_not_move_a_board_off_the_influence_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A budget between the scanned range's runs² × examples and the guess's (widened at its
    ends): the board counts the examples some run scored, so both take the influence matrix
    (rank intervals, not NaN) and agree."""
    from batcheval.inference import floors

    df = _frame()
    guess = comparisons.guess_key_range(df["example_id"].to_numpy())
    assert guess[1] - guess[0] + 1 > EXAMPLES  # widened
    monkeypatch.setattr(floors, "INFLUENCE_FLOPS", RUNS * RUNS * EXAMPLES + 1)
    kwargs = {"example": "example_id", "paired": "delta"}
    board = be.leaderboard(df, **kwargs)
    assert board["rank_ci_low"].is_not_null().all()
    monkeypatch.setattr(comparisons, "guess_key_range", comparisons.value_range)
    assert board.equals(be.leaderboard(df, **kwargs))


@pytest.mark.parametrize("k", [MAX_RANKED_CLASSES, MAX_RANKED_CLASSES + 1, 12])
def test_a_paired_board_of_more_classes_than_its_pair_comparisons_hold_says_so(k):
    """Every pair's comparison (the influence matrix) lost a truly best run in up to 0.19 of
    two-profile boards with 6-11 classes: boards of more than MAX_RANKED_CLASSES classes compare
    each run with the leader only; their rank intervals are null and a warning says why (before,
    boards of 6-11 classes had rank intervals, and of 12 or more a warning blamed the byte codes)."""
    rng = np.random.default_rng(k)
    y = rng.integers(0, k, 1000)
    df = pl.concat([
        pl.DataFrame({"run": r, "example": np.arange(1000), "label": y,
                      "prediction": np.where(rng.random(1000) < 0.5 + 0.2 * r, y, rng.integers(0, k, 1000))})
        for r in range(3)
    ])  # fmt: skip
    if k <= MAX_RANKED_CLASSES:
        board = be.leaderboard(df, run="run", measure="accuracy", example="example", seed=0)
        # runs 50, 70 and 90 % right on 1,000 examples: every rank is certain
        assert board.select("rank_ci_low", "rank_ci_high").rows() == [(1, 1), (2, 2), (3, 3)]
        return
    message = (f"every pair's comparison holds its level up to {MAX_RANKED_CLASSES} classes, "
               f"and this board has {k} classes holding examples")  # fmt: skip
    with pytest.warns(be.errors.BatchevalWarning, match=message):
        board = be.leaderboard(df, run="run", measure="accuracy", example="example", seed=0)
    assert board["rank_ci_low"].null_count() == 3
    assert board["could_be_best"].to_list() == [True, False, False]


def test_classes_named_beyond_those_held_do_not_count_towards_the_class_limit():
    """classes=range(8) on a three-class board: the five named classes hold no example, and the
    board is ranked as without them (before the fix the gate counted them and the rank intervals
    were null)."""
    rng = np.random.default_rng(3)
    n = 300
    y = rng.integers(0, 3, n)
    df = pl.concat([
        pl.DataFrame({"run": r, "ex": np.arange(n), "label": y,
                      "prediction": np.where(rng.random(n) < 0.5 + 0.1 * r, y, rng.integers(0, 3, n))})
        for r in range(3)
    ])  # fmt: skip
    for example in ("ex", None):
        plain = be.leaderboard(df, example=example, seed=0)
        named = be.leaderboard(df, example=example, seed=0, classes=list(range(8)))
        columns = ["run", "informedness", "could_be_best", "rank_ci_low", "rank_ci_high"]
        assert named.select(columns).equals(plain.select(columns))
        assert plain["rank_ci_low"].null_count() == 0


def test_a_many_class_board_of_a_measure_without_influence_names_the_class_limit():
    """macro_f1 on a seven-class paired board: the warning named the measure's missing influence
    and listed measures that would still have had no rank intervals."""
    rng = np.random.default_rng(7)
    y = rng.integers(0, 7, 400)
    df = pl.concat([
        pl.DataFrame({"run": r, "ex": np.arange(400), "label": y,
                      "prediction": np.where(rng.random(400) < 0.6, y, rng.integers(0, 7, 400))})
        for r in range(3)
    ])  # fmt: skip
    with pytest.warns(be.errors.BatchevalWarning, match="this board has 7 classes holding examples"):
        board = be.leaderboard(df, example="ex", measure="macro_f1", seed=0)
    assert board["rank_ci_low"].null_count() == 3
