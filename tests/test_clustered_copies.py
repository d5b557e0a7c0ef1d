"""Copies of every row (identical seeds pooled with ``pool=``) leave cluster-robust intervals as
they are: ``m`` copies multiply the CR2 design effect by ``m``, and its floor must scale with it
(it counted rows: ``H/N`` bound for one copy and not for ``m``, and the copies got narrower
intervals). Checked on the example that found it, on a seeded scan of small tables in passages
of 2-3 rows, and against the plain-numpy CR2 reference of one copy (tests/reference/clustered_cr2.py).
The clustered chance tests are one copy's too."""

from __future__ import annotations

import functools

import numpy as np
import polars as pl
import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

import batcheval as be
from batcheval.inference import clustered as cl
from tests.reference import clustered_cr2 as cr2

#: the metamorphic hunt's example (session 54, defect A): 8 examples in 3 passages
EIGHT = pl.DataFrame({"ex": range(8), "passage": [0, 0, 0, 1, 1, 1, 2, 2], "label": [0, 1, 1, 0, 1, 0, 0, 0],
                      "prediction": [1, 1, 1, 0, 1, 1, 0, 0]})  # fmt: skip
NAMES = ["informedness", "markedness", "accuracy", "recall", "kappa_cohen", "correlation"]


def _copies(one: pl.DataFrame, m: int) -> pl.DataFrame:
    """``m`` seeds scoring every row of ``one`` alike."""
    return pl.concat([one.with_columns(seed=pl.lit(s)) for s in range(m)])


def _ends(frame: pl.DataFrame) -> dict[str, np.ndarray]:
    return {c: frame[c].to_numpy().astype(float) for c in frame.columns if "_ci_" in c}


@pytest.mark.parametrize("ids", [{"example": "ex", "cluster": "passage"}, {"example": "ex"}])
def test_copies_of_the_eight_rows_give_the_intervals_of_one_copy(ids: dict) -> None:
    # m = 1: markedness [-0.310, 1], accuracy [0.304, 0.954]; two or three copies gave [0.276, 0.888]
    # and [0.320, 0.950]: the floor H/N of the design effect halved with two copies (3/16) and the
    # unfloored 2 × 0.105 applied
    got = [be.evaluate(_copies(EIGHT, m), pool="seed", measures=NAMES, ci=0.95, **ids) for m in (1, 2, 3)]
    one = _ends(got[0])
    assert set(one) == {f"{n}_ci_{side}" for n in NAMES for side in ("low", "high")}
    for other in got[1:]:
        for col, ends in _ends(other).items():
            np.testing.assert_allclose(ends, one[col], rtol=0, atol=1e-12, err_msg=col)
    # and per class (the class-against-rest tables carry the copies of their rows)
    per = [be.evaluate(_copies(EIGHT, m), pool="seed", measures=["recall", "informedness"], per_class=True,
                       ci=0.95, **ids) for m in (1, 3)]  # fmt: skip
    for col, ends in _ends(per[1]).items():
        np.testing.assert_allclose(ends, _ends(per[0])[col], rtol=0, atol=1e-12, err_msg=col)


def test_a_clustered_board_of_copies_gives_the_intervals_of_one_copy() -> None:
    other = EIGHT.with_columns(prediction=pl.Series([0, 1, 0, 0, 1, 0, 1, 0]))
    board = pl.concat([EIGHT.with_columns(run=pl.lit(0)), other.with_columns(run=pl.lit(1))])
    for measure in ("markedness", "accuracy"):
        got = [be.leaderboard(_copies(board, m), run="run", pool="seed", measure=measure, example="ex",
                              cluster="passage").sort("run") for m in (1, 2, 3)]  # fmt: skip
        for other_board in got[1:]:
            for col in (f"{measure}_ci_low", f"{measure}_ci_high", "p_vs_leader"):
                np.testing.assert_allclose(other_board[col].to_numpy(), got[0][col].to_numpy(), rtol=0,
                                           atol=1e-12, err_msg=f"{measure} {col}")  # fmt: skip


