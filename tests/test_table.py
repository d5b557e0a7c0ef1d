"""The accumulator's own contract: construction, merging and the long frame, with its errors
(each message names the argument or column and shows the bad value)."""

from __future__ import annotations

import re

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
