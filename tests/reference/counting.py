"""Plain-Python counting: one dict entry per group, one increment per row.

Independent of every batcheval encoding path, so the kernels' strategies
(private buffers, partitioned threads, hashed key spaces) can all be checked
against it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np
import polars as pl


def count_groups(
    df: pl.DataFrame, by: Sequence[str], label: str, prediction: str, classes: Sequence[object] | None = None
) -> tuple[list[tuple], list[object], np.ndarray]:
    """Sorted group keys, sorted classes, and ``counts[G, K, K]``."""
    rows = df.select([*by, label, prediction]).rows()
    if classes is None:
        classes = sorted({r[-2] for r in rows} | {r[-1] for r in rows})
    index = {c: i for i, c in enumerate(classes)}
    tables: dict[tuple, np.ndarray] = defaultdict(lambda: np.zeros((len(classes), len(classes)), np.int64))
    for *key, real, pred in rows:
        tables[tuple(key)][index[real], index[pred]] += 1
    keys = sorted(tables, key=lambda k: tuple((v is None, v) for v in k))
    counts = (
        np.stack([tables[k] for k in keys]) if keys else np.zeros((0, len(classes), len(classes)), np.int64)
    )
    return keys, list(classes), counts
