"""``per_class=True`` rows are the one-vs-rest binary measures, ``positive=c``'s, bit for bit.

A binary table's class-0 row took its intervals from the table reoriented for class 0, while
``positive=0`` keeps the table as counted: informedness, markedness, correlation and kappa_cohen,
which do not depend on the positive class, got intervals an ulp apart from ``positive=0``'s and
from the class-1 row's (their point values agreed). With ``example=`` the clustered chance tests
(p_informedness, p_markedness, alpha_sbb) moved the same way, and a seeded bootstrap drew other
tables. The reference is the docstring: a ``per_class`` row is ``positive=c``'s row.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

import batcheval as be

SYMMETRIC = ("informedness", "markedness", "correlation", "kappa_cohen")


def _frame(k: int, seed: int, n: int = 300) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    label = rng.integers(0, k, n)
    pred = np.where(rng.random(n) < 0.8, label, rng.integers(0, k, n))
    return pl.DataFrame(
        {"run": np.arange(n) % 2, "example": np.arange(n) // 6, "label": label, "prediction": pred}
    )


def _same(a: pl.Series, b: pl.Series) -> bool:
    x, y = a.to_numpy(), b.to_numpy()
    if x.dtype.kind == "f":
        return bool(np.array_equal(x.view(np.int64), y.view(np.int64)))
    return a.equals(b)


def _check_rows_are_positive_c(df: pl.DataFrame, **kw) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pc = be.evaluate(df, by="run", ci=0.95, per_class=True, **kw)
        classes = sorted(pc["class"].unique().to_list())
        for c in classes:
            row = pc.filter(pl.col("class") == c).drop("class").sort("run")
            pos = be.evaluate(df, by="run", ci=0.95, positive=c, **kw).sort("run").select(row.columns)
            bad = [col for col in row.columns if not _same(row[col], pos[col])]
            assert not bad, (c, bad)
    assert any(col.endswith("_ci_low") for col in pc.columns)
    return pc


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(
    "kw",
    [{}, {"example": "example"}, {"ci_method": "bootstrap", "seed": 1, "n_boot": 200}],
    ids=["delta", "clustered", "bootstrap"],
)
def test_binary_per_class_rows_are_positive_c_and_agree_on_symmetric_measures(seed: int, kw: dict) -> None:
    pc = _check_rows_are_positive_c(_frame(2, seed), **kw)
    zero, one = (pc.filter(pl.col("class") == c).sort("run") for c in (0, 1))
    columns = [f"{m}_{end}" for m in SYMMETRIC for end in ("ci_low", "ci_high")]
    if "example" in kw:
        columns += ["p_informedness", "p_markedness", "alpha_sbb"]
    for col in columns + list(SYMMETRIC):
        assert _same(zero[col], one[col]), col


def test_binary_per_class_smoothed_bootstrap_rows_are_positive_c() -> None:
    # macro_f1 has no closed form: its interval is a seeded (smoothed) bootstrap of the table
    _check_rows_are_positive_c(_frame(2, 9), measures=["informedness", "f1", "macro_f1"], seed=3, n_boot=200)


@pytest.mark.parametrize("k", [3, 4])
@pytest.mark.parametrize("kw", [{}, {"example": "example"}], ids=["delta", "clustered"])
def test_multiclass_per_class_rows_are_still_positive_c(k: int, kw: dict) -> None:
    for seed in range(2):
        _check_rows_are_positive_c(_frame(k, 20 + seed, n=600), **kw)