def _tables(seed: int, k: int, count: int, every_cell: bool = False) -> pl.DataFrame:
    """``count`` small tables of ``k`` classes (6-30 examples each, in passages of 2 or 3), every
    class among the labels and the predictions, as the metamorphic hunt drew them; with
    ``every_cell``, only tables with a row in every cell (the reference's finite differences
    step outside the simplex at an empty cell). Ids are unique across the tables."""
    rng = np.random.default_rng(seed)
    parts = []
    while len(parts) < count:
        n = int(rng.integers(6, 31))
        label = rng.integers(0, k, n)
        pred = np.where(rng.random(n) < 0.6, label, rng.integers(0, k, n))
        size = int(rng.integers(2, 4))
        if len(set(label)) < k or len(set(pred)) < k or (every_cell and len(set(label * k + pred)) < k * k):
            continue
        first = 100 * len(parts)
        parts.append(pl.DataFrame({"table": len(parts), "ex": first + np.arange(n),
                                   "passage": first + np.arange(n) // size, "label": label,
                                   "prediction": pred}))  # fmt: skip
    return pl.concat(parts)


def _names(k: int) -> list[str]:
    return ["informedness", "markedness", "accuracy", "kappa_cohen", "correlation"] + (
        ["recall", "precision", "f1"] if k == 2 else []
    )


@pytest.mark.parametrize("ids", [{"example": "ex", "cluster": "passage"}, {"example": "ex"}])
@pytest.mark.parametrize("k", [2, 3])
def test_copies_leave_every_small_clustered_table_s_intervals_as_they_are(k: int, ids: dict) -> None:
    # before: 47 of ~150 such tables moved an end with one more copy (a three-class
    # informedness_ci_low 0.065 -> 0.369)
    one = _tables(540 + k, k, 80)
    kw = {"by": ["table", "seed"], "pool": "seed", "measures": _names(k), "ci": 0.95,
          "classes": list(range(k)), **ids}  # fmt: skip
    want = _ends(be.evaluate(_copies(one, 1), **kw).sort("table"))
    for m in (2, 3):
        got = _ends(be.evaluate(_copies(one, m), **kw).sort("table"))
        for col, ends in want.items():
            np.testing.assert_allclose(got[col], ends, rtol=0, atol=1e-12, err_msg=f"{m} copies, {col}")


def _reference(one: pl.DataFrame, k: int, name: str) -> tuple[float, float]:
    """The plain-numpy CR2 design effect of one copy, with its floor, and its degrees of freedom."""
    args = (one["label"].to_list(), one["prediction"].to_list(), one["passage"].to_list(), k, name)
    return cr2.floored_design_effect(*args), cr2.bell_mccaffrey_dof(*args)


@functools.cache
def _one_copies(k: int) -> tuple[list[pl.DataFrame], list[str], dict, int]:
    """The reference's tables of ``k`` classes (with a row in every cell; for two classes the
    eight rows too), their measures, each one's ``(deff, dof)`` of one copy, and how many of those
    the floor ``H/N`` makes."""
    # the plain-Python reference is most of the test's time: fewer three-class tables
    count = 25 if k == 2 else 12
    tables = _tables(560 + k, k, count, every_cell=True).partition_by("table", maintain_order=True)
    if k == 2:
        tables.append(EIGHT.with_columns(table=pl.lit(25)))
    names = [n for n in _names(k) if n != "f1"]
    want, floored = {}, 0
    for t, one in enumerate(tables):
        for name in names:
            want[t, name] = _reference(one, k, name)
            args = (one["label"].to_list(), one["prediction"].to_list(), one["passage"].to_list(), k, name)
            try:  # the design effect before the floor (0/0 without any spread: no floor then)
                floored += want[t, name][0] > cr2.design_effect(*args) * (1 + 1e-6)
            except ZeroDivisionError:
                pass
    return tables, names, want, floored


