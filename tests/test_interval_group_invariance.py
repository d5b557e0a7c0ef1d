"""A group's intervals do not depend on the other groups of the call, bit for bit.

The multiclass delta-method intervals summed the cells of cells-last tables ``[K, K, G]`` with
``np.sum(..., axis=(0, 1))``, whose order numpy picks by layout: pairwise for one group (its
cells contiguous), one after another for two or more. A run evaluated alone and the same run
evaluated beside others then differed by 1-4 ulp (informedness, markedness, correlation and
kappa_cohen of three or more classes). The reference here is the spec (one run's interval is a
function of its own table) and, for the sums themselves, plain Python addition in C order.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import batcheval as be
from batcheval.inference import intervals, paired_se

CHANCE = ("informedness", "markedness", "correlation", "kappa_cohen")


def _runs(k: int, seed: int, sizes: tuple[int, ...] = (300, 250, 180)) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    parts = []
    for run, n in enumerate(sizes):
        label = rng.integers(0, k, n)
        pred = np.where(rng.random(n) < 0.7, label, rng.integers(0, k, n))
        parts.append(
            pl.DataFrame({"run": run, "example": np.arange(n) // 2, "label": label, "prediction": pred})
        )
    return pl.concat(parts)


def _interval_columns(frame: pl.DataFrame) -> list[str]:
    return [c for c in frame.columns if c.endswith(("_ci_low", "_ci_high"))]


def _assert_same_bits(together: pl.DataFrame, alone: pl.DataFrame) -> None:
    columns = _interval_columns(alone)
    assert {f"{m}_ci_low" for m in CHANCE} <= set(columns)
    for col in columns:
        a, b = together[col].to_numpy(), alone[col].to_numpy()
        assert np.array_equal(a.view(np.int64), b.view(np.int64)), (col, a.tolist(), b.tolist())


@pytest.mark.parametrize("k", [3, 5, 9])
@pytest.mark.parametrize("seed", range(6))
def test_multiclass_interval_of_a_run_alone_equals_it_beside_others(k: int, seed: int) -> None:
    df = _runs(k, seed)
    together = be.evaluate(df, by="run", ci=0.95).sort("run")
    for run in range(3):
        alone = be.evaluate(df.filter(pl.col("run") == run), by="run", ci=0.95)
        _assert_same_bits(together.filter(pl.col("run") == run), alone)


@pytest.mark.parametrize("k", [3, 5])
@pytest.mark.parametrize("seed", range(3))
def test_clustered_multiclass_interval_of_a_run_alone_equals_it_beside_others(k: int, seed: int) -> None:
    df = _runs(k, 100 + seed)  # every example scored twice by its run: clusters of two rows
    together = be.evaluate(df, by="run", ci=0.95, example="example").sort("run")
    for run in range(3):
        alone = be.evaluate(df.filter(pl.col("run") == run), by="run", ci=0.95, example="example")
        _assert_same_bits(together.filter(pl.col("run") == run), alone)


@pytest.mark.parametrize("k", [2, 3, 5])
def test_paired_standard_errors_of_a_pair_alone_equal_them_beside_others(k: int) -> None:
    rng = np.random.default_rng(k)
    joint = rng.integers(0, 40, size=(6, k, k, k)).astype(np.float64)
    joint[:, np.arange(k), np.arange(k), np.arange(k)] += 200.0
    for measure in CHANCE:
        whole = paired_se.delta_se(joint, measure, 1)
        for g in range(len(joint)):
            one = paired_se.delta_se(joint[g : g + 1], measure, 1)
            assert whole[g].tobytes() == one[0].tobytes(), (measure, g)
    if k > 2:
        counts = joint.astype(np.int64)
        for measure in ("informedness", "accuracy"):
            whole = paired_se.sign_flip_p(counts, measure)
            for g in range(len(counts)):
                assert whole[g].tobytes() == paired_se.sign_flip_p(counts[g : g + 1], measure)[0].tobytes()


def _python_sum(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """ordered_sum's order in Python floats: up to 64 cells one after another in C order; more,
    along the first of ``axes`` first, then the others the same way."""
    if len(axes) > 1 and np.prod([x.shape[a] for a in axes]) > 64:
        return _python_sum(_python_sum(x, axes[:1]), tuple(a - 1 for a in axes[1:]))
    rest = [a for a in range(x.ndim) if a not in axes]
    moved = np.moveaxis(x, list(axes) + rest, range(x.ndim))
    cells = moved.reshape(-1, *moved.shape[len(axes) :])
    out = np.empty(cells.shape[1:])
    for idx in np.ndindex(*cells.shape[1:]):
        total = float(cells[(0, *idx)])
        for i in range(1, len(cells)):
            total = total + float(cells[(i, *idx)])
        out[idx] = total
    return out


@pytest.mark.parametrize(
    "shape, axes",
    [
        ((2, 2, 3), (0, 1)), ((3, 3, 1), (0, 1)), ((3, 3, 2), (0, 1)), ((8, 8, 1), (0, 1)),
        ((5, 5, 300), (0, 1)), ((12, 12, 3), (0, 1)), ((12, 12, 1), (0, 1)), ((12, 12, 1), 1),
        ((12, 12, 2), 0), ((3, 3, 3, 2), (0, 1, 2)), ((5, 5, 5, 1), (0, 1, 2)), ((4, 4, 4, 1), (1, 2)),
        ((40, 3), 0), ((40, 300), 0), ((40, 1), 0), ((9, 1), 0), ((3, 40, 2), 1), ((30, 30, 1), 1),
        ((20, 20, 500), 1),
    ],
)  # fmt: skip
def test_ordered_sum_adds_in_its_order_whatever_the_groups(shape: tuple[int, ...], axes) -> None:
    rng = np.random.default_rng(len(shape) * 100 + shape[0])
    x = rng.random(shape) * rng.random(shape) * 10.0 ** rng.integers(-3, 4, shape)
    axes_t = (axes,) if isinstance(axes, int) else axes
    want = _python_sum(x, axes_t)
    got = intervals.ordered_sum(x, axes)
    assert got.shape == want.shape and got.tobytes() == want.tobytes()
    # the same values laid out otherwise: the same bits
    assert intervals.ordered_sum(np.asfortranarray(x), axes).tobytes() == want.tobytes()
    assert intervals.ordered_sum(np.flip(np.flip(x, 0).copy(), 0), axes).tobytes() == want.tobytes()
    # each group alone: the same bits
    for g in range(shape[-1]):
        assert intervals.ordered_sum(x[..., g : g + 1], axes).tobytes() == want[..., g : g + 1].tobytes()


def test_ordered_sum_keeps_numpys_order_for_two_or_more_groups_of_up_to_64_cells() -> None:
    # the bits every table of two or more groups had before, and the binary kernels reproduce
    rng = np.random.default_rng(7)
    for shape, axes in (
        ((2, 2, 50), (0, 1)),
        ((3, 3, 50), (0, 1)),
        ((8, 8, 50), (0, 1)),
        ((4, 4, 4, 9), (0, 1, 2)),
    ):
        x = rng.random(shape) * 10.0 ** rng.integers(-3, 4, shape)
        assert intervals.ordered_sum(x, axes).tobytes() == np.sum(x, axis=axes).tobytes()
