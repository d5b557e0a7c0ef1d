"""batcheval reproduces the figures printed in the source papers."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import batcheval as be
from tests.reference.worked_examples import ALL_EXAMPLES, CLAIMS


def _table_frame(table: np.ndarray) -> pl.DataFrame:
    """Expand a 2×2 count table into one row per example, as a user would have it."""
    real, pred = np.nonzero(table >= 0)
    reps = table[real, pred]
    return pl.DataFrame({"label": np.repeat(real, reps), "prediction": np.repeat(pred, reps)})


@pytest.mark.parametrize("example", ALL_EXAMPLES, ids=lambda e: e.source)
def test_printed_figures(example):
    positive = example.positive
    out = be.evaluate(
        _table_frame(example.table), classes=[0, 1], positive=positive, measures=list(example.expected)
    ).row(0, named=True)
    for name, (value, tol) in example.expected.items():
        assert out[name] == pytest.approx(value, abs=tol), f"{name}: {example.note}"


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: f"{c.source}:{c.measure}")
def test_printed_claims(claim):
    out = be.evaluate(
        _table_frame(claim.table), classes=[0, 1], positive=claim.positive, measures=[claim.measure]
    ).row(0, named=True)
    if claim.relation == "<":
        assert out[claim.measure] < claim.threshold
    else:
        assert out[claim.measure] > claim.threshold