@pytest.mark.parametrize("k", [2, 3])
def test_the_design_effect_of_copies_is_the_copies_times_the_reference_of_one_copy(k: int) -> None:
    # with the example ids (cluster= and example=) the copies are read per example
    tables, names, want, floored = _one_copies(k)
    assert floored > 0  # the floor H/N of one copy binds somewhere: the case that was wrong
    by_example = {"examples": ["ex"]}
    read = []
    for m in (2, 3):
        for t, one in enumerate(tables):
            df = _copies(one, m)
            table = be.ContingencyTable.from_frame(df, classes=list(range(k)))
            cells = cl.cluster_cells(df, [], ["passage"], "label", "prediction", table, **by_example)
            effects, _ = cl.design_effects(np.asarray(table.counts), cells, names)
            for name in names:
                deff, dof = want[t, name]
                assert effects[name][0][0] == pytest.approx(m * deff, rel=1e-5), (m, t, name)
                assert effects[name][3][0] == pytest.approx(dof, rel=1e-9), (m, t, name)
            read.append((m, cells))
    assert all(cells.multiplicity.tolist() == [m] for m, cells in read)


def test_the_eight_rows_copied_give_the_reference_interval_of_one_copy() -> None:
    # accuracy: Wilson with Korn & Graubard's effective trials 8/deff at Student's t with Bell &
    # McCaffrey's degrees of freedom, the design effect of one copy (floored at H/N = 3/8)
    deff, dof = _reference(EIGHT, 2, "accuracy")
    assert deff == pytest.approx(3 / 8)
    t95 = stats.t.ppf(0.975, dof)
    m_eff = 8 / deff
    right = float(np.mean(EIGHT["label"].to_numpy() == EIGHT["prediction"].to_numpy()))  # 6 of 8
    want = proportion_confint(right * m_eff, m_eff, alpha=2 * stats.norm.sf(t95), method="wilson")
    for m in (1, 2, 3):
        out = be.evaluate(_copies(EIGHT, m), pool="seed", measures=["accuracy"], ci=0.95, example="ex",
                          cluster="passage")  # fmt: skip
        assert (out["accuracy_ci_low"][0], out["accuracy_ci_high"][0]) == pytest.approx(want, rel=1e-9), m


def test_cluster_alone_reads_no_copies_in_passages_of_even_counts() -> None:
    """Without example ids a passage's rows alike in a cell may be different examples: 16
    examples in 4 passages whose every (passage, cell) count is 0 or 2 were read as two copies
    of 8 rows, and got half a table's interval (recall [0.100, 0.953] against [0.179, 0.912]).
    cluster= alone reads no copies, so its interval is the one with the example ids, and that
    of the plain-numpy CR2 reference (accuracy: Wilson with 16/deff trials at Student's t)."""
    rows, ex = [], 0
    for passage, cells in enumerate([(2, 0, 0, 2), (0, 2, 2, 2), (2, 2, 0, 0), (2, 0, 2, 2)]):
        for (label, pred), c in zip([(0, 0), (0, 1), (1, 0), (1, 1)], cells, strict=True):
            rows += [(ex + i, passage, label, pred) for i in range(c)]
            ex += c
    df = pl.DataFrame(rows, schema=["ex", "passage", "label", "prediction"], orient="row")
    names = ["recall", "accuracy", "informedness"]
    alone = be.evaluate(df, measures=names, ci=0.95, cluster="passage")
    with_ids = be.evaluate(df, measures=names, ci=0.95, cluster="passage", example="ex")
    for col, ends in _ends(with_ids).items():
        np.testing.assert_allclose(_ends(alone)[col], ends, rtol=0, atol=1e-15, err_msg=col)
    table = be.ContingencyTable.from_frame(df)
    assert cl.cluster_cells(df, [], ["passage"], "label", "prediction", table).multiplicity.tolist() == [1.0]
    deff, dof = _reference(df, 2, "accuracy")
    t95 = stats.t.ppf(0.975, dof)
    right = float(np.mean(df["label"].to_numpy() == df["prediction"].to_numpy()))
    m_eff = len(df) / deff
    want = proportion_confint(right * m_eff, m_eff, alpha=2 * stats.norm.sf(t95), method="wilson")
    assert (alone["accuracy_ci_low"][0], alone["accuracy_ci_high"][0]) == pytest.approx(want, rel=1e-9)


