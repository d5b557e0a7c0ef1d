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
    """The board's joint tables against two references (from the cells' bit planes) equal the
    per-example count, with runs missing examples, rows in another order than runs, and runs
    without a reference."""
    rng = np.random.default_rng(e)
    g = 41
    cells = _cells(rng, g, e, 2, 0.15)
    rows = rng.permutation(g)
    lead = np.full(g, 3)
    above = rng.integers(-1, g, g)
    above[: g // 2] = np.r_[-1, np.arange(g // 2 - 1)]  # a chain, as an adjacent board's
    table = cmp.Cells(None, cells, e, rows, 2, np.arange(2))  # type: ignore[arg-type]
    both = table.joints(lead, above)
    np.testing.assert_array_equal(both[0], ref.joint_from_cells(cells, e, rows, lead, 2))
    np.testing.assert_array_equal(both[1], ref.joint_from_cells(cells, e, rows, above, 2))
    # the same as one reference at a time, and as the cells' own kernel
    np.testing.assert_array_equal(both[0], table.joint(lead))
    np.testing.assert_array_equal(both[1], table.joint(above))
    bytewise = np.zeros((g, 8), np.int64)
    lb.joint_from_cells(cells, e, rows, above, 2, bytewise)
    np.testing.assert_array_equal(bytewise.reshape(g, 2, 2, 2), both[1])


# within a word of cells, within and just past a 64-example plane word, several, and rows that
# start off a word's boundary
@pytest.mark.parametrize("e", [5, 63, 64, 65, 700, 2047, 2049])
@pytest.mark.parametrize("g", [41, 700])  # the serial twins, and the threaded kernels
def test_bit_planes_count_and_join_as_the_cells(e, g):
    """binary_planes' counts equal a histogram of each row's cells, and the joint tables from
    the planes equal the per-example count, against one reference and two, with runs missing
    examples, rows in another order than runs and runs without a reference."""
    rng = np.random.default_rng(e + g)
    cells = _cells(rng, g, e, 2, 0.15)
    counts = np.full((g, 5), -1, dtype=np.int64)
    planes = np.zeros((g, 3, (e + 63) // 64), dtype=np.uint64)
    lb.binary_planes(cells, e, 3, counts, planes)
    expected = np.stack([np.bincount(row, minlength=5) for row in cells.reshape(g, e).astype(np.int64)])
    np.testing.assert_array_equal(counts, expected)
    rows = rng.permutation(g)
    lead = np.full(g, 3)
    lead[5] = -1
    above = rng.integers(-1, g, g)
    joint, joint2 = np.zeros((g, 8), np.int64), np.zeros((g, 8), np.int64)
    lb.joint_from_planes(planes, rows, lead, above, joint, joint2)
    np.testing.assert_array_equal(joint.reshape(g, 2, 2, 2), ref.joint_from_cells(cells, e, rows, lead, 2))
    np.testing.assert_array_equal(joint2.reshape(g, 2, 2, 2), ref.joint_from_cells(cells, e, rows, above, 2))
    # the board's path: Cells given the counting pass's planes, as when it makes its own
    given = cmp.Cells(None, cells, e, rows, 2, np.arange(2), planes)  # type: ignore[arg-type]
    made = cmp.Cells(None, cells, e, rows, 2, np.arange(2))  # type: ignore[arg-type]
    np.testing.assert_array_equal(given.planes, made.planes)
    np.testing.assert_array_equal(given.joint(above), ref.joint_from_cells(cells, e, rows, above, 2))


def test_popcount_counts_the_set_bits():
    from batcheval.kernels.jit import jit

    @jit
    def counts(words, out):
        for i in range(words.shape[0]):
            out[i] = lb.popcount(words[i])

    words = np.random.default_rng(0).integers(0, 2**63, 1000, dtype=np.uint64) * np.uint64(2)
    words[:3] = [0, 2**64 - 1, 2**63]
    out = np.empty(len(words), dtype=np.int64)
    counts(words, out)
    assert out.tolist() == [bin(int(w)).count("1") for w in words]


@pytest.mark.parametrize("positive", [0, 1])
@pytest.mark.parametrize("g", [1, 53, 9_000])  # the serial twin, and the threaded kernel
def test_pair_cells_match_the_joint_tables_sums(positive, g):
    """binary_pair_cells: each run's and reference's cells at the positive class and the
    discordant counts, against sums over each joint table; empty and one-sided tables too."""
    rng = np.random.default_rng(g + positive)
    joint = rng.integers(0, 1_000, (g, 2, 2, 2))
    joint[::7] = 0
    joint[1::5, 1] = 0  # one real class
    run, lead, agree = (np.full((n, g), -1, dtype=np.int64) for n in (4, 4, 3))
    lb.binary_pair_cells(joint.reshape(g, 8), positive, run, lead, agree)
    expected = ref.pair_cells(joint, positive)
    for got, want in zip((run, lead, agree), expected, strict=True):
        np.testing.assert_array_equal(got, want)
    # the paired columns through the kernel: the differences of the tables' measures to the bit
    for measure in ("informedness", "markedness"):
        cols = cmp.paired_columns(joint, measure, positive, 200, 0, "delta")
        run_value, lead_value = (
            be.measures.compute(joint.sum(axis=a), [measure], positive=positive)[measure] for a in (2, 3)
        )
        np.testing.assert_array_equal(cols["diff_vs_leader"], run_value - lead_value)
        np.testing.assert_array_equal(cols["n_run_only"], expected[2][2])


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


@pytest.mark.parametrize("k", [8, 9, 40])
def test_distinct_tables_of_many_cells_match_numpy_unique(k):
    # over 64 cells a table, the reductions by column are numpy's over axis 0 (a Python call per
    # cell was 40 s of a two-run board of 3,000 classes); cells equal in every table pack nothing
    rng = np.random.default_rng(k)
    counts = np.zeros((300, k, k), dtype=np.int64)
    counts[:, :, 0] = 7  # constant cells: no bits of the key
    counts[:, 1, 1] = rng.integers(0, 3, 300)
    counts[:, 2, 3] = rng.integers(0, 5, 300)
    distinct, inverse = _distinct_tables(counts)
    np.testing.assert_array_equal(distinct[inverse], counts)
    assert len(distinct) == len(np.unique(counts.reshape(300, -1), axis=0)) <= 15
    spread = counts + rng.integers(0, 2, counts.shape)  # every cell varies: no key of 62 bits
    same, identity = _distinct_tables(spread)
    assert same is spread and identity.tolist() == list(range(300))


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


def _sign_flip_reference(joint: np.ndarray, midp: bool, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """The exact groups of informedness's sign-flip test (kind 0) and their p-values from
    two_binomial_tail, which builds each group's own tables; the statistic written out in numpy,
    the smaller discordant count as ``a``."""
    from batcheval.kernels import signflip as sf

    n1, n0 = joint[:, 4:].sum(axis=1).astype(float), joint[:, :4].sum(axis=1).astype(float)
    c1, b1, c0, b0 = joint[:, 5], joint[:, 6], joint[:, 2], joint[:, 1]
    m1, m0 = (c1 + b1).astype(float), (c0 + b0).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        w1, w0 = np.where(m1 > 0, 1.0 / n1, 0.0), np.where(m0 > 0, 1.0 / n0, 0.0)
    stat = np.abs(w1 * (c1 - b1) + w0 * (c0 - b0))
    swap = m1 > m0
    ma, mb = np.where(swap, m0, m1), np.where(swap, m1, m0)
    wa, wb = np.where(swap, w0, w1), np.where(swap, w1, w0)
    tol = 1e-9 * (wa * ma + wb * mb)
    sel = np.flatnonzero((ma <= limit) & (stat > tol) & (n1 > 0) & (n0 > 0))
    lo = np.empty(len(sel))
    sf.two_binomial_tail(ma[sel], mb[sel], wa[sel], wb[sel], stat[sel] - tol[sel], lo)
    if midp:
        hi = np.empty(len(sel))
        sf.two_binomial_tail(ma[sel], mb[sel], wa[sel], wb[sel], stat[sel] + tol[sel], hi)
        lo = 0.5 * (lo + hi)
    return sel, lo


@pytest.mark.parametrize("midp", [False, True])
def test_sign_flip_tails_from_shared_tables_match_each_groups_own(midp):
    """binary_sign_flip's exact tails read one Bin(m, 1/2) table per distinct discordant count;
    two_binomial_tail builds each group's own: the same p-values to the bit, on enough tables to
    take the threaded kernel, many of them sharing counts."""
    from batcheval.kernels import signflip as sf

    rng = np.random.default_rng(7)
    g = 20_000
    joint = rng.integers(0, 40, (g, 8)).astype(np.int64)
    joint[rng.random(g) < 0.3] = joint[0]  # shared tables, so shared discordant counts
    joint[5, :4] = 0  # one real class empty: undefined
    p, z = np.empty(g), np.empty(g)
    sf.binary_sign_flip(joint, 1, 0, 50, midp, p, z)
    sel, expected = _sign_flip_reference(joint, midp, 50)
    assert len(sel) > 10_000 and np.isnan(p[5])
    np.testing.assert_array_equal(p[sel], expected)
    assert np.isnan(z[sel]).all()


def test_sign_flip_tails_past_the_shared_tables_size():
    """A discordant count whose tables alone pass _SHARED_ENTRIES (6M: 18M entries) sends every
    exact group to its own tables, without a table sized by that count first; the p-values are
    two_binomial_tail's to the bit."""
    from batcheval.kernels import signflip as sf

    assert 3 * 6_000_000 + 5 > sf._SHARED_ENTRIES
    rng = np.random.default_rng(3)
    joint = rng.integers(0, 20, (40, 8)).astype(np.int64)
    joint[0] = [5, 3_000_000, 3_000_400, 7, 9, 20, 11, 30]  # a = 31 discordant, b = 6,000,400
    p, z = np.empty(40), np.empty(40)
    sf.binary_sign_flip(joint, 1, 0, 50, False, p, z)
    sel, expected = _sign_flip_reference(joint, False, 50)
    assert 0 in sel and len(sel) > 30
    np.testing.assert_array_equal(p[sel], expected)


def test_frontier_order_keeps_the_full_sorts_front():
    """selection._frontier_order sorts only the runs that can reach the Pareto front; the front
    (runs whose variance is below every run before them in the full lexsort) is the same."""
    from batcheval.inference.selection import _frontier_order

    def front(order, var):
        running = np.minimum.accumulate(var[order])
        keep = np.concatenate(([True], var[order][1:] < running[:-1]))
        return order[keep]

    rng = np.random.default_rng(3)
    for trial in range(200):
        n = int(rng.integers(1, 400))
        theta = rng.integers(0, 6, n) / 5.0 if trial % 2 else rng.random(n)  # ties, then none
        var = rng.integers(1, 8, n) / 100.0
        if trial % 7 == 0:
            var[rng.integers(0, n)] = np.nan  # a NaN: the full sort
        full = np.lexsort((var, -theta))
        np.testing.assert_array_equal(front(_frontier_order(theta, var), var), front(full, var))


def test_score_interval_kernel_threads_from_few_tables():
    """Boards of FEW_TABLES distinct tables and more take the threaded interval kernel
    (numba's default switch of 65,536 elements left 57k tables on one thread); its ends are
    those of the one-table-at-a-time kernel."""
    from batcheval.kernels import score_diff as sd

    assert sd._intervals.serial_below == sd.FEW_TABLES
    rng = np.random.default_rng(4)
    g = sd.FEW_TABLES + 5
    n1, n0 = rng.integers(1, 300, g), rng.integers(1, 700, g)
    x1, x0 = rng.integers(0, n1 + 1), rng.integers(0, n0 + 1)
    low, high = np.empty(g), np.empty(g)
    sd.score_diff_interval(x1, n1, x0, n0, 1.959963984540054, low, high)
    one_low, one_high = np.empty(g), np.empty(g)
    sd._few_intervals(x1, n1, x0, n0, 1.959963984540054, one_low, one_high)
    np.testing.assert_array_equal(low, one_low)
    np.testing.assert_array_equal(high, one_high)
