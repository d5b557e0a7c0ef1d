"""The adjusted delta interval of informedness, markedness, kappa_cohen and correlation of three
or more classes is taken over each group's own classes (those with a real example or a
prediction), as the smoothed bootstrap is: the pseudo-counts went into every cell of the call's
class set, so a group's interval moved with the other groups and with ``classes=`` (informedness
[0.57030, 0.66936] alone, [0.57057, 0.66957] with ``classes=range(200)``), and a group of two
classes inside a three-class call got a multiclass interval instead of the binary score interval
it gets alone."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy.stats import norm

import batcheval as be
from batcheval.inference import intervals as iv
from batcheval.measures import compute
from tests.reference.score_diff import score_interval

CHANCE = ["informedness", "markedness", "kappa_cohen", "correlation"]
ENDS = [f"{m}_ci_{end}" for m in CHANCE for end in ("low", "high")]


def _frame(k: int, n: int, seed: int, classes: np.ndarray | None = None) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    classes = np.arange(k) if classes is None else classes
    y = rng.integers(0, len(classes), n)
    p = np.where(rng.random(n) < 0.65, y, rng.integers(0, len(classes), n))
    return pl.DataFrame({"label": classes[y], "prediction": classes[p]})


def test_the_interval_does_not_change_with_classes_the_group_never_has():
    df = _frame(6, 300, 4)
    alone = be.evaluate(df, measures=CHANCE, ci=0.95).row(0, named=True)
    wide = be.evaluate(df, measures=CHANCE, ci=0.95, classes=list(range(200))).row(0, named=True)
    assert [wide[c] for c in ENDS] == [alone[c] for c in ENDS]


@pytest.mark.parametrize("seed", range(4))
def test_a_group_missing_classes_gets_the_interval_of_its_own_table_beside_any_groups(seed: int):
    """Random tables of 3-6 classes with some classes absent, evaluated among groups that use every
    class, against the same table cut to its classes and evaluated alone: the same bits."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(3, 7))
    counts = rng.integers(0, 8, size=(12, k, k)) + np.eye(k, dtype=np.int64)
    for g, kept in zip(range(0, 12, 2), [1, 2, k - 1, 2, *rng.integers(1, k, 2)], strict=True):
        absent = np.ones(k, dtype=bool)
        absent[rng.choice(k, int(kept), replace=False)] = False
        counts[g][absent] = 0
        counts[g][:, absent] = 0
    present = iv.present_classes(counts)
    together = iv.intervals(counts, CHANCE, 0.95)
    for g in range(12):
        keep = np.flatnonzero(present[g])
        own = counts[g][np.ix_(keep, keep)][None]
        for name in CHANCE:
            if len(keep) < 2:
                assert np.isnan(together[name][0][g]) and np.isnan(together[name][1][g])
                continue
            low, high = iv.intervals(own, [name], 0.95)[name]
            assert (together[name][0][g], together[name][1][g]) == (low[0], high[0]), (g, name, keep)


def test_two_classes_of_three_get_the_miettinen_nurminen_score_interval():
    """Informedness of a group whose examples and predictions lie in two classes of a three-class
    call is tpr − fpr of two binomials: the plain reference's score interval (numpy roots and
    scipy's brentq, nothing shared with batcheval). Before: [0.4557, 0.8143], a multiclass
    adjusted delta interval over three classes, against the score interval [0.4459, 0.8076]."""
    counts = np.array([[[30, 5, 0], [6, 25, 0], [0, 0, 0]], [[9, 2, 1], [1, 8, 2], [3, 1, 7]]])
    low, high = iv.intervals(counts, ["informedness", "markedness"], 0.95)["informedness"]
    tn, fp, fn, tp = 30, 5, 6, 25
    want = score_interval(tp, tp + fn, fp, fp + tn, float(norm.ppf(0.975)))
    assert low[0] == pytest.approx(want[0], abs=1e-9)
    assert high[0] == pytest.approx(want[1], abs=1e-9)


def test_evaluate_gives_a_run_its_own_classes_interval_beside_a_run_of_more():
    """Run "a" has classes x and z only; beside run "b" of classes x, y, z (a three-class call) its
    four intervals are those of evaluating run "a" alone (a binary call)."""
    two = _frame(2, 80, 1, classes=np.array(["x", "z"])).with_columns(run=pl.lit("a"))
    three = _frame(3, 90, 2, classes=np.array(["x", "y", "z"])).with_columns(run=pl.lit("b"))
    both = be.evaluate(pl.concat([two, three]), by="run", measures=CHANCE, ci=0.95).sort("run")
    alone = be.evaluate(two, by="run", measures=CHANCE, ci=0.95)
    assert [both.row(0, named=True)[c] for c in ENDS] == [alone.row(0, named=True)[c] for c in ENDS]


def test_a_binary_score_based_kappa_interval_holds_its_estimate_to_the_last_bit():
    """Kappa of [[0, 4], [1, 0]] (every example wrong) is −8/17; its score-based interval's lower
    end is the centre chance_values computes, which lay 3e-16 above the estimate evaluate reports
    (the same table with an empty third class, cut to its two classes, showed it)."""
    for table in (np.array([[[0, 4], [1, 0]]]), np.array([[[0, 4, 0], [1, 0, 0], [0, 0, 0]]])):
        est = compute(table, ["kappa_cohen"])["kappa_cohen"][0]
        assert est == pytest.approx(-8 / 17, abs=1e-15)
        low, high = iv.intervals(table, ["kappa_cohen"], 0.95)["kappa_cohen"]
        assert low[0] <= est <= high[0]