@pytest.mark.parametrize("ids", [{"example": "ex", "cluster": "passage"}, {"example": "ex"}])
@pytest.mark.parametrize("k", [2, 3])
def test_copies_leave_every_small_clustered_table_s_chance_tests_as_they_are(k: int, ids: dict) -> None:
    # before: 49 of 1,600 such p-values moved with 2 or 3 copies (a three-class p_markedness
    # 0.132 -> 0.036 with two): the effective table rounded the cells divided by m times the
    # design effect, and "the rows' own" p-value it stays beside counted m times the rows
    one = _tables(700 + k, k, 100)
    names = ["p_informedness", "p_markedness"]
    kw = {"by": ["table", "seed"], "pool": "seed", "measures": names, "classes": list(range(k)), **ids}
    want = be.evaluate(_copies(one, 1), **kw).sort("table")
    # one copy's clustered p-values are the plain tests of the effective table: with single-row
    # clusters, the unclustered ones (the hypergeometric mid-p, tested against scipy elsewhere)
    if "cluster" not in ids:
        plain = be.evaluate(one, by="table", measures=names, classes=list(range(k))).sort("table")
        for name in names:
            np.testing.assert_allclose(want[name].to_numpy(), plain[name].to_numpy(), rtol=0, atol=1e-12)
    for m in (2, 3):
        got = be.evaluate(_copies(one, m), **kw).sort("table")
        for name in names:
            np.testing.assert_allclose(got[name].to_numpy(), want[name].to_numpy(), rtol=0, atol=1e-12,
                                       err_msg=f"{m} copies, {name}")  # fmt: skip


def _boards(seed: int, count: int) -> list[pl.DataFrame]:
    """``count`` small binary boards of 2-5 runs on 12-39 shared examples in passages of 1-3."""
    rng = np.random.default_rng(seed)
    boards = []
    for _ in range(count):
        n, runs, size = int(rng.integers(12, 40)), int(rng.integers(2, 6)), int(rng.integers(1, 4))
        y = rng.integers(0, 2, n)
        parts = [pl.DataFrame({"run": r, "ex": np.arange(n), "passage": np.arange(n) // size, "label": y,
                               "prediction": np.where(rng.random(n) < rng.uniform(0.55, 0.9), y, 1 - y)})
                 for r in range(runs)]  # fmt: skip
        boards.append(pl.concat(parts))
    return boards


@pytest.mark.parametrize("measure", ["informedness", "accuracy"])
def test_copies_leave_every_small_clustered_board_as_it_is(measure: str) -> None:
    # before: p_best moved on 11 of 80 such boards with two copies, and could_be_best on 2: the
    # board's repeaters (repeated_rows) read each run's design effect at the copies, r times one
    # copy's with the same degrees of freedom, so more runs counted as repeaters
    for b, one in enumerate(_boards(5, 20)):
        kw = {"run": "run", "pool": "seed", "measure": measure, "example": "ex", "cluster": "passage"}
        want = be.leaderboard(_copies(one, 1), **kw).sort("run")
        for m in (2, 3):
            got = be.leaderboard(_copies(one, m), **kw).sort("run")
            assert got.columns == want.columns
            for col in want.columns:
                if want[col].dtype.is_float():
                    np.testing.assert_allclose(got[col].to_numpy(), want[col].to_numpy(), rtol=0, atol=1e-12,
                                               err_msg=f"board {b}, {m} copies, {col}")  # fmt: skip
                elif col != "n":
                    assert got[col].to_list() == want[col].to_list(), f"board {b}, {m} copies, {col}"
            assert (got["n"] == m * want["n"]).all()
