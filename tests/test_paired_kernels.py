"""The paired leaderboard's kernels and shortcuts against plain references: the cell
counts, the joint tables against two references at once, the example column's range
from the counting pass, and the intervals of distinct tables."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import batcheval as be
from batcheval.core.counting import encode_frame_scanning
from batcheval.inference import comparisons as cmp
from batcheval.inference import intervals as iv
from batcheval.inference.leaderboard import _distinct_tables
from batcheval.kernels import leaderboard as lb
from tests.reference import leaderboard as ref


def _cells(rng: np.random.Generator, g: int, e: int, k: int, empty: float) -> np.ndarray:
    cells = rng.integers(1, k * k + 1, g * e).astype(np.int8)
    cells[rng.random(g * e) < empty] = 0
    return cells


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("e", [7, 256, 600])  # within one lane round, just past it, and several
def test_cell_counts_match_a_histogram_per_run(k, e):
    rng = np.random.default_rng(e + k)
    g = 37
    cells = _cells(rng, g, e, k, 0.2)
    counts = np.full((g, k * k + 1), -1, dtype=np.int64)
    lb.cell_counts(cells, e, 3, counts)
    expected = np.stack(
        [np.bincount(row, minlength=k * k + 1) for row in cells.reshape(g, e).astype(np.int64)]
    )
    np.testing.assert_array_equal(counts, expected)


# within a word, a round of 255 words and past it, and rows that start off a word's boundary
@pytest.mark.parametrize("e", [5, 255, 700, 2048, 2047, 2049])
def test_two_joints_in_one_pass_match_the_reference(e):
    """joints_from_cells against each reference equals the per-example count, with runs
    missing examples, rows in another order than runs, and runs without a reference."""
    rng = np.random.default_rng(e)
    g = 41
    cells = _cells(rng, g, e, 2, 0.15)
    rows = rng.permutation(g)
    lead = np.full(g, 3)
    above = rng.integers(-1, g, g)
    above[: g // 2] = np.r_[-1, np.arange(g // 2 - 1)]  # a chain, as an adjacent board's
    joint, joint2 = np.zeros((g, 8), np.int64), np.zeros((g, 8), np.int64)
    lb.joints_from_cells(cells, e, rows, lead, above, joint, joint2)
    np.testing.assert_array_equal(joint.reshape(g, 2, 2, 2), ref.joint_from_cells(cells, e, rows, lead, 2))
    np.testing.assert_array_equal(joint2.reshape(g, 2, 2, 2), ref.joint_from_cells(cells, e, rows, above, 2))
    # the board's own path: the same as one reference at a time
    table = cmp.Cells(None, cells, e, rows, 2, np.arange(2))  # type: ignore[arg-type]
    both = table.joints(lead, above)
    np.testing.assert_array_equal(both[0], table.joint(lead))
    np.testing.assert_array_equal(both[1], table.joint(above))
    np.testing.assert_array_equal(both[1], ref.joint_from_cells(cells, e, rows, above, 2))


@pytest.mark.parametrize("dtype", [pl.Int8, pl.Int32, pl.UInt32, pl.Int64])
def test_example_range_from_the_counting_pass(dtype):
    rng = np.random.default_rng(1)
    lo = 0 if dtype in (pl.UInt32,) else -50
    ids = rng.integers(lo, 100, 5000)
    df = pl.DataFrame({
        "run": rng.integers(0, 9, 5000), "label": rng.integers(0, 2, 5000),
        "prediction": rng.integers(0, 2, 5000), "example_id": pl.Series(ids).cast(dtype),
    })  # fmt: skip
    _, _, found = encode_frame_scanning(
        df, ["run"], "label", "prediction", None, [df["example_id"].to_numpy()]
    )
    assert found == [(int(ids.min()), int(ids.max()))]
    assert encode_frame_scanning(df.clear(), ["run"], "label", "prediction", None, [])[2] == []


def test_distinct_tables_and_the_boards_intervals():
    rng = np.random.default_rng(2)
    counts = rng.integers(0, 4, (500, 2, 2))
    distinct, inverse = _distinct_tables(counts)
    np.testing.assert_array_equal(distinct[inverse], counts)
    assert len(distinct) == len(np.unique(counts.reshape(500, -1), axis=0))
    wide = counts.copy()
    wide[0, 0, 0] = 1 << 62  # no int64 key: every table kept, in order
    same, identity = _distinct_tables(wide)
    assert same is wide and identity.tolist() == list(range(500))
    # the board's interval columns: intervals() of every run's table, one by one
    df = pl.DataFrame({
        "run": np.repeat(np.arange(60), 40), "example_id": np.tile(np.arange(40), 60),
        "label": np.tile(rng.integers(0, 2, 40), 60), "prediction": rng.integers(0, 2, 2400),
    })  # fmt: skip
    board = be.leaderboard(df, example="example_id").sort("run")
    tables = np.stack([
        np.histogram2d(part["label"], part["prediction"], bins=[2, 2], range=[[0, 2], [0, 2]])[0]
        for part in df.partition_by("run", maintain_order=True)
    ]).astype(np.int64)  # fmt: skip
    low, high = iv.intervals(tables, ["informedness"], 0.95)["informedness"]
    np.testing.assert_array_equal(board["informedness_ci_low"].to_numpy(), low)
    np.testing.assert_array_equal(board["informedness_ci_high"].to_numpy(), high)


def test_poisson_setups_looked_up_draw_what_setups_in_place_draw(monkeypatch):
    """poisson_se's table of sampler constants per mean gives the replicates of setting each
    cell up in place (the table's length 0): the same standard errors, to the bit."""
    from batcheval.inference import paired_se

    rng = np.random.default_rng(5)
    joint = rng.integers(0, 40, (300, 2, 2, 2))
    joint[:20] *= 30  # means past 10 and past the table's length both occur
    joint[:5, 0] = 0
    diff = rng.normal(0.0, 0.05, 300)
    for measure in ("informedness", "precision"):
        # the means below _TABLE_MEANS draw by inversion tables: these replicates take none
        monkeypatch.setattr(paired_se, "_TABLE_MEANS", 1)
        looked_up = paired_se.poisson_se(joint, measure, 1, 200, 3, diff)
        monkeypatch.setattr(paired_se, "_SETUP_MEANS", 0)
        in_place = paired_se.poisson_se(joint, measure, 1, 200, 3, diff)
        monkeypatch.setattr(paired_se, "_SETUP_MEANS", 600)
        partly = paired_se.poisson_se(joint, measure, 1, 200, 3, diff)
        monkeypatch.undo()
        for other in (in_place, partly):
            np.testing.assert_array_equal(looked_up[0], other[0])
            np.testing.assert_array_equal(looked_up[1], other[1])
        assert np.isfinite(looked_up[0][5:]).all()
