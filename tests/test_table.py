"""The accumulator's own contract: construction, merging and the long frame, with its errors
(each message names the argument or column and shows the bad value)."""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest

import batcheval as be

CT = be.ContingencyTable


@pytest.mark.parametrize("name", ["count", "real", "predicted"])
def test_to_long_refuses_a_key_named_like_its_own_columns(name):
    # the key column was overwritten by the cell's count (or class) without a word
    df = pl.DataFrame({name: [10, 10, 20], "label": [0, 1, 1], "prediction": [0, 1, 0]})
    t = CT.from_frame(df, by=name)
    message = f"key column {name!r} has the name of an output column (the long frame)"
    with pytest.raises(be.DuplicateColumnError, match=re.escape(message)):
        t.to_long()
    assert t.keys[name].to_list() == [10, 20]  # the table itself is intact


def test_tables_of_no_classes_merge():
    # numpy's "cannot reshape array of size 0 into shape (0,0)": reshape(-1, k, k) with k = 0
    empty = pl.DataFrame({"run": [], "label": [], "prediction": []})
    for t in (CT.from_frame(empty, by="run"), CT.from_frame(empty.drop("run"))):
        assert t.n_classes == 0 and len(t) == 0
        for merged in (t + t, sum([t, t]), CT.merge(t, t, t)):
            assert len(merged) == 0 and merged.n_classes == 0 and merged.by == t.by
            assert merged.counts.shape == (0, 0, 0)
    keyed = CT(pl.DataFrame({"run": [2, 1]}), [], np.zeros((2, 0, 0), dtype=np.int64))
    merged = keyed + CT(pl.DataFrame({"run": [3]}), [], np.zeros((1, 0, 0), dtype=np.int64))
    assert merged.keys["run"].to_list() == [1, 2, 3] and merged.counts.shape == (3, 0, 0)
    unkeyed = CT(pl.DataFrame(), [], np.zeros((1, 0, 0), dtype=np.int64))
    assert (unkeyed + unkeyed).counts.shape == (1, 0, 0)
