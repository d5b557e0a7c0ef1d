"""The χ² tails of a multiclass table take (K_real − 1)(K_pred − 1) degrees of freedom from the
classes present in the group's own table (rows with a real example, columns with a prediction),
as scipy's ``chi2_contingency`` of the table without its empty rows and columns does: a group's
p-values do not depend on the other groups of the call or on classes named in ``classes=``."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import batcheval as be
from batcheval.measures import compute

STATS = ["chi2", "p_chi2", "g2", "p_g2"]
TAILS = ["p_chi2", "p_g2", "p_chi2_kb", "p_chi2_km", "p_chi2_kbm"]


def _two_folds() -> pl.DataFrame:
    """Fold 0 uses classes 0-9, fold 1 the classes 10-19: the call has 20 classes."""
    rng = np.random.default_rng(4)
    n = 300
    y = rng.integers(0, 10, n)
    p = np.where(rng.random(n) < 0.1, y, rng.integers(0, 10, n))
    return pl.DataFrame(
        {"fold": [0] * n + [1] * n, "label": np.r_[y, y + 10], "prediction": np.r_[p, p + 10]}
    )


def _scipy(labels: np.ndarray, predictions: np.ndarray) -> tuple[float, float, float, float]:
    """chi2, p, g2, p of scipy's test on the present sub-table."""
    rows, cols = np.unique(labels), np.unique(predictions)
    sub = np.zeros((len(rows), len(cols)), dtype=np.int64)
    np.add.at(sub, (np.searchsorted(rows, labels), np.searchsorted(cols, predictions)), 1)
    pearson = stats.chi2_contingency(sub, correction=False)
    ratio = stats.chi2_contingency(sub, correction=False, lambda_="log-likelihood")
    assert pearson.dof == (len(rows) - 1) * (len(cols) - 1)
    return pearson.statistic, pearson.pvalue, ratio.statistic, ratio.pvalue


@pytest.mark.parametrize("how", ["alone", "beside", "classes"])
def test_a_group_beside_other_classes_gets_scipys_p_values(how):
    df = _two_folds()
    fold0 = df.filter(pl.col("fold") == 0)
    if how == "alone":
        out = be.evaluate(fold0, by="fold", measures=STATS)
    elif how == "beside":  # the other fold brings 10 classes fold 0 never has (old: p = 1.0, 1.0)
        out = be.evaluate(df, by="fold", measures=STATS).filter(pl.col("fold") == 0)
    else:  # 30 classes named, 20 absent from the table
        out = be.evaluate(fold0, by="fold", measures=STATS, classes=list(range(30)))
    chi2, p_chi2, g2, p_g2 = _scipy(fold0["label"].to_numpy(), fold0["prediction"].to_numpy())
    row = out.row(0, named=True)
    assert row["chi2"] == pytest.approx(chi2, rel=1e-12)
    assert row["g2"] == pytest.approx(g2, rel=1e-12)
    assert row["p_chi2"] == pytest.approx(p_chi2, rel=1e-9)  # 0.2792, dof 81 (old beside: 1.0, dof 361)
    assert row["p_g2"] == pytest.approx(p_g2, rel=1e-9)  # 0.1762
    assert row["p_chi2"] == pytest.approx(0.2791903573, abs=1e-9)


def test_unequal_margins_take_k_real_minus_one_times_k_pred_minus_one():
    """4 real classes present, 3 predicted, in a call of 6: dof 3 · 2 = 6, as scipy."""
    rng = np.random.default_rng(7)
    y = rng.integers(0, 4, 200)
    p = np.where(rng.random(200) < 0.5, np.minimum(y, 2), rng.integers(0, 3, 200))
    df = pl.DataFrame({"label": y, "prediction": p})
    out = be.evaluate(df, measures=STATS, classes=list(range(6))).row(0, named=True)
    chi2, p_chi2, g2, p_g2 = _scipy(y, p)
    assert out["g2"] == pytest.approx(g2, rel=1e-12)
    assert out["chi2"] == pytest.approx(chi2, rel=1e-12)
    assert out["p_chi2"] == pytest.approx(p_chi2, rel=1e-9)
    assert out["p_g2"] == pytest.approx(p_g2, rel=1e-9)
    assert out["p_chi2"] == pytest.approx(stats.chi2.sf(chi2, 6), rel=1e-9)


def test_a_margin_of_one_class_has_nothing_to_test():
    """Every example of one real class: dof 0, p = 1 however many classes the call has; an empty
    group stays NaN."""
    counts = np.zeros((3, 5, 5), dtype=np.int64)
    counts[0, 2] = [3, 0, 4, 1, 0]  # one real class
    counts[1, :, 1] = [2, 0, 5, 1, 0]  # one predicted label
    out = compute(counts, TAILS)
    for name in TAILS:
        assert out[name][:2].tolist() == [1.0, 1.0], name
        assert np.isnan(out[name][2]), name


@st.composite
def _table_and_neighbours(draw):
    """A table over classes 0..k-1 and a call of K >= k classes with other groups' tables."""
    k = draw(st.integers(2, 5))
    big = draw(st.integers(k, 9))
    cells = draw(st.lists(st.integers(0, 9), min_size=k * k, max_size=k * k))
    own = np.array(cells, dtype=np.int64).reshape(k, k)
    others = draw(st.lists(st.lists(st.integers(0, 6), min_size=big * big, max_size=big * big), max_size=3))
    # the table's classes keep their order among the call's (a permutation would reorder the sums)
    place = sorted(draw(st.permutations(range(big)))[:k])
    return own, np.array(others, dtype=np.int64).reshape(-1, big, big), np.array(place)


@given(_table_and_neighbours())
def test_a_groups_p_values_do_not_depend_on_the_other_groups(case):
    """A table measured alone over its own classes, and placed among the classes of a larger call
    beside other groups' tables: the same p-values (bit for bit but for a 2 × 2 table, whose own
    formulas are binary), and scipy's on its present sub-table."""
    own, others, place = case
    big = others.shape[1]
    embedded = np.zeros((big, big), dtype=np.int64)
    embedded[np.ix_(place, place)] = own
    alone = compute(own[None], TAILS)
    beside = compute(np.concatenate([embedded[None], others]), TAILS)
    for name in TAILS:
        if own.shape[0] > 2:
            np.testing.assert_array_equal(beside[name][:1], alone[name], err_msg=name)
        else:  # alone, a 2 × 2 table takes the binary formulas (n · correlation², ...): a few ulp
            np.testing.assert_allclose(beside[name][:1], alone[name], rtol=1e-12, err_msg=name)
    sub = own[own.sum(axis=1) > 0][:, own.sum(axis=0) > 0]
    if min(sub.shape) >= 2:
        for name, lambda_ in (("p_chi2", None), ("p_g2", "log-likelihood")):
            ref = stats.chi2_contingency(sub, correction=False, lambda_=lambda_).pvalue
            assert beside[name][0] == pytest.approx(ref, rel=1e-9, abs=1e-300), name
    elif own.sum() > 0:
        assert all(beside[name][0] == 1.0 for name in TAILS)
