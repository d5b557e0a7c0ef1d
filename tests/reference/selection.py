"""Brute-force references for abstention and label alignment (spec §7, paper 001).

Shares no code with ``batcheval``: alignment enumerates every one-to-one
matching of predicted ids to classes with :mod:`itertools`, and abstention is
a plain row filter.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import polars as pl


def retained_rows(df: pl.DataFrame, prediction: str, abstain: Sequence[object]) -> pl.DataFrame:
    """The rows whose prediction is not an abstain value."""
    return df.filter(~pl.col(prediction).is_in(list(abstain)))


def matchings(n_classes: int, n_ids: int):
    """Every one-to-one matching that pairs min(C, K) ids with classes.

    Yields a tuple ``m`` of length K: ``m[i]`` is the class of id ``i`` or -1.
    """
    slots = list(range(n_classes)) + [-1] * max(0, n_ids - n_classes)
    seen = set()
    for perm in itertools.permutations(slots, n_ids):
        if perm not in seen:
            seen.add(perm)
            yield perm


def diagonal(table: np.ndarray, matching: Sequence[int]) -> int:
    """Sum of the counts an assignment matches: ``table[class(i), i]`` over matched ids."""
    return int(sum(table[c, i] for i, c in enumerate(matching) if c >= 0))


def kept(table: np.ndarray, matching: Sequence[int]) -> int:
    """Examples of the matched ids (the others are left out as catch-all clusters)."""
    return int(sum(table[:, i].sum() for i, c in enumerate(matching) if c >= 0))


def best_matchings(table: np.ndarray) -> tuple[int, list[tuple[int, ...]]]:
    """The maximum matched diagonal of a C×K table and every matching that reaches it and, among
    those, keeps the most examples."""
    n_classes, n_ids = table.shape
    scored = [((diagonal(table, m), kept(table, m)), m) for m in matchings(n_classes, n_ids)]
    top = max(s for s, _ in scored)
    return top[0], [m for s, m in scored if s == top]


def lexicographic_first(matchings_: list[tuple[int, ...]]) -> tuple[int, ...]:
    """The smallest matching comparing ids in order, an unmatched id (-1) ranking last."""
    return min(matchings_, key=lambda m: tuple(c if c >= 0 else 1 << 30 for c in m))


def aligned_table(table: np.ndarray, matching: Sequence[int]) -> tuple[np.ndarray, int]:
    """The C×C table after renaming matched ids, and the count of unmatched-id examples."""
    n_classes = table.shape[0]
    out = np.zeros((n_classes, n_classes), dtype=np.int64)
    dropped = 0
    for i, c in enumerate(matching):
        if c >= 0:
            out[:, c] += table[:, i]
        else:
            dropped += int(table[:, i].sum())
    return out, dropped


def cross_table(labels: Sequence[object], ids: Sequence[object], classes: Sequence[object]):
    """C×K counts of class × predicted id, ids in sorted order; returns (table, ids)."""
    id_list = sorted(set(ids))
    table = np.zeros((len(classes), len(id_list)), dtype=np.int64)
    row = {c: i for i, c in enumerate(classes)}
    col = {v: j for j, v in enumerate(id_list)}
    for y, p in zip(labels, ids, strict=True):
        table[row[y], col[p]] += 1
    return table, id_list
